//! The expressions writing each key (base `PK`/`SK`, each index's) from a record, a
//! key-fields struct, a builder's arguments or an update's values: every caller writes a key
//! through the core's one routine (`key::write_key`, with `shard::shard_of` for a sharded
//! key's id), given the key's description and the values.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::tokens::{lit, private};
use crate::model::{FacetModel, Field, IndexModel, KeyModel, KeyRole, ShardModel};

/// The type a key field's argument must have: the field type without `Option`, wrapped in
/// `Sortable` for sortable key fields.
pub fn arg_type(p: &TokenStream, field: &Field, sortable: bool) -> TokenStream {
    let inner = &field.inner;
    if sortable {
        quote!(#p::Sortable<#inner>)
    } else {
        quote!(#inner)
    }
}

/// The `&[ShardPeriod]` of a shard's schedule.
pub fn schedule(m: &FacetModel, s: &ShardModel) -> TokenStream {
    let p = private(m);
    let periods = s
        .schedule
        .iter()
        .map(|(from, count)| quote!(#p::ShardPeriod { from: #from, count: #count }));
    quote!(&[#(#periods),*])
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
    /// A local variable named like the field holding `&T` (a required field) or
    /// `Option<&T>` (an optional one), `T` the field's type without `Option` (the values an
    /// update rebuilds derived attributes from).
    Values,
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

/// A `&dyn KeyPart` expression for one field's value in `src`.
pub fn part_arg(m: &FacetModel, field: usize, sortable: bool, src: Source) -> TokenStream {
    let plain = plain_part_arg(m, field, sortable, src);
    let plain = super::redact::registering(m, field, plain);
    // A `#[beacon]` field's key text is written as its beacon.
    match super::beacon::beacon_spec(m, field) {
        Some(spec) => {
            let p = private(m);
            let facet = lit(&m.name);
            quote!(&#p::Beaconed { facet: #facet, beacon: #spec, value: #plain })
        }
        None => plain,
    }
}

/// [`part_arg`] of the value itself.
pub fn plain_part_arg(m: &FacetModel, field: usize, sortable: bool, src: Source) -> TokenStream {
    let p = private(m);
    let f = &m.fields[field];
    let ident = &f.ident;
    let read = match src {
        Source::Keys => quote!(__k.#ident),
        _ => quote!(self.#ident),
    };
    match src {
        Source::Values if f.optional && sortable => quote!(&#p::Sortable(#ident.copied())),
        Source::Values if sortable => quote!(&#p::Sortable(#ident)),
        Source::Values if f.optional => quote!(&#ident),
        Source::Values => {
            let inner = &f.inner;
            quote!(#p::key_part::<#inner>(#ident))
        }
        Source::Record | Source::Keys if sortable => {
            quote!(&#p::Sortable(&#read))
        }
        Source::Record | Source::Keys => {
            // Spanned at the field's type, so a type that is not a key value is reported there.
            let ty = &f.ty;
            quote_spanned!(ty.span()=> #p::key_part::<#ty>(&#read))
        }
        Source::Args if f.optional && sortable => quote!(&#p::Sortable(#ident)),
        Source::Args if f.optional => quote!(&#ident),
        // A `sortable` field takes its plain integer (`SortableArg`, whose error names it).
        Source::Args | Source::PresentArgs if sortable => {
            let inner = &f.inner;
            quote!(&#p::Sortable(#p::SortableArg::<#inner>::integer(&#ident)))
        }
        Source::Args | Source::PresentArgs => {
            let ty = arg_type(&p, f, sortable);
            quote!(&#p::KeyArg::<#ty>::key_part(&#ident))
        }
    }
}

/// A `Result<String, KeyError>` expression: the shard id of `s`, its inputs read from `src`.
pub fn shard_call(m: &FacetModel, s: &ShardModel, src: Source) -> TokenStream {
    let p = private(m);
    let count = s.count;
    let names = s
        .fields
        .iter()
        .map(|f| lit(&m.fields[*f].ident.to_string()));
    let values = s.fields.iter().map(|f| part_arg(m, *f, false, src));
    let schedule = match s.time {
        None => quote!(::core::option::Option::None),
        Some(t) => {
            let name = lit(&m.fields[t].ident.to_string());
            let time = part_arg(m, t, false, src);
            let periods = schedule(m, s);
            quote!(::core::option::Option::Some((#periods, #name, #time)))
        }
    };
    quote!(#p::shard_of(#count, #schedule, &[#(#names),*], &[#(#values),*]))
}

/// A `Result<String, KeyError>` expression: key `k` written by the core's one routine with
/// `prefix` and `shard` (an `Option<&str>` expression), its values read from `src`.
pub fn write_key_call(
    m: &FacetModel,
    k: &KeyRef,
    prefix: &str,
    shard: TokenStream,
    src: Source,
) -> TokenStream {
    let p = private(m);
    let args = write_key_args(m, k, prefix, shard, src);
    quote!(#p::write_key(#args))
}

/// A statement putting a record's index key `k` into `__item`, checked by `__keys`: an
/// unsharded key is written and put by the core in one call.
pub fn put_index_key(m: &FacetModel, k: &KeyRef) -> TokenStream {
    let attribute = lit(&k.key.attribute);
    let partition = matches!(k.key.role, KeyRole::Partition);
    match k.key.shard {
        None => {
            let args = write_key_args(
                m,
                k,
                &k.key.prefix,
                quote!(::core::option::Option::None),
                Source::Record,
            );
            quote!(__keys.put(__item, #attribute, #partition, #args)?;)
        }
        Some(_) => {
            let value = key_expr(m, k, Source::Record);
            quote!(__keys.insert(__item, #attribute, #partition, #value);)
        }
    }
}

/// The arguments of the core's `write_key` for key `k` (see [`write_key_call`]).
fn write_key_args(
    m: &FacetModel,
    k: &KeyRef,
    prefix: &str,
    shard: TokenStream,
    src: Source,
) -> TokenStream {
    let prefix = lit(prefix);
    let delim = lit(&m.delimiter);
    let bare = k.key.no_prefix;
    let names = k
        .key
        .parts
        .iter()
        .map(|part| lit(&m.fields[part.field].ident.to_string()));
    let values = k
        .key
        .parts
        .iter()
        .map(|part| part_arg(m, part.field, part.sortable, src));
    quote!(#prefix, #delim, #bare, #shard, &[#(#names),*], &[#(#values),*])
}

/// An expression of type `Result<String, KeyError>`: the complete key from `src`.
pub fn key_result(m: &FacetModel, k: &KeyRef, src: Source) -> TokenStream {
    match &k.key.shard {
        None => write_key_call(
            m,
            k,
            &k.key.prefix,
            quote!(::core::option::Option::None),
            src,
        ),
        Some(s) => {
            let id = shard_call(m, s, src);
            let call = write_key_call(
                m,
                k,
                &k.key.prefix,
                quote!(::core::option::Option::Some(__id.as_str())),
                src,
            );
            quote!(#id.and_then(|__id| #call))
        }
    }
}

/// An expression of type `String` (inside a function returning `Result<_, KeyError>`): the
/// complete key from `src`.
pub fn key_expr(m: &FacetModel, k: &KeyRef, src: Source) -> TokenStream {
    let key = key_result(m, k, src);
    quote!(#key?)
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

/// For a sparse index, whether every optional field of its own keys is present
/// (`is_some(ident)` tests one); `None` for an index that holds every record.
pub fn sparse_membership(
    m: &FacetModel,
    i: &IndexModel,
    is_some: impl Fn(&syn::Ident) -> TokenStream,
) -> Option<TokenStream> {
    let mut optional: Vec<usize> = i
        .own_keys()
        .flat_map(|k| k.inputs())
        .filter(|&f| m.fields[f].optional)
        .collect();
    optional.sort_unstable();
    optional.dedup();
    if !i.sparse || optional.is_empty() {
        return None;
    }
    let tests = optional.iter().map(|&f| is_some(&m.fields[f].ident));
    Some(quote!(#(#tests)&&*))
}
