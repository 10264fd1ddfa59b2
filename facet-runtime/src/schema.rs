//! Descriptions of facets and tables, as the derive and [`table!`](crate::table) write them.
//!
//! [`FacetSchema`] describes one facet: its keys ([`KeySchema`]), indexes ([`IndexSchema`]),
//! shards ([`ShardSchema`]) and unique fields ([`UniqueSchema`]); [`FieldSchema`] describes
//! one field of its record type. [`TableSchema`] lists the facets of one table;
//! [`TableNames`] and [`IndexNames`] are the attribute and index names a table uses when they
//! are not Faceteer's.

pub use faceteer_core::layout::{IndexNames, TableNames};
pub use faceteer_core::schema::{
    FacetSchema, FieldSchema, IndexKind, IndexProjection, IndexSchema, KeyAttribute, KeySchema,
    NativeKeys, ScalarType, ShardSchema, TableIndex, UniqueSchema, VectorDistance, VectorSchema,
};
pub use faceteer_core::table::TableSchema;
