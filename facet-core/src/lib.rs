//! Core of [faceteer](https://docs.rs/faceteer): everything that does no I/O.
//!
//! * [`key`]: composite key encoding, byte-compatible with `@faceteer/facet`, with a check
//!   for ambiguous keys and an order-preserving integer encoding;
//! * [`shard`]: Faceteer-compatible write-shard ids;
//! * [`cursor`]: opaque, scope-checked pagination cursors (CBOR, base64url);
//! * [`facet`]: the [`Facet`] trait and item conversion; [`marshal`]: records to attribute
//!   values as Faceteer writes them; [`nullable`], [`timestamp`]: explicit `NULL` and
//!   `toISOString()` dates;
//! * [`plan`]: request plans, renderable to `aws-sdk-dynamodb` inputs.
//!
//! Users depend on the `faceteer` crate, which re-exports this one.
#![warn(missing_docs)]

pub mod cursor;
pub mod expr;
pub mod facet;
pub mod key;
pub mod marshal;
pub mod merge;
pub mod names;
pub mod nullable;
pub mod partition;
pub mod pick;
pub mod plan;
pub mod schema;
pub mod serde_key;
pub mod shard;
pub mod sort_key;
pub mod table;
#[cfg(feature = "chrono")]
pub mod timestamp;

pub use facet::{from_item, to_item, ttl_from_text, Facet, Item, ItemError, Key, TtlValue};
pub use key::{KeyArg, KeyError, KeyPart, KeyWriter, Sortable};
pub use nullable::Nullable;
