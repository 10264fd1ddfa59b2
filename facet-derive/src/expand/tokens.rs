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
    let krate = &m.krate;
    quote!(#krate::__private)
}

/// `#[allow(clippy::too_many_arguments)]` for a generated function of `params`
/// parameters, when clippy would count too many (more than 7).
pub fn allow_many_args(params: usize) -> Option<TokenStream> {
    (params > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]))
}
