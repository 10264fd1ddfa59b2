//! Records to DynamoDB attribute values, the way Faceteer marshalls them.
//!
//! serde_dynamo writes `None` and `()` alike as `NULL`. Faceteer (`@faceteer/converter`)
//! drops `undefined` members at every depth and keeps `null` as `NULL`, so this serializer
//! tells them apart:
//!
//! * `None` (`serialize_none`) as a struct field or map value: the member is left out;
//! * `()`, unit structs and [`Nullable::Null`](crate::nullable::Nullable::Null): `NULL`;
//! * `None` inside a list: `NULL`, so positions are kept (a JavaScript array with an
//!   `undefined` member has no DynamoDB form either);
//! * numbers: `N` in decimal (non-finite floats are refused: DynamoDB has no NaN or
//!   infinity); strings `S`; booleans `BOOL`; bytes `B`; sequences and tuples `L`; maps and
//!   structs `M`; unit variants their name as `S`; other variants `{variant: value}`;
//! * serde_dynamo's `string_set`, `number_set` and `binary_set` wrappers: `SS`, `NS`, `BS`;
//! * a chrono `DateTime<Utc>`, at any depth and without any serde attribute: as
//!   `Date.toISOString()` writes it (`2026-03-01T10:00:00.000Z`), as Faceteer stores dates,
//!   rather than chrono's own form (`2026-03-01T10:00:00Z`); see [`crate::timestamp`].
//!
//! Reading back uses serde_dynamo's deserializer unchanged: a missing member reads as `None`.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::ser::{self, Error as _, Serialize};

use crate::item::Item;

/// The error type (shared with serde_dynamo, which reads items back).
pub type Error = serde_dynamo::Error;

/// serde_dynamo's set markers (newtype struct names).
const STRING_SET: &str = "\u{037E}STRINGSET\u{037E}";
const NUMBER_SET: &str = "\u{037E}NUMBERSET\u{037E}";
const BINARY_SET: &str = "\u{037E}BYTESSET\u{037E}";

/// What one value serializes to: an attribute, or nothing (`None`: leave the member out).
type Out = Option<AttributeValue>;

/// Serialize a record (a struct or map) to the attributes of an item.
pub fn to_attributes<T: Serialize + ?Sized>(value: &T) -> Result<Item, Error> {
    to_attributes_with_room(value, 0)
}

/// [`to_attributes`], with room in the item for `extra` more attributes (key attributes
/// added afterwards), so that adding them never grows the map.
pub fn to_attributes_with_room<T: Serialize + ?Sized>(
    value: &T,
    extra: usize,
) -> Result<Item, Error> {
    match value.serialize(Marshal { room: extra })? {
        Some(AttributeValue::M(map)) => Ok(map),
        _ => Err(Error::custom(
            "a record must serialize to a map (a struct with named fields, or a map)",
        )),
    }
}

/// Serialize one value to an attribute value; `None` when it is absent (`None`).
pub fn to_attribute_value<T: Serialize + ?Sized>(
    value: &T,
) -> Result<Option<AttributeValue>, Error> {
    value.serialize(NESTED)
}

/// The serializer: `room` more members are reserved in the map it is asked to build (only
/// the top-level record's; nested values use [`NESTED`]). Public for the serialize
/// functions of fields that the code `#[derive(Facet)]` generates calls
/// ([`crate::facet::writer::with`]).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Marshal {
    room: usize,
}

/// The serializer of a value inside a record.
pub(crate) const NESTED: Marshal = Marshal { room: 0 };

fn number(text: String) -> Result<Out, Error> {
    Ok(Some(AttributeValue::N(text)))
}

fn float(v: f64) -> Result<Out, Error> {
    if !v.is_finite() {
        return Err(Error::custom(format!(
            "{v} cannot be stored: DynamoDB numbers are finite"
        )));
    }
    number(v.to_string())
}

/// `error`, raised inside member `member` (`name` or `[3]`), with the member's path:
/// ``at `outer.inner[3]`: …``.
pub(crate) fn within(member: &dyn std::fmt::Display, error: Error) -> Error {
    let text = error.to_string();
    match text.strip_prefix("at `").and_then(|t| t.split_once("`: ")) {
        Some((path, message)) => {
            let sep = if path.starts_with('[') { "" } else { "." };
            Error::custom(format!("at `{member}{sep}{path}`: {message}"))
        }
        None => Error::custom(format!("at `{member}`: {text}")),
    }
}

