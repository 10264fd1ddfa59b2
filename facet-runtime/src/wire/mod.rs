//! What answers hold, below the table and the sender: stored items as the SDK's tree or as
//! their JSON (the direct read path), the reads faceteer sends itself, the interceptor that
//! keeps answers' bodies, and the key pairs of items.

pub(crate) mod direct;
pub(crate) mod keys;
pub(crate) mod sent;
pub(crate) mod stored;
pub(crate) mod tap;
