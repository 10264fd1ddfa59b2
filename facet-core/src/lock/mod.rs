//! A table's design lock: the whole design written to a committed file, and a check that
//! classifies every difference between the file and the code.
//!
//! [`DesignLock::of`] records a declared table's design: its names, indexes, vector indexes,
//! TTL and stream, and each facet's keys (with their patterns, shards and grow schedules),
//! indexes, unique fields, versions and fields (with their types, codecs and defaults).
//! [`DesignLock::to_json`] writes it as pretty JSON with a fixed field order, so the same
//! design always gives the same bytes and a change reads as a small diff;
//! [`DesignLock::from_json`] reads it back.
//!
//! [`compare`] judges each difference between the committed lock and the code's design and
//! says, in a [`LockReport`], what it needs or breaks ([`Class`]):
//!
//! * **safe**: nothing to do (an optional field added, a facet added, an alias changed);
//! * **needs a backfill**: stored records must be rewritten, and which attributes (an index
//!   key changed, a facet joins an index, `ttl`, `#[unique]`, a raised schema version);
//! * **needs an index change**: create one (`Table::create_missing_indexes`), recreate one,
//!   or a new table for a local index;
//! * **breaks stored records**: which records and why, and the repair (a changed prefix,
//!   delimiter or shard schedule; a field removed, or made required, without an upgrade);
//! * **breaks other readers**: what Faceteer for TypeScript must change (a new attribute,
//!   a changed key);
//! * **review**: a change no rule can judge (a field's type).
//!
//! The rules are listed [below](self#rules).
//!
//! ```
//! use faceteer_core::design::{FacetDesign, TableDesign};
//! use faceteer_core::lock::{compare, Class, DesignLock};
//! use faceteer_core::schema::{FacetSchema, KeySchema};
//!
//! const fn key(attribute: &'static str, prefix: &'static str) -> KeySchema {
//!     KeySchema { attribute, prefix, no_prefix: false, fields: &["id"], optional: &[false], shard: None }
//! }
//! const V1: FacetSchema = FacetSchema {
//!     name: "NOTE",
//!     delimiter: "_",
//!     pk: key("PK", "#NOTE"),
//!     sk: key("SK", "#NOTE"),
//!     indexes: &[],
//!     ttl_field: None,
//!     unique: &[],
//!     vectors: &[],
//! };
//! const V2: FacetSchema = FacetSchema { pk: key("PK", "#MEMO"), ..V1 };
//!
//! let lock = |schema: &'static FacetSchema| {
//!     let facets = [FacetDesign::new(schema, &[])];
//!     DesignLock::of_design(&TableDesign::new("notes", &facets))
//! };
//! let committed = DesignLock::from_json(&lock(&V1).to_json()).unwrap();
//! assert!(compare(&committed, &lock(&V1), 0).is_clean());
//! let report = compare(&committed, &lock(&V2), 0);
//! assert_eq!(report.class(), Some(Class::BreaksStored));
//! assert!(report.to_string().contains("NOTE: partition key PK: #NOTE_{id} → #MEMO_{id}"));
//! ```
//!
//! # Rules
//!
//! | Change | Class |
//! |---|---|
//! | facet added; field added as `Option` or with `default`; alias changed; key field made optional | safe (a new attribute also breaks strict readers) |
//! | base prefix, delimiter, key fields, `no_prefix` or `sortable` changed | breaks stored records (a backfill moves them) and other readers |
//! | base shard added, removed, or its count, fields or time field changed; a grow period edited, or appended from a time already past | breaks stored records and other readers |
//! | grow period appended from a future time | safe; breaks other readers |
//! | written index key changed; facet joins an index; `sparse`, `ttl` or `#[unique]` changed; schema version raised | needs a backfill (a first declared version also breaks strict readers) |
//! | new global or vector index | needs an index (create) |
//! | new local index | needs a new table |
//! | an index's keys or projection changed | needs an index (recreate; a new table for a local one) |
//! | index dropped by a facet or the table | safe |
//! | field removed, or a required field added, at the same version | breaks stored records (with a raised version: a backfill) |
//! | field made required | breaks stored records (with a raised version: a backfill) |
//! | field codec or epoch unit changed | breaks stored records and other readers (with a raised version: a backfill) |
//! | field type changed | review (with a raised version: a backfill) |
//! | facet removed; the table's names changed | breaks stored records and other readers |
//! | schema version lowered | breaks stored records |
//! | vector dimensions changed | recreate the index; breaks the stored vectors |
//! | settings | safe; losing deletion protection or point-in-time recovery: review |
//! | anything else | review |

mod build;
mod compare;
mod facet_changes;
mod field_changes;
mod hints;
mod index_changes;
mod json;
mod report;
mod rules;
mod settings_json;
mod table_changes;
mod types;

#[cfg(test)]
mod tests;

pub use compare::compare;
pub use json::LockError;
pub use report::{Change, Class, Effect, IndexAction, LockReport};
pub use types::{
    DesignLock, LockAttribute, LockFacet, LockField, LockIndex, LockIndexKind, LockIndexName,
    LockKey, LockKeyField, LockNames, LockNative, LockPeriod, LockProjection, LockShard, LockTable,
    LockTableIndex, LockUnique, LockVector, LOCK_FORMAT,
};
