//! A facet's encryption: the `CRYPTO` schema its `Facet` impl declares, and the beacon a
//! `#[beacon]` key part is written as.

use proc_macro2::TokenStream;
use quote::quote;

use super::beacon::beacon_literal;
use super::keys::{raw_arg, Source};
use super::tokens::{lit, private};
use crate::model::FacetModel;

/// `const CRYPTO: ... = Some(&CryptoSchema { .. });` for a facet with encrypted or signed
/// fields; nothing for any other (the trait's `None` stays).
pub fn crypto_const(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let fields: Vec<TokenStream> = m
        .fields
        .iter()
        .filter_map(|f| {
            let c = f.crypto.as_ref()?;
            let name = lit(&f.name);
            let action = if c.encrypted {
                quote!(#p::CryptoAction::EncryptAndSign)
            } else {
                quote!(#p::CryptoAction::SignOnly)
            };
            Some(quote!(#p::CryptoField { attribute: #name, action: #action }))
        })
        .collect();
    if fields.is_empty() {
        return TokenStream::new();
    }
    let beacons = (0..m.fields.len()).filter_map(|i| beacon_literal(m, i));
    let facet = lit(&m.name);
    quote! {
        const CRYPTO: #p::Option<&'static #p::CryptoSchema> =
            #p::Some(&#p::CryptoSchema {
                facet: #facet,
                fields: &[#(#fields),*],
                beacons: &[#(#beacons),*],
            });
    }
}

/// A `Result<String, KeyError>` expression: the key text of field `i`'s value from `src`,
/// written alone (what its beacon is computed from).
fn key_text(m: &FacetModel, i: usize, src: Source) -> TokenStream {
    let p = private(m);
    let name = lit(&m.fields[i].ident.to_string());
    let delim = lit(&m.delimiter);
    let part = raw_arg(m, i, false, src);
    quote!(#p::write_key("", #delim, true, #p::None, &[#name], &[#part]))
}

/// `.with_beacon_check(..)` for each beaconed field of a queried partition key whose
/// values come from `src`.
pub fn beacon_checks(
    m: &FacetModel,
    parts: impl Iterator<Item = usize>,
    src: Source,
) -> TokenStream {
    let checks = parts.filter(|i| beacon_literal(m, *i).is_some()).map(|i| {
        let name = lit(&m.fields[i].name);
        let text = key_text(m, i, src);
        quote!(.with_beacon_check(#name, #text))
    });
    quote!(#(#checks)*)
}

/// `fn beacon_text(..)` of the `Facet` impl, for a facet with beaconed fields.
pub fn beacon_text_fn(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let arms: Vec<TokenStream> = (0..m.fields.len())
        .filter(|i| beacon_literal(m, *i).is_some())
        .map(|i| {
            let name = lit(&m.fields[i].name);
            let text = key_text(m, i, Source::Record);
            quote!(#name => #p::Some(#text.map_err(|e| e.to_string())))
        })
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    quote! {
        #[inline]
        fn beacon_text(
            &self,
            attribute: &str,
        ) -> #p::Option<#p::Result<::std::string::String, ::std::string::String>> {
            match attribute {
                #(#arms,)*
                _ => #p::None,
            }
        }
    }
}
