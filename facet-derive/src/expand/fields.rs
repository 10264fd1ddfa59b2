//! The `<Facet>Fields` struct of typed attribute handles, for conditions, filters and
//! updates.

use std::fmt::Write as _;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::encoders::{codec_text, encoder_ident, has_encoder};
use super::tokens::{lit_text, private, source};
use super::updates::UpdateKind;
use crate::model::{FacetModel, Field};

/// The `<Facet>Fields` struct of typed attribute handles.
pub fn fields_struct(m: &FacetModel) -> (TokenStream, TokenStream) {
    let p = private(m);
    let ident = &m.ident;
    let fields_ident = format_ident!("{}Fields", ident);
    let vis = &m.vis;
    let attribute_fields: Vec<(usize, &Field)> = m
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_attribute)
        .collect();
    let decls = attribute_fields.iter().map(|&(i, f)| {
        let fid = &f.ident;
        let (inner, ty) = (&f.inner, &f.ty);
        let doc = format!("The `{}` attribute.", f.name);
        let update_kind = UpdateKind::of(m, i);
        let kind = update_kind.path(&p);
        if f.nested.is_some() {
            let doc = format!("The `{}` attribute, and handles on its members.", f.name);
            return quote!(#[doc = #doc] pub #fid: <#inner as #p::Nested>::Members<#ident, #ty, #kind>);
        }
        // `Field`'s trailing type parameters default to the value's type and `Attribute`.
        let kind = (!matches!(update_kind, UpdateKind::Attribute)).then(|| quote!(, #kind));
        let stored = (f.optional || kind.is_some()).then(|| quote!(, #ty));
        quote!(#[doc = #doc] pub #fid: #p::Field<#ident, #inner #stored #kind>)
    });
    // The plain handles are names and numbers: written as text, lexed once. Member handles
    // name the field's type, so are tokens (a struct's fields may be given in any order).
    let mut plain = String::new();
    let mut members = Vec::new();
    for &(i, f) in &attribute_fields {
        let mut handle = if has_encoder(&m.krate, f) {
            format!(
                "{p}::Field::coded({}, {i}u16, Self::{})",
                lit_text(&f.name),
                encoder_ident(f)
            )
        } else {
            format!("{p}::Field::numbered({}, {i}u16)", lit_text(&f.name))
        };
        let codec = codec_text(&m.krate, f);
        if !codec.is_empty() {
            let _ = write!(handle, ".with_codec({})", lit_text(&codec));
        }
        if f.nested.is_some() {
            let (fid, ty, inner) = (&f.ident, &f.ty, &f.inner);
            let kind = UpdateKind::of(m, i).path(&p);
            let handle = source(&handle);
            members.push(quote!(#fid: <#inner>::__faceteer_members::<#ident, #ty, #kind>(#handle)));
        } else {
            let _ = write!(plain, "{}: {handle}, ", f.ident);
        }
    }
    let plain = source(&plain);
    // Build the handles once at compile time: a nesting too deep fails here, with its
    // message.
    let nested = m.fields.iter().any(|f| f.nested.is_some());
    let built = nested.then(|| quote!(const _: () = { let _ = #ident::fields(); };));
    // A plain handle is always `Copy`: the derive's per-field `Clone` checks would only
    // lengthen the expansion. Member handles keep the derives, so that a `#[nested]` type
    // without `#[derive(Nested)]` is reported once.
    let (derives, copy) = if nested {
        (quote!(#[derive(Debug, Clone, Copy)]), None)
    } else {
        // One printing routine for every facet's handles, read from its `FIELDS`: a derived
        // `Debug` would be a routine in each expansion.
        // Names only: written as text, lexed once.
        let copy = source(&format!(
            "#[automatically_derived] \
             impl ::core::fmt::Debug for {fields_ident} {{ \
                 #[inline] \
                 fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {{ \
                     {p}::debug_handles::<{ident}>(__f, {debug}) \
                 }} \
             }} \
             #[automatically_derived] \
             impl ::core::marker::Copy for {fields_ident} {{}} \
             #[automatically_derived] \
             impl ::core::clone::Clone for {fields_ident} {{ \
                 #[inline] \
                 fn clone(&self) -> Self {{ *self }} \
             }}",
            debug = lit_text(&fields_ident.to_string()),
        ));
        (TokenStream::new(), Some(copy))
    };
    let doc = format!(
        "Typed handles on the attributes of `{ident}`, for conditions and filters \
         (`{ident}::fields()`)."
    );
    let decl = quote! {
        #[doc = #doc]
        #derives
        #vis struct #fields_ident {
            #(#decls,)*
        }
        #copy
        #built
    };
    let ctor = quote! {
        #[doc = #doc]
        #[inline]
        pub const fn fields() -> #fields_ident {
            #fields_ident { #plain #(#members,)* }
        }
    };
    (decl, ctor)
}
