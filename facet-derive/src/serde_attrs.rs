//! What `#[serde(..)]` attributes say about stored attribute names, and the checks that keep
//! faceteer's idea of them equal to serde's.
//!
//! faceteer builds keys, conditions, filters and projections from attribute names it
//! computes at compile time, so every serde option that changes a stored name must be one it
//! can follow. An option it cannot follow is a compile error, never a silent change of the
//! stored names.

use darling::Error;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Type};

/// One item inside `#[serde(..)]`.
struct SerdeItem {
    name: String,
    span: Span,
    /// `name = "text"`.
    text: Option<String>,
    /// `name(..)`.
    list: bool,
}

/// Every item of every `#[serde(..)]` attribute in `attrs`.
fn serde_items(attrs: &[Attribute]) -> Vec<SerdeItem> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            let name = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let span = meta.path.span();
            let mut item = SerdeItem {
                name,
                span,
                text: None,
                list: false,
            };
            if meta.input.peek(syn::Token![=]) {
                let expr: syn::Expr = meta.value()?.parse()?;
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = expr
                {
                    item.text = Some(s.value());
                }
            } else if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                let _ = content.parse::<proc_macro2::TokenStream>();
                item.list = true;
            }
            out.push(item);
            Ok(())
        });
    }
    out
}

/// The serde options of the struct that matter to faceteer.
#[derive(Debug, Default)]
pub struct SerdeContainer {
    /// `rename_all = ".."`.
    pub rename_all: Option<String>,
    /// `default`: missing fields take their default.
    pub default: bool,
}

/// The serde options of one field that matter to faceteer.
#[derive(Debug, Default)]
pub struct SerdeField {
    /// `rename = ".."`.
    pub rename: Option<String>,
    /// `with`, `serialize_with`: the field's own serialization.
    pub custom_serialize: bool,
    /// The function serializing the field (`<with>::serialize`, or `serialize_with`), when
    /// its path parses.
    pub serializer: Option<syn::Path>,
    /// `default`.
    pub default: bool,
    /// `skip_serializing_if = ".."`: the predicate leaving the attribute out.
    pub skip_if: Option<syn::ExprPath>,
    /// `skip`, `skip_serializing` or `flatten`: not an attribute of its own. (A
    /// `skip_deserializing` field is still written, so it is one.)
    pub not_an_attribute: bool,
}

/// serde's `rename_all` rules.
const RENAME_RULES: [&str; 8] = [
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

fn split_rename(what: &str, span: Span) -> Error {
    Error::custom(format!(
        "`{what}(serialize = .., deserialize = ..)` gives attributes one name when written and \
         another when read; faceteer builds keys, conditions and projections from one stored \
         name, so it cannot follow this: use `{what} = \"..\"` (and `alias = \"..\"` on a field \
         to also read an old name)"
    ))
    .with_span(&span)
}

/// Read the struct's serde options, reporting those faceteer cannot follow.
pub fn container(attrs: &[Attribute], errors: &mut Vec<Error>) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    for item in serde_items(attrs) {
        match item.name.as_str() {
            "rename_all" if item.list => errors.push(split_rename("rename_all", item.span)),
            "rename_all" => match item.text {
                Some(rule) if RENAME_RULES.contains(&rule.as_str()) => out.rename_all = Some(rule),
                rule => errors.push(
                    Error::custom(format!(
                        "unknown `rename_all` rule {:?}; serde's rules are: {}",
                        rule.unwrap_or_default(),
                        RENAME_RULES.join(", ")
                    ))
                    .with_span(&item.span),
                ),
            },
            "into" | "transparent" | "remote" => errors.push(
                Error::custom(format!(
                    "`#[serde({})]` makes serde store something other than this struct's \
                     fields, so faceteer cannot know the stored attribute names; a facet is \
                     stored field by field",
                    item.name
                ))
                .with_span(&item.span),
            ),
            "default" => out.default = true,
            _ => {}
        }
    }
    out
}

/// Read one field's serde options, reporting those faceteer cannot follow.
pub fn field(attrs: &[Attribute], errors: &mut Vec<Error>) -> SerdeField {
    let mut out = SerdeField::default();
    for item in serde_items(attrs) {
        match item.name.as_str() {
            "rename" if item.list => errors.push(split_rename("rename", item.span)),
            "rename" => out.rename = item.text,
            "with" | "serialize_with" => {
                out.custom_serialize = true;
                let path = item
                    .text
                    .as_deref()
                    .and_then(|t| syn::parse_str::<syn::Path>(t).ok());
                out.serializer = match (item.name.as_str(), path) {
                    ("with", Some(mut path)) => {
                        path.segments
                            .push(syn::Ident::new("serialize", item.span).into());
                        Some(path)
                    }
                    (_, path) => path,
                };
            }
            "default" => out.default = true,
            "skip_serializing_if" => match item.text.as_deref().map(syn::parse_str) {
                Some(Ok(path)) => out.skip_if = Some(path),
                _ => errors.push(
                    Error::custom(
                        "faceteer cannot read this `skip_serializing_if` path, and must: a value \
                         it leaves out is removed by updates and compared as absent; write it as \
                         a plain path (`Vec::is_empty`, `my_module::is_default`)",
                    )
                    .with_span(&item.span),
                ),
            },
            "skip" | "skip_serializing" | "flatten" => out.not_an_attribute = true,
            _ => {}
        }
    }
    out
}

/// The last path segment's name of a type (`DateTime` for `chrono::DateTime<Utc>`).
fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// A `Nullable` field must read a missing attribute as absent. (A `DateTime<Utc>` needs
/// nothing: faceteer's marshalling stores it as Faceteer does, at any depth.)
pub fn check_field_type(
    ident: &syn::Ident,
    inner: &Type,
    optional: bool,
    serde: &SerdeField,
    container: &SerdeContainer,
    errors: &mut Vec<Error>,
) {
    match last_segment(inner).as_deref() {
        Some("Nullable") if !optional && !serde.default && !container.default => errors.push(
            Error::custom(format!(
                "field `{ident}` is `Nullable`: add `#[serde(default)]`, so that a missing \
                 attribute reads as `Nullable::Absent` rather than `Nullable::Null`"
            ))
            .with_span(ident),
        ),
        _ => {}
    }
    if !serde.custom_serialize {
        if let Some(int) = wide_integer(inner) {
            errors.push(
                Error::custom(format!(
                    "field `{ident}` holds `{int}`, whose values reach 39 digits, but DynamoDB \
                     numbers hold at most 38 (and serde_dynamo cannot read 128-bit integers \
                     back); use `u64`/`i64`, or store it as text with \
                     `#[serde(with = \"..\")]` (for example `serde_with::DisplayFromStr`)"
                ))
                .with_span(ident),
            );
        }
    }
}

/// `u128` or `i128` anywhere in the type (`Option<u128>`, `Vec<i128>`, …).
fn wide_integer(ty: &Type) -> Option<&'static str> {
    let text = quote::ToTokens::to_token_stream(ty).to_string();
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find_map(|word| match word {
            "u128" => Some("u128"),
            "i128" => Some("i128"),
            _ => None,
        })
}
