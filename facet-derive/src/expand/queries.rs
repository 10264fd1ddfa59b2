//! The typed query entry points: `query`, and `gsiN` plus its alias for each index.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::keys::{arg_type, index_keys, key_fields, keys, raw_arg, KeyRef, Source};
use super::projection::{has_index_keys_struct, index_keys_ident};
use super::tokens::{allow_many_args, lit, private};
use super::updates::UpdateKind;
use crate::model::{FacetModel, Field, IndexKind, IndexModel, KeyModel};
use crate::types::is_string_like;

/// The parameter type of a key builder or query for a key field: `impl KeyArg<T>` for a
/// required field; for an optional one, `Option<&str>` when it holds a string and `Option<T>`
/// otherwise, so that `None` (an absent field, which Faceteer leaves out of the key) can be
/// passed without naming a type.
fn param_type(p: &syn::Ident, field: &Field, sortable: bool, present: bool) -> TokenStream {
    let inner = &field.inner;
    match (takes_option(field, present), is_string_like(inner)) {
        (false, _) if sortable => quote!(impl #p::SortableArg<#inner>),
        (false, _) => {
            let ty = arg_type(p, field, sortable);
            quote!(impl #p::KeyArg<#ty>)
        }
        (true, true) => quote!(#p::Option<&str>),
        (true, false) => quote!(#p::Option<#inner>),
    }
}

/// Whether the parameter of `field` is an `Option` (an optional field, unless only present
/// values are taken) rather than an `impl KeyArg<T>` (or `impl SortableArg<T>`).
fn takes_option(field: &Field, present: bool) -> bool {
    field.optional && !present
}

/// Whether the parameters of the given fields, from `src`, make a method generic: one of
/// them is an `impl` parameter, not an `Option`.
fn generic_params(m: &FacetModel, fields: &[(usize, bool)], src: Source) -> bool {
    let present = src == Source::PresentArgs;
    fields
        .iter()
        .any(|&(f, _)| !takes_option(&m.fields[f], present))
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

/// A `PartitionQuery` of index `at` (`None`: the table) in the partition built from
/// arguments (`src`: `Args`, or `PresentArgs` for a sparse index): the runtime's key writer
/// names the partition from the schema.
fn partition_query(m: &FacetModel, at: &TokenStream, k: &KeyRef, src: Source) -> TokenStream {
    let p = private(m);
    let values = k
        .key
        .parts
        .iter()
        .map(|part| raw_arg(m, part.field, part.sortable, src));
    let checks = super::crypto::beacon_checks(m, k.key.parts.iter().map(|part| part.field), src);
    if checks.is_empty() {
        return quote!(#p::PartitionQuery::of(#at, &[#(#values),*]));
    }
    quote!(#p::PartitionQuery::at(#at, #p::schema_partition::<Self>(#at, &[#(#values),*])#checks))
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
        if let Some((at, i)) = index.filter(|(_, i)| i.native) {
            out.push(native_query_fns(m, at, i));
            continue;
        }
        let args = key_fields(pk.key);
        // A sparse index holds only records whose key fields are present: its partition is
        // named by plain values.
        let src = match index {
            // A local index's partition is the table's: every record is in it.
            Some((_, i)) if i.sparse && i.kind == IndexKind::Global => Source::PresentArgs,
            _ => Source::Args,
        };
        let params = params_of(m, &args, src);
        // A method with an `impl KeyArg` parameter is generic, compiled where it is called;
        // one that takes only `Option`s is inlined there.
        let inline = (!generic_params(m, &args, src)).then(|| quote!(#[inline]));
        let shape = match sk {
            Some(sk) => shape(m, sk.key),
            None => quote!(#p::NoSortKey),
        };
        let sort_fields = sk.map(|sk| field_list(m, &key_fields(sk.key)));
        let at = match index {
            Some((at, _)) => quote!(#p::Some(#at)),
            None => quote!(#p::None),
        };
        let partition = partition_query(m, &at, pk, src);
        let (method, index_keys, doc) = match index {
            Some((_, i)) => {
                let index_keys = if has_index_keys_struct(m, i) {
                    let name = index_keys_ident(m, i);
                    quote!(#name)
                } else {
                    // The default: whole records.
                    TokenStream::new()
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
                TokenStream::new(),
                format!(
                    "Query the base table in the partition given by {}.\n\n\
                     Sort-key arguments of the operators are the sort-key field(s): {}.",
                    field_list(m, &args),
                    sort_fields.unwrap_or_default(),
                ),
            ),
        };
        let index_keys = (!index_keys.is_empty()).then(|| quote!(, #index_keys));
        let ret = quote!(#p::PartitionQuery<Self, #shape #index_keys>);
        let allow = allow_many_args(params.len());
        out.push(quote! {
            #[doc = #doc]
            #allow
            #inline
            pub fn #method(#(#params),*) -> #ret {
                #partition
            }
        });
        if let Some(alias) = index.and_then(|(_, i)| i.alias_method()) {
            let alias = format_ident!("{}", alias);
            let names = args.iter().map(|(f, _)| &m.fields[*f].ident);
            let doc = format!("The same as [`Self::{method}`].");
            out.push(quote! {
                #[doc = #doc]
                #allow
                #inline
                pub fn #alias(#(#params),*) -> #ret {
                    Self::#method(#(#names),*)
                }
            });
        }
    }
    quote!(#(#out)*)
}

/// The entry points of native index `i` (the `at`-th of the schema): `gsiN` and its alias,
/// taking a value for each partition field, each encoded by its field's handle, and giving a
/// `NativeQuery` whose sort conditions follow the sort fields in order.
fn native_query_fns(m: &FacetModel, at: usize, i: &IndexModel) -> TokenStream {
    let p = private(m);
    let ident = &m.ident;
    let field_type = |f: usize| {
        let field = &m.fields[f];
        let (inner, ty) = (&field.inner, &field.ty);
        let kind = UpdateKind::of(m, f).path(&p);
        quote!(#p::Field<#ident, #inner, #ty, #kind>)
    };
    let pk: Vec<usize> = i.pk.parts.iter().map(|part| part.field).collect();
    let sk: Vec<usize> =
        i.sk.iter()
            .flat_map(|k| k.parts.iter().map(|part| part.field))
            .collect();
    let params: Vec<TokenStream> = pk
        .iter()
        .map(|&f| {
            let field = &m.fields[f];
            let (name, inner) = (&field.ident, &field.inner);
            quote!(#name: impl #p::FieldValue<#inner>)
        })
        .collect();
    let values = pk.iter().map(|&f| {
        let field = &m.fields[f];
        let (name, stored) = (&field.ident, lit(&field.name));
        quote!((#stored, __f.#name.key_operand(#p::FieldValue::into_field_value(#name))))
    });
    let mut rest_type = quote!(());
    let mut rest_value = quote!(());
    for &f in sk.iter().rev() {
        let ty = field_type(f);
        let name = &m.fields[f].ident;
        rest_type = quote!((#ty, #rest_type));
        rest_value = quote!((__f.#name, #rest_value));
    }
    let index_keys = if has_index_keys_struct(m, i) {
        let name = index_keys_ident(m, i);
        quote!(#name)
    } else {
        quote!(#p::BaseTable)
    };
    let method = format_ident!("{}", i.method());
    let names = |fields: &[usize]| {
        let names: Vec<String> = fields
            .iter()
            .map(|f| format!("`{}`", m.fields[*f].ident))
            .collect();
        names.join(", ")
    };
    let doc = format!(
        "Query native index `{}`{} (multi-attribute keys) in the partition given by {}.\n\n\
         Sort conditions follow the sort fields in order ({}): `eq` on each in turn, then at \
         most one range (`gt`, `ge`, `lt`, `le`, `between`, `begins_with`); `list()` reads \
         what the equalities select.",
        i.name(),
        i.alias
            .as_ref()
            .map(|a| format!(" (`{a}`)"))
            .unwrap_or_default(),
        names(&pk),
        if sk.is_empty() {
            "none: `list()` reads the partition".to_owned()
        } else {
            names(&sk)
        },
    );
    let ret = quote!(#p::NativeQuery<Self, #rest_type, #index_keys>);
    let allow = allow_many_args(params.len());
    let mut out = vec![quote! {
        #[doc = #doc]
        #allow
        #[inline]
        pub fn #method(#(#params),*) -> #ret {
            let __f = Self::fields();
            #p::NativeQuery::new(
                &<Self as #p::Facet>::SCHEMA.indexes[#at],
                ::std::vec![#(#values),*],
                #rest_value,
            )
        }
    }];
    if let Some(alias) = i.alias_method() {
        let alias = format_ident!("{}", alias);
        let args = pk.iter().map(|&f| &m.fields[f].ident);
        let doc = format!("The same as [`Self::{method}`].");
        out.push(quote! {
            #[doc = #doc]
            #allow
            #[inline]
            pub fn #alias(#(#params),*) -> #ret {
                Self::#method(#(#args),*)
            }
        });
    }
    quote!(#(#out)*)
}
