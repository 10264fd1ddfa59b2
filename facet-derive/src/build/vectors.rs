//! The vector indexes, from the fields' `#[vector(..)]`.

use darling::util::PathList;
use proc_macro2::Span;

use super::key_acc::resolve_fields;
use crate::check;
use crate::ctxt::Ctxt;
use crate::model::{Field, VectorModel};
use crate::parse::VectorAttr;

/// The vector index of field `i`, declared by `attr` at `span`; `None` when it is wrong
/// (reported).
pub fn vector(
    i: usize,
    attr: &VectorAttr,
    span: Span,
    fields: &[Field],
    cx: &Ctxt,
) -> Option<VectorModel> {
    let field = &fields[i];
    let holds_numbers = check::vector_field_holds_numbers(cx, field, span);
    let dimensions = check::vector_dimensions_in_range(cx, &attr.dimensions);
    let distance = check::vector_distance_is_known(cx, &attr.distance);
    let index = match &attr.index {
        Some(name) => name.to_string(),
        None => format!("{}_vector", field.name),
    };
    let named = check::vector_index_name_is_valid(
        cx,
        &index,
        attr.index.as_ref().map_or(span, |n| n.span()),
        attr.index.is_none(),
    );
    let partition = attr.partition.as_ref().and_then(|path| {
        let list = PathList::new(vec![path.clone()]);
        resolve_fields(&list, fields, cx).first().copied()
    });
    let filters = resolve_fields(&attr.filters, fields, cx);
    let searched = partition.iter().chain(&filters).copied();
    let schema_ok = check::vector_search_fields(cx, i, searched, fields);
    let (dimensions, distance) = (dimensions?, distance?);
    (holds_numbers && named && schema_ok).then_some(VectorModel {
        field: i,
        index,
        dimensions,
        distance,
        partition,
        filters,
    })
}
