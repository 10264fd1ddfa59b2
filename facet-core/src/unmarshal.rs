//! Items back to records, in one pass over the SDK's own attribute values.
//!
//! serde_dynamo first converts an `aws_sdk_dynamodb` item into a map of its own attribute
//! type (rehashing every name) and then deserializes that. This deserializer reads the SDK's
//! `AttributeValue`s directly and by value: strings, lists and maps are moved into the
//! record, never copied, and attributes the record does not read (the key attributes,
//! `facet`, `ttl`) are passed over without being looked at.
//!
//! It reads what [`crate::marshal`] writes, with serde_dynamo's rules:
//!
//! * `N` as any number type (text parsed into the requested type), `S` as strings, chars,
//!   unit enum variants and map keys (numeric map keys parsed), `BOOL`, `B` as bytes, `L` and
//!   the sets (`SS`, `NS`, `BS`) as sequences, `M` as maps, structs and `{variant: value}`
//!   enums;
//! * `NULL` as `None`, `()` and unit structs; a missing member reads as `None`.
//!
//! Errors name the member they happened in (``at `inner.scores[1]`: …``).

use std::collections::hash_map;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, Error as _, IntoDeserializer, MapAccess,
    SeqAccess, VariantAccess, Visitor,
};

use crate::item::Item;
use crate::marshal::within;

/// The error type (shared with serde_dynamo and [`crate::marshal`]).
pub type Error = serde_dynamo::Error;

type Result<T> = std::result::Result<T, Error>;

/// Which members of an item a record does not read.
pub type Skip<'s> = dyn Fn(&str, &AttributeValue) -> bool + 's;

/// Deserialize a record from the attributes of an item, passing over the attributes for
/// which `skip` holds (it sees each name and value; those it skips are dropped unread).
pub fn from_attributes<T: DeserializeOwned>(item: Item, skip: &Skip<'_>) -> Result<T> {
    T::deserialize(ItemDeserializer { item, skip })
}

/// Deserialize one value from an attribute value.
pub fn from_attribute_value<T: DeserializeOwned>(value: AttributeValue) -> Result<T> {
    T::deserialize(Value(value))
}

/// The name of an attribute value's kind, for error messages.
fn kind(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "a string (S)",
        AttributeValue::N(_) => "a number (N)",
        AttributeValue::Bool(_) => "a boolean (BOOL)",
        AttributeValue::B(_) => "bytes (B)",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::M(_) => "a map (M)",
        AttributeValue::L(_) => "a list (L)",
        AttributeValue::Ss(_) => "a string set (SS)",
        AttributeValue::Ns(_) => "a number set (NS)",
        AttributeValue::Bs(_) => "a binary set (BS)",
        _ => "an attribute of an unknown kind",
    }
}

fn expected(what: &str, found: &AttributeValue) -> Error {
    Error::custom(format!("expected {what}, found {}", kind(found)))
}

/// A whole item: a map whose `skip` members are passed over.
struct ItemDeserializer<'s> {
    item: Item,
    skip: &'s Skip<'s>,
}

