//! The transport of reads the SDK sends ([`ReadPath::SdkSent`](crate::ReadPath::SdkSent), and
//! [`ReadPath::Direct`](crate::ReadPath::Direct) until faceteer can send them itself): the
//! SDK signs, retries, resolves the endpoint and sends; an interceptor takes the body of a
//! successful answer before the SDK decodes it, so that faceteer reads it straight into
//! records ([`faceteer_core::wire`]).
//!
//! The interceptor ([`Tap`]) sits on every client a [`Table`](crate::Table) makes. It notes
//! the server requests go to, learns from the first data request the route faceteer's own
//! reads take ([`super::direct`]), and adds request hooks' headers. It takes bodies only
//! inside [`tapped`]: a call made there finds a slot in its task, and the interceptor moves
//! the answer's body into it, leaving the SDK an empty answer (`{}`) to decode. Errors are
//! never taken: the SDK decodes them, with the server's words.

use std::cell::RefCell;
use std::future::Future;
use std::time::Duration;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::{BoxError, SdkError};
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::byte_stream::ByteStream;

use super::sent::{request_headers, text, Answer, Failure};

tokio::task_local! {
    /// The body of the answer to the request under way in this task, once taken.
    static SLOT: RefCell<Option<SdkBody>>;
}

/// The server a client's requests go to (host, port), once one was sent: what spans
/// name as `server.address` and `server.port`.
pub(crate) type Server = std::sync::Arc<std::sync::OnceLock<(String, Option<i64>)>>;

/// Takes the body of a successful answer to a request sent inside [`tapped`], and notes
/// the server requests go to.
#[derive(Debug)]
pub(crate) struct Tap {
    server: Server,
    /// The table it serves, and where the table's own requests go, learned from the first
    /// request the SDK sends for faceteer about it.
    table: std::sync::Arc<str>,
    direct: super::direct::Direct,
}

impl Intercept for Tap {
    fn name(&self) -> &'static str {
        "faceteer::DirectRead"
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.direct
            .learn(&self.table, context.request(), components, cfg);
        if self.server.get().is_none() {
            if let Some(server) = server_of(context.request().uri()) {
                let _ = self.server.set(server);
            }
        }
        Ok(())
    }

    fn modify_before_signing(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<
            '_,
        >,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if let Some(headers) = request_headers() {
            for (name, value) in headers.iter() {
                context
                    .request_mut()
                    .headers_mut()
                    .insert(name.clone(), value.clone());
            }
        }
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if !context.response().status().is_success() {
            return Ok(());
        }
        // Outside `tapped` there is no slot: the SDK decodes the answer as usual.
        let _ = SLOT.try_with(|slot| {
            // A client tapped twice: the first tap has the body.
            if slot.borrow().is_some() {
                return;
            }
            let body = std::mem::replace(context.response_mut().body_mut(), SdkBody::from("{}"));
            *slot.borrow_mut() = Some(body);
        });
        Ok(())
    }
}

/// The host and port of an endpoint URL.
fn server_of(endpoint: &str) -> Option<(String, Option<i64>)> {
    let (scheme, rest) = endpoint.split_once("://").unwrap_or(("", endpoint));
    let default_port = match scheme {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    };
    let authority = rest.split('/').next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => {
            Some((host.to_owned(), port.parse().ok()))
        }
        _ => Some((authority.to_owned(), default_port)),
    }
}

/// `client` with the [`Tap`] of table `table` (inert outside [`tapped`]), where it notes the
/// server, and the route it learns for the table's direct requests.
pub(crate) fn with_tap(
    client: &aws_sdk_dynamodb::Client,
    table: std::sync::Arc<str>,
) -> (aws_sdk_dynamodb::Client, Server, super::direct::Direct) {
    let server = Server::default();
    let direct = super::direct::Direct::default();
    let tap = Tap {
        server: server.clone(),
        table,
        direct: direct.clone(),
    };
    let config = client.config().to_builder().interceptor(tap).build();
    (aws_sdk_dynamodb::Client::from_conf(config), server, direct)
}

/// Send a request (`send`: the SDK's `send()`) with its answer's body taken before the SDK
/// decodes it, then read that body within `timeout`.
pub(crate) async fn tapped<T: aws_sdk_dynamodb::operation::RequestId, E>(
    timeout: Duration,
    send: impl Future<Output = Result<T, SdkError<E, HttpResponse>>>,
) -> Result<Answer<T>, Failure<E>> {
    let (output, body) = SLOT
        .scope(RefCell::new(None), async move {
            let output = send.await?;
            Ok::<_, SdkError<E, HttpResponse>>((output, SLOT.with(|slot| slot.take())))
        })
        .await
        .map_err(Failure::Sdk)?;
    let Some(body) = body else {
        return Ok(Answer::Decoded(output));
    };
    let read = tokio::time::timeout(timeout, ByteStream::new(body).collect()).await;
    let bytes = match read {
        Ok(Ok(bytes)) => bytes.into_bytes(),
        Ok(Err(e)) => return Err(Failure::BodyUnread(e.to_string())),
        Err(_) => {
            let why = "it was not read within the attempt timeout";
            return Err(Failure::BodyUnread(why.into()));
        }
    };
    let id = output.request_id().map(str::to_owned);
    text(bytes).map(|json| Answer::Json(json, id))
}

#[cfg(test)]
mod tests {
    use super::server_of;

    #[test]
    fn servers_are_host_and_port() {
        assert_eq!(
            server_of("http://127.0.0.1:8000/"),
            Some(("127.0.0.1".into(), Some(8000)))
        );
        assert_eq!(
            server_of("https://dynamodb.eu-west-1.amazonaws.com/"),
            Some(("dynamodb.eu-west-1.amazonaws.com".into(), Some(443)))
        );
    }
}
