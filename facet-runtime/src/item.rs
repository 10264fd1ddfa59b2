//! Stored items: the attribute map DynamoDB holds, and conversions between records and items.
//!
//! [`to_item`] writes a record with its keys and library attributes as Faceteer writes it;
//! [`from_item`] reads one back, checking that it belongs to the facet; [`item_size`] is
//! DynamoDB's size of an item, for its 400 KB limit.

pub use faceteer_core::limits::item_size;
pub use faceteer_core::{from_item, to_item, Item};
