//! The `BeaconSpec` of a `#[beacon]` field, as the keys and the facet's schema name it.

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::{lit, private};
use crate::model::FacetModel;

/// The `BeaconSpec` literal of field `i`, when it has a beacon.
pub fn beacon_literal(m: &FacetModel, i: usize) -> Option<TokenStream> {
    let f = &m.fields[i];
    let b = f.crypto.as_ref()?.beacon.as_ref()?;
    let p = private(m);
    let name = lit(&f.name);
    let length = b.length.min(63) as u8;
    Some(quote!(#p::BeaconSpec { name: #name, length: #length }))
}

/// A `&'static BeaconSpec` expression for field `i`'s beacon, when it has one.
pub fn beacon_spec(m: &FacetModel, i: usize) -> Option<TokenStream> {
    beacon_literal(m, i).map(|spec| quote!(&#spec))
}
