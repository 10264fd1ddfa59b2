//! The `FIELDS` constant: each field's stored name, type, defaults and codec, as the design
//! lock records them.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use super::tokens::{lit, private};
use crate::model::FacetModel;
use crate::parse::EpochUnit;
use crate::types::type_text;

/// `&[FieldSchema { .. }, ..]`: every field of the struct, in declaration order.
pub fn field_schemas(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let fields = m.fields.iter().enumerate().map(|(i, f)| {
        let field = lit(&f.ident.unraw().to_string());
        let attribute = lit(&f.name);
        let rust_type = lit(&type_text(&f.ty));
        let stored = f.is_attribute;
        let optional = f.optional;
        let default = f.default;
        let codec = f.codec.as_deref().map(|c| {
            let c = lit(c);
            quote!(.codec(#c))
        });
        let epoch = f.epoch.map(|e| {
            let e = lit(match e {
                EpochUnit::Seconds => "seconds",
                EpochUnit::Millis => "millis",
            });
            quote!(.epoch(#e))
        });
        let sortable_in = sortable_in(m, i);
        let sortable_in = (!sortable_in.is_empty()).then(|| {
            let names = sortable_in.iter().map(|a| lit(a));
            quote!(.sortable_in(&[#(#names),*]))
        });
        quote!(#p::FieldSchema::new(#field, #attribute, #rust_type, #stored, #optional, #default)#codec #epoch #sortable_in)
    });
    quote!(&[#(#fields),*])
}

/// The key attributes field `i` is written to with the order-preserving integer encoding.
fn sortable_in(m: &FacetModel, i: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for key in m.all_keys() {
        let sortable = key.parts.iter().any(|p| p.field == i && p.sortable);
        if sortable && !out.contains(&key.attribute) {
            out.push(key.attribute.clone());
        }
    }
    out
}
