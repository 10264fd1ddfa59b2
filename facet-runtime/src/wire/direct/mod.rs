//! Reads faceteer sends itself ([`ReadPath::Direct`](crate::ReadPath::Direct)): the request's
//! JSON written straight from its input ([`request`]), signed with SigV4 by `aws-sigv4`, and
//! sent through the client's own HTTP connector (the same hyper client and connection pool
//! the SDK uses), skipping the SDK's orchestrator.
//!
//! What the SDK resolves is learned from the first data request it sends for the table
//! ([`Direct::learn`], from the [`Tap`](super::tap::Tap)): the endpoint it resolved, the
//! region and service it signed for, its credentials (resolved through the client's own
//! identity cache, so the credentials providers, their caching and refreshing are the
//! SDK's), its HTTP connector and its clock. Until then, and on a client this cannot
//! follow (interceptors of the user's own, no credentials), reads go through the SDK.
//!
//! Each read is tried as the SDK's standard retry strategy tries it: up to the client's
//! attempts, each within the attempt timeout, after a jittered exponential pause, again on
//! a transport failure, a timeout, a 5xx answer or a throttling error. An error answer is
//! read by the SDK itself ([`replay`]), so it is the very error the SDK gives.

mod json;
mod replay;
pub(crate) mod request;
mod sign;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{ConfigBag, RuntimeComponents};
use aws_sdk_dynamodb::error::SdkError;
use aws_smithy_runtime_api::client::auth::AuthSchemeId;
use aws_smithy_runtime_api::client::http::{
    HttpClient as _, HttpConnector as _, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::identity::{
    ResolveCachedIdentity as _, SharedIdentityResolver,
};
use aws_smithy_runtime_api::client::interceptors::Intercept as _;
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::GetIdentityResolver;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::byte_stream::ByteStream;
use aws_smithy_types::config_bag::Layer;

use super::sent::Failure;
use request::Request;

/// The DynamoDB operations whose requests go to the endpoint a table's reads go to.
const DATA_OPERATIONS: [&str; 10] = [
    "GetItem",
    "BatchGetItem",
    "Query",
    "Scan",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactGetItems",
    "TransactWriteItems",
];

/// The interceptors the SDK itself puts on a DynamoDB client, and faceteer's own: a client
/// with any other (the user's) reads through the SDK, which runs them. The SDK's feature
/// trackers and per-operation endpoint parameters and telemetry are known by their
/// suffixes. An SDK that adds one of its own sends reads itself until this list knows it
/// (`tests/direct_reads.rs` fails then).
const KNOWN_INTERCEPTORS: [&str; 14] = [
    "faceteer::DirectRead",
    "TokenBucketProvider",
    "ConnectionPoisoningInterceptor",
    "ServiceClockSkewInterceptor",
    "RequestInfoInterceptor",
    "UserAgentInterceptor",
    "InvocationIdInterceptor",
    "RecursionDetectionInterceptor",
    "EnforceContentLength",
    "MetricsInterceptor",
    "TelemetryBytesInterceptor",
    "StalledStreamProtectionInterceptor",
    "AddTokenInterceptor",
    "DynamoDbMetricsInterceptor",
];

/// Whether an interceptor is the SDK's own or faceteer's.
fn known(name: &str) -> bool {
    KNOWN_INTERCEPTORS.contains(&name)
        || name.ends_with("FeatureTrackerInterceptor")
        || name.ends_with("EndpointParamsInterceptor")
        || name.ends_with("TelemetryInputCaptureInterceptor")
}

/// The SigV4 auth scheme.
const SIGV4: AuthSchemeId = AuthSchemeId::new("sigv4");

/// Where a table's own reads go, once learned; shared by every clone of the table and the
/// interceptor that learns it.
#[derive(Clone, Default)]
pub(crate) struct Direct(Arc<OnceLock<Option<Arc<Route>>>>);

impl std::fmt::Debug for Direct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Direct")
            .field(&self.route().is_some())
            .finish()
    }
}

/// What a read needs to be sent without the SDK.
pub(crate) struct Route {
    components: RuntimeComponents,
    connector: SharedHttpConnector,
    resolver: SharedIdentityResolver,
    /// The settings the identity cache reads (the client's retries and timeouts).
    bag: ConfigBag,
    endpoint: String,
    host: String,
    region: String,
    service: String,
}

impl Direct {
    /// The route, once learned and when reads can take it.
    pub(crate) fn route(&self) -> Option<&Route> {
        self.0.get().and_then(|r| r.as_deref())
    }

    /// Learn the route from a data request the SDK is about to send (`request`, signed),
    /// with the client's components and configuration: once.
    pub(crate) fn learn(
        &self,
        request: &HttpRequest,
        components: &RuntimeComponents,
        cfg: &ConfigBag,
    ) {
        if self.0.get().is_some() {
            return;
        }
        let headers = request.headers();
        let operation = headers
            .get("x-amz-target")
            .and_then(|t| t.strip_prefix("DynamoDB_20120810."));
        if !operation.is_some_and(|o| DATA_OPERATIONS.contains(&o)) {
            return;
        }
        let route = Route::of(request, components, cfg);
        if route.is_none() {
            tracing::debug!("faceteer reads of this table go through the SDK");
        }
        let _ = self.0.set(route.map(Arc::new));
    }
}

