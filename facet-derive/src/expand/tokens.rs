//! Small token helpers shared by the expansion.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::LitStr;

use crate::model::FacetModel;

pub fn lit(s: &str) -> LitStr {
    LitStr::new(s, Span::call_site())
}

/// `<crate>::__private`.
pub fn private(m: &FacetModel) -> TokenStream {
    m.private.get_or_init(|| private_in(&m.krate)).clone()
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
