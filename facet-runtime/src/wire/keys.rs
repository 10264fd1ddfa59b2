//! An item's `PK` and `SK` text, for errors and reports that name a record.

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::schema::{PK, SK};
use faceteer_core::Item;

/// An item's `PK` and `SK` strings, borrowed, when it has both.
pub(crate) fn key_refs(item: &Item) -> Option<(&str, &str)> {
    match (item.get(PK), item.get(SK)) {
        (Some(AttributeValue::S(pk)), Some(AttributeValue::S(sk))) => Some((pk, sk)),
        _ => None,
    }
}

/// An item's (or key's) `PK` and `SK` strings, each empty when absent: for errors that
/// name the key.
pub(crate) fn key_pair(item: &Item) -> (String, String) {
    let text = |name| match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    };
    (text(PK), text(SK))
}

/// An item's `PK` and `SK` strings, when it has both.
pub(crate) fn key_strings(item: &Item) -> Option<(String, String)> {
    key_refs(item).map(|(pk, sk)| (pk.to_owned(), sk.to_owned()))
}