impl Route {
    fn of(request: &HttpRequest, components: &RuntimeComponents, cfg: &ConfigBag) -> Option<Route> {
        let foreign = components
            .interceptors()
            .map(|i| i.name())
            .find(|n| !known(n));
        if let Some(name) = foreign {
            tracing::debug!(interceptor = name, "a client with interceptors of its own");
            return None;
        }
        // `Credential=<key>/<date>/<region>/<service>/aws4_request`: what the SDK signed for.
        let authorization = request.headers().get("authorization")?;
        let scope = authorization
            .split("Credential=")
            .nth(1)?
            .split(',')
            .next()?;
        let mut parts = scope.split('/').skip(2);
        let (region, service) = (parts.next()?.to_owned(), parts.next()?.to_owned());
        if !authorization.starts_with("AWS4-HMAC-SHA256 ") || parts.next() != Some("aws4_request") {
            return None;
        }
        let uri = request.uri();
        let (scheme, rest) = uri.split_once("://")?;
        let host = rest.split('/').next()?.to_owned();
        // The path the SDK sent to (`/` unless the endpoint has one of its own).
        let path = &rest[host.len()..];
        if request.headers().get("host").is_some_and(|h| h != host) || path.contains('?') {
            return None;
        }
        let endpoint = format!(
            "{scheme}://{host}{}",
            if path.is_empty() { "/" } else { path }
        );
        let timeouts = cfg.load::<TimeoutConfig>().cloned();
        let mut settings = HttpConnectorSettings::builder();
        if let Some(t) = &timeouts {
            settings.set_connect_timeout(t.connect_timeout());
            settings.set_read_timeout(t.read_timeout());
        }
        let connector = components
            .http_client()?
            .http_connector(&settings.build(), components);
        let resolver = components.identity_resolver(SIGV4)?;
        let mut layer = Layer::new("faceteer::direct");
        if let Some(t) = timeouts {
            layer.store_put(t);
        }
        if let Some(r) = cfg.load::<RetryConfig>().cloned() {
            layer.store_put(r);
        }
        Some(Route {
            components: components.clone(),
            connector,
            resolver,
            bag: ConfigBag::of_layers(vec![layer]),
            endpoint,
            host,
            region,
            service,
        })
    }
}

/// How one try ended.
enum Try {
    /// A successful answer: its body and request id.
    Answered(bytes::Bytes, Option<String>),
    /// The server refused it.
    Refused(HttpResponse),
}

/// Why one try failed before an answer arrived.
enum Lost {
    Connector(ConnectorError),
    /// The answer's body could not be read.
    Body(String),
    /// Signing failed: nothing was sent.
    Unsigned(aws_smithy_runtime_api::box_error::BoxError),
}

/// Send `request` (whose JSON is `body`) on `route`: up to `attempts` tries, each within
/// `attempt`, paused between them as `retry` says (a write: one try, its caller decides what
/// a failed one means). The answer's body and request id, or the SDK's error for the last
/// try.
pub(crate) async fn send<R: Request>(
    route: &Route,
    request: R,
    body: Vec<u8>,
    attempts: u32,
    attempt: Duration,
    retry: Option<&RetryConfig>,
) -> Result<(String, Option<String>), Failure<R::Error>> {
    let body = bytes::Bytes::from(body);
    let mut tried = 1;
    loop {
        let last = tried >= attempts;
        let outcome = tokio::time::timeout(attempt, route.try_once::<R>(&body)).await;
        let error = match outcome {
            Ok(Ok(Try::Answered(bytes, id))) => {
                return String::from_utf8(Vec::from(bytes))
                    .map(|json| (json, id))
                    .map_err(|e| Failure::Sdk(crate::wire::sent::unreadable(e)));
            }
            Ok(Ok(Try::Refused(answer))) => {
                if last || !worth_retrying(&answer) {
                    return Err(Failure::Sdk(replay::error(request, answer).await));
                }
                tracing::debug!(
                    status = answer.status().as_u16(),
                    "a read refused; trying again"
                );
                None
            }
            Ok(Err(Lost::Connector(e))) => {
                let transient = e.is_io()
                    || e.is_timeout()
                    || e.as_other() == Some(aws_smithy_types::retry::ErrorKind::TransientError);
                if last || !transient {
                    Some(Failure::Sdk(SdkError::dispatch_failure(e)))
                } else {
                    tracing::debug!(error = %e, "a read's connection failed; trying again");
                    None
                }
            }
            Ok(Err(Lost::Body(why))) => last.then_some(Failure::BodyUnread(why)),
            Ok(Err(Lost::Unsigned(e))) => {
                return Err(Failure::Sdk(SdkError::construction_failure(e)));
            }
            Err(_) => last.then(|| {
                let why =
                    format!("the read did not finish within the attempt timeout ({attempt:?})");
                Failure::Sdk(SdkError::timeout_error(why))
            }),
        };
        if let Some(error) = error {
            return Err(error);
        }
        tokio::time::sleep(backoff(retry, tried)).await;
        tried += 1;
    }
}

