//! `#[derive(Facet)]`, `#[derive(Pick)]`, `#[derive(KeyPart)]`, `#[derive(Collection)]` and
//! `#[derive(Nested)]` for [faceteer](https://docs.rs/faceteer).
//!
//! Use them through the `faceteer` crate, which re-exports them and documents the
//! attributes. The facet derive works in the shape of serde_derive:
//!
//! 1. `parse` reads the attributes as written (darling), and `serde_attrs` the
//!    `#[serde(..)]` options that change stored names (`case` holds serde's rename rules);
//! 2. `build` assembles them into the `model`, plain data: fields with their stored
//!    names, keys, indexes, TTL and version;
//! 3. `check` holds the rules a facet must follow, each a named function; `build` applies
//!    those about one attribute as it reads it, and `check::facet` those about the whole
//!    facet;
//! 4. `expand` writes the code, one module per part (keys, schema, queries, field
//!    handles, updates, encoders, projections).
//!
//! Every error goes to one `ctxt::Ctxt`, checked once at the end: with errors, the derive
//! emits them all, in order, and `expand::fallback` (for a facet, a `Facet` impl that
//! keeps uses of it from adding errors of their own).

mod build;
mod case;
mod check;
mod ctxt;
mod expand;
mod model;
mod names;
mod parse;
mod serde_attrs;
mod types;

#[cfg(test)]
mod tests;

use darling::FromDeriveInput;
use proc_macro::TokenStream;

use crate::ctxt::Ctxt;

/// Derive `faceteer::Collection` for an enum whose variants each hold one facet.
#[proc_macro_derive(Collection)]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    with_errors(|cx| expand::collection(&input, cx)).into()
}

/// Derive `faceteer::Facet`. See the `faceteer` crate documentation for the attributes.
#[proc_macro_derive(
    Facet,
    attributes(
        facet, pk, sk, gsi, shard, ttl, version, unique, created, updated, vector, nested, encrypt,
        sign_only, beacon, sensitive
    )
)]
pub fn derive_facet(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand_facet(&input).into()
}

/// Derive `faceteer::Nested` for a struct stored as a map inside a facet's attribute: mark
/// the facet's field `#[nested]` and its handle reaches each member
/// (`Task::fields().address.city.eq("Oslo")`).
#[proc_macro_derive(Nested, attributes(nested))]
pub fn derive_nested(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    with_errors(|cx| expand::nested(&input, cx)).into()
}

/// Derive `faceteer::pick::Projection` for a struct naming some fields of a facet:
/// `#[derive(Pick)] #[pick(facet = Task)] struct Title { title: String }`. Each field must
/// exist on the facet with the same type (checked at compile time).
#[proc_macro_derive(Pick, attributes(pick))]
pub fn derive_pick(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    with_errors(|cx| expand::pick(&input, cx)).into()
}

/// Derive `faceteer::KeyPart` for a type whose serde form is a string, a number or a
/// boolean (typically a unit-only enum), so it can be a key field.
#[proc_macro_derive(KeyPart)]
pub fn derive_key_part(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    with_errors(|cx| expand::key_part(&input, cx)).into()
}

/// Parse, build, check and expand one facet; on any error, the errors and the fallback
/// impl.
fn expand_facet(input: &syn::DeriveInput) -> proc_macro2::TokenStream {
    let cx = Ctxt::new();
    let model = match parse::FacetInput::from_derive_input(input) {
        Ok(parsed) => Some(build::build(parsed, &cx)),
        Err(e) => {
            cx.darling_error(e);
            None
        }
    };
    match (cx.check(), model) {
        (Ok(()), Some(model)) => expand::facet(&model),
        (Err(errors), model) => {
            let krate = model.map_or_else(|| syn::parse_quote!(::faceteer), |m| m.krate);
            expand::fallback::facet(errors, input, &krate)
        }
        (Ok(()), None) => unreachable!("a parse error is reported"),
    }
}

/// The expansion `expand` writes, or the errors it reports.
fn with_errors(expand: impl FnOnce(&Ctxt) -> proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let cx = Ctxt::new();
    let tokens = expand(&cx);
    match cx.check() {
        Ok(()) => tokens,
        Err(errors) => expand::fallback::errors(errors),
    }
}
