//! The direct read path: answers of `GetItem`, `Query`, `Scan`, `BatchGetItem` and
//! `TransactGetItems` read from their JSON, each item decoded straight into a record with no
//! `AttributeValue` tree in between.
//!
//! * [`answer`] reads an answer's envelope: its items kept as JSON text ([`WireItem`]),
//!   `LastEvaluatedKey`, unprocessed keys and consumed capacity.
//! * [`pass`] reads a `Query` or `BatchGetItem` answer in one pass: each item straight
//!   into a record of one facet, its keys and `ttl` noted on the way.
//! * [`from_wire`] reads one item into a facet's record, exactly as [`crate::from_item`]
//!   reads the SDK's tree of the same item (records, validators, errors).
//! * [`tree::item`] builds the SDK's tree from JSON, for what needs one (keys, cursors).

pub mod answer;
pub mod pass;
mod record;
pub mod tree;
mod value;

pub use answer::WireItem;
pub use record::from_wire;
