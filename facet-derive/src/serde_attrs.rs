//! What `#[serde(..)]` attributes say about stored attribute names, and the checks that keep
//! faceteer's idea of them equal to serde's.
//!
//! faceteer builds keys, conditions, filters and projections from attribute names it
//! computes at compile time, so every serde option that changes a stored name must be one it
//! can follow. An option it cannot follow is a compile error, never a silent change of the
//! stored names.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::Attribute;

use crate::case::RenameRule;
use crate::ctxt::Ctxt;

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
    pub rename_all: Option<RenameRule>,
    /// `default`: missing fields take their default.
    pub default: bool,
    /// An option that changes what serde writes beyond the fields' names and values
    /// (`tag`), or one faceteer does not know: records are written through `Serialize`.
    pub unfollowed: bool,
}

/// The container options that leave serde writing each field under its (renamed) name and
/// nothing else.
const FOLLOWED_CONTAINER: &[&str] = &[
    "rename_all",
    "default",
    "rename",
    "deny_unknown_fields",
    "bound",
    "crate",
    "expecting",
    "from",
    "try_from",
];

/// The field options whose effect on what serde writes faceteer follows.
const FOLLOWED_FIELD: &[&str] = &[
    "rename",
    "with",
    "serialize_with",
    "deserialize_with",
    "default",
    "skip_serializing_if",
    "skip",
    "skip_serializing",
    "skip_deserializing",
    "alias",
    "bound",
    "borrow",
];

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
    /// The field's own codec as declared, for the design lock: the `with` path, or
    /// `serialize_with = ..` and `deserialize_with = ..`, joined by `, `.
    pub codec: Option<String>,
    /// `default`.
    pub default: bool,
    /// `skip_serializing_if = ".."`: the predicate leaving the attribute out.
    pub skip_if: Option<syn::ExprPath>,
    /// `skip`, `skip_serializing` or `flatten`: not an attribute of its own. (A
    /// `skip_deserializing` field is still written, so it is one.)
    pub not_an_attribute: bool,
    /// `flatten`, or an option faceteer does not know: the record is written through
    /// `Serialize`.
    pub unfollowed: bool,
}

/// A `rename(serialize = .., deserialize = ..)` (or `rename_all(..)`): two names.
fn split_rename(cx: &Ctxt, what: &str, span: Span) {
    cx.error_at(
        span,
        format!(
        "`{what}(serialize = .., deserialize = ..)` gives attributes one name when written and \
         another when read; faceteer builds keys, conditions and projections from one stored \
         name, so it cannot follow this: use `{what} = \"..\"` (and `alias = \"..\"` on a field \
         to also read an old name)"
        ),
    );
}

/// Read the struct's serde options, reporting those faceteer cannot follow.
pub fn container(attrs: &[Attribute], cx: &Ctxt) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    for item in serde_items(attrs) {
        out.unfollowed |= !FOLLOWED_CONTAINER.contains(&item.name.as_str());
        match item.name.as_str() {
            "rename_all" if item.list => split_rename(cx, "rename_all", item.span),
            "rename_all" => match item.text.as_deref().map(str::parse) {
                Some(Ok(rule)) => out.rename_all = Some(rule),
                _ => cx.error_at(
                    item.span,
                    format!(
                        "unknown `rename_all` rule {:?}; serde's rules are: {}",
                        item.text.unwrap_or_default(),
                        RenameRule::names()
                    ),
                ),
            },
            "into" | "transparent" | "remote" => cx.error_at(
                item.span,
                format!(
                    "`#[serde({})]` makes serde store something other than this struct's \
                     fields, so faceteer cannot know the stored attribute names; a facet (or \
                     a struct that derives `Nested`) is stored field by field",
                    item.name
                ),
            ),
            "default" => out.default = true,
            _ => {}
        }
    }
    out
}

/// Add `item` (`with = "path"`, `serialize_with = "path"`, …) to a field's codec text: a
/// `with` path as written, the others as `name = path`.
fn add_codec(codec: &mut Option<String>, item: &SerdeItem) {
    let path = item.text.clone().unwrap_or_default();
    let text = if item.name == "with" {
        path
    } else {
        format!("{} = {path}", item.name)
    };
    *codec = Some(match codec.take() {
        Some(before) => format!("{before}, {text}"),
        None => text,
    });
}

/// Read one field's serde options, reporting those faceteer cannot follow.
pub fn field(attrs: &[Attribute], cx: &Ctxt) -> SerdeField {
    let mut out = SerdeField::default();
    for item in serde_items(attrs) {
        out.unfollowed |= !FOLLOWED_FIELD.contains(&item.name.as_str());
        match item.name.as_str() {
            "rename" if item.list => split_rename(cx, "rename", item.span),
            "rename" => out.rename = item.text,
            "with" | "serialize_with" => {
                out.custom_serialize = true;
                add_codec(&mut out.codec, &item);
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
            "deserialize_with" => add_codec(&mut out.codec, &item),
            "default" => out.default = true,
            "skip_serializing_if" => match item.text.as_deref().map(syn::parse_str) {
                Some(Ok(path)) => out.skip_if = Some(path),
                _ => cx.error_at(
                    item.span,
                    "faceteer cannot read this `skip_serializing_if` path, and must: a value it \
                     leaves out is removed by updates and compared as absent; write it as a \
                     plain path (`Vec::is_empty`, `my_module::is_default`)",
                ),
            },
            "skip" | "skip_serializing" | "flatten" => out.not_an_attribute = true,
            _ => {}
        }
    }
    out
}
