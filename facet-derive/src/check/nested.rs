//! Rules about `#[nested]` fields and the structs that derive `Nested`.

use crate::ctxt::Ctxt;
use crate::model::{FacetModel, Field};

/// A `#[nested]` field holds a struct (or an `Option` of one) stored as a map by faceteer's
/// own marshalling: no codec of its own, not flattened or skipped, and not a list or a map of
/// them (reach those with `f.x.at(i).member::<T>("name")`).
pub fn nested_holds_a_plain_struct(cx: &Ctxt, field: &Field) {
    let Some(span) = field.nested else { return };
    let why = if !field.is_attribute {
        Some("it is not stored as an attribute of its own (`flatten` or `skip`)")
    } else if field.serializer.is_some() {
        Some("it has a serializer of its own (`with` / `serialize_with`): the members it stores are not the struct's fields")
    } else if !is_plain_path(&field.inner) {
        Some("its type is not a struct (or an `Option` of one); a list or map of structs is reached with `.at(i).member::<T>(\"name\")` or `.key(k).member::<T>(\"name\")`")
    } else {
        None
    };
    if let Some(why) = why {
        cx.error_at(
            span,
            format!(
                "`#[nested]` on `{}` gives typed handles on the members of a struct stored as \
                 a map; it cannot apply here: {why}",
                field.ident
            ),
        );
    }
}

/// A `#[nested]` field of a facet is a plain attribute: keys, the TTL, the version, the write
/// times, unique guards and vectors are built from whole top-level values, never from a
/// member inside one.
pub fn nested_is_a_plain_attribute(cx: &Ctxt, m: &FacetModel) {
    for (i, f) in m.fields.iter().enumerate() {
        let Some(span) = f.nested else { continue };
        let role = if m.pk.uses(i) || m.sk.uses(i) {
            Some("the table's key is built from it".to_owned())
        } else if m.indexes.iter().any(|x| x.uses(i)) {
            Some("an index key is built from it".to_owned())
        } else {
            super::markers::LibraryRole::of(m, i).map(|r| format!("it is {}", r.noun()))
        };
        if let Some(role) = role {
            cx.error_at(
                span,
                format!(
                    "`#[nested]` on `{}`: {role}, and keys, guards and counters are built from \
                     whole values; remove `#[nested]` (the field keeps every operation on the \
                     whole value)",
                    f.ident
                ),
            );
        }
    }
}

/// A struct that derives `Nested` is one concrete type: no generics.
pub fn nested_has_no_generics(cx: &Ctxt, generics: &syn::Generics) {
    if !generics.params.is_empty() {
        cx.error_spanned_by(
            generics,
            "`#[derive(Nested)]` does not support generic structs: its member handles are \
             built in `const` code for one type",
        );
    }
}

/// Whether a type is a path without generic arguments (a struct's name).
fn is_plain_path(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .iter()
                    .all(|s| matches!(s.arguments, syn::PathArguments::None))
        }
        _ => false,
    }
}
