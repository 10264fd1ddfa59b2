//! [`DynamoError`]: a failed request to DynamoDB, with what the server or the transport said
//! and what the request was about (operation, table, facet, key).

use std::error::Error as StdError;
use std::fmt;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::RequestId;

/// What went wrong with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// The server answered with an error (see [`DynamoError::code`] and
    /// [`DynamoError::message`]).
    Service,
    /// The request or its answer did not arrive within the client's timeouts (see
    /// [`Timeouts`](crate::Timeouts)).
    Timeout,
    /// The server could not be reached, or the connection broke.
    Transport,
    /// An answer arrived that could not be read.
    Response,
    /// The request could not be built; nothing was sent.
    Construction,
}

/// What a failed request was about.
#[derive(Debug, Clone, Default)]
pub(crate) struct Context {
    pub(crate) table: String,
    pub(crate) facet: Option<&'static str>,
    pub(crate) index: Option<&'static str>,
    /// The item's key, or a query's partition (`sk` empty).
    pub(crate) key: Option<(String, Option<String>)>,
    /// The endpoint the client was pointed at, when faceteer set it up (`connect`).
    pub(crate) endpoint: Option<std::sync::Arc<str>>,
}

/// A DynamoDB request that failed: the server's error code and message, or the transport
/// cause, with the operation, table, facet and key it was about. Shown by
/// [`Error::Dynamo`](crate::Error::Dynamo).
///
/// Its `Display` names everything a log line needs; its `Debug` holds no credentials.
pub struct DynamoError {
    operation: &'static str,
    context: Context,
    kind: FailureKind,
    code: Option<String>,
    message: Option<String>,
    status: Option<u16>,
    request_id: Option<String>,
    refused: bool,
    detail: String,
    source: aws_sdk_dynamodb::Error,
}

impl DynamoError {
    pub(crate) fn new<E>(
        operation: &'static str,
        context: Context,
        err: SdkError<E, HttpResponse>,
    ) -> Self
    where
        E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
        aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
    {
        let kind = match &err {
            SdkError::ServiceError(_) => FailureKind::Service,
            SdkError::TimeoutError(_) => FailureKind::Timeout,
            SdkError::DispatchFailure(d) if d.is_timeout() => FailureKind::Timeout,
            SdkError::DispatchFailure(_) => FailureKind::Transport,
            SdkError::ResponseError(_) => FailureKind::Response,
            SdkError::ConstructionFailure(_) => FailureKind::Construction,
            _ => FailureKind::Transport,
        };
        let status = err.raw_response().map(|r| r.status().as_u16());
        let refused = causes(&err).any(|e| {
            e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        });
        let detail = chain(&err);
        DynamoError {
            operation,
            context,
            kind,
            code: err.code().map(str::to_owned),
            message: err.message().map(str::to_owned),
            status,
            request_id: err.request_id().map(str::to_owned),
            refused,
            detail,
            source: aws_sdk_dynamodb::Error::from(err),
        }
    }

