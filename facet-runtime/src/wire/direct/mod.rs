//! Requests faceteer sends itself ([`ReadPath::Direct`](crate::ReadPath::Direct),
//! [`WritePath::Direct`](crate::WritePath::Direct)): the request's JSON written straight from
//! its input ([`request`]), signed with SigV4 by `aws-sigv4`, and sent through the client's
//! own HTTP connector (the same hyper client and connection pool the SDK uses), skipping the
//! SDK's orchestrator.
//!
//! What the SDK resolves is learned from the first request the SDK sends for the table on
//! faceteer's behalf ([`Direct::learn`], from the [`Tap`](super::tap::Tap)): the endpoint it
//! resolved, the region and service it signed for, its credentials (resolved through the
//! client's own identity cache, so the credentials providers, their caching and refreshing
//! are the SDK's), its HTTP client and its clock. Until then, and on a client this cannot
//! follow (interceptors of the user's own, adaptive retries, no credentials), the SDK sends.
//!
//! Reads are tried as the SDK's standard retry strategy tries them: up to the client's
//! attempts, each within the attempt timeout and all within the operation timeout, after a
//! jittered exponential pause, while the retry quota lasts, again on a transport failure, a
//! timeout, a 5xx answer, a throttling error, or a refusal of a signature made with a clock
//! the server's `Date` shows to be skewed (the skew is then corrected, as the SDK corrects
//! it). Writes are tried once: their callers decide what a failed try means. An error
//! answer is read by the SDK itself ([`replay`]), so it is the very error the SDK gives.

mod json;
mod replay;
pub(crate) mod request;
mod sign;

