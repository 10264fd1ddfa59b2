//! Projections of a facet: the key-fields types (`TaskKeys`, `TaskGsi1Keys`), what each
//! index projects, and the `PickValidator` impl.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::keys::{all_key_fields, key_of, Source};
use super::tokens::{lit, private};
use crate::model::{FacetModel, IndexKind, IndexModel, PickValidatorModel, ProjectionModel};

/// Whether index `i` gets its own key-fields type (`TaskGsi1Keys`): when the facet can be
/// projected, or when the index projects less than whole records (reads through it are
/// then checked at compile time against what it projects).
pub fn has_index_keys_struct(m: &FacetModel, i: &IndexModel) -> bool {
    m.pick_validator.is_some() || !matches!(i.projection, ProjectionModel::All)
}

/// The impls saying what index `i` projects: every field (and whole records) for an index
/// projecting all attributes; the key fields and the included ones otherwise.
fn index_projection_impls(m: &FacetModel, i: &IndexModel) -> TokenStream {
    let p = private(m);
    let ident = &m.ident;
    let keys = index_keys_ident(m, i);
    let projected: Vec<usize> = match &i.projection {
        ProjectionModel::All => {
            return quote! {
                #[automatically_derived]
                impl<const N: usize> #p::IndexProjects<#p::FieldAt<#ident, N>> for #keys {}
                #[automatically_derived]
                impl #p::WholeRecords for #keys {}
            }
        }
        ProjectionModel::KeysOnly => Vec::new(),
        ProjectionModel::Include(fields) => fields.clone(),
    };
    let mut positions: Vec<usize> = all_key_fields(&m.pk, Some(&m.sk))
        .into_iter()
        .chain(all_key_fields(&i.pk, i.sk.as_ref()))
        .map(|(f, _)| f)
        .chain(projected)
        .collect();
    positions.sort_unstable();
    positions.dedup();
    let impls = positions.iter().map(|f| {
        quote! {
            #[automatically_derived]
            impl #p::IndexProjects<#p::FieldAt<#ident, #f>> for #keys {}
        }
    });
    quote!(#(#impls)*)
}

/// `TaskGsi1Keys` / `TaskLsi1Keys`: the key fields of index `i`.
pub fn index_keys_ident(m: &FacetModel, i: &IndexModel) -> Ident {
    let kind = match i.kind {
        IndexKind::Global => "Gsi",
        IndexKind::Local => "Lsi",
    };
    format_ident!("{}{kind}{}Keys", m.ident, i.n)
}

/// A struct holding key fields, readable from a projected item.
fn key_fields_struct(
    m: &FacetModel,
    name: &Ident,
    fields: &[(usize, bool)],
    doc: &str,
) -> TokenStream {
    let p = private(m);
    let vis = &m.vis;
    let decls = fields.iter().map(|(f, _)| {
        let f = &m.fields[*f];
        let (id, ty) = (&f.ident, &f.ty);
        let doc = format!("The `{}` key field.", f.name);
        quote!(#[doc = #doc] pub #id: #ty)
    });
    let names = fields.iter().map(|(f, _)| lit(&m.fields[*f].name));
    let reads = fields.iter().map(|(f, _)| {
        let f = &m.fields[*f];
        let id = &f.ident;
        let attr = lit(&f.name);
        quote!(#id: #p::read_attribute(__item, #attr)?)
    });
    let debug = super::redact::masked_debug(m, name, fields.iter().map(|(f, _)| *f));
    let derives = if debug.is_empty() {
        quote!(#[derive(Debug, Clone)])
    } else {
        quote!(#[derive(Clone)])
    };
    quote! {
        #[doc = #doc]
        #derives
        #[allow(dead_code)]
        #vis struct #name {
            #(#decls,)*
        }

        #[automatically_derived]
        impl #p::FromPicked for #name {
            const ATTRIBUTES: &'static [&'static str] = &[#(#names),*];

            #[inline]
            fn from_picked(__item: &#p::Item) -> #p::Result<Self, #p::DynamoError> {
                #p::Ok(#name { #(#reads,)* })
            }
        }

        #[automatically_derived]
        impl #p::KeyFields for #name {}

        #debug
    }
}

/// The key-field types of the indexes that have one, with what each index projects.
pub fn index_key_types(m: &FacetModel) -> TokenStream {
    let ident = &m.ident;
    let types = m.indexes.iter().filter(|i| has_index_keys_struct(m, i)).map(|i| {
        let fields = key_fields_struct(
            m,
            &index_keys_ident(m, i),
            &all_key_fields(&i.pk, i.sk.as_ref()),
            &format!(
                "The key fields of index `{}` of `{ident}`, as held by projections read through it.",
                i.name()
            ),
        );
        let impls = index_projection_impls(m, i);
        quote!(#fields #impls)
    });
    quote!(#(#types)*)
}

/// The key-field structs and the `PickValidator` impl, when the facet can be projected.
pub fn projection(m: &FacetModel) -> TokenStream {
    let Some(validator) = &m.pick_validator else {
        return TokenStream::new();
    };
    let p = private(m);
    let ident = &m.ident;
    let keys_ident = format_ident!("{}Keys", ident);
    let keys_struct = key_fields_struct(
        m,
        &keys_ident,
        &all_key_fields(&m.pk, Some(&m.sk)),
        &format!(
            "The base key fields of a `{ident}` record, as held by projections \
             (`.key()` gives its key)."
        ),
    );
    let key = key_of(m, Source::Keys);
    let body = match validator {
        PickValidatorModel::Trust => quote!(#p::Ok(())),
        PickValidatorModel::Path(path) => {
            quote!(#path(__item, __attributes).map_err(|e| ::std::string::ToString::to_string(&e)))
        }
    };
    quote! {
        #keys_struct

        impl #keys_ident {
            /// The base-table key of the record whose key fields these are.
            #[inline]
            pub fn key(&self) -> #p::Result<#p::Key<#ident>, #p::Error> {
                #p::Ok(<#ident as #p::PickValidator>::keys_to_key(self)?)
            }
        }

        #[automatically_derived]
        impl #p::PickValidator for #ident {
            type Keys = #keys_ident;

            #[inline]
            fn keys_to_key(__k: &#keys_ident) -> #p::Result<#p::Key<Self>, #p::KeyError> {
                #key
            }

            #[inline]
            fn validate_pick(
                __item: &#p::Item,
                __attributes: &[&'static str],
            ) -> #p::Result<(), ::std::string::String> {
                #body
            }
        }
    }
}
