//! The facets with sensitive fields, registered when first used.

use std::borrow::Cow;
use std::sync::RwLock;

use crate::key::REDACTED;
use crate::schema::{FacetSchema, KeySchema};

/// One registered facet: its schema and its sensitive attributes.
#[derive(Clone, Copy)]
struct Entry {
    schema: &'static FacetSchema,
    attributes: &'static [&'static str],
}

static REGISTRY: RwLock<Vec<Entry>> = RwLock::new(Vec::new());

/// Register the facet `schema` describes, whose sensitive attributes are `attributes`.
pub fn register_schema(schema: &'static FacetSchema, attributes: &'static [&'static str]) {
    if attributes.is_empty() {
        return;
    }
    let known = |r: &[Entry]| r.iter().any(|e| std::ptr::eq(e.schema, schema));
    if known(&REGISTRY.read().unwrap_or_else(|e| e.into_inner())) {
        return;
    }
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    if !known(&registry) {
        registry.push(Entry { schema, attributes });
    }
}

/// The sensitive attributes of the registered facet named `facet`.
pub fn sensitive_attributes(facet: &str) -> &'static [&'static str] {
    REGISTRY
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|e| e.schema.name == facet)
        .map(|e| e.attributes)
        .unwrap_or(&[])
}

pub(crate) fn is_sensitive(facet: Option<&str>, attribute: &str) -> bool {
    let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    registry
        .iter()
        .filter(|e| facet.is_none_or(|f| f == e.schema.name))
        .any(|e| e.attributes.contains(&attribute))
}

/// `text` with the values of sensitive fields masked, when a registered facet writes keys of
/// its shape (its prefix): each sensitive value, or everything after the prefix when the
/// text does not split into the key's values.
pub(crate) fn mask_key(text: &str) -> Cow<'_, str> {
    let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    if registry.is_empty() {
        return Cow::Borrowed(text);
    }
    // A unique guard's key: `$unique#<facet>#<attribute>#..#<len>:<value>`, which holds the
    // value (and the scope's) whole.
    if let Some(rest) = text
        .strip_prefix(crate::unique::GUARD_PREFIX)
        .and_then(|r| r.strip_prefix('#'))
    {
        let mut parts = rest.splitn(3, '#');
        if let (Some(facet), Some(attribute)) = (parts.next(), parts.next()) {
            let sensitive = registry
                .iter()
                .any(|e| e.schema.name == facet && e.attributes.contains(&attribute));
            if sensitive {
                return Cow::Owned(format!(
                    "{}#{facet}#{attribute}#{REDACTED}",
                    crate::unique::GUARD_PREFIX
                ));
            }
        }
        return Cow::Borrowed(text);
    }
    // Every registered layout the text may have; when they mask it differently (facets
    // sharing a prefix), everything after the prefix is masked.
    let mut found: Option<(String, &'static str, &'static str)> = None;
    for entry in registry.iter() {
        let schema = entry.schema;
        let keys = [&schema.pk, &schema.sk]
            .into_iter()
            .chain(schema.indexes.iter().flat_map(|i| i.keys()));
        for key in keys {
            let Some(masked) = mask_with(text, entry, key) else {
                continue;
            };
            found = match found {
                None => Some((masked, key.prefix, schema.delimiter)),
                Some((same, prefix, delimiter)) if same == masked => {
                    Some((same, prefix, delimiter))
                }
                Some((_, prefix, delimiter)) => {
                    return Cow::Owned(format!("{prefix}{delimiter}{REDACTED}"));
                }
            };
        }
    }
    match found {
        Some((masked, ..)) => Cow::Owned(masked),
        None => Cow::Borrowed(text),
    }
}

fn mask_with(text: &str, entry: &Entry, key: &KeySchema) -> Option<String> {
    let sensitive: Vec<bool> = key
        .fields
        .iter()
        .map(|f| entry.attributes.contains(f))
        .collect();
    if !sensitive.contains(&true) || key.no_prefix || key.prefix.is_empty() {
        return None;
    }
    let delimiter = entry.schema.delimiter;
    // The prefix, then the delimiter: `#USER_..` is not a key of prefix `#US`.
    let rest = text.strip_prefix(key.prefix)?.strip_prefix(delimiter)?;
    let pieces: Vec<&str> = rest.split(delimiter).collect();
    // The values are the last pieces (a shard id may come first).
    if key.shard.is_none() && pieces.len() == key.fields.len() {
        let shown: Vec<&str> = pieces
            .iter()
            .zip(&sensitive)
            .map(|(piece, s)| if *s { REDACTED } else { piece })
            .collect();
        return Some(format!(
            "{}{delimiter}{}",
            key.prefix,
            shown.join(delimiter)
        ));
    }
    Some(format!("{}{delimiter}{}", key.prefix, REDACTED))
}

/// `value`, or [`REDACTED`] when `attribute` of the facet named `facet` is sensitive.
pub fn value(facet: &str, attribute: &str, value: &str) -> String {
    if is_sensitive(Some(facet), attribute) {
        REDACTED.to_owned()
    } else {
        value.to_owned()
    }
}
