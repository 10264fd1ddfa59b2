//! Vector indexes and `SearchVectors`: the records nearest to a vector.
//!
//! A `#[vector(dimensions = N, distance = cosine)]` field (a `Vec<f32>`) declares a vector
//! index over it; `create_table`, `create_missing_indexes`, `verify` and the design exports
//! include it. The derive generates `Facet::similar(..)` (and `similar_<field>(..)`), a
//! [`VectorSearch`] run by [`Table::search_vectors`](crate::Table::search_vectors): the
//! top-K records with their scores, decoded like every read (items of other facets skipped
//! and counted, validators run, expired records hidden). The query vector's dimensions and
//! values, `top_k` and the filter's attributes are checked before sending ([`VectorError`]).
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! #[derive(Facet, Serialize, Deserialize)]
//! struct Doc {
//!     #[pk(prefix = "#DOC")]
//!     #[sk(prefix = "#DOC")]
//!     id: String,
//!     team: String,
//!     #[vector(dimensions = 3, distance = cosine, filters(team))]
//!     embedding: Vec<f32>,
//! }
//! # async fn demo(table: &Table) -> faceteer::Result<()> {
//! let f = Doc::fields();
//! let found = table
//!     .search_vectors(Doc::similar([0.1, 0.9, 0.0]).top_k(5).filter(f.team.eq("core")))
//!     .await?;
//! for hit in &found.results {
//!     println!("{} scored {}", hit.record.id, hit.score);
//! }
//! # Ok(()) }
//! ```
//!
//! The embedded engine answers with exact nearest neighbours; DynamoDB's index is
//! approximate, so a search there may miss a near record. moto has no vector search.

mod search;

pub use crate::error::VectorError;
pub use search::{Scored, VectorResults, VectorSearch};
