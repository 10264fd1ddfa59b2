//! Collections: several facets read together from one shared partition, each item
//! dispatched by its `facet` attribute to a variant of a derived enum.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::convert::from_item;
use crate::facet::{Facet, ItemError};
use crate::item::Item;
use crate::schema::{FacetSchema, FACET_ATTRIBUTE};

/// An enum over facets, one per variant (`#[derive(Collection)]`), read from a shared
/// partition with `Table::collection`.
pub trait Collection: Sized + Send + 'static {
    /// The facets of the variants, in declaration order.
    const FACETS: &'static [&'static FacetSchema];

    /// The variant for `item`, by its `facet` attribute: `Ok(None)` for an item of a facet
    /// outside the collection (or without a `facet` attribute), an error when the item is of
    /// one of its facets but not a valid record.
    fn from_item(item: Item) -> Result<Option<Self>, ItemError>;

    /// Call `visitor` with the record the variant holds, typed by its facet (generated).
    #[doc(hidden)]
    fn with_record<'r, V: RecordVisitor + 'r>(&'r mut self, visitor: V) -> V::Output<'r>;
}

/// What sees the record a collection's variant holds, typed ([`Collection::with_record`]).
#[doc(hidden)]
pub trait RecordVisitor {
    /// What it gives for a record borrowed for `'r`.
    type Output<'r>
    where
        Self: 'r;
    /// See `record`, of facet `F`.
    fn visit<'r, F: Facet>(self, record: &'r mut F) -> Self::Output<'r>
    where
        Self: 'r;
}

/// The facet name an item carries, if any.
pub fn facet_of(item: &Item) -> Option<&str> {
    match item.get(FACET_ATTRIBUTE) {
        Some(AttributeValue::S(name)) => Some(name),
        _ => None,
    }
}

/// Read `item` as a `F` record and wrap it with `variant` (generated `from_item` bodies).
pub fn variant<F: Facet, C>(item: Item, variant: fn(F) -> C) -> Result<Option<C>, ItemError> {
    from_item::<F>(item).map(|record| Some(variant(record)))
}
