//! Keys and the values that make them.
//!
//! A [`Key`] is a record's typed `(PK, SK)`, built by the generated `Facet::key(..)`. The
//! traits say how a field's value is written into a key: [`KeyPart`] (text, numbers, dates,
//! enums through their serde name), [`Sortable`] (numbers written so that the text sorts as
//! the number), [`Nullable`] (optional parts). The generated sort-key builders take their
//! fields as a prefix of the sort key's fields: [`NoFields`], [`One`] … [`Four`] say how many
//! are given, [`NoSortKey`] marks a facet or index without one; [`KeyWriter`] is the writer
//! every key is written with (the one its traits' `write` methods take). [`KeyScalar`] gives
//! the DynamoDB type (`S`, `N`, `B`) of a native index key field.

pub use faceteer_core::native::KeyScalar;
pub use faceteer_core::sort_key::{
    Four, NoFields, NoSortKey, One, SortKeyArg, SortKeyPrefix, Three, Two,
};
pub use faceteer_core::{
    ttl_from_text, Key, KeyArg, KeyPart, KeyWriter, Nullable, Sortable, SortableArg, TtlValue,
};
