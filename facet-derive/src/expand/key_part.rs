//! `#[derive(KeyPart)]`: key text through serde.

use proc_macro2::TokenStream;
use quote::quote;

use crate::case::rename_variant;
use crate::ctxt::Ctxt;
use crate::serde_attrs;

/// The `KeyPart` impl of a type whose serde form is a string, a number or a boolean.
pub fn key_part(input: &syn::DeriveInput, cx: &Ctxt) -> TokenStream {
    let fp = super::tokens::private_in(&syn::parse_quote!(::faceteer));
    distinct_variant_names(input, cx);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let scalar = is_text_enum(input).then(|| {
        quote! {
            #[automatically_derived]
            impl #impl_generics #fp::KeyScalar for #ident #ty_generics #where_clause {
                const TYPE: #fp::ScalarType = #fp::ScalarType::S;
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #fp::KeyPart for #ident #ty_generics #where_clause {
            fn write_key(
                &self,
                out: &mut ::std::string::String,
            ) -> ::core::result::Result<(), ::std::string::String> {
                #fp::write_serde_key(self, out)
            }
        }

        #scalar
    }
}

/// An enum of unit variants serde writes as their names (text): a native index key field
/// of its type is a string (`S`). Not with `#[serde(untagged)]`, or with `Serialize_repr`
/// (serde_repr writes numbers) among its derives.
fn is_text_enum(input: &syn::DeriveInput) -> bool {
    let syn::Data::Enum(data) = &input.data else {
        return false;
    };
    let units = data
        .variants
        .iter()
        .all(|v| matches!(v.fields, syn::Fields::Unit));
    let mut text = true;
    for attr in &input.attrs {
        if attr.path().is_ident("serde") {
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("untagged") {
                    text = false;
                }
                // Skip any value (`rename_all = ".."`, `tag = ".."`).
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _ = meta.parse_nested_meta(|_| Ok(()));
                }
                Ok(())
            });
        } else if attr.path().is_ident("derive") {
            let _ = attr.parse_nested_meta(|meta| {
                if meta
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "Serialize_repr")
                {
                    text = false;
                }
                Ok(())
            });
        }
    }
    units && text
}

/// A key value is its serde name: two variants of one name would give two values one key.
fn distinct_variant_names(input: &syn::DeriveInput, cx: &Ctxt) {
    let syn::Data::Enum(data) = &input.data else {
        return;
    };
    // What serde cannot do with these attributes, serde reports: this only reads names.
    let ignored = Ctxt::new();
    let rule = serde_attrs::container(&input.attrs, &ignored).rename_all;
    let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
    for v in &data.variants {
        let serde = serde_attrs::field(&v.attrs, &ignored);
        if serde.not_an_attribute {
            continue; // skipped variants are never written
        }
        let name = serde
            .rename
            .unwrap_or_else(|| rename_variant(&v.ident.to_string(), rule));
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
            cx.error_spanned_by(
                &v.ident,
                format!(
                    "variants `{first}` and `{}` are both written as {name:?}, so both would give \
                     one key and their records could overwrite each other; give each variant its \
                     own serde name",
                    v.ident
                ),
            );
        } else {
            seen.push((name, &v.ident));
        }
    }
    let _ = ignored.check();
}