impl<'de> de::Deserializer<'de> for ItemDeserializer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(Members::new(self.item, Some(self.skip)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// The members of a map, by value.
struct Members<'s> {
    iter: hash_map::IntoIter<String, AttributeValue>,
    skip: Option<&'s Skip<'s>>,
    /// The member whose value is next, with its name (for error paths).
    current: Option<(String, AttributeValue)>,
}

impl<'s> Members<'s> {
    fn new(map: Item, skip: Option<&'s Skip<'s>>) -> Self {
        Members {
            iter: map.into_iter(),
            skip,
            current: None,
        }
    }
}

impl<'de> MapAccess<'de> for Members<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        for (name, value) in self.iter.by_ref() {
            if self.skip.is_some_and(|skip| skip(&name, &value)) {
                continue;
            }
            let key = seed.deserialize(Key(&name)).map_err(|e| within(&name, e))?;
            self.current = Some((name, value));
            return Ok(Some(key));
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let (name, value) = self
            .current
            .take()
            .ok_or_else(|| Error::custom("a map value was read before its key"))?;
        seed.deserialize(Value(value)).map_err(|e| within(&name, e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// A map key (a member name): a string, or a number written as text.
pub(crate) struct Key<'a>(pub(crate) &'a str);

macro_rules! parsed_key {
    ($($method:ident => $visit:ident: $t:ty),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let n: $t = self.0.parse().map_err(|e| {
                Error::custom(format!("the map key {:?} is not a {}: {e}", self.0, stringify!($t)))
            })?;
            visitor.$visit(n)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_str(self.0)
    }

    parsed_key!(deserialize_i8 => visit_i8: i8, deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32, deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128, deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16, deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64, deserialize_u128 => visit_u128: u128,
        deserialize_f32 => visit_f32: f32, deserialize_f64 => visit_f64: f64,
        deserialize_bool => visit_bool: bool, deserialize_char => visit_char: char);

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    serde::forward_to_deserialize_any! {
        str string bytes byte_buf option unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// One attribute value, by value.
pub(crate) struct Value(pub(crate) AttributeValue);

macro_rules! number {
    ($($method:ident => $visit:ident: $t:ty),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.0 {
                AttributeValue::N(text) => {
                    let n: $t = text.parse().map_err(|e| {
                        Error::custom(format!("{text:?} is not a {}: {e}", stringify!($t)))
                    })?;
                    visitor.$visit(n)
                }
                other => Err(expected("a number (N)", &other)),
            }
        }
    )*};
}

/// Visit number text as the narrowest of `i64`, `u64` and `f64` that holds it.
pub(crate) fn any_number<'de, V: Visitor<'de>, E: de::Error>(
    text: &str,
    visitor: V,
) -> std::result::Result<V::Value, E> {
    if let Ok(i) = text.parse::<i64>() {
        return visitor.visit_i64(i);
    }
    if let Ok(u) = text.parse::<u64>() {
        return visitor.visit_u64(u);
    }
    match text.parse::<f64>() {
        Ok(f) => visitor.visit_f64(f),
        Err(e) => Err(E::custom(format!("{text:?} is not a number: {e}"))),
    }
}

impl<'de> de::Deserializer<'de> for Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            AttributeValue::S(s) => visitor.visit_string(s),
            AttributeValue::N(n) => any_number(&n, visitor),
            AttributeValue::Bool(b) => visitor.visit_bool(b),
            AttributeValue::B(b) => visitor.visit_byte_buf(b.into_inner()),
            AttributeValue::Null(_) => visitor.visit_unit(),
            AttributeValue::M(m) => visitor.visit_map(Members::new(m, None)),
            other => Value(other).deserialize_seq(visitor),
        }
    }

    number!(deserialize_i8 => visit_i8: i8, deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32, deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128, deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16, deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64, deserialize_u128 => visit_u128: u128,
        deserialize_f32 => visit_f32: f32, deserialize_f64 => visit_f64: f64);

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            AttributeValue::Bool(b) => visitor.visit_bool(b),
            other => Err(expected("a boolean (BOOL)", &other)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            AttributeValue::S(s) => {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => visitor.visit_char(c),
                    _ => Err(Error::custom(format!(
                        "expected one character, found {s:?}"
                    ))),
                }
            }
            other => Err(expected("a string (S) of one character", &other)),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            AttributeValue::S(s) => visitor.visit_string(s),
            other => Err(expected("a string (S)", &other)),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_string(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            AttributeValue::B(b) => visitor.visit_byte_buf(b.into_inner()),
            other => Err(expected("bytes (B)", &other)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            AttributeValue::Null(_) => visitor.visit_none(),
            other => visitor.visit_some(Value(other)),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            AttributeValue::Null(_) => visitor.visit_unit(),
            other => Err(expected("NULL", &other)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            AttributeValue::L(l) => visitor.visit_seq(Elements::new(l, |v| v)),
            AttributeValue::Ss(s) => visitor.visit_seq(Elements::new(s, AttributeValue::S)),
            AttributeValue::Ns(n) => visitor.visit_seq(Elements::new(n, AttributeValue::N)),
            AttributeValue::Bs(b) => visitor.visit_seq(Elements::new(b, AttributeValue::B)),
            other => Err(expected("a list (L) or a set (SS, NS, BS)", &other)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            AttributeValue::M(m) => visitor.visit_map(Members::new(m, None)),
            other => Err(expected("a map (M)", &other)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.0 {
            AttributeValue::L(_) => self.deserialize_seq(visitor),
            _ => self.deserialize_map(visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.0 {
            AttributeValue::S(s) => visitor.visit_enum(s.into_deserializer()),
            AttributeValue::M(m) => {
                let mut members = m.into_iter();
                match (members.next(), members.next()) {
                    (Some((variant, value)), None) => visitor.visit_enum(Variant(variant, value)),
                    _ => Err(Error::custom(
                        "an enum variant with data is a map of exactly one member",
                    )),
                }
            }
            other => Err(expected("a string (S) or a map of one member (M)", &other)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // Nothing to read: drop the value as it is.
        visitor.visit_unit()
    }
}

/// The elements of a list or set, by value, each made an attribute value by `wrap`.
struct Elements<T, W> {
    iter: std::vec::IntoIter<T>,
    wrap: W,
    at: usize,
}

impl<T, W: Fn(T) -> AttributeValue> Elements<T, W> {
    fn new(items: Vec<T>, wrap: W) -> Self {
        Elements {
            iter: items.into_iter(),
            wrap,
            at: 0,
        }
    }
}

impl<'de, T, W: Fn(T) -> AttributeValue> SeqAccess<'de> for Elements<T, W> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        let Some(item) = self.iter.next() else {
            return Ok(None);
        };
        let at = self.at;
        self.at += 1;
        seed.deserialize(Value((self.wrap)(item)))
            .map(Some)
            .map_err(|e| within(&format_args!("[{at}]"), e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// `{variant: value}`.
struct Variant(String, AttributeValue);

impl<'de> EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Value;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Value)> {
        let Variant(name, value) = self;
        let variant = seed.deserialize(Key(&name))?;
        Ok((variant, Value(value)))
    }
}

impl<'de> VariantAccess<'de> for Value {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_map(self, visitor)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use serde::{Deserialize, Serialize};

    use super::*;
    use crate::marshal::to_attributes;
    use crate::nullable::Nullable;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    enum Shape {
        Dot,
        Circle(f64),
        Pair(u8, u8),
        Rect { w: u32, h: u32 },
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Inner {
        kept: Option<u32>,
        dropped: Option<u32>,
        #[serde(default)]
        null: Nullable<String>,
        #[serde(default)]
        absent: Nullable<String>,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Everything {
        text: String,
        letter: char,
        small: i8,
        big: u128,
        negative: i64,
        ratio: f32,
        yes: bool,
        unit: (),
        inner: Inner,
        list: Vec<Option<u8>>,
        tuple: (String, u16),
        shapes: Vec<Shape>,
        by_number: BTreeMap<u32, String>,
        by_name: HashMap<String, Vec<i32>>,
        #[serde(with = "serde_dynamo::string_set")]
        tags: Vec<String>,
        #[serde(with = "serde_dynamo::number_set")]
        scores: Vec<u16>,
        #[serde(with = "serde_bytes_like")]
        blob: Vec<u8>,
        #[serde(default)]
        missing: Option<String>,
    }

    /// `Vec<u8>` as `B` (what `serde_bytes` does).
    mod serde_bytes_like {
        use serde::{Deserializer, Serializer};

        pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
            struct V;
            impl serde::de::Visitor<'_> for V {
                type Value = Vec<u8>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                    Ok(v)
                }
                fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                    Ok(v.to_vec())
                }
            }
            d.deserialize_byte_buf(V)
        }
    }

    fn everything() -> Everything {
        Everything {
            text: "hello".into(),
            letter: 'é',
            small: -8,
            big: u128::MAX,
            negative: i64::MIN,
            ratio: 0.1,
            yes: true,
            unit: (),
            inner: Inner {
                kept: Some(1),
                dropped: None,
                null: Nullable::Null,
                absent: Nullable::Absent,
            },
            list: vec![Some(1), None, Some(3)],
            tuple: ("t".into(), 7),
            shapes: vec![
                Shape::Dot,
                Shape::Circle(1.5),
                Shape::Pair(1, 2),
                Shape::Rect { w: 3, h: 4 },
            ],
            by_number: BTreeMap::from([(1, "one".into()), (20, "twenty".into())]),
            by_name: HashMap::from([("a".into(), vec![-1, 2])]),
            tags: vec!["x".into(), "y".into()],
            scores: vec![3, 9],
            blob: vec![0, 255, 7],
            missing: None,
        }
    }

    #[test]
    fn reads_back_what_marshal_writes() {
        let value = everything();
        let item = to_attributes(&value).unwrap();
        let back: Everything = from_attributes(item, &|_, _| false).unwrap();
        // (serde_dynamo reads the same, except the u128, which it does not support.)
        assert_eq!(back, value);
    }

    #[test]
    fn skipped_attributes_are_never_read() {
        let mut item = to_attributes(&everything()).unwrap();
        item.insert("PK".into(), AttributeValue::S("#A_1".into()));
        item.insert("GSI1SK".into(), AttributeValue::N("1".into()));
        // deny_unknown_fields would refuse them if they were read.
        let err = from_attributes::<Everything>(item.clone(), &|_, _| false).unwrap_err();
        assert!(err.to_string().contains("unknown field"), "{err}");
        let back: Everything = from_attributes(item, &|n, _| n == "PK" || n == "GSI1SK").unwrap();
        assert_eq!(back, everything());
    }

    #[test]
    fn errors_name_the_member_and_the_kinds() {
        let mut item = to_attributes(&everything()).unwrap();
        let AttributeValue::L(shapes) = item.get_mut("shapes").unwrap() else {
            panic!("a list")
        };
        shapes[3] = AttributeValue::M(HashMap::from([(
            "Rect".into(),
            AttributeValue::M(HashMap::from([
                ("w".into(), AttributeValue::S("3".into())),
                ("h".into(), AttributeValue::N("4".into())),
            ])),
        )]));
        let err = from_attributes::<Everything>(item, &|_, _| false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "at `shapes[3].w`: expected a number (N), found a string (S)"
        );

        let mut item = to_attributes(&everything()).unwrap();
        item.insert("small".into(), AttributeValue::N("300".into()));
        let err = from_attributes::<Everything>(item, &|_, _| false).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("at `small`: \"300\" is not a i8"),
            "{err}"
        );
    }

    #[test]
    fn untyped_values_read_as_their_kind() {
        let v: serde_json::Value = from_attribute_value(AttributeValue::L(vec![
            AttributeValue::N("-3".into()),
            AttributeValue::N("18446744073709551615".into()),
            AttributeValue::N("1.5".into()),
            AttributeValue::Null(true),
            AttributeValue::Ss(vec!["a".into()]),
        ]))
        .unwrap();
        assert_eq!(
            v,
            serde_json::json!([-3, 18446744073709551615u64, 1.5, null, ["a"]])
        );
    }
}