/// The pause before try `tried + 1`, as the SDK's standard strategy takes it: a random part
/// of `initial × 2^(tried-1)`, at most the maximum.
fn backoff(retry: Option<&RetryConfig>, tried: u32) -> Duration {
    let (initial, max) = retry.map_or((Duration::from_secs(1), Duration::from_secs(20)), |r| {
        (r.initial_backoff(), r.max_backoff())
    });
    let exponential = initial.as_secs_f64() * 2f64.powi(tried.saturating_sub(1).min(30) as i32);
    Duration::from_secs_f64(fastrand::f64() * exponential.min(max.as_secs_f64()))
}

/// The error codes the SDK's standard strategy tries again (throttling and transient).
const RETRIED_CODES: [&str; 17] = [
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
    "PriorRequestNotComplete",
    "EC2ThrottledException",
    "RequestTimeout",
    "RequestTimeoutException",
    "InternalServerError",
];

/// Whether a refusal is worth another try: a 5xx, or a throttling or transient error.
fn worth_retrying(answer: &HttpResponse) -> bool {
    let status = answer.status().as_u16();
    if matches!(status, 500 | 502 | 503 | 504) {
        return true;
    }
    let body = answer.body().bytes().unwrap_or_default();
    error_code(answer.headers().get("x-amzn-errortype"), body)
        .is_some_and(|code| RETRIED_CODES.contains(&code.as_str()))
}

/// An error answer's code: `X-Amzn-ErrorType`, else the body's `__type`, without the
/// namespace before `#` and the detail after `:`.
fn error_code(header: Option<&str>, body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Body {
        #[serde(rename = "__type", alias = "code", alias = "Code")]
        kind: Option<String>,
    }
    let raw = match header {
        Some(h) => h.to_owned(),
        None => serde_json::from_slice::<Body>(body).ok()?.kind?,
    };
    let code = raw.split(':').next().unwrap_or_default();
    Some(code.rsplit('#').next().unwrap_or(code).to_owned())
}

impl Route {
    /// One try: signed with the credentials of now, sent, and its answer read.
    async fn try_once<R: Request>(&self, body: &bytes::Bytes) -> Result<Try, Lost> {
        let identity = self
            .components
            .identity_cache()
            .resolve_cached_identity(self.resolver.clone(), &self.components, &self.bag)
            .await
            .map_err(Lost::Unsigned)?;
        let now = self
            .components
            .time_source()
            .map_or_else(std::time::SystemTime::now, |t| t.now());
        let request = sign::request(self, R::OPERATION, body, &identity, now)?;
        let mut answer = self
            .connector
            .call(request)
            .await
            .map_err(Lost::Connector)?;
        if !answer.status().is_success() {
            // The refusal is read whole, for the SDK to read it again.
            let bytes = ByteStream::new(answer.take_body())
                .collect()
                .await
                .map_err(|e| Lost::Body(e.to_string()))?;
            *answer.body_mut() = SdkBody::from(bytes.into_bytes());
            return Ok(Try::Refused(answer));
        }
        let id = answer
            .headers()
            .get("x-amzn-requestid")
            .or_else(|| answer.headers().get("x-amz-request-id"))
            .map(str::to_owned);
        let bytes = ByteStream::new(answer.take_body())
            .collect()
            .await
            .map_err(|e| Lost::Body(e.to_string()))?
            .into_bytes();
        Ok(Try::Answered(bytes, id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_lose_their_namespace_and_detail() {
        let body = br#"{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"slow"}"#;
        assert_eq!(
            error_code(None, body).as_deref(),
            Some("ThrottlingException")
        );
        let header = Some("ProvisionedThroughputExceededException:http://internal.amazon.com/");
        assert_eq!(
            error_code(header, b"").as_deref(),
            Some("ProvisionedThroughputExceededException")
        );
        assert_eq!(error_code(None, b"not json"), None);
        assert_eq!(error_code(None, b"{}"), None);
    }

    #[test]
    fn pauses_grow_to_their_bound() {
        let retry = RetryConfig::standard()
            .with_initial_backoff(Duration::from_millis(100))
            .with_max_backoff(Duration::from_millis(350));
        for _ in 0..100 {
            assert!(backoff(Some(&retry), 1) <= Duration::from_millis(100));
            assert!(backoff(Some(&retry), 2) <= Duration::from_millis(200));
            assert!(backoff(Some(&retry), 40) <= Duration::from_millis(350));
        }
        assert!(backoff(None, 1) <= Duration::from_secs(1));
    }

    #[test]
    fn only_the_sdks_interceptors_are_known() {
        assert!(known("faceteer::DirectRead"));
        assert!(known("QueryEndpointParamsInterceptor"));
        assert!(known("RetryModeFeatureTrackerInterceptor"));
        assert!(!known("header-log"));
        assert!(!known("MyTracingInterceptor"));
    }
}