    /// The DynamoDB operation (`PutItem`, `Query`, `BatchWriteItem`, …).
    pub fn operation(&self) -> &'static str {
        self.operation
    }

    /// The table.
    pub fn table(&self) -> &str {
        &self.context.table
    }

    /// The facet the request was about, if one.
    pub fn facet(&self) -> Option<&'static str> {
        self.context.facet
    }

    /// The item's partition and sort key (a query: its partition, no sort key), if one.
    pub fn key(&self) -> Option<(&str, Option<&str>)> {
        self.context
            .key
            .as_ref()
            .map(|(pk, sk)| (pk.as_str(), sk.as_deref()))
    }

    /// What went wrong.
    pub fn kind(&self) -> FailureKind {
        self.kind
    }

    /// The server's error code (`ValidationException`, `ThrottlingException`, …).
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// The server's error message.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// The HTTP status of the server's answer, if one arrived.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// The request id the server gave, for AWS support.
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// `true` when the request timed out.
    pub fn is_timeout(&self) -> bool {
        self.kind == FailureKind::Timeout
    }

    /// `true` when DynamoDB throttled the request.
    pub fn is_throttling(&self) -> bool {
        matches!(
            self.code(),
            Some(
                "ProvisionedThroughputExceededException"
                    | "ThrottlingException"
                    | "RequestLimitExceeded"
            )
        )
    }

    /// `true` when the server refused the request as invalid (`ValidationException`).
    pub fn is_validation(&self) -> bool {
        self.code() == Some("ValidationException")
    }

    /// `true` when the server answered that it did not apply the request: an error answer
    /// with a 4xx status. Anything else (a 5xx, a timeout, a broken connection after the
    /// request left) may have been applied.
    ///
    /// This and [`DynamoError::was_not_sent`] describe the last attempt. Writes (batch and
    /// single) send one attempt per request: faceteer retries them itself and tracks every
    /// attempt, so a write's error already says whether an earlier one may have been applied
    /// ([`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown)).
    pub fn was_rejected(&self) -> bool {
        self.kind == FailureKind::Service && self.status.is_some_and(|s| (400..500).contains(&s))
    }

    /// `true` when the request certainly never reached a server: it could not be built, or
    /// the connection was refused.
    pub fn was_not_sent(&self) -> bool {
        self.kind == FailureKind::Construction
            || (self.kind == FailureKind::Transport && self.refused)
    }

    /// `true` when another try of the same request may succeed: throttling, 5xx answers,
    /// timeouts, transport failures, and a transaction whose earlier try is still running.
    pub fn is_transient(&self) -> bool {
        match self.kind {
            FailureKind::Service => {
                self.is_throttling()
                    || self.status.is_some_and(|s| s >= 500)
                    // An earlier try of the same transaction is still running.
                    || self.code() == Some("TransactionInProgressException")
            }
            FailureKind::Timeout | FailureKind::Transport | FailureKind::Response => true,
            FailureKind::Construction => false,
        }
    }

    /// The SDK's typed error (for example
    /// `aws_sdk_dynamodb::Error::ConditionalCheckFailedException`).
    pub fn sdk_error(&self) -> &aws_sdk_dynamodb::Error {
        &self.source
    }
}

/// The error and its sources, outermost first.
fn causes<'a>(
    err: &'a (dyn StdError + 'static),
) -> impl Iterator<Item = &'a (dyn StdError + 'static)> {
    std::iter::successors(Some(err), |e: &&'a (dyn StdError + 'static)| (*e).source())
}

/// Every cause's text, joined, repeats left out.
fn chain(err: &(dyn StdError + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in causes(err) {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ")
}

/// A key as errors print it: with the values of `#[sensitive]` fields masked.
fn shown(key: &str) -> std::borrow::Cow<'_, str> {
    faceteer_core::redact::key(key)
}

impl fmt::Display for DynamoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DynamoDB {}", self.operation)?;
        if let Some(facet) = self.context.facet {
            write!(f, " of `{facet}`")?;
        }
        match &self.context.key {
            Some((pk, Some(sk))) => write!(f, " (PK {:?}, SK {:?})", shown(pk), shown(sk))?,
            Some((pk, None)) => write!(f, " (partition {:?})", shown(pk))?,
            None => {}
        }
        write!(f, " on table `{}`", self.context.table)?;
        if let Some(index) = self.context.index {
            write!(f, ", index `{index}`")?;
        }
        match self.kind {
            FailureKind::Service => {
                write!(
                    f,
                    " failed: {}: {}",
                    self.code().unwrap_or("unknown error"),
                    self.message().unwrap_or("(no message)")
                )?;
                if let Some(status) = self.status {
                    write!(f, " (HTTP {status}")?;
                    if let Some(id) = &self.request_id {
                        write!(f, ", request id {id}")?;
                    }
                    f.write_str(")")?;
                }
                Ok(())
            }
            FailureKind::Timeout => write!(f, " timed out: {}", self.detail),
            FailureKind::Transport => match &self.context.endpoint {
                Some(endpoint) => write!(
                    f,
                    " could not reach the server at {endpoint}: {}",
                    self.detail
                ),
                None => write!(f, " could not reach the server: {}", self.detail),
            },
            FailureKind::Response => write!(f, " got an answer it cannot read: {}", self.detail),
            FailureKind::Construction => {
                write!(f, " could not be built (nothing was sent): {}", self.detail)
            }
        }
    }
}

impl fmt::Debug for DynamoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamoError")
            .field("operation", &self.operation)
            .field("table", &self.context.table)
            .field("facet", &self.context.facet)
            .field("index", &self.context.index)
            .field(
                "key",
                &self
                    .context
                    .key
                    .as_ref()
                    .map(|(pk, sk)| (shown(pk), sk.as_deref().map(shown))),
            )
            .field("kind", &self.kind)
            .field("code", &self.code)
            .field("message", &self.message)
            .field("status", &self.status)
            .field("request_id", &self.request_id)
            .field("detail", &self.detail)
            .finish()
    }
}

impl StdError for DynamoError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&self.source)
    }
}
