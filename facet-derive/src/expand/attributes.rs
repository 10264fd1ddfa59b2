//! `Facet::own_attributes`: the record's own attributes written field by field, when serde
//! writes each field under its name and nothing else (`FacetModel::field_by_field`).

use proc_macro2::TokenStream;
use quote::quote;

use super::encoders::own_codec;
use super::tokens::{lit, private};
use crate::model::FacetModel;

/// The method, or nothing (the record is then written through its `Serialize`).
///
/// Each attribute field is put under its stored name: from a serialize function of its own
/// (`with`, `serialize_with`) through faceteer's marshalling, or else by
/// `(&&Value(&field)).put_in(..)`, which puts a plain type directly and marshals any
/// other. A `skip_serializing_if` leaves the attribute out as serde does.
pub fn own_attributes(m: &FacetModel) -> Option<TokenStream> {
    if !m.field_by_field {
        return None;
    }
    let p = private(m);
    let fields: Vec<_> = m.fields.iter().filter(|f| f.is_attribute).collect();
    // Room for the attributes it may write: an absent optional value writes none (the
    // item's table is sized once, to what it holds).
    let always = fields.iter().filter(|f| !f.optional).count();
    let present = fields.iter().filter(|f| f.optional).map(|f| {
        let ident = &f.ident;
        quote!(+ ::core::option::Option::is_some(&self.#ident) as usize)
    });
    let puts = fields.iter().map(|f| {
        let (ident, name) = (&f.ident, lit(&f.name));
        let put = match own_codec(&m.krate, f) {
            Some(path) => quote!(__w.put(#name, #p::marshal_with(|__s| #path(&self.#ident, __s)));),
            None => quote!((&&__V(&self.#ident)).put_in(&mut __w, #name);),
        };
        match &f.skip_if {
            Some(skip) => quote!(if !#skip(&self.#ident) { #put }),
            None => put,
        }
    });
    Some(quote! {
        #[inline]
        fn own_attributes(
            &self,
            __room: usize,
        ) -> #p::Option<#p::FieldWriter> {
            #[allow(unused_imports)]
            use #p::{ByPlain as _, BySerde as _, Value as __V};
            let mut __w = #p::FieldWriter::with_capacity(#always #(#present)* + __room);
            #(#puts)*
            #p::Some(__w)
        }
    })
}
