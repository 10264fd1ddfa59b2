//! `#[sensitive]` fields: the facet's `Debug` that masks them, the `SENSITIVE` names its
//! `Facet` impl declares, and the key parts that register the facet for masking keys.

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::{lit, private};
use crate::model::FacetModel;

/// Whether the facet has `#[sensitive]` fields.
pub fn has_sensitive(m: &FacetModel) -> bool {
    m.fields.iter().any(|f| f.sensitive)
}

/// `const SENSITIVE: ..` of the `Facet` impl (nothing without sensitive fields).
pub fn sensitive_const(m: &FacetModel) -> TokenStream {
    if !has_sensitive(m) {
        return TokenStream::new();
    }
    let names = m
        .fields
        .iter()
        .filter(|f| f.sensitive)
        .map(|f| lit(&f.name));
    quote!(const SENSITIVE: &'static [&'static str] = &[#(#names),*];)
}

/// `impl Debug` for a struct named `ident` holding `fields` (positions in the facet), with
/// the sensitive ones masked; nothing when none of them is sensitive.
pub fn masked_debug(
    m: &FacetModel,
    ident: &syn::Ident,
    fields: impl Iterator<Item = usize>,
) -> TokenStream {
    let p = private(m);
    let name = lit(&ident.to_string());
    let mut any = false;
    let entries: Vec<TokenStream> = fields
        .map(|i| {
            let f = &m.fields[i];
            let id = &f.ident;
            let label = lit(&id.to_string());
            if f.sensitive {
                any = true;
                quote!(.field(#label, &#p::redact_masked()))
            } else {
                quote!(.field(#label, &self.#id))
            }
        })
        .collect();
    if !any {
        return TokenStream::new();
    }
    quote! {
        #[automatically_derived]
        impl ::core::fmt::Debug for #ident {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                __f.debug_struct(#name)#(#entries)*.finish()
            }
        }
    }
}

/// The facet's own `Debug`, when it has sensitive fields.
pub fn facet_debug(m: &FacetModel) -> TokenStream {
    masked_debug(m, &m.ident, 0..m.fields.len())
}
