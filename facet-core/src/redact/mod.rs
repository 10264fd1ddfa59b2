//! `#[sensitive]` fields kept out of what a program prints: records' `Debug`, keys and items
//! in error texts and tracing events.
//!
//! A facet with sensitive fields registers itself ([`register_schema`]) the first time its
//! keys are built, a record of it is converted, or a table declaring it is opened. From then on [`key`] masks the values those
//! fields put in a key (`#USER_ann@example.com_7` prints as `#USER_‹redacted›_7`) and
//! [`ShownItem`] masks their attributes in a stored item. The values themselves are never
//! changed: a key still holds the value in DynamoDB (use `#[encrypt]` and a beacon to keep
//! it out of the table).

mod key_text;
mod registry;

pub use crate::key::{Registering, REDACTED};
pub use key_text::KeyText;
pub use registry::{register_schema, sensitive_attributes, value};

use std::borrow::Cow;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::Item;

/// `text` (a key: `PK`, `SK`, an index key, a guard's key) with the values of sensitive
/// fields masked, when a registered facet builds keys of its shape.
pub fn key(text: &str) -> Cow<'_, str> {
    registry::mask_key(text)
}

/// Whether `attribute` of an item of the facet named `facet` is sensitive (any facet's,
/// when the item names none).
pub fn is_sensitive(facet: Option<&str>, attribute: &str) -> bool {
    registry::is_sensitive(facet, attribute)
}

/// An item printed with its sensitive attributes masked and its keys through [`key`]:
/// `format!("{:?}", ShownItem(&item))`.
pub struct ShownItem<'a>(pub &'a Item);

impl std::fmt::Debug for ShownItem<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let facet = match self.0.get(crate::schema::FACET_ATTRIBUTE) {
            Some(AttributeValue::S(name)) => Some(name.as_str()),
            _ => None,
        };
        let mut names: Vec<&String> = self.0.keys().collect();
        names.sort();
        let mut map = f.debug_map();
        for name in names {
            let value = &self.0[name];
            if is_sensitive(facet, name) {
                map.entry(name, &Masked);
            } else if let (true, AttributeValue::S(text)) =
                (crate::schema::is_library_attribute(name), value)
            {
                map.entry(name, &key(text));
            } else {
                map.entry(name, value);
            }
        }
        map.finish()
    }
}

/// What a masked value prints, in `Debug`.
struct Masked;

impl std::fmt::Debug for Masked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(REDACTED)
    }
}

/// A value of a sensitive field, printed masked by `Debug`: what the derive's `Debug` of a
/// record shows in place of the value.
pub fn masked() -> impl std::fmt::Debug {
    Masked
}

/// `Debug` text (of a sort condition, a key pair) with each quoted string that is a key of a
/// registered facet masked as [`key`] masks it.
pub fn debug_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('"') {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        // The quoted string's end: the next quote not escaped.
        let mut end = None;
        let mut escaped = false;
        for (j, c) in rest.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = Some(j);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(end) = end else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&key(&rest[..end]));
        out.push('"');
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// A serde message with the values it quotes masked: text in double quotes, and what follows
/// `integer`, `floating point`, `char` or `variant` in backquotes
/// (`invalid type: string "ann@example.com", expected u32` prints as
/// `invalid type: string ‹redacted›, expected u32`). Field names (`missing field `email``)
/// stay.
pub fn message(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['"', '`']) {
        let (before, from) = rest.split_at(i);
        out.push_str(before);
        let quote = &from[..1];
        let masks = quote == "\""
            || ["integer ", "floating point ", "char ", "variant "]
                .iter()
                .any(|w| before.ends_with(w));
        match from[1..].find(quote) {
            Some(end) if masks => {
                out.push_str(REDACTED);
                rest = &from[end + 2..];
            }
            Some(end) => {
                out.push_str(&from[..end + 2]);
                rest = &from[end + 2..];
            }
            None => {
                out.push_str(if masks { REDACTED } else { from });
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::message;

    #[test]
    fn a_sensitive_value_with_the_delimiter_before_an_absent_one_is_refused_masked() {
        use crate::key::{write_key, KeyError};
        let x = "a#b".to_string();
        let sensitive = crate::key::Registering {
            register: || {},
            value: &x,
        };
        let absent: Option<String> = None;
        let err =
            write_key("P", "#", false, None, &["x", "y"], &[&sensitive, &absent]).unwrap_err();
        match err {
            KeyError::DelimiterAfterAbsent { value, .. } => assert_eq!(value, super::REDACTED),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn serde_messages_lose_their_values_and_keep_field_names() {
        assert_eq!(
            message("invalid type: string \"ann@example.com\", expected u32"),
            "invalid type: string ‹redacted›, expected u32"
        );
        assert_eq!(
            message("invalid value: integer `42`, expected a day"),
            "invalid value: integer ‹redacted›, expected a day"
        );
        assert_eq!(
            message("unknown variant `Secret`, expected one of `A`, `B`"),
            "unknown variant ‹redacted›, expected one of `A`, `B`"
        );
        assert_eq!(message("missing field `email`"), "missing field `email`");
        assert_eq!(message("unclosed \"tail"), "unclosed ‹redacted›");
    }
}
