//! A declared table's facets without their types: what the operations runner
//! ([`crate::ops`]) reads and writes through. `faceteer::table!` lists them
//! ([`TableFacets`]); each [`AnyFacet`] decodes a stored item into its record (checked like
//! any read: the facet's deserializer and validator) as JSON, and writes records given as
//! JSON through the facet's own put (batched with `put_many` when the facet allows it).

mod facet;
mod record;
mod seed;

pub use facet::{AnyFacet, Seeder, TableFacets, ViaBatch, ViaPut};
pub use seed::{SeedOutcome, SeedReport};
