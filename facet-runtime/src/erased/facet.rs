//! One facet reached without its type, and the table's list of them.

use faceteer_core::schema::FacetSchema;
use faceteer_core::{Facet, Item};

use crate::exec::future::BoxFuture;
use crate::table::Table;

use super::record::parse_record;
use super::seed::{self, SeedReport};

/// Write records given as JSON: the parsed records' outcomes.
pub(crate) type SeedFn = for<'t> fn(&'t Table, Vec<serde_json::Value>) -> BoxFuture<'t, SeedReport>;

/// One facet of a declared table, reached without its type.
#[derive(Clone, Copy)]
pub struct AnyFacet {
    schema: &'static FacetSchema,
    decode: fn(&Item) -> Result<serde_json::Value, String>,
    parse: fn(serde_json::Value) -> Result<(), String>,
    seed: SeedFn,
    batched: bool,
}

impl std::fmt::Debug for AnyFacet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnyFacet")
            .field("facet", &self.schema.name)
            .field("batched", &self.batched)
            .finish()
    }
}

impl AnyFacet {
    /// The facet's schema.
    pub fn schema(&self) -> &'static FacetSchema {
        self.schema
    }

    /// The facet's name.
    pub fn name(&self) -> &'static str {
        self.schema.name
    }

    /// Whether its records are written in batches (`put_many`): a facet without
    /// `#[unique]` fields.
    pub fn is_batched(&self) -> bool {
        self.batched
    }

    /// The record stored in `item`, as JSON (its fields as serde writes them); the error
    /// text when it is not a valid record of the facet.
    pub fn decode(&self, item: &Item) -> Result<serde_json::Value, String> {
        (self.decode)(item)
    }

    /// Whether `value` is a valid record of the facet (deserialized, and accepted by its
    /// write validation); the error text when not.
    pub fn check(&self, value: serde_json::Value) -> Result<(), String> {
        (self.parse)(value)
    }

    /// Write `records` (JSON, each a record of the facet): each ends written, failed or
    /// unknown.
    pub async fn seed(&self, table: &Table, records: Vec<serde_json::Value>) -> SeedReport {
        (self.seed)(table, records).await
    }
}

/// A declared table's facets, without their types: implemented by `faceteer::table!`.
pub trait TableFacets: faceteer_core::table::TableSchema {
    /// Each facet, in declaration order.
    fn any_facets() -> Vec<AnyFacet>;
}

fn decode<F: Facet>(item: &Item) -> Result<serde_json::Value, String> {
    let record = faceteer_core::from_item::<F>(item.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(&record).map_err(|e| e.to_string())
}

fn parse<F: Facet>(value: serde_json::Value) -> Result<(), String> {
    parse_record::<F>(value).map(|_| ())
}

/// Picks how facet `F`'s records are seeded: `put_many` when `F` is batch-writable, single
/// puts otherwise. Used by `faceteer::table!` (through `(&Seeder::<F>::NEW).any_facet()`:
/// the batched implementation is found first when it applies).
#[doc(hidden)]
pub struct Seeder<F>(std::marker::PhantomData<fn() -> F>);

impl<F> Seeder<F> {
    /// The picker.
    pub const NEW: Seeder<F> = Seeder(std::marker::PhantomData);
}

/// The batched choice (a batch-writable facet).
#[doc(hidden)]
pub trait ViaBatch {
    /// The facet, seeded with `put_many`.
    fn any_facet(&self) -> AnyFacet;
}

/// The single-put choice (a facet with `#[unique]` fields).
#[doc(hidden)]
pub trait ViaPut {
    /// The facet, seeded with one put per record.
    fn any_facet(&self) -> AnyFacet;
}

impl<F: faceteer_core::facet::BatchWritable> ViaBatch for Seeder<F> {
    fn any_facet(&self) -> AnyFacet {
        AnyFacet {
            schema: F::SCHEMA,
            decode: decode::<F>,
            parse: parse::<F>,
            seed: |table, values| Box::pin(seed::batched::<F>(table, values)),
            batched: true,
        }
    }
}

impl<F: Facet> ViaPut for &Seeder<F> {
    fn any_facet(&self) -> AnyFacet {
        AnyFacet {
            schema: F::SCHEMA,
            decode: decode::<F>,
            parse: parse::<F>,
            seed: |table, values| Box::pin(seed::one_by_one::<F>(table, values)),
            batched: false,
        }
    }
}
