//! `#[derive(Pick)]`: a projection of a facet, checked field by field at compile time.

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ctxt::Ctxt;
use crate::parse::PickInput;

/// The `Projection` impls of a struct naming some fields of a facet.
pub fn pick(input: &syn::DeriveInput, cx: &Ctxt) -> TokenStream {
    let fp = super::tokens::private_in(&syn::parse_quote!(::faceteer));
    let input = match PickInput::from_derive_input(input) {
        Ok(input) => input,
        Err(e) => {
            cx.darling_error(e);
            return TokenStream::new();
        }
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`#[derive(Pick)]` does not support generic structs",
        );
        return TokenStream::new();
    }
    let ident = &input.ident;
    let facet = &input.facet;
    let fields = input
        .data
        .take_struct()
        .expect("darling checked struct_named")
        .fields;
    if fields.is_empty() {
        cx.error_spanned_by(ident, "a projection names at least one field of the facet");
        return TokenStream::new();
    }
    // One reference to each facet field: a missing field or a different type is one error,
    // at the projection's field.
    // The handle each field reads: the facet field of its name, or the member `at` names.
    let handles: Vec<TokenStream> = fields
        .iter()
        .map(|f| match &f.at {
            Some(at) => quote!(__f.#at),
            None => {
                let id = f.ident.as_ref().expect("named fields");
                quote!(__f.#id)
            }
        })
        .collect();
    let checks = fields.iter().zip(&handles).map(|(f, handle)| {
        let ty = &f.ty;
        let check = quote_spanned!(ty.span()=> declared_as::<#ty>());
        quote!(#fp::pick_field(#handle.__faceteer_field()).#check)
    });
    let reads = fields
        .iter()
        .zip(&handles)
        .enumerate()
        .map(|(i, (f, handle))| {
            let id = f.ident.as_ref().expect("named fields");
            match &f.at {
                Some(_) => quote! {
                    #id: {
                        let __f = <#facet>::fields();
                        #fp::read_path(__item, &#handle.__faceteer_field().path())?
                    }
                },
                None => quote!(#id: #fp::read_attribute(__item, Self::ATTRIBUTES[#i])?),
            }
        });
    // Each field must be projected by the index read through (`__I`, its key-fields type).
    let projected = fields.iter().zip(&handles).map(|(f, handle)| {
        let id = f.ident.as_ref().expect("named fields");
        // The bound is spanned at the field, so an unprojected field is reported there.
        let module = super::tokens::private_module();
        let module = syn::Ident::new(&module.to_string(), id.span());
        quote_spanned! {id.span()=>
            __I: ::faceteer::#module::IndexProjects<
                ::faceteer::#module::FieldAt<#facet, { let __f = <#facet>::fields(); #handle.__faceteer_field().position() }>,
            >
        }
    });
    quote! {
        #[automatically_derived]
        impl #fp::FromPicked for #ident {
            const ATTRIBUTES: &'static [&'static str] = &{
                let __f = <#facet>::fields();
                [#(#checks),*]
            };

            fn from_picked(
                __item: &#fp::Item,
            ) -> ::core::result::Result<Self, #fp::DynamoError> {
                ::core::result::Result::Ok(#ident { #(#reads,)* })
            }
        }

        #[automatically_derived]
        impl #fp::Projection for #ident {
            type Facet = #facet;
        }

        #[automatically_derived]
        impl<__I> #fp::ProjectedBy<__I> for #ident
        where
            #(#projected,)*
        {}
    }
}
