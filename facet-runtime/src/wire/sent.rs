//! What every way of sending a read shares: what it answered or why it has none, the error
//! of an answer faceteer could not read, and the headers request hooks add to the requests
//! of a task.

use std::future::Future;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{BoxError, SdkError};
use aws_smithy_types::body::SdkBody;

tokio::task_local! {
    /// Headers to add to every request sent in this task (request hooks').
    static HEADERS: std::sync::Arc<Vec<(String, String)>>;
    /// The table faceteer sends the SDK's requests of this task for (the route of its own
    /// requests is learned from them alone).
    static SENDING: std::sync::Arc<str>;
}

/// Send the SDK's requests of `fut` as faceteer's, for table `table`.
pub(crate) async fn sending<T>(table: std::sync::Arc<str>, fut: impl Future<Output = T>) -> T {
    SENDING.scope(table, fut).await
}

/// The table faceteer sends this task's requests for, if it does.
pub(crate) fn sending_for() -> Option<std::sync::Arc<str>> {
    SENDING.try_with(std::sync::Arc::clone).ok()
}

/// The headers request hooks add to the requests sent in this task, if any.
pub(crate) fn request_headers() -> Option<std::sync::Arc<Vec<(String, String)>>> {
    HEADERS.try_with(std::sync::Arc::clone).ok()
}

/// Send the requests of `fut` with `headers` added (before they are signed).
pub(crate) async fn with_headers<T>(
    headers: std::sync::Arc<Vec<(String, String)>>,
    fut: impl Future<Output = T>,
) -> T {
    HEADERS.scope(headers, fut).await
}

/// What a sent read answered.
pub(crate) enum Answer<T> {
    /// The SDK decoded it (the client has no tap).
    Decoded(T),
    /// Its JSON text, for faceteer to read, and its request id.
    Json(String, Option<String>),
}

/// Why a sent read has no answer (returned once per try: its size does not matter).
#[allow(clippy::large_enum_variant)]
pub(crate) enum Failure<E> {
    /// The SDK's error (the server's, or the transport's).
    Sdk(SdkError<E, HttpResponse>),
    /// The body of a successful answer could not be read (the connection failed, or the
    /// attempt's time ran out, while it was read): worth another try.
    BodyUnread(String),
}

impl<E> Failure<E> {
    /// As the SDK reports such a failure.
    pub(crate) fn into_sdk(self) -> SdkError<E, HttpResponse> {
        match self {
            Failure::Sdk(e) => e,
            Failure::BodyUnread(why) => {
                unreadable(format!("the answer's body could not be read: {why}"))
            }
        }
    }
}

/// A successful answer whose body faceteer could not read, as the SDK reports one.
pub(crate) fn unreadable<E>(cause: impl Into<BoxError>) -> SdkError<E, HttpResponse> {
    let raw = HttpResponse::new(
        aws_smithy_runtime_api::http::StatusCode::try_from(200).expect("200 is a status"),
        SdkBody::empty(),
    );
    SdkError::response_error(cause, raw)
}

/// A successful answer's body as text, or the error of one faceteer cannot read (once per
/// answer: the error's size does not matter).
#[allow(clippy::result_large_err)]
pub(crate) fn text<E>(body: bytes::Bytes) -> Result<String, Failure<E>> {
    String::from_utf8(Vec::from(body)).map_err(|e| Failure::Sdk(unreadable(e)))
}
