//! `#[derive(Facet)]` and `#[derive(KeyPart)]` for [faceteer](https://docs.rs/faceteer).
//!
//! Use them through the `faceteer` crate, which re-exports them and documents the attributes.
//! The macro works in three steps: `parse` reads the attributes (darling), `model`
//! validates them into a facet model, reporting errors at the offending attribute, and
//! `codegen` writes the `Facet` impl, the key builder and the typed query entry points.

mod check;
mod codegen;
mod model;
mod names;
mod parse;
mod serde_attrs;

use darling::FromDeriveInput;
use proc_macro::TokenStream;

/// Derive `faceteer::Facet`. See the `faceteer` crate documentation for the attributes.
#[proc_macro_derive(Facet, attributes(facet, pk, sk, gsi, shard, ttl))]
pub fn derive_facet(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand_facet(&input).into()
}

/// Parse, check and expand one facet; on any error, the errors and a fallback impl.
fn expand_facet(input: &syn::DeriveInput) -> proc_macro2::TokenStream {
    let default_crate: syn::Path = syn::parse_quote!(::faceteer);
    let parsed = match parse::FacetInput::from_derive_input(input) {
        Ok(p) => p,
        Err(e) => {
            let fallback = codegen::fallback(input, &default_crate);
            let errors = e.write_errors();
            return quote::quote!(#errors #fallback);
        }
    };
    let krate = parsed.krate.clone().unwrap_or(default_crate);
    match model::build(parsed) {
        Ok(model) => codegen::generate(&model),
        Err(e) => {
            let fallback = codegen::fallback(input, &krate);
            let errors = e.write_errors();
            quote::quote!(#errors #fallback)
        }
    }
}

/// Derive `faceteer::Projection` for a struct naming some fields of a facet:
/// `#[derive(Pick)] #[pick(facet = Task)] struct Title { title: String }`. Each field must
/// exist on the facet with the same type (checked at compile time).
#[proc_macro_derive(Pick, attributes(pick))]
pub fn derive_pick(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let parsed = match parse::PickInput::from_derive_input(&input) {
        Ok(p) => p,
        Err(e) => return e.write_errors().into(),
    };
    match codegen::pick(parsed) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.write_errors().into(),
    }
}

/// Derive `faceteer::KeyPart` for a type whose serde form is a string, a number or a
/// boolean (typically a unit-only enum), so it can be a key field.
#[proc_macro_derive(KeyPart)]
pub fn derive_key_part(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    codegen::key_part(&input).into()
}
