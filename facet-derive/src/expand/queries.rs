//! The typed query entry points: `query`, and `gsiN` plus its alias for each index.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::keys::{
    arg_type, index_keys, key_fields, keys, schedule, shard_call, write_key_call, KeyRef, Source,
};
use super::projection::{has_index_keys_struct, index_keys_ident};
use super::tokens::{allow_many_args, lit, private};
use crate::model::{FacetModel, Field, IndexKind, KeyModel};
use crate::types::is_string_like;

/// The parameter type of a key builder or query for a key field: `impl KeyArg<T>` for a
/// required field; for an optional one, `Option<&str>` when it holds a string and `Option<T>`
/// otherwise, so that `None` (an absent field, which Faceteer leaves out of the key) can be
/// passed without naming a type.
fn param_type(p: &TokenStream, field: &Field, sortable: bool, present: bool) -> TokenStream {
    let inner = &field.inner;
    match (field.optional && !present, is_string_like(inner)) {
        (false, _) if sortable => quote!(impl #p::SortableArg<#inner>),
        (false, _) => {
            let ty = arg_type(p, field, sortable);
            quote!(impl #p::KeyArg<#ty>)
        }
        (true, true) => quote!(::core::option::Option<&str>),
        (true, false) => quote!(::core::option::Option<#inner>),
    }
}

/// Parameters `name: impl KeyArg<T>` for the given fields (in order).
pub fn params(m: &FacetModel, fields: &[(usize, bool)]) -> Vec<TokenStream> {
    params_of(m, fields, Source::Args)
}

/// Parameters for the given fields, from `src`: [`Source::PresentArgs`] takes optional
/// fields as plain values.
fn params_of(m: &FacetModel, fields: &[(usize, bool)], src: Source) -> Vec<TokenStream> {
    let p = private(m);
    fields
        .iter()
        .map(|&(field, sortable)| {
            let f = &m.fields[field];
            let ident = &f.ident;
            let ty = param_type(&p, f, sortable, src == Source::PresentArgs);
            quote!(#ident: #ty)
        })
        .collect()
}

pub fn field_list(m: &FacetModel, fields: &[(usize, bool)]) -> String {
    let names: Vec<String> = fields
        .iter()
        .map(|(f, _)| format!("`{}`", m.fields[*f].ident))
        .collect();
    names.join(", ")
}

/// An expression of type `PartitionKey` for a query built from arguments (`src`: `Args`, or
/// `PresentArgs` for a sparse index).
fn partition_key(m: &FacetModel, k: &KeyRef, src: Source) -> TokenStream {
    let p = private(m);
    let prefix = lit(&k.key.prefix);
    let attribute = lit(&k.key.attribute);
    let delim = lit(&m.delimiter);
    let shard = match &k.key.shard {
        None => quote!(#p::ShardChoice::Unsharded),
        Some(s) => {
            let count = s.count;
            let schedule = schedule(m, s);
            let all_in_key = s
                .inputs()
                .all(|f| k.key.parts.iter().any(|part| part.field == f));
            if all_in_key {
                let id = shard_call(m, s, src);
                quote!(#p::ShardChoice::Computed {
                    count: #count,
                    schedule: #schedule,
                    id: #id,
                })
            } else {
                quote!(#p::ShardChoice::Choose { count: #count, schedule: #schedule })
            }
        }
    };
    let values = write_key_call(m, k, "", quote!(::core::option::Option::None), src);
    quote!(#p::PartitionKey::new(#attribute, #prefix, #delim, #shard, #values))
}

/// The sort-key shape type of a key.
fn shape(m: &FacetModel, key: &KeyModel) -> TokenStream {
    let p = private(m);
    let tys: Vec<TokenStream> = key
        .parts
        .iter()
        .map(|k| arg_type(&p, &m.fields[k.field], k.sortable))
        .collect();
    match tys.len() {
        0 => quote!(#p::NoFields),
        1 => quote!(#p::One<#(#tys),*>),
        2 => quote!(#p::Two<#(#tys),*>),
        3 => quote!(#p::Three<#(#tys),*>),
        _ => quote!(#p::Four<#(#tys),*>),
    }
}

/// The query entry points: `query`, and `gsiN` / `lsiN` plus its alias for each index (the
/// alias delegates).
pub fn query_fns(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let key_refs = keys(m);
    let base = std::iter::once((None, (&key_refs[0], Some(&key_refs[1]))));
    let mut index_refs = Vec::new();
    for i in &m.indexes {
        index_refs.push((i, index_keys(m, i)));
    }
    let indexes = index_refs
        .iter()
        .enumerate()
        .map(|(at, (i, (pk, sk)))| (Some((at, *i)), (pk, sk.as_ref())));
    let mut out = Vec::new();
    for (index, (pk, sk)) in base.chain(indexes) {
        let args = key_fields(pk.key);
        // A sparse index holds only records whose key fields are present: its partition is
        // named by plain values.
        let src = match index {
            // A local index's partition is the table's: every record is in it.
            Some((_, i)) if i.sparse && i.kind == IndexKind::Global => Source::PresentArgs,
            _ => Source::Args,
        };
        let params = params_of(m, &args, src);
        let shape = match sk {
            Some(sk) => shape(m, sk.key),
            None => quote!(#p::NoSortKey),
        };
        let sort_fields = sk.map(|sk| field_list(m, &key_fields(sk.key)));
        let partition = partition_key(m, pk, src);
        let (method, index_expr, sk_schema, index_keys, doc) = match index {
            Some((at, i)) => {
                let index_keys = if has_index_keys_struct(m, i) {
                    let name = index_keys_ident(m, i);
                    quote!(#name)
                } else {
                    quote!(#p::BaseTable)
                };
                let sort_doc = match &sort_fields {
                    Some(fields) => format!(
                        "Sort-key arguments of the operators are the index's sort-key \
                         field(s): {fields}."
                    ),
                    None => "The index has no sort key: `list()` reads the partition.".to_owned(),
                };
                let kind = match i.kind {
                    IndexKind::Global => "global index",
                    IndexKind::Local => "local index (consistent reads allowed)",
                };
                (
                    format_ident!("{}", i.method()),
                    quote!(::core::option::Option::Some(&<Self as #p::Facet>::SCHEMA.indexes[#at])),
                    quote!(<Self as #p::Facet>::SCHEMA.indexes[#at].sk.as_ref()),
                    index_keys,
                    format!(
                        "Query {kind} `{}`{}{} in the partition given by {}.\n\n{sort_doc}",
                        i.name(),
                        i.alias
                            .as_ref()
                            .map(|a| format!(" (`{a}`)"))
                            .unwrap_or_default(),
                        if i.sparse {
                            ", sparse: only records with every key field,"
                        } else {
                            ""
                        },
                        field_list(m, &args),
                    ),
                )
            }
            None => (
                format_ident!("query"),
                quote!(::core::option::Option::None),
                quote!(::core::option::Option::Some(&<Self as #p::Facet>::SCHEMA.sk)),
                quote!(#p::BaseTable),
                format!(
                    "Query the base table in the partition given by {}.\n\n\
                     Sort-key arguments of the operators are the sort-key field(s): {}.",
                    field_list(m, &args),
                    sort_fields.unwrap_or_default(),
                ),
            ),
        };
        let ret = quote!(#p::PartitionQuery<Self, #shape, #index_keys>);
        let allow = allow_many_args(params.len());
        out.push(quote! {
            #[doc = #doc]
            #allow
            pub fn #method(#(#params),*) -> #ret {
                #p::PartitionQuery::new(#index_expr, #sk_schema, #partition)
            }
        });
        if let Some(alias) = index.and_then(|(_, i)| i.alias_method()) {
            let alias = format_ident!("{}", alias);
            let names = args.iter().map(|(f, _)| &m.fields[*f].ident);
            let doc = format!("The same as [`Self::{method}`].");
            out.push(quote! {
                #[doc = #doc]
                #allow
                pub fn #alias(#(#params),*) -> #ret {
                    Self::#method(#(#names),*)
                }
            });
        }
    }
    quote!(#(#out)*)
}
