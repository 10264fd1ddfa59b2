//! Rules about the fields writes maintain: `#[unique]` fields and the `#[created]` and
//! `#[updated]` timestamps. Each returns whether the field is accepted.

use proc_macro2::Span;

use crate::ctxt::Ctxt;
use crate::model::Field;

/// A unique field is stored as an attribute of its own (its guard is built from it).
pub fn unique_field_is_stored(cx: &Ctxt, field: &Field, span: Span) -> bool {
    if !field.is_attribute {
        cx.error_at(
            span,
            format!(
                "`{}` is not stored as an attribute of its own (serde skips or flattens it), \
                 so it cannot be `#[unique]`",
                field.ident
            ),
        );
    }
    field.is_attribute
}

/// Each field of a unique field's `scope(..)` is another stored field of the facet: its
/// position.
pub fn unique_scope_names_a_field(
    cx: &Ctxt,
    unique: usize,
    path: &syn::Path,
    fields: &[Field],
) -> Option<usize> {
    let found = path
        .get_ident()
        .and_then(|ident| fields.iter().position(|f| f.ident == *ident));
    match found {
        Some(j) if j == unique => {
            cx.error_spanned_by(
                path,
                "a unique field is not its own scope: name the fields its value is unique \
                 within, as in `#[unique(scope(team))]`",
            );
            None
        }
        Some(j) if !fields[j].is_attribute => {
            cx.error_spanned_by(
                path,
                format!(
                    "`{}` is not stored as an attribute of its own (serde skips or flattens \
                     it), so it cannot scope a unique value",
                    fields[j].ident
                ),
            );
            None
        }
        Some(j) => Some(j),
        None => {
            let names: Vec<String> = fields.iter().map(|f| f.ident.to_string()).collect();
            cx.error_spanned_by(
                path,
                format!(
                    "`scope(..)` names fields of the facet; its fields are: {}",
                    names.join(", ")
                ),
            );
            None
        }
    }
}

/// A facet has at most one `#[created]` and one `#[updated]` field (`seen`: the one
/// already accepted).
pub fn at_most_one_timestamp(cx: &Ctxt, what: &str, seen: Option<usize>, span: Span) -> bool {
    if seen.is_some() {
        cx.error_at(span, format!("a facet has at most one `#[{what}]` field"));
    }
    seen.is_none()
}

/// A timestamp is not the `#[version]` counter.
pub fn timestamp_is_not_the_version(cx: &Ctxt, what: &str, version: bool, span: Span) -> bool {
    if version {
        cx.error_at(
            span,
            format!("`#[{what}]` holds a time; the `#[version]` counter is another field"),
        );
    }
    !version
}