/// A list element: an absent one is kept as `NULL` so positions do not shift.
fn element<T: Serialize + ?Sized>(value: &T) -> Result<AttributeValue, Error> {
    Ok(value
        .serialize(NESTED)?
        .unwrap_or(AttributeValue::Null(true)))
}

fn single(variant: &'static str, value: AttributeValue) -> Out {
    Some(AttributeValue::M(HashMap::from([(
        variant.to_owned(),
        value,
    )])))
}

/// The members of a set, each of the kind `pick` accepts.
fn members<T>(
    items: Vec<AttributeValue>,
    pick: impl Fn(&AttributeValue) -> Option<T>,
) -> Result<Vec<T>, Error> {
    items
        .iter()
        .map(|v| {
            pick(v).ok_or_else(|| {
                Error::custom("a set holds values of one kind: strings, numbers or bytes")
            })
        })
        .collect()
}

fn into_set(name: &'static str, value: Out) -> Result<Out, Error> {
    let Some(AttributeValue::L(items)) = value else {
        return Err(Error::custom(format!(
            "a set must serialize to a sequence ({name:?})"
        )));
    };
    let set = match name {
        STRING_SET => AttributeValue::Ss(members(items, |v| v.as_s().ok().cloned())?),
        NUMBER_SET => AttributeValue::Ns(members(items, |v| v.as_n().ok().cloned())?),
        _ => AttributeValue::Bs(members(items, |v| v.as_b().ok().cloned())?),
    };
    Ok(Some(set))
}

macro_rules! numbers {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<Out, Error> {
            number(v.to_string())
        }
    )*};
}

impl ser::Serializer for Marshal {
    type Ok = Out;
    type Error = Error;
    type SerializeSeq = List;
    type SerializeTuple = List;
    type SerializeTupleStruct = List;
    type SerializeTupleVariant = Variant<List>;
    type SerializeMap = Map;
    type SerializeStruct = Map;
    type SerializeStructVariant = Variant<Map>;

