//! Compile-time projections: `#[derive(Pick)]` structs read a subset of a facet's fields.
//!
//! A [`Projection`] names the attributes a read asks for (`ProjectionExpression`); on an
//! index, [`IndexProjects`] proves at compile time that the index projects every picked field.
//! [`Picked`] is what such a read returns; the facet's [`PickValidator`] decides how a
//! projected item is checked ([`WholeRecords`], [`KeyFields`] or a function of yours).

pub use faceteer_core::pick::{
    BaseTable, FieldAt, IndexProjects, KeyFields, PickValidator, Picked, ProjectedBy, Projection,
    WholeRecords,
};
