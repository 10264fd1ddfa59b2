//! Attribute values decoded from an answer's JSON straight into a record's fields: no
//! `AttributeValue` in between for strings, numbers, booleans, nulls, lists and maps.
//!
//! It reads exactly as [`crate::unmarshal`] reads the SDK's attribute values. The kinds and
//! requests it has no direct way for (bytes, sets, enums with data, mismatches) are built
//! into an `AttributeValue` and handed to that deserializer, so both agree by construction.
//! Its errors carry no member path: an item that does not read is read again from the tree
//! (see [`super::record`]), which reports the error as every other read does.

use std::fmt;

use serde::de::value::CowStrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};

use super::tree::{self, CowStr, Tag};
use crate::unmarshal;

/// What the record asks a value to be: the `deserialize_*` method it called.
#[derive(Clone, Copy)]
enum Want {
    Any,
    Bool,
    I8,
    I16,
    I32,
    I64,
    I128,
    U8,
    U16,
    U32,
    U64,
    U128,
    F32,
    F64,
    Char,
    Str,
    String,
    Bytes,
    ByteBuf,
    Option,
    Unit,
    UnitStruct(&'static str),
    NewtypeStruct(&'static str),
    Seq,
    Tuple(usize),
    TupleStruct(&'static str, usize),
    Map,
    Struct(&'static str, &'static [&'static str]),
    Enum(&'static str, &'static [&'static str]),
    Identifier,
    IgnoredAny,
}

/// One attribute value, `{"T": v}`, from the JSON deserializer `.0`.
pub(crate) struct Wire<D>(pub(crate) D);

/// The value after its tag was read: the kind, and the JSON of the member.
struct Known<D> {
    tag: Tag,
    d: D,
}

/// Number text parsed into the requested type.
macro_rules! parse {
    ($d:expr, $t:ty, $visit:ident, $visitor:expr) => {{
        let text = CowStr.deserialize($d)?;
        let n: $t = text.parse().map_err(|e| {
            de::Error::custom(format_args!("{text:?} is not a {}: {e}", stringify!($t)))
        })?;
        $visitor.$visit(n)
    }};
}

/// Read the member `d` of kind `tag` as `want` asks, into `visitor`.
fn typed<'de, D: Deserializer<'de>, V: Visitor<'de>>(
    tag: Tag,
    want: Want,
    d: D,
    visitor: V,
) -> Result<V::Value, D::Error> {
    match (want, tag) {
        (Want::Any | Want::Str | Want::String | Want::Identifier, Tag::S) => {
            d.deserialize_string(visitor)
        }
        (Want::Char, Tag::S) => {
            let text = CowStr.deserialize(d)?;
            let mut chars = text.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => visitor.visit_char(c),
                _ => Err(D::Error::custom("expected one character")),
            }
        }
        (Want::Enum(..), Tag::S) => {
            let text = CowStr.deserialize(d)?;
            visitor.visit_enum(CowStrDeserializer::<D::Error>::new(text))
        }
        (Want::Any, Tag::N) => unmarshal::any_number(&CowStr.deserialize(d)?, visitor),
        (Want::I8, Tag::N) => parse!(d, i8, visit_i8, visitor),
        (Want::I16, Tag::N) => parse!(d, i16, visit_i16, visitor),
        (Want::I32, Tag::N) => parse!(d, i32, visit_i32, visitor),
        (Want::I64, Tag::N) => parse!(d, i64, visit_i64, visitor),
        (Want::I128, Tag::N) => parse!(d, i128, visit_i128, visitor),
        (Want::U8, Tag::N) => parse!(d, u8, visit_u8, visitor),
        (Want::U16, Tag::N) => parse!(d, u16, visit_u16, visitor),
        (Want::U32, Tag::N) => parse!(d, u32, visit_u32, visitor),
        (Want::U64, Tag::N) => parse!(d, u64, visit_u64, visitor),
        (Want::U128, Tag::N) => parse!(d, u128, visit_u128, visitor),
        (Want::F32, Tag::N) => parse!(d, f32, visit_f32, visitor),
        (Want::F64, Tag::N) => parse!(d, f64, visit_f64, visitor),
        (Want::Any | Want::Bool, Tag::Bool) => d.deserialize_bool(visitor),
        (Want::Any | Want::Unit | Want::UnitStruct(_), Tag::Null) => {
            d.deserialize_ignored_any(IgnoredAny)?;
            visitor.visit_unit()
        }
        (Want::Option, Tag::Null) => {
            d.deserialize_ignored_any(IgnoredAny)?;
            visitor.visit_none()
        }
        (Want::Option, tag) => visitor.visit_some(Known { tag, d }),
        (Want::NewtypeStruct(_), tag) => visitor.visit_newtype_struct(Known { tag, d }),
        (Want::IgnoredAny, _) => {
            d.deserialize_ignored_any(IgnoredAny)?;
            visitor.visit_unit()
        }
        (Want::Any | Want::Map | Want::Struct(..), Tag::M) => d.deserialize_map(Members(visitor)),
        (
            Want::Any | Want::Seq | Want::Tuple(_) | Want::TupleStruct(..) | Want::Struct(..),
            Tag::L,
        ) => d.deserialize_seq(Elements(visitor)),
        (want, tag) => {
            let value = tree::value(tag, d)?;
            through_tree(want, unmarshal::Value(value), visitor).map_err(D::Error::custom)
        }
    }
}

/// Read `value` as `want` asks with [`crate::unmarshal`]'s deserializer.
fn through_tree<'de, V: Visitor<'de>>(
    want: Want,
    value: unmarshal::Value,
    visitor: V,
) -> Result<V::Value, unmarshal::Error> {
    match want {
        Want::Any => value.deserialize_any(visitor),
        Want::Bool => value.deserialize_bool(visitor),
        Want::I8 => value.deserialize_i8(visitor),
        Want::I16 => value.deserialize_i16(visitor),
        Want::I32 => value.deserialize_i32(visitor),
        Want::I64 => value.deserialize_i64(visitor),
        Want::I128 => value.deserialize_i128(visitor),
        Want::U8 => value.deserialize_u8(visitor),
        Want::U16 => value.deserialize_u16(visitor),
        Want::U32 => value.deserialize_u32(visitor),
        Want::U64 => value.deserialize_u64(visitor),
        Want::U128 => value.deserialize_u128(visitor),
        Want::F32 => value.deserialize_f32(visitor),
        Want::F64 => value.deserialize_f64(visitor),
        Want::Char => value.deserialize_char(visitor),
        Want::Str => value.deserialize_str(visitor),
        Want::String => value.deserialize_string(visitor),
        Want::Bytes => value.deserialize_bytes(visitor),
        Want::ByteBuf => value.deserialize_byte_buf(visitor),
        Want::Option => value.deserialize_option(visitor),
        Want::Unit => value.deserialize_unit(visitor),
        Want::UnitStruct(name) => value.deserialize_unit_struct(name, visitor),
        Want::NewtypeStruct(name) => value.deserialize_newtype_struct(name, visitor),
        Want::Seq => value.deserialize_seq(visitor),
        Want::Tuple(len) => value.deserialize_tuple(len, visitor),
        Want::TupleStruct(name, len) => value.deserialize_tuple_struct(name, len, visitor),
        Want::Map => value.deserialize_map(visitor),
        Want::Struct(name, fields) => value.deserialize_struct(name, fields, visitor),
        Want::Enum(name, variants) => value.deserialize_enum(name, variants, visitor),
        Want::Identifier => value.deserialize_identifier(visitor),
        Want::IgnoredAny => value.deserialize_ignored_any(visitor),
    }
}

/// The `deserialize_*` methods, each calling `$go(self, want, visitor)`.
macro_rules! wants {
    ($go:ident) => {
        wants!(@simple $go: deserialize_any => Any, deserialize_bool => Bool,
            deserialize_i8 => I8, deserialize_i16 => I16, deserialize_i32 => I32,
            deserialize_i64 => I64, deserialize_i128 => I128, deserialize_u8 => U8,
            deserialize_u16 => U16, deserialize_u32 => U32, deserialize_u64 => U64,
            deserialize_u128 => U128, deserialize_f32 => F32, deserialize_f64 => F64,
            deserialize_char => Char, deserialize_str => Str, deserialize_string => String,
            deserialize_bytes => Bytes, deserialize_byte_buf => ByteBuf,
            deserialize_option => Option, deserialize_unit => Unit, deserialize_seq => Seq,
            deserialize_map => Map, deserialize_identifier => Identifier);

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            $go(self, Want::UnitStruct(name), visitor)
        }

        fn deserialize_tuple<V: Visitor<'de>>(
            self,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            $go(self, Want::Tuple(len), visitor)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            $go(self, Want::TupleStruct(name, len), visitor)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            $go(self, Want::Struct(name, fields), visitor)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            name: &'static str,
            variants: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            $go(self, Want::Enum(name, variants), visitor)
        }
    };
    (@simple $go:ident: $($method:ident => $want:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            $go(self, Want::$want, visitor)
        }
    )*};
}

/// Read the tag, then the member as `want` asks.
fn tagged<'de, D: Deserializer<'de>, V: Visitor<'de>>(
    wire: Wire<D>,
    want: Want,
    visitor: V,
) -> Result<V::Value, D::Error> {
    wire.0.deserialize_map(Tagged { want, visitor })
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Wire<D> {
    type Error = D::Error;

    wants!(tagged);

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_ignored_any(visitor)
    }
}

fn known<'de, D: Deserializer<'de>, V: Visitor<'de>>(
    known: Known<D>,
    want: Want,
    visitor: V,
) -> Result<V::Value, D::Error> {
    typed(known.tag, want, known.d, visitor)
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Known<D> {
    type Error = D::Error;

    wants!(known);

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        typed(self.tag, Want::NewtypeStruct(name), self.d, visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        typed(self.tag, Want::IgnoredAny, self.d, visitor)
    }
}

/// `{"T": v}`, read as `want` asks.
struct Tagged<V> {
    want: Want,
    visitor: V,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Tagged<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an attribute value ({\"S\": ..} and the like)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<V::Value, A::Error> {
        let Some(tag) = map.next_key::<Tag>()? else {
            return Err(A::Error::custom("an attribute value without a type"));
        };
        let value = map.next_value_seed(Typed {
            tag,
            want: self.want,
            visitor: self.visitor,
        })?;
        if map.next_key::<IgnoredAny>()?.is_some() {
            return Err(A::Error::custom("an attribute value of more than one type"));
        }
        Ok(value)
    }
}

/// The member after a tag.
struct Typed<V> {
    tag: Tag,
    want: Want,
    visitor: V,
}

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Typed<V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        typed(self.tag, self.want, d, self.visitor)
    }
}

/// A seed reading an attribute value (`{"T": v}`) from JSON.
pub(crate) struct WireSeed<S>(pub(crate) S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for WireSeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Wire(d))
    }
}

/// An `M`: its members, names read as [`crate::unmarshal`] reads map keys.
struct Members<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for Members<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of attribute values")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(MembersAccess(map))
    }
}

struct MembersAccess<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for MembersAccess<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.0.next_key_seed(CowStr)? {
            None => Ok(None),
            Some(name) => seed
                .deserialize(unmarshal::Key(&name))
                .map(Some)
                .map_err(A::Error::custom),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.0.next_value_seed(WireSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// An `L`: its elements.
struct Elements<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for Elements<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of attribute values")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(ElementsAccess(seq))
    }
}

struct ElementsAccess<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for ElementsAccess<A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        self.0.next_element_seed(WireSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}
