//! Encoders of the fields whose values faceteer's marshalling alone would not store as a
//! put does.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use crate::model::{FacetModel, Field};
use crate::types::path_words;

/// The encoder of each field whose values faceteer's marshalling alone would not store as
/// a put does (a codec of its own, a `skip_serializing_if`): conditions, filters and
/// updates send a value exactly as a put stores the field.
pub fn encoders(m: &FacetModel) -> TokenStream {
    encoder_fns(&m.fields, &m.krate, &super::tokens::private(m))
}

/// The encoder functions of `fields` (of a facet, or of a struct that derives `Nested`),
/// with the `faceteer` crate at `krate` and its runtime module named `p`.
pub fn encoder_fns(fields: &[Field], krate: &syn::Path, p: &impl quote::ToTokens) -> TokenStream {
    let fns = fields.iter().filter(|f| has_encoder(krate, f)).map(|f| {
        let (ty, inner) = (&f.ty, &f.inner);
        let name = encoder_ident(f);
        let (wrap, unwrap) = if f.optional {
            (
                quote!(#p::Some(__v)),
                quote!(match __o {
                    #p::Some(__v) => __v,
                    #p::None => ::core::unreachable!(),
                }),
            )
        } else {
            (quote!(__v), quote!(__o))
        };
        let encode = match own_codec(krate, f) {
            Some(path) => quote! {{
                struct __Field<'a>(&'a #ty);
                #[automatically_derived]
                impl #p::serde::Serialize for __Field<'_> {
                    fn serialize<__S: #p::serde::Serializer>(
                        &self,
                        __s: __S,
                    ) -> #p::Result<__S::Ok, __S::Error> {
                        #path(self.0, __s)
                    }
                }
                #p::encode_value(&__Field(&__o))
            }},
            None => quote!(#p::encode_value(&__o)),
        };
        let encode = match &f.skip_if {
            Some(skip) => quote! {
                if #skip(&__o) { #p::Ok(#p::None) } else { #encode }
            },
            None => encode,
        };
        quote! {
            #[doc(hidden)]
            #[inline]
            fn #name(__v: #inner) -> (#p::Encoded, #inner) {
                let __o: #ty = #wrap;
                let __e = #encode;
                (__e, #unwrap)
            }
        }
    });
    quote!(#(#fns)*)
}

/// Whether a field's values are encoded by a generated function rather than faceteer's
/// marshalling of the value: a codec of its own, or a `skip_serializing_if` that can leave
/// out a value its handle gives.
pub fn has_encoder(krate: &syn::Path, f: &Field) -> bool {
    f.is_attribute && (own_codec(krate, f).is_some() || skips_given_values(f))
}

/// Whether a field's `skip_serializing_if` can leave out a value its handle gives. A
/// handle's value of an optional field is always present (`Some`), so `Option::is_none`
/// there never does: faceteer's marshalling of the value is what a put stores.
fn skips_given_values(f: &Field) -> bool {
    let Some(skip) = &f.skip_if else {
        return false;
    };
    let path = &skip.path;
    let words = path_words(path);
    let plain = path.segments.iter().all(|s| s.arguments.is_none());
    let is_none = plain
        && matches!(
            words.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ["Option", "is_none"] | ["std" | "core", "option", "Option", "is_none"]
        );
    !(f.optional && is_none)
}

/// The text of the serializer a field's values are stored by (`""`: faceteer's marshalling),
/// carried by its handle so that references between fields stored differently are refused.
pub fn codec_text(krate: &syn::Path, f: &Field) -> String {
    own_codec(krate, f).map_or_else(String::new, |path| path_words(path).join("::"))
}

/// The serialize function of a field whose codec is not faceteer's own marshalling: none
/// for `faceteer::timestamp` (and `::option`), which write what faceteer's marshaller
/// writes for a `DateTime<Utc>` anyway.
pub(super) fn own_codec<'f>(krate: &syn::Path, f: &'f Field) -> Option<&'f syn::Path> {
    let path = f.serializer.as_ref()?;
    let words = path_words(path);
    let krate = path_words(krate);
    let tail = words
        .strip_prefix(krate.as_slice())
        .or_else(|| words.strip_prefix(&["faceteer".to_owned()][..]));
    let builtin = matches!(
        tail.map(|t| t.iter().map(String::as_str).collect::<Vec<_>>())
            .as_deref(),
        Some(["timestamp", "serialize"] | ["timestamp", "option", "serialize"])
    );
    (!builtin).then_some(path)
}

pub fn encoder_ident(f: &Field) -> Ident {
    format_ident!("__faceteer_encode_{}", f.ident)
}
