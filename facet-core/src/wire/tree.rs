//! Answer JSON to the SDK's attribute values: the tree the SDK's own decoder builds, for what
//! a record is not decoded from directly (keys, cursors, unprocessed keys, and the exact
//! errors of an item that does not read).

use std::borrow::Cow;
use std::fmt;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use serde::de::{self, DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

use crate::facet::ItemError;
use crate::item::Item;

/// The kind of an attribute value: the one member name of its JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    S,
    N,
    B,
    Bool,
    Null,
    M,
    L,
    Ss,
    Ns,
    Bs,
}

impl<'de> de::Deserialize<'de> for Tag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TagVisitor;
        impl Visitor<'_> for TagVisitor {
            type Value = Tag;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an attribute value type (S, N, B, BOOL, NULL, M, L, SS, NS, BS)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Tag, E> {
                Ok(match v {
                    "S" => Tag::S,
                    "N" => Tag::N,
                    "B" => Tag::B,
                    "BOOL" => Tag::Bool,
                    "NULL" => Tag::Null,
                    "M" => Tag::M,
                    "L" => Tag::L,
                    "SS" => Tag::Ss,
                    "NS" => Tag::Ns,
                    "BS" => Tag::Bs,
                    other => {
                        return Err(E::custom(format!("unknown attribute value type {other:?}")))
                    }
                })
            }
        }
        d.deserialize_str(TagVisitor)
    }
}

/// A string read borrowed when the JSON text has no escapes in it, else owned.
pub(crate) struct CowStr;

impl<'de> DeserializeSeed<'de> for CowStr {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for CowStr {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// Bytes as the wire writes them: standard base64 text.
fn blob<E: de::Error>(text: &str) -> Result<Blob, E> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map(Blob::new)
        .map_err(|e| E::custom(format!("bytes (B) are not base64: {e}")))
}

/// The value of an attribute of kind `tag`, from its JSON (the member after the tag).
pub(crate) fn value<'de, D: Deserializer<'de>>(tag: Tag, d: D) -> Result<AttributeValue, D::Error> {
    Ok(match tag {
        Tag::S => AttributeValue::S(de::Deserialize::deserialize(d)?),
        Tag::N => AttributeValue::N(de::Deserialize::deserialize(d)?),
        Tag::B => AttributeValue::B(blob(&CowStr.deserialize(d)?)?),
        Tag::Bool => AttributeValue::Bool(de::Deserialize::deserialize(d)?),
        Tag::Null => AttributeValue::Null(de::Deserialize::deserialize(d)?),
        Tag::M => AttributeValue::M(d.deserialize_map(ItemVisitor)?),
        Tag::L => AttributeValue::L(d.deserialize_seq(ListVisitor)?),
        Tag::Ss => AttributeValue::Ss(de::Deserialize::deserialize(d)?),
        Tag::Ns => AttributeValue::Ns(de::Deserialize::deserialize(d)?),
        Tag::Bs => {
            let texts: Vec<Cow<'de, str>> = d.deserialize_seq(CowStrs)?;
            AttributeValue::Bs(texts.iter().map(|t| blob(t)).collect::<Result<_, _>>()?)
        }
    })
}

/// One attribute value: `{"T": v}`.
pub(crate) struct TreeValue;

impl<'de> DeserializeSeed<'de> for TreeValue {
    type Value = AttributeValue;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<AttributeValue, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TreeValue {
    type Value = AttributeValue;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an attribute value ({\"S\": ..} and the like)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AttributeValue, A::Error> {
        let Some(tag) = map.next_key::<Tag>()? else {
            return Err(A::Error::custom("an attribute value without a type"));
        };
        let value = map.next_value_seed(Tagged(tag))?;
        if map.next_key::<de::IgnoredAny>()?.is_some() {
            return Err(A::Error::custom("an attribute value of more than one type"));
        }
        Ok(value)
    }
}

/// The member after tag `.0`.
struct Tagged(Tag);

impl<'de> DeserializeSeed<'de> for Tagged {
    type Value = AttributeValue;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<AttributeValue, D::Error> {
        value(self.0, d)
    }
}

/// A map of attribute values: an item, or an `M`. A name given twice keeps its last value,
/// as the SDK's decoder keeps it (it inserts each member into its `HashMap` in turn).
pub(crate) struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of attribute values")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Item, A::Error> {
        let mut item = Item::with_capacity(map.size_hint().unwrap_or(8));
        while let Some(name) = map.next_key::<String>()? {
            let value = map.next_value_seed(TreeValue)?;
            item.insert(name, value);
        }
        Ok(item)
    }
}

struct ListVisitor;

impl<'de> Visitor<'de> for ListVisitor {
    type Value = Vec<AttributeValue>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of attribute values")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut list = Vec::with_capacity(seq.size_hint().unwrap_or(4));
        while let Some(value) = seq.next_element_seed(TreeValue)? {
            list.push(value);
        }
        Ok(list)
    }
}

struct CowStrs;

impl<'de> Visitor<'de> for CowStrs {
    type Value = Vec<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut list = Vec::new();
        while let Some(text) = seq.next_element_seed(CowStr)? {
            list.push(text);
        }
        Ok(list)
    }
}

/// [`item`], for a read of facet `facet`: JSON that holds no attribute values (an unknown
/// type, bytes that are not base64) is the item's [`ItemError::Deserialize`].
pub fn item_of(json: &str, facet: &'static str) -> Result<Item, ItemError> {
    item(json).map_err(|e| ItemError::deserialize(facet, crate::unmarshal::Error::custom(e)))
}

/// An item (or key) from its JSON text, as the SDK's decoder reads it.
pub fn item(json: &str) -> Result<Item, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    let item = de.deserialize_map(ItemVisitor)?;
    de.end()?;
    Ok(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_given_twice_keeps_its_last_value_at_every_depth() {
        let json = r#"{"a":{"S":"1"},"m":{"M":{"x":{"N":"1"},"x":{"S":"2"}}},"a":{"N":"3"}}"#;
        let item = item(json).unwrap();
        assert_eq!(item.len(), 2);
        assert_eq!(item["a"], AttributeValue::N("3".into()));
        let AttributeValue::M(m) = &item["m"] else {
            panic!("m is a map")
        };
        assert_eq!(m["x"], AttributeValue::S("2".into()));
    }
}
