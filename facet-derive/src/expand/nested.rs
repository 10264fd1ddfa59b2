//! `#[derive(Nested)]`: typed handles on the members of a struct stored as a map, reached
//! from a facet's `#[nested]` field (`Task::fields().address.city`).

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::encoders::{codec_text, encoder_fns, encoder_ident, has_encoder};
use super::tokens::{lit, private_in};
use crate::build::fields::field;
use crate::check;
use crate::ctxt::Ctxt;
use crate::model::Field;
use crate::parse::{field_attrs, NestedInput};
use crate::serde_attrs;

/// The `Nested` impl, the `<Struct>Members` handles and their `const` constructor.
pub fn nested(input: &syn::DeriveInput, cx: &Ctxt) -> TokenStream {
    let krate: syn::Path = syn::parse_quote!(::faceteer);
    let p = private_in(&krate);
    let mut input = match NestedInput::from_derive_input(input) {
        Ok(input) => input,
        Err(e) => {
            cx.darling_error(e);
            return TokenStream::new();
        }
    };
    check::nested_has_no_generics(cx, &input.generics);
    let serde = serde_attrs::container(&input.attrs, cx);
    let raw = std::mem::replace(
        &mut input.data,
        darling::ast::Data::Struct(darling::ast::Fields::new(
            darling::ast::Style::Struct,
            Vec::new(),
        )),
    )
    .take_struct()
    .expect("darling checked struct_named")
    .fields;
    let fields: Vec<Field> = raw
        .into_iter()
        .map(|f| {
            let attrs = field_attrs(&f.attrs, cx);
            let field = field(f, &attrs, &serde);
            check::nested_holds_a_plain_struct(cx, &field);
            field
        })
        .filter(|f| f.is_attribute)
        .collect();
    let ident = &input.ident;
    let vis = &input.vis;
    let members = format_ident!("{}Members", ident);
    let decls = fields.iter().map(|f| {
        let (fid, ty, inner) = (&f.ident, &f.ty, &f.inner);
        let doc = format!("The `{}` member.", f.name);
        let handle = if f.nested.is_some() {
            quote!(<#inner as #p::Nested>::Members<__F, #ty, #p::NestedAttribute>)
        } else {
            quote!(#p::Field<__F, #inner, #ty, #p::NestedAttribute>)
        };
        quote!(#[doc = #doc] pub #fid: #handle)
    });
    let inits = fields.iter().map(|f| {
        let (fid, ty, inner) = (&f.ident, &f.ty, &f.inner);
        let name = lit(&f.name);
        let codec = lit(&codec_text(&krate, f));
        let encode = if has_encoder(&krate, f) {
            let e = encoder_ident(f);
            quote!(Self::#e)
        } else {
            quote!(#p::encode_plain::<#inner>)
        };
        let member = quote!(__w.__member::<#inner, #ty>(#name, #encode, #codec));
        if f.nested.is_some() {
            quote!(#fid: <#inner>::__faceteer_members::<__F, #ty, #p::NestedAttribute>(#member))
        } else {
            quote!(#fid: #member)
        }
    });
    let encoders = encoder_fns(&fields, &krate, &p);
    let doc = format!(
        "Typed handles on the members of a `{ident}` stored inside a facet's `#[nested]` \
         field (`Facet::fields().<field>.<member>`); it dereferences to the handle of the \
         whole field."
    );
    quote! {
        #[doc = #doc]
        #vis struct #members<__F, __S = #ident, __K = #p::Attribute> {
            #(#decls,)*
            __whole: #p::Field<__F, #ident, __S, __K>,
        }

        #[automatically_derived]
        impl<__F, __S, __K> ::core::clone::Clone for #members<__F, __S, __K> {
            fn clone(&self) -> Self {
                *self
            }
        }

        #[automatically_derived]
        impl<__F, __S, __K> ::core::marker::Copy for #members<__F, __S, __K> {}

        #[automatically_derived]
        impl<__F, __S, __K> ::core::fmt::Debug for #members<__F, __S, __K> {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(&self.__whole, __f)
            }
        }

        #[automatically_derived]
        impl<__F, __S, __K> ::core::ops::Deref for #members<__F, __S, __K> {
            type Target = #p::Field<__F, #ident, __S, __K>;
            fn deref(&self) -> &Self::Target {
                &self.__whole
            }
        }

        impl<__F, __S, __K> #members<__F, __S, __K> {
            /// The handle of the whole field (for generated code in `const` contexts).
            #[doc(hidden)]
            pub const fn __faceteer_field(self) -> #p::Field<__F, #ident, __S, __K> {
                self.__whole
            }
        }

        impl #ident {
            /// The member handles under the handle of a field holding this struct.
            #[doc(hidden)]
            pub const fn __faceteer_members<__F, __S, __K>(
                __w: #p::Field<__F, #ident, __S, __K>,
            ) -> #members<__F, __S, __K> {
                #members { #(#inits,)* __whole: __w }
            }

            #encoders
        }

        #[automatically_derived]
        impl #p::Nested for #ident {
            type Members<__F, __S, __K> = #members<__F, __S, __K>;
        }
    }
}
