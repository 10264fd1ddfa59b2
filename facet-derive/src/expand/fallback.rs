//! What a failed derive emits: its errors, and an impl of the derived trait that keeps
//! the rest of the crate from adding errors of its own (the one fallback site, as in
//! thiserror).

use proc_macro2::TokenStream;
use quote::quote;

/// The errors of a failed derive, as `compile_error!`s, in order.
pub fn errors(errors: Vec<syn::Error>) -> TokenStream {
    errors.iter().map(syn::Error::to_compile_error).collect()
}

/// A failed `#[derive(Facet)]`: its errors, and the `Facet` impl with bodies that never
/// run, so that uses of the facet elsewhere do not add errors of their own (one mistake,
/// one error). `krate` is the path of the `faceteer` crate.
pub fn facet(errors: Vec<syn::Error>, input: &syn::DeriveInput, krate: &syn::Path) -> TokenStream {
    let p = super::tokens::private_in(krate);
    let errors = self::errors(errors);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #errors
        #[automatically_derived]
        impl #impl_generics #p::Facet for #ident #ty_generics #where_clause {
            const SCHEMA: &'static #p::FacetSchema = &#p::FALLBACK_SCHEMA;
            type Fields = ();
            fn fields() {}
            fn primary_key(&self) -> ::core::result::Result<#p::Key<Self>, #p::KeyError> {
                ::core::unreachable!()
            }
            fn write_index_keys(
                &self,
                _: &mut #p::Item,
                _: &mut #p::KeyLengths,
            ) -> ::core::result::Result<(), #p::KeyError> {
                ::core::unreachable!()
            }
            fn ttl_seconds(&self) -> ::core::option::Option<i64> {
                ::core::unreachable!()
            }
        }
        #[automatically_derived]
        impl #impl_generics #p::BatchWritable for #ident #ty_generics #where_clause {}
        #[automatically_derived]
        impl #impl_generics #p::BatchDeletable for #ident #ty_generics #where_clause {}
    }
}
