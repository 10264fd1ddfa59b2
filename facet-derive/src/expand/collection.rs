//! `#[derive(Collection)]`: an enum whose variants each hold one facet.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::ctxt::Ctxt;

/// The `Collection` impl of an enum whose variants each hold one facet; the errors go to
/// `cx` (one per bad variant).
pub fn collection(input: &DeriveInput, cx: &Ctxt) -> TokenStream {
    let krate: syn::Path = syn::parse_quote!(::faceteer);
    let p = super::tokens::private_in(&krate);
    let ident = &input.ident;
    let Data::Enum(data) = &input.data else {
        cx.syn_error(syn::Error::new_spanned(
            ident,
            "`Collection` is derived for an enum with one facet per variant, like \
             `enum TeamItems { Team(Team), User(User) }`",
        ));
        return TokenStream::new();
    };
    let mut bad_variants = false;
    let mut variants = Vec::new();
    for v in &data.variants {
        match &v.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                variants.push((&v.ident, &f.unnamed[0].ty));
            }
            _ => {
                bad_variants = true;
                cx.syn_error(syn::Error::new_spanned(
                    v,
                    format!(
                        "variant `{}` must hold exactly one facet, like `{}(MyFacet)`",
                        v.ident, v.ident
                    ),
                ));
            }
        }
    }
    if variants.is_empty() && !bad_variants {
        cx.syn_error(syn::Error::new_spanned(
            ident,
            "a collection needs at least one variant holding a facet",
        ));
    }
    let schemas = variants
        .iter()
        .map(|(_, ty)| quote!(<#ty as #p::Facet>::SCHEMA));
    let arms = variants.iter().map(|(v, ty)| {
        quote! {
            if __name == <#ty as #p::Facet>::SCHEMA.name {
                return #p::collection_variant::<#ty, Self>(__item, #ident::#v);
            }
        }
    });
    let visits = variants
        .iter()
        .map(|(v, ty)| quote!(#ident::#v(__r) => __visitor.visit::<#ty>(__r)));
    quote! {
        #[automatically_derived]
        impl #p::Collection for #ident {
            fn with_record<'__r, __V: #p::RecordVisitor + '__r>(
                &'__r mut self,
                __visitor: __V,
            ) -> __V::Output<'__r> {
                match self {
                    #(#visits,)*
                }
            }

            const FACETS: &'static [&'static #p::FacetSchema] = &[#(#schemas),*];

            #[inline]
            fn from_item(__item: #p::Item) -> ::core::result::Result<::core::option::Option<Self>, #p::ItemError> {
                let ::core::option::Option::Some(__name) = #p::facet_of(&__item).map(::std::borrow::ToOwned::to_owned) else {
                    return ::core::result::Result::Ok(::core::option::Option::None);
                };
                let __name = __name.as_str();
                #(#arms)*
                ::core::result::Result::Ok(::core::option::Option::None)
            }
        }
    }
}
