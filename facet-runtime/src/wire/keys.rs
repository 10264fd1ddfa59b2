//! An item's `PK` and `SK` text, for errors and reports that name a record.

use faceteer_core::Item;

pub(crate) use faceteer_core::convert::{key_pair, key_refs};

/// An item's `PK` and `SK` strings, when it has both.
pub(crate) fn key_strings(item: &Item) -> Option<(String, String)> {
    key_refs(item).map(|(pk, sk)| (pk.to_owned(), sk.to_owned()))
}
