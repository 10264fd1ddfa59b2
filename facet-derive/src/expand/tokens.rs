//! Small token helpers shared by the expansion.

use std::fmt::Write as _;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::LitStr;

use crate::model::FacetModel;

pub fn lit(s: &str) -> LitStr {
    LitStr::new(s, Span::call_site())
}

/// How a facet's expansion names the runtime's module: `__faceteer_<Struct>`, which
/// [`private_use`] imports it as. One token in every path the expansion writes (the full
/// path is six), so the derive makes, and the compiler reads, fewer tokens.
pub fn private(m: &FacetModel) -> syn::Ident {
    m.private
        .get_or_init(|| quote::format_ident!("__faceteer_{}", m.ident.unraw()))
        .clone()
}

/// The `use` of the runtime's module (`<crate>::__private_<version>`) as [`private`] names
/// it, at the start of a facet's expansion: an item of the facet's module, named after the
/// facet so that the facets of one module import it under different names.
pub fn private_use(m: &FacetModel) -> TokenStream {
    let module = private_in(&m.krate);
    let alias = private(m);
    quote!(use #module as #alias;)
}

/// The runtime's module of items for generated code, named after this crate's version
/// (`__private_0_1_0`): a derive and a runtime of two versions do not compile together, as
/// with thiserror's `__private`.
pub fn private_module() -> syn::Ident {
    let version = env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_");
    quote::format_ident!("__private_{}", version)
}

/// [`private_module`] under the crate path `krate`.
pub fn private_in(krate: &syn::Path) -> TokenStream {
    let module = private_module();
    quote!(#krate::#module)
}

/// `#[allow(clippy::too_many_arguments)]` for a generated function of `params`
/// parameters, when clippy would count too many (more than 7).
pub fn allow_many_args(params: usize) -> Option<TokenStream> {
    (params > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]))
}

/// `s` written as a Rust string literal.
pub fn lit_text(s: &str) -> String {
    format!("{s:?}")
}

/// `a, b, ..`: `items` written one after another, separated by commas.
pub fn joined<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let mut out = String::new();
    for (n, item) in items.into_iter().enumerate() {
        let separator = if n == 0 { "" } else { ", " };
        let _ = write!(out, "{separator}{item}");
    }
    out
}

/// `&[a, b, ..]`: `names` written as a slice of string literals.
pub fn names_text<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    format!("&[{}]", joined(names.into_iter().map(lit_text)))
}

/// The tokens of `text`, Rust source the derive wrote itself from names and literals (no
/// tokens of the user's, so no spans to keep), read once by the compiler's lexer: for the
/// expansion's constant tables, far cheaper to make than token by token. Spanned at the
/// call site, as `quote!`'s tokens are.
///
/// Inside a derive the compiler's own lexer reads it (not `proc_macro2`'s, which lexes it
/// once more first, to check it). The text always lexes: every string the user gave is
/// written by [`lit_text`], every name is an identifier already, the rest is the derive's
/// own. Were it not to, which would be a bug of the derive's, the compiler stops the build
/// there with its lexer's message; outside a derive (the unit tests) it becomes a
/// `compile_error!` naming the text.
pub fn source(text: &str) -> TokenStream {
    if proc_macro::is_available() {
        if let Ok(tokens) = text.parse::<proc_macro::TokenStream>() {
            return tokens.into();
        }
    }
    text.parse().unwrap_or_else(|e| {
        let message = format!("faceteer: the derive wrote source it cannot read ({e}): {text}");
        quote!(::core::compile_error!(#message);)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every string, however hostile, is written as a literal that reads back as itself.
    #[test]
    fn string_literals_read_back_as_written() {
        let hostile = [
            "",
            "plain",
            "quote \" and backslash \\",
            "new\nline\ttab\r\0nul",
            "#TEAM#\u{202e}right-to-left",
            "combining \u{301} accent, emoji \u{1f600}, \u{7f} delete",
            "}]) ; fn evil() {}",
            "r#\"raw\"#",
        ];
        for s in hostile {
            let tokens = source(&lit_text(s));
            let lit: LitStr = syn::parse2(tokens).expect("a string literal");
            assert_eq!(lit.value(), s);
        }
    }

    /// Text that does not lex becomes a `compile_error!` that names it, not a panic.
    #[test]
    fn text_that_does_not_lex_is_a_compile_error() {
        let out = source("&[\"unterminated").to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("unterminated"), "{out}");
    }
}
