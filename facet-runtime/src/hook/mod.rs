//! Hooks: code of yours that runs on every write and read of a facet's records.
//!
//! A [`FacetHook`] (one facet) or a [`TableHook`] (every facet of a table), registered in
//! [`Hooks`] and given to [`Table::with_hooks`](crate::Table::with_hooks):
//!
//! * **`before_write`** runs once per call, before anything is built from the record (keys,
//!   index keys, unique guards, the validator, write times): it may change the record (or
//!   the update), require values of the stored record ([`Write::require`], checked on the
//!   server in the write's own condition), or refuse the write with a [`Veto`] — the call
//!   then fails with [`Error::Refused`](crate::Error::Refused) and nothing is sent.
//! * **`after_read`** runs on each record read, in reverse registration order: it may change
//!   the record or refuse it ([`ItemError::Refused`](crate::error::ItemError::Refused)).
//!
//! Hooks are async and see the call's [`Context`]: values set on the handle
//! ([`Table::with_context`](crate::Table::with_context)) or around a task ([`scope`]).
//! With no hooks, a call costs what it did without them.
//!
//! Where they run: puts (every variant), upserts, updates (and the record an update
//! creates), deletes, saves, `modify`, moves, batch writes, transaction steps, backfills of
//! one facet; gets, queries, scans, batch gets, transactional gets, collections, stream
//! decodes ([`Table::decode_changes`](crate::Table::decode_changes)), and the records writes
//! return (best effort: the write was applied, so a refusal there returns the record as
//! written). A whole-table backfill is refused on a table with hooks (it could not run
//! them).
//!
//! Built in: [`Tenant`], which stamps each write with the call's tenant, requires the stored
//! record to be the tenant's and refuses other tenants' records on reads.

mod context;
mod registry;
mod request;
mod run;
mod tenant;
mod traits;
mod write;

pub use context::{scope, Context};
pub use faceteer_core::facet::{Refused, Veto};
pub use registry::Hooks;
pub(crate) use request::{amendment, Amendment};
pub use request::{Call, RequestHook};
pub use tenant::{Tenant, TenantError, TenantId};
pub use traits::{FacetHook, ReadKind, Reading, TableHook};
pub use write::{Target, Write, WritePath};

pub(crate) use context::current;
pub(crate) use run::{copy_of, refused, whole, Hooked, Requires};
