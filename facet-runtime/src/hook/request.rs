//! Request hooks: run once per operation, before its first request to DynamoDB, they may
//! tag the operation's span, ask for capacity by index, add headers to every request it
//! sends, or refuse it.

use std::future::Future;
use std::sync::Arc;

use faceteer_core::facet::Veto;

use super::context::Context;

/// A hook around every operation's requests (registered with
/// [`Hooks::requests`](super::Hooks::requests)). It runs once per operation, before its
/// first request; what it asks for applies to every request the operation sends (each try,
/// page and chunk alike, so a request sent again carries exactly what the first carried).
///
/// ```
/// use faceteer::hook::{Call, RequestHook, Veto};
///
/// /// Sends the request id of the caller's context with every request, and asks for
/// /// capacity by index.
/// struct Traced;
///
/// #[derive(Clone)]
/// struct RequestId(String);
///
/// impl RequestHook for Traced {
///     fn name(&self) -> &'static str {
///         "traced"
///     }
///
///     async fn before_call(&self, call: &mut Call<'_>) -> Result<(), Veto> {
///         if let Some(RequestId(id)) = call.context::<RequestId>().cloned() {
///             call.header("x-request-id", &id)?;
///             call.tag("request_id", id);
///         }
///         call.capacity_by_index();
///         Ok(())
///     }
/// }
/// ```
pub trait RequestHook: Send + Sync + 'static {
    /// The hook's name, in refusals.
    fn name(&self) -> &'static str;

    /// Before the operation's first request.
    fn before_call(&self, call: &mut Call<'_>) -> impl Future<Output = Result<(), Veto>> + Send;
}

/// What request hooks ask of an operation's requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Amendment {
    /// `key=value` tags for the operation's span.
    pub(crate) tags: Vec<(String, String)>,
    /// Ask for consumed capacity by index (`INDEXES`) rather than in total.
    pub(crate) indexes: bool,
    /// Headers added to every request (names in lower case), shared by every request.
    pub(crate) headers: Arc<Vec<(String, String)>>,
}

/// An operation as a [`RequestHook`] sees it, and what it may ask of its requests.
pub struct Call<'c> {
    pub(crate) operation: &'static str,
    pub(crate) table: &'c str,
    pub(crate) facet: Option<&'static str>,
    pub(crate) context: &'c Context,
    pub(crate) hook: &'static str,
    pub(crate) amendment: &'c mut Amendment,
}

impl Call<'_> {
    /// The DynamoDB operation (`PutItem`, `Query`, …).
    pub fn operation(&self) -> &'static str {
        self.operation
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        self.table
    }

    /// The facet the operation is about, if one.
    pub fn facet(&self) -> Option<&'static str> {
        self.facet
    }

    /// The value of type `T` in the call's context.
    pub fn context<T: 'static>(&self) -> Option<&T> {
        self.context.get::<T>()
    }

    /// Tag the operation's span (`faceteer.tags`, `key=value` joined by `,`): for tracing,
    /// not for metrics (tags may be of high cardinality).
    pub fn tag(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.amendment.tags.push((key.into(), value.into()));
    }

    /// Ask DynamoDB for the capacity each index consumed (`ReturnConsumedCapacity:
    /// INDEXES`), kept on the span as every capacity object is.
    pub fn capacity_by_index(&mut self) {
        self.amendment.indexes = true;
    }

    /// Send header `name: value` with every request of the operation. Headers the protocol
    /// owns (`host`, `authorization`, `content-*`, `x-amz-*`) and invalid ones are refused.
    pub fn header(&mut self, name: &str, value: &str) -> Result<(), Veto> {
        let lower = name.to_ascii_lowercase();
        let owned = ["host", "authorization", "content-", "x-amz-", "user-agent"];
        if owned
            .iter()
            .any(|o| lower == *o || (o.ends_with('-') && lower.starts_with(o)))
        {
            return Err(Veto::because(
                self.hook,
                format!("header `{name}` belongs to the protocol: a hook cannot set it"),
            ));
        }
        let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        if lower.is_empty() || !lower.bytes().all(token) {
            return Err(Veto::because(
                self.hook,
                format!("`{name}` is not a header name"),
            ));
        }
        if !value
            .bytes()
            .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
        {
            return Err(Veto::because(
                self.hook,
                format!("the value of header `{name}` holds characters a header cannot"),
            ));
        }
        Arc::make_mut(&mut self.amendment.headers).push((lower, value.to_owned()));
        Ok(())
    }
}

/// A request hook behind a pointer: its future boxed.
pub(crate) trait DynRequestHook: Send + Sync {
    fn name(&self) -> &'static str;
    fn before_call<'a, 'c>(
        &'a self,
        call: &'a mut Call<'c>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<(), Veto>> + Send + 'a>>;
}

impl<H: RequestHook> DynRequestHook for H {
    fn name(&self) -> &'static str {
        RequestHook::name(self)
    }

    fn before_call<'a, 'c>(
        &'a self,
        call: &'a mut Call<'c>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<(), Veto>> + Send + 'a>> {
        Box::pin(RequestHook::before_call(self, call))
    }
}

/// The request hooks of `hooks`, run for one operation: what they ask of its requests.
pub(crate) async fn amendment(
    hooks: &[Arc<dyn DynRequestHook>],
    operation: &'static str,
    table: &str,
    facet: Option<&'static str>,
    context: &Context,
) -> Result<Amendment, Veto> {
    let mut amendment = Amendment::default();
    for hook in hooks {
        let mut call = Call {
            operation,
            table,
            facet,
            context,
            hook: hook.name(),
            amendment: &mut amendment,
        };
        hook.before_call(&mut call).await?;
    }
    Ok(amendment)
}
