//! Small token helpers shared by the expansion.

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
pub fn private(m: &FacetModel) -> TokenStream {
    m.private
        .get_or_init(|| {
            let alias = quote::format_ident!("__faceteer_{}", m.ident.unraw());
            quote!(#alias)
        })
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
