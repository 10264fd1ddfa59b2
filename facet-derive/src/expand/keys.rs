//! The functions writing each key (base `PK`/`SK`, each index's), and the expressions
//! calling them from a record, a key-fields struct, a builder's arguments or an update's
//! values: every caller writes a key through the one generated function.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use super::tokens::{lit, private};
use crate::model::{FacetModel, Field, IndexModel, KeyModel, ShardModel};

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

/// One key: its label in generated names (`pk`, `gsi1sk`, …) and its model.
pub struct KeyRef<'a> {
    /// `pk`, `sk`, `gsi1pk`, …
    label: String,
    /// The key.
    pub key: &'a KeyModel,
}

/// Every key written: `PK`, `SK`, then each index's own keys (a local index's partition key
/// is the table's).
pub fn keys(m: &FacetModel) -> Vec<KeyRef<'_>> {
    let base = [&m.pk, &m.sk].map(|key| KeyRef {
        label: key.role.attr().to_owned(),
        key,
    });
    let indexes = m.indexes.iter().flat_map(own_key_refs);
    base.into_iter().chain(indexes).collect()
}

/// The keys index `i` writes itself (a local index's partition key is the table's).
pub fn own_key_refs(i: &IndexModel) -> impl Iterator<Item = KeyRef<'_>> {
    i.own_keys().map(move |key| index_key(i, key))
}

/// One own key of index `i`.
fn index_key<'a>(i: &'a IndexModel, key: &'a KeyModel) -> KeyRef<'a> {
    KeyRef {
        label: format!("{}{}", i.method(), key.role.attr()),
        key,
    }
}

/// The partition key of index `i` (the table's, for a local index) and its sort key, if it
/// has one.
pub fn index_keys<'a>(m: &'a FacetModel, i: &'a IndexModel) -> (KeyRef<'a>, Option<KeyRef<'a>>) {
    let pk = match i.kind {
        crate::model::IndexKind::Global => index_key(i, &i.pk),
        crate::model::IndexKind::Local => KeyRef {
            label: "pk".to_owned(),
            key: &m.pk,
        },
    };
    (pk, i.sk.as_ref().map(|k| index_key(i, k)))
}

impl KeyRef<'_> {
    /// The generated function writing the key's values.
    pub fn values_fn(&self) -> Ident {
        format_ident!("__faceteer_{}", self.label)
    }

    /// The generated function computing the key's shard id.
    pub fn shard_fn(&self) -> Ident {
        format_ident!("__faceteer_{}_shard", self.label)
    }
}

/// A `&dyn KeyPart` expression for one field's value in `src`.
pub fn part_arg(m: &FacetModel, field: usize, sortable: bool, src: Source) -> TokenStream {
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

/// The hidden functions writing each key: the values (`__faceteer_pk(..)`) and, for a
/// sharded key, the shard id (`__faceteer_pk_shard(..)`), each taking `&dyn KeyPart`s.
pub fn key_fns(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let delim = lit(&m.delimiter);
    let fns = keys(m).into_iter().map(|k| {
        let values_fn = k.values_fn();
        let params = k.key.parts.iter().map(|part| {
            let ident = &m.fields[part.field].ident;
            quote!(#ident: &dyn #p::KeyPart)
        });
        let writes = k.key.parts.iter().map(|part| {
            let ident = &m.fields[part.field].ident;
            let name = lit(&ident.to_string());
            quote!(__w.part(#name, #ident);)
        });
        let shard = k.key.shard.as_ref().map(|s| {
            let shard_fn = k.shard_fn();
            let count = s.count;
            let idents: Vec<&Ident> = s.fields.iter().map(|f| &m.fields[*f].ident).collect();
            let names = idents.iter().map(|i| lit(&i.to_string()));
            let params = s.inputs().map(|f| &m.fields[f].ident);
            let id = match s.time {
                None => quote!(__s.shard_id(#count)),
                Some(t) => {
                    let time = &m.fields[t].ident;
                    let name = lit(&time.to_string());
                    let schedule = schedule(m, s);
                    quote!(__s.scheduled_shard_id(#count, #schedule, #name, #time))
                }
            };
            quote! {
                fn #shard_fn(#(#params: &dyn #p::KeyPart),*) -> ::core::result::Result<::std::string::String, #p::KeyError> {
                    let mut __s = #p::ShardInputs::new();
                    #(__s.push(#names, #idents);)*
                    #id
                }
            }
        });
        // A key without a prefix writes its values alone (its prefix is empty).
        let writer = if k.key.no_prefix {
            quote!(#p::KeyWriter::bare(#delim))
        } else {
            quote!(#p::KeyWriter::new(__prefix, #delim))
        };
        quote! {
            fn #values_fn(__prefix: &str, __shard: ::core::option::Option<&str>, #(#params),*) -> ::core::result::Result<::std::string::String, #p::KeyError> {
                let _ = __prefix;
                let mut __w = #writer;
                if let ::core::option::Option::Some(__id) = __shard {
                    __w.shard(__id);
                }
                #(#writes)*
                __w.finish()
            }
            #shard
        }
    });
    quote!(#(#fns)*)
}

/// An expression of type `String` (inside a function returning `Result<_, KeyError>`): the
/// complete key from `src`.
pub fn key_expr(m: &FacetModel, k: &KeyRef, src: Source) -> TokenStream {
    let prefix = lit(&k.key.prefix);
    let values_fn = k.values_fn();
    let args = k
        .key
        .parts
        .iter()
        .map(|part| part_arg(m, part.field, part.sortable, src));
    let shard = match &k.key.shard {
        None => quote!(::core::option::Option::None),
        Some(s) => {
            let shard_fn = k.shard_fn();
            let args = s.inputs().map(|f| part_arg(m, f, false, src));
            quote!(::core::option::Option::Some(Self::#shard_fn(#(#args),*)?.as_str()))
        }
    };
    quote!(Self::#values_fn(#prefix, #shard, #(#args),*)?)
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
