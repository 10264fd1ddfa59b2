//! Rules about vector indexes (`#[vector(..)]`).

use darling::util::SpannedValue;
use proc_macro2::Span;

use crate::ctxt::Ctxt;
use crate::model::{native_type, Field, NativeType};

/// DynamoDB's most dimensions of a vector index.
const MAX_DIMENSIONS: u32 = 4096;

/// A vector index holds a list of numbers: the field is a `Vec<f32>` or `Vec<f64>`
/// (optionally an `Option`), stored as faceteer marshals it (a list of `N`).
pub fn vector_field_holds_numbers(cx: &Ctxt, field: &Field, span: Span) -> bool {
    let numbers = match &field.inner {
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            s.ident == "Vec"
                && match &s.arguments {
                    syn::PathArguments::AngleBracketed(a) => a.args.iter().any(|arg| {
                        matches!(arg, syn::GenericArgument::Type(syn::Type::Path(t))
                            if t.path.is_ident("f32") || t.path.is_ident("f64"))
                    }),
                    _ => false,
                }
        }),
        _ => false,
    };
    if !numbers || !field.is_attribute || field.serializer.is_some() {
        cx.error_at(
            span,
            format!(
                "`{}` is not a list of numbers stored as one attribute; a vector index holds a \
                 `Vec<f32>` (or `Vec<f64>`, optionally in an `Option`), with no codec of its own",
                field.ident
            ),
        );
        return false;
    }
    true
}

/// A vector has 1 to 4096 dimensions.
pub fn vector_dimensions_in_range(cx: &Ctxt, n: &SpannedValue<u32>) -> Option<u32> {
    if (1..=MAX_DIMENSIONS).contains(&**n) {
        return Some(**n);
    }
    cx.error_at(
        n.span(),
        format!(
            "a vector index has 1 to {MAX_DIMENSIONS} dimensions (DynamoDB's limit), not {}",
            **n
        ),
    );
    None
}

/// The distance is one DynamoDB knows: the variant of the core enum.
pub fn vector_distance_is_known(cx: &Ctxt, distance: &syn::Path) -> Option<&'static str> {
    let word = distance
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    let variant = match word.as_str() {
        "cosine" => "Cosine",
        "euclidean" => "Euclidean",
        "dot_product" => "DotProduct",
        _ => {
            cx.error_spanned_by(
                distance,
                "the distance of a vector index is `cosine`, `euclidean` or `dot_product`",
            );
            return None;
        }
    };
    Some(variant)
}

/// An index name DynamoDB accepts: 3 to 255 characters among `a-z A-Z 0-9 _ - .`.
pub fn vector_index_name_is_valid(cx: &Ctxt, name: &str, span: Span, defaulted: bool) -> bool {
    let valid = (3..=255).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !valid {
        let hint = if defaulted {
            " (it is the attribute's name and `_vector`: name the index with `index = \"..\"`)"
        } else {
            ""
        };
        cx.error_at(
            span,
            format!(
                "vector index name {name:?} is not one DynamoDB accepts: 3 to 255 characters \
                 among letters, digits, `_`, `-` and `.`{hint}"
            ),
        );
    }
    valid
}

/// The search schema's fields (`partition`, `filters(..)`): attributes of their own, each
/// once, not the vector itself, whose DynamoDB type can be told.
pub fn vector_search_fields(
    cx: &Ctxt,
    vector: usize,
    searched: impl Iterator<Item = usize>,
    fields: &[Field],
) -> bool {
    let mut ok = true;
    let mut seen: Vec<usize> = Vec::new();
    for i in searched {
        let f = &fields[i];
        let problem = if i == vector {
            Some("is the vector itself".to_owned())
        } else if seen.contains(&i) {
            Some("is named twice in the search schema".to_owned())
        } else if !f.is_attribute {
            Some("is not stored as an attribute of its own (serde skips or flattens it)".to_owned())
        } else if native_type(f.serializer.as_ref()) == NativeType::Unknown {
            Some(
                "is stored through its own codec, so its DynamoDB type (`S`, `N`, `B`) cannot be \
                 told"
                    .to_owned(),
            )
        } else {
            None
        };
        if let Some(problem) = problem {
            cx.error_spanned_by(
                &f.ident,
                format!(
                    "`{}` {problem}, so it cannot be in a vector index's search schema",
                    f.ident
                ),
            );
            ok = false;
        }
        seen.push(i);
    }
    ok
}
