//! The `FIELDS` constant: each field's stored name, type, defaults and codec, as the design
//! lock records them.

use std::fmt::Write as _;

use proc_macro2::TokenStream;
use syn::ext::IdentExt;

use super::tokens::{lit_text, names_text, private, source};
use crate::model::FacetModel;
use crate::parse::EpochUnit;
use crate::types::type_text;

/// `&[FieldSchema { .. }, ..]`: every field of the struct, in declaration order.
pub fn field_schemas(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let mut out = String::from("&[");
    for (i, f) in m.fields.iter().enumerate() {
        let _ = write!(
            out,
            "{p}::FieldSchema::new({}, {}, {}, {}, {}, {})",
            lit_text(&f.ident.unraw().to_string()),
            lit_text(&f.name),
            lit_text(&type_text(&f.ty)),
            f.is_attribute,
            f.optional,
            f.default,
        );
        if let Some(c) = &f.codec {
            let _ = write!(out, ".codec({})", lit_text(c));
        }
        if let Some(e) = f.epoch {
            let e = match e {
                EpochUnit::Seconds => "seconds",
                EpochUnit::Millis => "millis",
            };
            let _ = write!(out, ".epoch({})", lit_text(e));
        }
        let sortable_in = sortable_in(m, i);
        if !sortable_in.is_empty() {
            let names = names_text(sortable_in.iter().map(String::as_str));
            let _ = write!(out, ".sortable_in({names})");
        }
        out.push_str(", ");
    }
    out.push(']');
    source(&out)
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
