//! Questions about a field's Rust type, answered from its syntax.

use syn::Type;

/// Integer types `sortable` can encode.
const SORTABLE_INTEGERS: &[&str] = &[
    "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize",
];

/// Integer types a `#[version]` counter can be.
const COUNTERS: &[&str] = &["u32", "u64", "i32", "i64"];

/// `T` of `Option<T>`, or `None` for any other type.
pub fn strip_option(ty: &Type) -> Option<Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) if args.args.len() == 1 => Some(t.clone()),
        _ => None,
    }
}

/// The identifiers of a path's segments, in order (`faceteer::timestamp` → `["faceteer",
/// "timestamp"]`), without generic arguments.
pub fn path_words(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// Whether a type is `String`, `str`, `Cow<str>` or a reference to one of them.
pub fn is_string_like(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => is_string_like(&r.elem),
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "String" || s.ident == "str" || s.ident == "Cow"),
        _ => false,
    }
}

/// Whether a type is a primitive integer `sortable` encodes.
pub fn is_integer(ty: &Type) -> bool {
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

/// Whether a type is one a `#[version]` counter can be (`u32`, `u64`, `i32`, `i64`).
pub fn is_counter(ty: &Type) -> bool {
    matches!(ty, Type::Path(p)
        if p.qself.is_none() && p.path.get_ident().is_some_and(|id| COUNTERS.iter().any(|c| id == c)))
}

/// The last path segment's name of a type (`DateTime` for `chrono::DateTime<Utc>`).
pub fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// `u128` or `i128` anywhere in the type (`Option<u128>`, `Vec<i128>`, …).
pub fn wide_integer(ty: &Type) -> Option<&'static str> {
    let text = quote::ToTokens::to_token_stream(ty).to_string();
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find_map(|word| match word {
            "u128" => Some("u128"),
            "i128" => Some("i128"),
            _ => None,
        })
}

/// A type as tidy text, as it is written in code: `Option<String>`, `Vec<(u32, String)>`,
/// `&'static str`, `[f32; 3]`, `chrono::DateTime<Utc>` (the token text without the spaces
/// token printing puts around punctuation).
pub fn type_text(ty: &Type) -> String {
    let text = quote::ToTokens::to_token_stream(ty).to_string();
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c != ' ' {
            out.push(c);
            continue;
        }
        let before = out.chars().last();
        let after = chars.get(i + 1).copied();
        // Glued to what precedes: `<`, `>`, `,`, `;`, `:`, `)`, `]`; to what follows:
        // after `<`, `(`, `[`, `&`, `:`.
        let glued_after = matches!(after, Some('<' | '>' | ',' | ';' | ')' | ']' | ':'))
            || after == Some('(') && before.is_some_and(|b| b.is_alphanumeric());
        let glued_before = matches!(before, Some('<' | '(' | '[' | '&' | ':'));
        if !glued_after && !glued_before {
            out.push(' ');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn types_are_written_as_in_code() {
        let cases: [(Type, &str); 8] = [
            (parse_quote!(Option<String>), "Option<String>"),
            (parse_quote!(Vec<Option<u8>>), "Vec<Option<u8>>"),
            (parse_quote!(HashMap<String, u32>), "HashMap<String, u32>"),
            (parse_quote!(&'static str), "&'static str"),
            (parse_quote!([f32; 3]), "[f32; 3]"),
            (
                parse_quote!(::chrono::DateTime<Utc>),
                "::chrono::DateTime<Utc>",
            ),
            (parse_quote!((u32, String)), "(u32, String)"),
            (
                parse_quote!(Option<Vec<(u8, i64)>>),
                "Option<Vec<(u8, i64)>>",
            ),
        ];
        for (ty, want) in cases {
            assert_eq!(type_text(&ty), want);
        }
    }

    #[test]
    fn integers_are_recognised() {
        assert!(is_integer(&parse_quote!(u64)));
        assert!(is_integer(&parse_quote!(i8)));
        assert!(!is_integer(&parse_quote!(String)));
        assert!(!is_integer(&parse_quote!(f64)));
        assert!(!is_integer(&parse_quote!(my::u64)));
    }
}
