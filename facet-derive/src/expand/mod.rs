//! The expansion, split by what it generates. Every runtime item is reached through
//! `<crate>::__private_<version>` (`::faceteer` unless `#[facet(crate = ..)]` says otherwise), so
//! the generated code does not depend on the caller's imports. A facet's expansion imports
//! that module once, as `__faceteer_<Struct>` ([`tokens::private_use`]), and names its items
//! through that one token.
//!
//! A facet's expansion ([`facet`]) is assembled from its key data (`KEY_FIELDS` and
//! `KEY_LAYOUT`, [`key_layout`]: the runtime's schema-driven key writer writes every key from
//! them, so the expansion holds data, not key code), its schema, its queries, its field
//! handles, its updates, its encoders and its projections; the other derives are [`pick`],
//! [`key_part`] and [`collection`]. A failed derive emits [`fallback`].
//!
//! Most of it is written with `quote!`, token by token, keeping the user's spans where an
//! error may point. The constant tables that hold only names, numbers and literals (the
//! schema's keys and indexes, `FIELDS`, `KEY_LAYOUT`, the plain field handles) are written
//! as text and lexed once by the compiler ([`tokens::source`]): inside a derive, tokens made
//! one at a time reach the compiler in round trips of their own, run by unoptimized code,
//! and those tables are a large share of the tokens.

mod attributes;
mod beacon;
mod collection;
mod crypto;
mod encoders;
mod facet;
pub mod fallback;
mod field_schemas;
mod fields;
mod key_layout;
mod key_part;
mod keys;
mod nested;
mod pick;
mod projection;
mod queries;
mod redact;
mod schema;
mod tokens;
mod updates;
mod vectors;

pub use collection::collection;
pub use facet::facet;
pub use key_part::key_part;
pub use nested::nested;
pub use pick::pick;

/// The `FIELDS` constant's tokens of `m`, as text (for the model tests).
#[cfg(test)]
pub fn field_schemas_of(m: &crate::model::FacetModel) -> String {
    field_schemas::field_schemas(m).to_string()
}