use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{ConfigBag, RuntimeComponents};
use aws_sdk_dynamodb::error::SdkError;
use aws_smithy_runtime_api::client::auth::AuthSchemeId;
use aws_smithy_runtime_api::client::http::{
    HttpClient as _, HttpConnector as _, HttpConnectorSettings, SharedHttpClient,
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
use aws_smithy_types::date_time::Format;

use super::sent::Failure;
use request::Request;

/// The operations a route is learned from: requests about the table alone (transactions may
/// name other tables, whose endpoints may differ).
const LEARNED_FROM: [&str; 8] = [
    "GetItem",
    "BatchGetItem",
    "Query",
    "Scan",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
];

/// The interceptors the SDK itself puts on a DynamoDB client (aws-sdk-dynamodb 1.136), and
/// faceteer's own: a client with any other (the user's) is sent through the SDK, which runs
/// them. An SDK that adds one of its own is sent through the SDK until this list knows it
/// (`tests/direct_requests.rs` fails then).
const KNOWN_INTERCEPTORS: [&str; 16] = [
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
    "RetryModeFeatureTrackerInterceptor",
    "AccountIdEndpointFeatureTrackerInterceptor",
    "EndpointOverrideFeatureTrackerInterceptor",
    "ObservabilityFeatureTrackerInterceptor",
];

/// Whether an interceptor is the SDK's own or faceteer's: one of [`KNOWN_INTERCEPTORS`], or
/// one the SDK adds for the operation being sent (`GetItemEndpointParamsInterceptor`, …).
fn known(name: &str) -> bool {
    let per_operation = [
        "EndpointParamsInterceptor",
        "TelemetryInputCaptureInterceptor",
    ]
    .iter()
    .any(|suffix| {
        name.strip_suffix(suffix)
            .is_some_and(|operation| LEARNED_FROM.contains(&operation))
    });
    KNOWN_INTERCEPTORS.contains(&name) || per_operation
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

/// What a request needs to be sent without the SDK.
pub(crate) struct Route {
    components: RuntimeComponents,
    http: SharedHttpClient,
    resolver: SharedIdentityResolver,
    /// The settings the identity cache reads (the client's retries and timeouts).
    bag: ConfigBag,
    endpoint: String,
    host: String,
    region: String,
    service: String,
    /// How far the server's clock is ahead of this one, in milliseconds (measured from
    /// answers' `Date`, as the SDK measures it): added to the time requests are signed at.
    skew: AtomicI64,
    /// The retry quota (the SDK's standard strategy's token bucket).
    quota: AtomicU32,
}

impl Direct {
    /// The route, once learned and when reads can take it.
    pub(crate) fn route(&self) -> Option<&Route> {
        self.0.get().and_then(|r| r.as_deref())
    }

    /// Whether the route is settled (learned, or known not to be taken).
    pub(crate) fn settled(&self) -> bool {
        self.0.get().is_some()
    }

    /// Learn the route from a request the SDK is about to send (`request`, signed) for
    /// faceteer about table `table`, with the client's components and configuration: once.
    pub(crate) fn learn(
        &self,
        table: &str,
        request: &HttpRequest,
        components: &RuntimeComponents,
        cfg: &ConfigBag,
    ) {
        if self.settled() || super::sent::sending_for().as_deref() != Some(table) {
            return;
        }
        let headers = request.headers();
        let operation = headers
            .get("x-amz-target")
            .and_then(|t| t.strip_prefix("DynamoDB_20120810."));
        if !operation.is_some_and(|o| LEARNED_FROM.contains(&o)) {
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
        let adaptive = cfg
            .load::<RetryConfig>()
            .is_some_and(|r| r.mode() == aws_sdk_dynamodb::config::retry::RetryMode::Adaptive);
        if adaptive {
            tracing::debug!("a client with adaptive retries (only the SDK paces them)");
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
        let http = components.http_client()?;
        let resolver = components.identity_resolver(SIGV4)?;
        let mut layer = Layer::new("faceteer::direct");
        if let Some(t) = cfg.load::<TimeoutConfig>().cloned() {
            layer.store_put(t);
        }
        if let Some(r) = cfg.load::<RetryConfig>().cloned() {
            layer.store_put(r);
        }
        Some(Route {
            components: components.clone(),
            http,
            resolver,
            bag: ConfigBag::of_layers(vec![layer]),
            endpoint,
            host,
            region,
            service,
            skew: AtomicI64::new(0),
            quota: AtomicU32::new(QUOTA),
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

/// A try that failed, kept to be reported if it is the last.
enum Failed<E> {
    Refused(HttpResponse),
    Error(Failure<E>),
}

/// Why one try failed before an answer arrived.
enum Lost {
    Connector(ConnectorError),
    /// The answer's body could not be read.
    Body(String),
    /// Signing failed: nothing was sent.
    Unsigned(aws_smithy_runtime_api::box_error::BoxError),
}

/// How a request is tried.
pub(crate) struct Tries<'a> {
    /// Tries at most (a write: 1; its caller decides what a failed one means).
    pub(crate) attempts: u32,
    /// The bound of one try, from sending to the whole answer.
    pub(crate) attempt: Duration,
    /// The bound of all tries and pauses.
    pub(crate) operation: Duration,
    /// The pauses between tries.
    pub(crate) retry: Option<&'a RetryConfig>,
    /// The connector's own timeouts (connect, read): the client's.
    pub(crate) connector: HttpConnectorSettings,
}

impl Tries<'_> {
    /// How `client` tries a request: `attempts` tries, each within `attempt`, all within
    /// `operation`.
    pub(crate) fn of(
        client: &aws_sdk_dynamodb::Client,
        attempts: u32,
        attempt: Duration,
        operation: Duration,
    ) -> Tries<'_> {
        let config = client.config();
        let mut connector = HttpConnectorSettings::builder();
        if let Some(t) = config.timeout_config() {
            connector.set_connect_timeout(t.connect_timeout());
            connector.set_read_timeout(t.read_timeout());
        }
        Tries {
            attempts,
            attempt,
            operation,
            retry: config.retry_config(),
            connector: connector.build(),
        }
    }
}

/// The retry quota's size, and what a retry takes from it (a timeout: twice as much), as
/// in the SDK's standard strategy.
const QUOTA: u32 = 500;
const RETRY_COST: u32 = 5;
const TIMEOUT_RETRY_COST: u32 = 10;

/// Send `request` (whose JSON is `body`) on `route`, tried as `tries` says. The answer's
/// body and request id, or the SDK's error for the last try.
pub(crate) async fn send<R: Request>(
    route: &Route,
    request: R,
    body: Vec<u8>,
    tries: Tries<'_>,
) -> Result<(String, Option<String>), Failure<R::Error>> {
    let operation = tries.operation;
    match tokio::time::timeout(operation, send_tries(route, request, body, &tries)).await {
        Ok(result) => result,
        Err(_) => {
            let why =
                format!("the request did not finish within the operation timeout ({operation:?})");
            Err(Failure::Sdk(SdkError::timeout_error(why)))
        }
    }
}

async fn send_tries<R: Request>(
    route: &Route,
    request: R,
    body: Vec<u8>,
    tries: &Tries<'_>,
) -> Result<(String, Option<String>), Failure<R::Error>> {
    let body = bytes::Bytes::from(body);
    let mut tried = 1;
    // What the last retry took from the quota (given back when it succeeds).
    let mut taken = 0;
    loop {
        let last = tried >= tries.attempts;
        let outcome = tokio::time::timeout(tries.attempt, route.try_once::<R>(&body, tries)).await;
        // Worth another try, at `cost` to the quota; `failed` if the quota is spent.
        let (cost, failed) = match outcome {
            Ok(Ok(Try::Answered(bytes, id))) => {
                route.succeeded(taken);
                return super::sent::text(bytes).map(|json| (json, id));
            }
            Ok(Ok(Try::Refused(answer))) => {
                if last || !route.worth_retrying(&answer) {
                    return Err(Failure::Sdk(replay::error(request, answer).await));
                }
                tracing::debug!(
                    status = answer.status().as_u16(),
                    "a request refused; trying again"
                );
                (RETRY_COST, Failed::Refused(answer))
            }
            Ok(Err(Lost::Connector(e))) => {
                let transient = e.is_io()
                    || e.is_timeout()
                    || e.as_other() == Some(aws_smithy_types::retry::ErrorKind::TransientError);
                if last || !transient {
                    return Err(Failure::Sdk(SdkError::dispatch_failure(e)));
                }
                tracing::debug!(error = %e, "a request's connection failed; trying again");
                let failure = Failure::Sdk(SdkError::dispatch_failure(e));
                (TIMEOUT_RETRY_COST, Failed::Error(failure))
            }
            Ok(Err(Lost::Body(why))) if last => return Err(Failure::BodyUnread(why)),
            Ok(Err(Lost::Body(why))) => {
                (TIMEOUT_RETRY_COST, Failed::Error(Failure::BodyUnread(why)))
            }
            Ok(Err(Lost::Unsigned(e))) => {
                return Err(Failure::Sdk(SdkError::construction_failure(e)));
            }
            Err(_) => {
                let why = format!(
                    "the request did not finish within the attempt timeout ({:?})",
                    tries.attempt
                );
                let failure = Failure::Sdk(SdkError::timeout_error(why));
                if last {
                    return Err(failure);
                }
                (TIMEOUT_RETRY_COST, Failed::Error(failure))
            }
        };
        if !route.take_quota(cost) {
            tracing::debug!("the retry quota is spent: no more tries");
            return Err(match failed {
                Failed::Refused(answer) => Failure::Sdk(replay::error(request, answer).await),
                Failed::Error(failure) => failure,
            });
        }
        taken = cost;
        tokio::time::sleep(backoff(tries.retry, tried)).await;
        tried += 1;
    }
}

/// The pause before try `tried + 1`, as the SDK's standard strategy takes it: a random part
/// of `initial × 2^(tried-1)`, at most the maximum (the SDK's 1 s and 20 s when unset).
fn backoff(retry: Option<&RetryConfig>, tried: u32) -> Duration {
    let (initial, max) = retry.map_or((Duration::from_secs(1), Duration::from_secs(20)), |r| {
        (r.initial_backoff(), r.max_backoff())
    });
    crate::pause::full_jitter(initial, max, tried)
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

/// The error codes of a signature the server refused, which a skewed clock explains (the
/// SDK's list).
const CLOCK_SKEW_CODES: [&str; 5] = [
    "InvalidSignatureException",
    "SignatureDoesNotMatch",
    "AuthFailure",
    "RequestTimeTooSkewed",
    "AccessDeniedException",
];

/// A skew under this is not worth a retry (the SDK's threshold).
const SKEW_THRESHOLD_MS: u64 = 4 * 60 * 1000;

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
    /// Whether a refusal is worth another try: a 5xx, a throttling or transient error, or a
    /// signature refused when the server's clock is measured more than 4 minutes away.
    fn worth_retrying(&self, answer: &HttpResponse) -> bool {
        let status = answer.status().as_u16();
        if matches!(status, 500 | 502 | 503 | 504) {
            return true;
        }
        let body = answer.body().bytes().unwrap_or_default();
        let Some(code) = error_code(answer.headers().get("x-amzn-errortype"), body) else {
            return false;
        };
        RETRIED_CODES.contains(&code.as_str())
            || (CLOCK_SKEW_CODES.contains(&code.as_str())
                && self.skew.load(Ordering::Relaxed).unsigned_abs() > SKEW_THRESHOLD_MS)
    }

    /// Take `cost` from the retry quota; `false` when it holds less.
    fn take_quota(&self, cost: u32) -> bool {
        self.quota
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |q| {
                q.checked_sub(cost)
            })
            .is_ok()
    }

    /// A try succeeded after a retry that took `taken` (given back), or at once (1 back).
    fn succeeded(&self, taken: u32) {
        let back = if taken > 0 { taken } else { 1 };
        let _ = self
            .quota
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |q| {
                Some(q.saturating_add(back).min(QUOTA))
            });
    }

    /// The time to sign at: this clock's, corrected by the skew measured.
    fn signing_time(&self, now: SystemTime) -> SystemTime {
        let skew = self.skew.load(Ordering::Relaxed);
        let shift = Duration::from_millis(skew.unsigned_abs());
        if skew >= 0 {
            now.checked_add(shift)
        } else {
            now.checked_sub(shift)
        }
        .unwrap_or(now)
    }

    /// Measure the skew from an answer's `Date`, sent at `sent` and received at `received`
    /// by this clock: the server's time less the round trip's midpoint (as the SDK measures
    /// it). Answers served from a cache (`Age`) or over a round trip longer than 15 minutes
    /// say nothing.
    fn measure_skew(&self, answer: &HttpResponse, sent: SystemTime, received: SystemTime) {
        if answer.headers().get("age").is_some() {
            return;
        }
        let Some(server) = answer
            .headers()
            .get("date")
            .and_then(|d| aws_smithy_types::DateTime::from_str(d, Format::HttpDate).ok())
            .and_then(|d| SystemTime::try_from(d).ok())
        else {
            return;
        };
        let Ok(round_trip) = received.duration_since(sent) else {
            return;
        };
        if round_trip > Duration::from_secs(15 * 60) {
            return;
        }
        let midpoint = sent + round_trip / 2;
        let skew = match server.duration_since(midpoint) {
            Ok(ahead) => i64::try_from(ahead.as_millis()).unwrap_or(i64::MAX),
            Err(behind) => -i64::try_from(behind.duration().as_millis()).unwrap_or(i64::MAX),
        };
        self.skew.store(skew, Ordering::Relaxed);
    }

    /// One try: signed with the credentials of now, sent, and its answer read.
    async fn try_once<R: Request>(
        &self,
        body: &bytes::Bytes,
        tries: &Tries<'_>,
    ) -> Result<Try, Lost> {
        let identity = self
            .components
            .identity_cache()
            .resolve_cached_identity(self.resolver.clone(), &self.components, &self.bag)
            .await
            .map_err(Lost::Unsigned)?;
        let clock = || {
            self.components
                .time_source()
                .map_or_else(SystemTime::now, |t| t.now())
        };
        let sent = clock();
        let request = sign::request(self, R::OPERATION, body, &identity, self.signing_time(sent))?;
        let connector = self.http.http_connector(&tries.connector, &self.components);
        let mut answer = connector.call(request).await.map_err(Lost::Connector)?;
        self.measure_skew(&answer, sent, clock());
        let bytes = ByteStream::new(answer.take_body())
            .collect()
            .await
            .map_err(|e| Lost::Body(e.to_string()))?
            .into_bytes();
        if !answer.status().is_success() {
            // The refusal is kept whole, for the SDK to read it again.
            *answer.body_mut() = SdkBody::from(bytes);
            return Ok(Try::Refused(answer));
        }
        let id = answer
            .headers()
            .get("x-amzn-requestid")
            .or_else(|| answer.headers().get("x-amz-request-id"))
            .map(str::to_owned);
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
        assert!(known("GetItemTelemetryInputCaptureInterceptor"));
        assert!(!known("header-log"));
        assert!(!known("MyTracingInterceptor"));
        assert!(!known("MyFeatureTrackerInterceptor"));
        assert!(!known("MyEndpointParamsInterceptor"));
        assert!(!known("TransactWriteItemsEndpointParamsInterceptor"));
    }
}