    numbers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128);

    fn serialize_f32(self, v: f32) -> Result<Out, Error> {
        if !v.is_finite() {
            return float(f64::from(v));
        }
        // f32's own shortest form ("0.1", not "0.10000000149011612").
        number(v.to_string())
    }
    fn serialize_f64(self, v: f64) -> Result<Out, Error> {
        float(v)
    }
    fn serialize_bool(self, v: bool) -> Result<Out, Error> {
        Ok(Some(AttributeValue::Bool(v)))
    }
    fn serialize_char(self, v: char) -> Result<Out, Error> {
        Ok(Some(AttributeValue::S(v.to_string())))
    }
    fn serialize_str(self, v: &str) -> Result<Out, Error> {
        Ok(Some(AttributeValue::S(v.to_owned())))
    }
    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<Out, Error> {
        // Straight into the attribute's string (the default formats into a temporary).
        let text = value.to_string();
        #[cfg(feature = "chrono")]
        if crate::timestamp::is_chrono_utc_display::<T>() {
            return Ok(Some(AttributeValue::S(crate::timestamp::normalize(text))));
        }
        Ok(Some(AttributeValue::S(text)))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Out, Error> {
        Ok(Some(AttributeValue::B(Blob::new(v))))
    }
    fn serialize_none(self) -> Result<Out, Error> {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Out, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Out, Error> {
        Ok(Some(AttributeValue::Null(true)))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Out, Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Out, Error> {
        Ok(Some(AttributeValue::S(variant.to_owned())))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Out, Error> {
        let out = value.serialize(self)?;
        match name {
            STRING_SET | NUMBER_SET | BINARY_SET => into_set(name, out),
            _ => Ok(out),
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Out, Error> {
        Ok(single(variant, element(value)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<List, Error> {
        Ok(List(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<List, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<List, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<List>, Error> {
        Ok(Variant(variant, self.serialize_seq(Some(len))?))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Map, Error> {
        Ok(Map {
            map: HashMap::with_capacity(len.unwrap_or(0) + self.room),
            key: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Map, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Map>, Error> {
        Ok(Variant(variant, self.serialize_map(Some(len))?))
    }
}

/// A list being built.
#[derive(Debug)]
pub struct List(Vec<AttributeValue>);

impl ser::SerializeSeq for List {
    type Ok = Out;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let at = self.0.len();
        self.0
            .push(element(value).map_err(|e| within(&format_args!("[{at}]"), e))?);
        Ok(())
    }
    fn end(self) -> Result<Out, Error> {
        Ok(Some(AttributeValue::L(self.0)))
    }
}

impl ser::SerializeTuple for List {
    type Ok = Out;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Out, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for List {
    type Ok = Out;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Out, Error> {
        ser::SerializeSeq::end(self)
    }
}

/// A map or struct being built; members serialized to nothing are left out.
#[derive(Debug)]
pub struct Map {
    map: Item,
    key: Option<String>,
}

impl Map {
    #[inline]
    fn insert(&mut self, key: String, value: Out) {
        if let Some(value) = value {
            self.map.insert(key, value);
        }
    }
}

impl ser::SerializeMap for Map {
    type Ok = Out;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(match key.serialize(NESTED)? {
            Some(AttributeValue::S(s)) => s,
            Some(AttributeValue::N(n)) => n,
            _ => {
                return Err(Error::custom(
                    "map keys must be strings, numbers or unit enum variants",
                ))
            }
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error::custom("a map value was serialized before its key"))?;
        let value = value.serialize(NESTED).map_err(|e| within(&key, e))?;
        self.insert(key, value);
        Ok(())
    }
    fn end(self) -> Result<Out, Error> {
        Ok(Some(AttributeValue::M(self.map)))
    }
}

impl ser::SerializeStruct for Map {
    type Ok = Out;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        // Matched where it is returned: the value is moved once, into the map.
        match value.serialize(NESTED) {
            Ok(Some(value)) => {
                self.map.insert(key.to_owned(), value);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => Err(within(&key, e)),
        }
    }
    fn end(self) -> Result<Out, Error> {
        ser::SerializeMap::end(self)
    }
}

/// A tuple or struct variant being built: `{variant: [..]}` or `{variant: {..}}`.
#[derive(Debug)]
pub struct Variant<T>(&'static str, T);

impl ser::SerializeTupleVariant for Variant<List> {
    type Ok = Out;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(&mut self.1, value)
    }
    fn end(self) -> Result<Out, Error> {
        Ok(single(self.0, AttributeValue::L(self.1 .0)))
    }
}

impl ser::SerializeStructVariant for Variant<Map> {
    type Ok = Out;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(&mut self.1, key, value)
    }
    fn end(self) -> Result<Out, Error> {
        Ok(single(self.0, AttributeValue::M(self.1.map)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nullable::Nullable;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Inner {
        kept: Option<u32>,
        dropped: Option<u32>,
        null: Nullable<String>,
        absent: Nullable<String>,
    }

    #[derive(Serialize)]
    struct Outer {
        inner: Inner,
        list: Vec<Option<u8>>,
        unit: (),
        float: f64,
        small: f32,
        #[serde(with = "serde_dynamo::string_set")]
        tags: Vec<String>,
    }

    #[test]
    fn none_is_dropped_at_every_depth_and_null_is_kept() {
        let item = to_attributes(&Outer {
            inner: Inner {
                kept: Some(1),
                dropped: None,
                null: Nullable::Null,
                absent: Nullable::Absent,
            },
            list: vec![Some(1), None],
            unit: (),
            float: -12.0,
            small: 0.1,
            tags: vec!["a".into()],
        })
        .unwrap();
        let AttributeValue::M(inner) = &item["inner"] else {
            panic!("inner is a map")
        };
        assert_eq!(inner.len(), 2, "{inner:?}");
        assert_eq!(inner["kept"], AttributeValue::N("1".into()));
        assert_eq!(inner["null"], AttributeValue::Null(true));
        assert_eq!(
            item["list"],
            AttributeValue::L(vec![
                AttributeValue::N("1".into()),
                AttributeValue::Null(true)
            ])
        );
        assert_eq!(item["unit"], AttributeValue::Null(true));
        assert_eq!(item["float"], AttributeValue::N("-12".into()));
        assert_eq!(item["small"], AttributeValue::N("0.1".into()));
        assert_eq!(item["tags"], AttributeValue::Ss(vec!["a".into()]));
    }

    #[test]
    fn non_finite_numbers_are_refused() {
        #[derive(Serialize)]
        struct N {
            x: f64,
        }
        let err = to_attributes(&N { x: f64::NAN }).unwrap_err();
        assert!(err.to_string().contains("finite"), "{err}");
        assert!(err.to_string().starts_with("at `x`: NaN"), "{err}");
    }

    #[test]
    fn errors_name_the_member_path() {
        #[derive(Serialize)]
        struct Inner {
            scores: Vec<f32>,
        }
        #[derive(Serialize)]
        struct Outer {
            inner: Inner,
        }
        let err = to_attributes(&Outer {
            inner: Inner {
                scores: vec![1.0, f32::INFINITY],
            },
        })
        .unwrap_err();
        assert!(
            err.to_string().starts_with("at `inner.scores[1]`: inf"),
            "{err}"
        );
    }
}
