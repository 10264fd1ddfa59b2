//! The plumbing every awaitable builder shares: a boxed future run inside its operation's
//! span, which records the outcome.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tracing::Instrument;

use crate::error::Result;
use crate::exec::trace::Op;

/// A boxed, sendable future: what awaiting a builder runs.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Run `work` inside the operation's span; `finish` records its outcome there.
pub(crate) fn traced<'a, T: 'a, W>(
    op: Op,
    finish: impl FnOnce(&Op, &T) + Send + 'a,
    work: impl FnOnce(Arc<Op>) -> W,
) -> BoxFuture<'a, T>
where
    W: Future<Output = T> + Send + 'a,
{
    let op = Arc::new(op);
    let span = op.span();
    let work = work(op.clone());
    // Boxed where it is made and wrapped around the box: the work's state (which holds its
    // requests' futures) is moved once, into the heap, and never through the layers.
    let work = Box::pin(work);
    Box::pin(
        async move {
            let result = work.await;
            finish(&op, &result);
            result
        }
        .instrument(span),
    )
}

/// Record a fallible operation's outcome: `count` records, or the error.
pub(crate) fn records<T>(count: impl FnOnce(&T) -> usize) -> impl FnOnce(&Op, &Result<T>) {
    move |op, result| op.finish(result.as_ref().map(count))
}
