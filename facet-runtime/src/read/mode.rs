//! The read modes: whole records, or projections after `.select::<P>()`, and their
//! decoding from the SDK's tree or the answer's JSON.

use std::marker::PhantomData;

use faceteer_core::pick::{
    picked_from_item, projection_attributes, KeyFields, Picked, ProjectedBy, Projection,
    WholeRecords,
};
use faceteer_core::schema::{FACET_ATTRIBUTE, PK, SK};
use faceteer_core::wire::WireItem;

use crate::wire::stored::Stored;
use faceteer_core::{from_item, Facet, Item, ItemError};

mod sealed {
    pub trait Sealed {}
}

/// Whole records: the default of every read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Whole;

/// Projections `P`: set by `.select::<P>()` on a get, a batch get or a query.
pub struct Select<P>(PhantomData<fn() -> P>);

/// Whole records read through an index that does not project them: the query reads the keys
/// from the index, then the records from the table by key (one batched read per page). Set
/// by [`Query::fetch_records`](crate::query::Query::fetch_records).
#[derive(Debug, Clone, Copy, Default)]
pub struct Fetched;

impl sealed::Sealed for Whole {}
impl<P> sealed::Sealed for Select<P> {}
impl sealed::Sealed for Fetched {}

/// How a read of facet `F` (through an index with key fields `I`) turns items into what it
/// returns. Implemented by [`Whole`] and [`Select`]; not for implementing elsewhere.
pub trait Read<F: Facet, I: KeyFields>: sealed::Sealed + Send + Sync + 'static {
    /// What each record read becomes.
    type Record: Send + 'static;

    /// The attributes to read (`None`: whole items), given the index's key attributes.
    #[doc(hidden)]
    fn attributes(index_attributes: &[&'static str]) -> Option<Vec<&'static str>>;

    /// Turn one item read with `attributes` into a record (running the facet's validator).
    #[doc(hidden)]
    fn decode(item: Item, attributes: Option<&[&'static str]>) -> Result<Self::Record, ItemError>;

    /// Turn one item read directly (its JSON) into a record, as [`Read::decode`] turns the
    /// same item's attribute values.
    #[doc(hidden)]
    fn decode_wire(
        item: &WireItem,
        attributes: Option<&[&'static str]>,
    ) -> Result<Self::Record, ItemError> {
        Self::decode(item.to_item_of(F::SCHEMA.name)?, attributes)
    }

    /// Whether the items read are keys of the records to read from the table.
    #[doc(hidden)]
    const FETCH_BY_KEY: bool = false;

    /// The whole record a read gave, for the facet's `after_read` hooks (`None`: a
    /// projection, which they do not see).
    #[doc(hidden)]
    fn record_mut(record: &mut Self::Record) -> Option<&mut F> {
        let _ = record;
        None
    }
}

impl<F: Facet, I: KeyFields + WholeRecords> Read<F, I> for Whole {
    type Record = F;

    fn attributes(_: &[&'static str]) -> Option<Vec<&'static str>> {
        None
    }

    fn decode(item: Item, _: Option<&[&'static str]>) -> Result<F, ItemError> {
        from_item(item)
    }

    fn decode_wire(item: &WireItem, _: Option<&[&'static str]>) -> Result<F, ItemError> {
        item.decode::<F>()
    }

    fn record_mut(record: &mut F) -> Option<&mut F> {
        Some(record)
    }
}

/// Whole records with the items they were decoded from: what a modify plans its save from
/// (crate-private: [`Get::with_stored_item`](super::get::Get)).
pub(crate) enum AsStored {}

impl sealed::Sealed for AsStored {}

impl<F: Facet> Read<F, faceteer_core::pick::BaseTable> for AsStored {
    type Record = (F, Item);

    fn attributes(_: &[&'static str]) -> Option<Vec<&'static str>> {
        None
    }

    fn decode(item: Item, _: Option<&[&'static str]>) -> Result<(F, Item), ItemError> {
        Ok((from_item(item.clone())?, item))
    }

    fn record_mut(record: &mut (F, Item)) -> Option<&mut F> {
        Some(&mut record.0)
    }
}

impl<F: Facet, I: KeyFields> Read<F, I> for Fetched {
    type Record = F;

    fn attributes(index_attributes: &[&'static str]) -> Option<Vec<&'static str>> {
        let mut out = vec![PK, SK, FACET_ATTRIBUTE];
        out.extend(index_attributes);
        Some(out)
    }

    /// The whole item, as read from the table by key.
    fn decode(item: Item, _: Option<&[&'static str]>) -> Result<F, ItemError> {
        from_item(item)
    }

    fn decode_wire(item: &WireItem, _: Option<&[&'static str]>) -> Result<F, ItemError> {
        item.decode::<F>()
    }

    const FETCH_BY_KEY: bool = true;

    fn record_mut(record: &mut F) -> Option<&mut F> {
        Some(record)
    }
}

impl<P, I> Read<P::Facet, I> for Select<P>
where
    P: Projection + ProjectedBy<I> + Send + 'static,
    I: KeyFields,
{
    type Record = Picked<P, I>;

    fn attributes(index_attributes: &[&'static str]) -> Option<Vec<&'static str>> {
        Some(projection_attributes::<P, I>(index_attributes))
    }

    fn decode(item: Item, attributes: Option<&[&'static str]>) -> Result<Picked<P, I>, ItemError> {
        picked_from_item(item, attributes.unwrap_or_default())
    }
}

/// Turn one stored item into a record of `R`.
pub(crate) fn decode_stored<F: Facet, I: KeyFields, R: Read<F, I>>(
    item: Stored,
    attributes: Option<&[&'static str]>,
) -> Result<R::Record, ItemError> {
    match item {
        Stored::Tree(item) => R::decode(item, attributes),
        Stored::Wire(wire) => R::decode_wire(&wire, attributes),
        Stored::Read(read) => read.take::<R::Record>(),
    }
}

/// The item stored under `key`, read with strong consistency (`None`: no record), for a
/// write planned from it; `facet` names the records an unreadable answer is reported for.
pub(crate) async fn stored_item(
    table: &crate::table::Table,
    op: &crate::exec::trace::Op,
    key: &Item,
    facet: &'static str,
) -> crate::error::Result<Option<Item>> {
    let plan = faceteer_core::plan::GetPlan {
        key: key.clone(),
        consistent_read: true,
        projection: None,
    };
    match crate::exec::sdk::get_item(table, op, plan.request(table.name())).await? {
        Some(stored) => Ok(Some(stored.into_item(facet)?)),
        None => Ok(None),
    }
}
