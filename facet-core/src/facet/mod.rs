//! The [`Facet`] trait, implemented by `#[derive(Facet)]`, with the key of a record, the
//! marker traits the derive implements, the types of write times and the TTL, and the error
//! of turning a record into an item or back ([`crate::convert`] does that); the writer of a
//! record's own attributes field by field, which the derive's code calls (`writer`); and
//! the seam to what writes a facet's keys ([`WriteKeys`]).

mod error;
#[doc(hidden)]
pub mod handles;
mod key;
pub(crate) mod key_fields;
mod markers;
mod record;
mod times;
mod veto;
mod write_keys;
#[doc(hidden)]
pub mod writer;

pub use error::ItemError;
pub use key::Key;
pub use key_fields::{KeyField, KeyText, OptionalKey, RequiredKey};
pub use markers::{BatchDeletable, BatchWritable, UniqueValue, Versioned};
pub use record::{register_sensitive, Facet};
#[cfg(feature = "chrono")]
pub use times::WriteTime;
pub use times::{ttl_from_text, EpochTime, TtlValue, WriteTimeAttributes};
pub use veto::{Refused, Veto};
pub use write_keys::WriteKeys;
