//! The expressions writing each key (base `PK`/`SK`, each index's) from a record, a
//! key-fields struct, a builder's arguments or an update's values: every caller writes a key
//! through the core's one routine (`key::write_key`, with `shard::shard_of` for a sharded
//! key's id), given the key's description and the values.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::tokens::private;
use crate::model::{FacetModel, Field, IndexModel, KeyModel};

/// The type a key field's argument must have: the field type without `Option`, wrapped in
/// `Sortable` for sortable key fields.
pub fn arg_type(p: &syn::Ident, field: &Field, sortable: bool) -> TokenStream {
    let inner = &field.inner;
    if sortable {
        quote!(#p::Sortable<#inner>)
    } else {
        quote!(#inner)
    }
}

/// Where key values come from: the record's fields, or a key builder's arguments.
#[derive(Clone, Copy, PartialEq)]
pub enum Source {
    /// `self.field` (a record).
    Record,
    /// `__k.field` (a generated key-fields struct).
    Keys,
    /// A builder's argument named like the field.
    Args,
    /// A query's argument named like the field, given even for an optional field: the
    /// partition of a sparse index, which holds only records with the field present.
    PresentArgs,
}

/// One key written by the facet.
pub struct KeyRef<'a> {
    /// The key.
    pub key: &'a KeyModel,
}

/// Every key written: `PK`, `SK`, then each index's own keys (a local index's partition key
/// is the table's).
pub fn keys(m: &FacetModel) -> Vec<KeyRef<'_>> {
    let base = [&m.pk, &m.sk].map(|key| KeyRef { key });
    let indexes = m.indexes.iter().flat_map(own_key_refs);
    base.into_iter().chain(indexes).collect()
}

/// The keys index `i` writes itself (a local index's partition key is the table's).
pub fn own_key_refs(i: &IndexModel) -> impl Iterator<Item = KeyRef<'_>> {
    i.own_keys().map(|key| KeyRef { key })
}

/// The partition key of index `i` (the table's, for a local index) and its sort key, if it
/// has one.
pub fn index_keys<'a>(m: &'a FacetModel, i: &'a IndexModel) -> (KeyRef<'a>, Option<KeyRef<'a>>) {
    let pk = match i.kind {
        crate::model::IndexKind::Global => KeyRef { key: &i.pk },
        crate::model::IndexKind::Local => KeyRef { key: &m.pk },
    };
    (pk, i.sk.as_ref().map(|key| KeyRef { key }))
}

/// A `&dyn KeyPart` expression for one field's value in `src`, as the runtime's
/// schema-driven key writer takes it: the value alone (the writer applies `sortable`, masking
/// and beacons from the facet's `KEY_LAYOUT` and `KEY_FIELDS`).
pub fn raw_arg(m: &FacetModel, field: usize, sortable: bool, src: Source) -> TokenStream {
    let p = private(m);
    let f = &m.fields[field];
    let ident = &f.ident;
    match src {
        Source::Keys | Source::Record => {
            let read = match src {
                Source::Keys => quote!(__k.#ident),
                _ => quote!(self.#ident),
            };
            // Spanned at the field's type, so a type that is not a key value is reported there.
            let ty = &f.ty;
            quote_spanned!(ty.span()=> #p::key_part::<#ty>(&#read))
        }
        Source::Args if f.optional => quote!(&#ident),
        // A `sortable` field takes its plain integer (`SortableArg`, whose error names it).
        Source::Args | Source::PresentArgs if sortable => {
            let inner = &f.inner;
            quote!(&#p::SortableArg::<#inner>::integer(&#ident))
        }
        // The parameter's one `KeyArg` bound names the field's type.
        Source::Args | Source::PresentArgs => quote!(&#p::key_arg(&#ident)),
    }
}

/// A `Result<Key<Self>, KeyError>` expression: the base-table key written by the runtime's
/// key writer from the table key's fields (and shard inputs) read from `src`.
pub fn key_of(m: &FacetModel, src: Source) -> TokenStream {
    let p = private(m);
    let args = all_key_fields(&m.pk, Some(&m.sk))
        .into_iter()
        .map(|(f, sortable)| {
            let entry = super::key_layout::entry(m, f);
            let value = raw_arg(m, f, sortable, src);
            quote!((#entry, #value))
        });
    quote!(#p::schema_key::<Self>(&[#(#args),*]))
}

/// The fields of a key in order, with their `sortable` flag.
pub fn key_fields(key: &KeyModel) -> Vec<(usize, bool)> {
    key.parts.iter().map(|p| (p.field, p.sortable)).collect()
}

/// The fields of a key (partition, shard, sort), deduplicated, in order.
pub fn all_key_fields(pk: &KeyModel, sk: Option<&KeyModel>) -> Vec<(usize, bool)> {
    let mut out = key_fields(pk);
    out.extend(pk.shard.iter().flat_map(|s| s.inputs().map(|f| (f, false))));
    out.extend(sk.map(key_fields).unwrap_or_default());
    let mut seen = Vec::new();
    out.retain(|(f, _)| {
        let new = !seen.contains(f);
        seen.push(*f);
        new
    });
    out
}
