//! Sending requests: the SDK calls, their tracing, deadlines and retries, and the
//! plumbing every awaitable builder shares.

pub(crate) mod future;
pub(crate) mod metrics;
pub(crate) mod once;
pub(crate) mod retry;
pub(crate) mod sdk;
pub(crate) mod trace;
