//! Named checks on the assembled model, each adding its errors to the one list the derive
//! reports (like serde_derive's `internals/check.rs`).

use std::collections::BTreeMap;

use darling::Error;
use syn::Type;

use crate::model::{Field, KeyModel};

/// Integer types `sortable` can encode.
const SORTABLE_INTEGERS: &[&str] = &[
    "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize",
];

/// A field's key encoding must not depend on which key it is in.
pub fn sortable_is_one_encoding(fields: &[Field], keys: &[&KeyModel], errors: &mut Vec<Error>) {
    let mut seen: BTreeMap<usize, bool> = BTreeMap::new();
    for part in keys.iter().flat_map(|k| &k.parts) {
        if let Some(prev) = seen.insert(part.field, part.sortable) {
            if prev != part.sortable {
                errors.push(
                    Error::custom(format!(
                        "field `{}` is `sortable` in one key but not in another; \
                         a field has one key encoding",
                        fields[part.field].ident
                    ))
                    .with_span(&fields[part.field].ident),
                );
            }
        }
    }
}

/// `sortable` encodes primitive integers only; anything else is one error at the field
/// (rather than one per generated use of the field).
pub fn sortable_fields_are_integers(fields: &[Field], keys: &[&KeyModel], errors: &mut Vec<Error>) {
    let mut reported = Vec::new();
    for part in keys.iter().flat_map(|k| &k.parts).filter(|p| p.sortable) {
        let field = &fields[part.field];
        if is_integer(&field.inner) || reported.contains(&part.field) {
            continue;
        }
        reported.push(part.field);
        errors.push(
            Error::custom(format!(
                "`sortable` encodes integers (u8..u64, i8..i64, usize, isize), but `{}` is not \
                 one; remove `sortable`, or store the value as an integer",
                field.ident
            ))
            .with_span(&field.ty),
        );
    }
}

/// A shard id is hex, as wide as its count needs. When a schedule changes that width, the
/// key is read back only if the delimiter after the shard id cannot be taken for one more
/// hex digit: with a delimiter starting with `0`–`9` or `a`–`f`, `#G` + `a` + `0` + `a` +
/// `a_x` and `#G` + `a` + `0a` + `a` + `_x` are one key.
pub fn shard_ids_decode(
    delimiter: &str,
    span: proc_macro2::Span,
    keys: &[&KeyModel],
    errors: &mut Vec<Error>,
) {
    let hex_start = delimiter
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || ('a'..='f').contains(&c));
    if !hex_start {
        return;
    }
    let width = |count: u32| format!("{:x}", count.saturating_sub(1)).len();
    for key in keys {
        let Some(shard) = &key.shard else { continue };
        let widths: Vec<usize> = std::iter::once(shard.count)
            .chain(shard.schedule.iter().map(|(_, c)| *c))
            .map(width)
            .collect();
        if widths.iter().any(|w| *w != widths[0]) {
            errors.push(
                Error::custom(format!(
                    "the delimiter {delimiter:?} starts with a hex digit and the shard schedule of \
                     `{}` changes how many hex digits a shard id has, so two records could get one \
                     key; choose a delimiter that does not start with 0-9 or a-f, or counts of one \
                     width",
                    key.attribute
                ))
                .with_span(&span),
            );
        }
    }
}

fn is_integer(ty: &Type) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| SORTABLE_INTEGERS.iter().any(|n| i == n)),
        Type::Group(g) => is_integer(&g.elem),
        Type::Paren(p) => is_integer(&p.elem),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn integers_are_recognised() {
        assert!(is_integer(&parse_quote!(u64)));
        assert!(is_integer(&parse_quote!(i8)));
        assert!(!is_integer(&parse_quote!(String)));
        assert!(!is_integer(&parse_quote!(f64)));
        assert!(!is_integer(&parse_quote!(my::u64)));
    }
}
