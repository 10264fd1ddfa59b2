//! A stored item as an answer brought it: the SDK's tree, or the JSON text the direct read
//! path keeps (decoded only once, straight into a record).

use std::borrow::Cow;

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::wire::WireItem;
use faceteer_core::{Facet, Item, ItemError};

/// One stored item of an answer.
#[derive(Debug, Clone)]
pub(crate) enum Stored {
    /// Decoded by the SDK.
    Tree(Item),
    /// Its JSON text (the direct read path).
    Wire(WireItem),
}

/// What the read paths look up in a stored item before (or instead of) decoding it.
pub(crate) trait Attributes {
    /// The text of the string (`S`) attribute `name`, if it has one.
    fn text(&self, name: &str) -> Option<Cow<'_, str>>;

    /// The key value (`S`, `N` or `B`) of attribute `name`, if it has one.
    fn value(&self, name: &str) -> Option<AttributeValue>;
}

impl Attributes for Item {
    fn text(&self, name: &str) -> Option<Cow<'_, str>> {
        match self.get(name) {
            Some(AttributeValue::S(s)) => Some(Cow::Borrowed(s)),
            _ => None,
        }
    }

    fn value(&self, name: &str) -> Option<AttributeValue> {
        self.get(name)
            .filter(|v| faceteer_core::schema::ScalarType::of(v).is_some())
            .cloned()
    }
}

impl Attributes for Stored {
    fn text(&self, name: &str) -> Option<Cow<'_, str>> {
        match self {
            Stored::Tree(item) => item.text(name),
            Stored::Wire(wire) => wire.text(name),
        }
    }

    fn value(&self, name: &str) -> Option<AttributeValue> {
        match self {
            Stored::Tree(item) => item.value(name),
            // Once per page (the last item's key): a string or number read in place, binary
            // through the item's tree.
            Stored::Wire(wire) => match (wire.text(name), wire.number(name)) {
                (Some(s), _) => Some(AttributeValue::S(s.into_owned())),
                (None, Some(n)) => Some(AttributeValue::N(n.into_owned())),
                (None, None) => wire.to_item().ok()?.value(name),
            },
        }
    }
}

impl Stored {
    /// Whether the item belongs to another facet than `facet`.
    pub(crate) fn is_foreign(&self, facet: &str) -> bool {
        match self {
            Stored::Tree(item) => faceteer_core::convert::is_foreign(item, facet),
            Stored::Wire(wire) => wire.is_foreign(facet),
        }
    }

    /// Its `PK` and `SK` strings.
    pub(crate) fn key(&self) -> Option<(Cow<'_, str>, Cow<'_, str>)> {
        match self {
            Stored::Tree(item) => crate::wire::keys::key_refs(item)
                .map(|(pk, sk)| (Cow::Borrowed(pk), Cow::Borrowed(sk))),
            Stored::Wire(wire) => wire.key_texts(),
        }
    }

    /// Whether its `ttl` time is at or before `now` (epoch seconds).
    pub(crate) fn is_expired(&self, now: i64) -> bool {
        match self {
            Stored::Tree(item) => faceteer_core::plan::is_expired(item, now),
            Stored::Wire(wire) => wire
                .number(faceteer_core::schema::TTL_ATTRIBUTE)
                .is_some_and(|ttl| faceteer_core::plan::ttl_passed(&ttl, now)),
        }
    }

    /// The record of facet `F` it holds.
    pub(crate) fn decode<F: Facet>(self) -> Result<F, ItemError> {
        match self {
            Stored::Tree(item) => faceteer_core::from_item(item),
            Stored::Wire(wire) => wire.decode::<F>(),
        }
    }

    /// The item as the SDK's attribute values. The JSON of an answer is checked when the
    /// answer is read; what it cannot hold as attribute values (an unknown type, bytes that
    /// are not base64) is a [`ItemError::Deserialize`] of facet `facet`.
    pub(crate) fn into_item(self, facet: &'static str) -> Result<Item, ItemError> {
        match self {
            Stored::Tree(item) => Ok(item),
            Stored::Wire(wire) => wire.to_item_of(facet),
        }
    }
}
