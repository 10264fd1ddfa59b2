//! Errors read by the SDK: a refused request faceteer sent itself is sent again through an
//! SDK client whose HTTP client sends nothing and answers with the server's answer, so the
//! error is exactly the one the SDK gives (its type, code, message, modelled members such
//! as a failed condition's item, and request id).

use std::cell::RefCell;
use std::sync::LazyLock;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::Client;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;

use super::request::Request;

tokio::task_local! {
    /// The answer the replaying client gives to the request it is handed in this task.
    static ANSWER: RefCell<Option<HttpResponse>>;
}

/// The HTTP client of the replaying SDK client: it answers from [`ANSWER`], sending nothing.
#[derive(Debug, Clone, Copy)]
struct Replay;

impl HttpConnector for Replay {
    fn call(&self, _: HttpRequest) -> HttpConnectorFuture {
        let answer = ANSWER.try_with(|a| a.borrow_mut().take()).ok().flatten();
        HttpConnectorFuture::ready(answer.ok_or_else(|| {
            ConnectorError::other("faceteer's replay has no answer to give".into(), None)
        }))
    }
}

impl HttpClient for Replay {
    fn http_connector(
        &self,
        _: &HttpConnectorSettings,
        _: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(Replay)
    }
}

/// The replaying client: no retries, no network, credentials only to sign what it never
/// sends.
static CLIENT: LazyLock<Client> = LazyLock::new(|| {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::from_static("us-east-1"))
        .endpoint_url("http://replay.invalid")
        .credentials_provider(Credentials::new("replay", "replay", None, None, "faceteer"))
        .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled())
        .http_client(Replay)
        .build();
    Client::from_conf(config)
});

/// The SDK's error for `request`, refused with `answer`.
pub(crate) async fn error<R: Request>(
    request: R,
    answer: HttpResponse,
) -> SdkError<R::Error, HttpResponse> {
    let replayed = ANSWER
        .scope(
            RefCell::new(Some(answer)),
            Box::pin(request.send_by(&CLIENT)),
        )
        .await;
    match replayed {
        Err(e) => e,
        // A refusal the SDK reads as a success (a status outside 2xx with an answer it
        // accepts): an answer faceteer cannot read.
        Ok(_) => crate::wire::sent::unreadable("an error answer read as a success"),
    }
}
