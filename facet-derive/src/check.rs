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
