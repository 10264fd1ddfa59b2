//! The seam between the [`Facet`](super::Facet) trait and what writes a facet's keys: a
//! facet names its key writer ([`Facet::KEY_WRITER`](super::Facet::KEY_WRITER)), and the
//! trait's key methods call it. `#[derive(Facet)]` names the schema-driven key writer
//! ([`crate::key_writer::SchemaKeys`]), so that no facet's expansion repeats those methods.

use super::key::Key;
use crate::expr::{Derived, ExprError, KeyValue, KeyedValues};
use crate::item::Item;
use crate::key::KeyError;
use crate::limits::KeyLengths;

/// What writes the keys of facet `F`: the bodies of the [`Facet`](super::Facet) methods of
/// the same names, for a facet whose [`Facet::KEY_WRITER`](super::Facet::KEY_WRITER) names
/// it.
pub trait WriteKeys<F>: Sync {
    /// The record's base-table key ([`Facet::primary_key`](super::Facet::primary_key)).
    fn primary_key(&self, record: &F) -> Result<Key<F>, KeyError>;

    /// Put the record's index keys into `item`, each checked by `keys`
    /// ([`Facet::write_index_keys`](super::Facet::write_index_keys)).
    fn write_index_keys(
        &self,
        record: &F,
        item: &mut Item,
        keys: &mut KeyLengths,
    ) -> Result<(), KeyError>;

    /// The derived attributes an update rebuilds from `values`
    /// ([`Facet::derived_attributes`](super::Facet::derived_attributes)).
    fn derived_attributes(
        &self,
        values: &mut KeyedValues<'_, F>,
    ) -> Result<Vec<Derived>, ExprError>;

    /// The values of the table key's fields that the key `pk`, `sk` holds
    /// ([`Facet::key_values`](super::Facet::key_values)).
    fn key_values(&self, pk: &str, sk: &str) -> Vec<KeyValue>;
}
