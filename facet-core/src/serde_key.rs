//! Key text for types that implement `Serialize` (used by `#[derive(KeyPart)]`).

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

/// Append the key text of a value that serializes to a string, a number or a boolean
/// (a unit enum variant serializes to its serde name).
pub fn write_serde_key<T: Serialize + ?Sized>(value: &T, out: &mut String) -> Result<(), String> {
    // The usual kinds straight into the key; any other (and every error) as serde_dynamo
    // converts it, which the fast path writes the same text as.
    let start = out.len();
    if value.serialize(AppendKeyText(out)).is_ok() {
        return Ok(());
    }
    out.truncate(start);
    match serde_dynamo::to_attribute_value::<_, AttributeValue>(value) {
        Ok(AttributeValue::S(s)) => out.push_str(&s),
        Ok(AttributeValue::N(n)) => out.push_str(&n),
        Ok(AttributeValue::Bool(b)) => out.push_str(if b { "true" } else { "false" }),
        Ok(other) => {
            return Err(format!(
                "it serializes to {other:?}; only strings, numbers, booleans and unit enum \
                 variants can stand in a key"
            ))
        }
        Err(e) => return Err(e.to_string()),
    }
    Ok(())
}

/// A serializer appending the key text of a string, number, boolean or unit variant, as
/// serde_dynamo converts them (`S`, `N` in `to_string`'s form, `BOOL`); [`Other`] for any
/// other kind.
struct AppendKeyText<'a>(&'a mut String);

/// Not a kind [`AppendKeyText`] writes.
#[derive(Debug)]
struct Other;

impl std::fmt::Display for Other {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a plain key value")
    }
}

impl std::error::Error for Other {}

impl serde::ser::Error for Other {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        Other
    }
}

macro_rules! key_numbers {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<(), Other> {
            use std::fmt::Write;
            write!(self.0, "{v}").map_err(|_| Other)
        }
    )*};
}

impl serde::Serializer for AppendKeyText<'_> {
    type Ok = ();
    type Error = Other;
    type SerializeSeq = serde::ser::Impossible<(), Other>;
    type SerializeTuple = serde::ser::Impossible<(), Other>;
    type SerializeTupleStruct = serde::ser::Impossible<(), Other>;
    type SerializeTupleVariant = serde::ser::Impossible<(), Other>;
    type SerializeMap = serde::ser::Impossible<(), Other>;
    type SerializeStruct = serde::ser::Impossible<(), Other>;
    type SerializeStructVariant = serde::ser::Impossible<(), Other>;

    key_numbers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
        serialize_f32: f32, serialize_f64: f64);

    fn serialize_bool(self, v: bool) -> Result<(), Other> {
        self.0.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Other> {
        self.0.push(v);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Other> {
        self.0.push_str(v);
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Other> {
        self.0.push_str(variant);
        Ok(())
    }
    fn serialize_some<V: Serialize + ?Sized>(self, value: &V) -> Result<(), Other> {
        value.serialize(self)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Other> {
        Err(Other)
    }
    fn serialize_none(self) -> Result<(), Other> {
        Err(Other)
    }
    fn serialize_unit(self) -> Result<(), Other> {
        Err(Other)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Other> {
        Err(Other)
    }
    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &V,
    ) -> Result<(), Other> {
        Err(Other)
    }
    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<(), Other> {
        Err(Other)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Other> {
        Err(Other)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Other> {
        Err(Other)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Other> {
        Err(Other)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Other> {
        Err(Other)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Other> {
        Err(Other)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Other> {
        Err(Other)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Other> {
        Err(Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The key text serde_dynamo's conversion gives (or its error).
    fn through_serde_dynamo<T: Serialize>(value: &T) -> Result<String, String> {
        match serde_dynamo::to_attribute_value::<_, AttributeValue>(value) {
            Ok(AttributeValue::S(s)) | Ok(AttributeValue::N(s)) => Ok(s),
            Ok(AttributeValue::Bool(b)) => Ok(b.to_string()),
            Ok(other) => Err(format!("{other:?}")),
            Err(e) => Err(e.to_string()),
        }
    }

    fn same<T: Serialize>(value: T) {
        let mut out = String::from("#P_");
        let ours = write_serde_key(&value, &mut out).map(|()| out[3..].to_owned());
        match (ours, through_serde_dynamo(&value)) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(_), Err(_)) => assert_eq!(out, "#P_", "nothing written on refusal"),
            (a, b) => panic!("{a:?} against {b:?}"),
        }
    }

    #[derive(Serialize)]
    #[serde(rename_all = "kebab-case")]
    enum Status {
        InProgress,
        Done(u8),
    }

    #[derive(Serialize)]
    struct Id(u32);

    /// Every kind writes serde_dynamo's text, or is refused as it refuses it.
    #[test]
    fn the_direct_text_is_serde_dynamos() {
        same("text");
        same('é');
        same(true);
        same(-42i64);
        same(u64::MAX);
        same(0.1f32);
        same(1e300f64);
        same(-0.0f64);
        same(f64::NAN);
        same(Status::InProgress);
        same(Status::Done(3));
        same(Some("x"));
        same(None::<&str>);
        same(Id(7));
        same(());
        same(vec![1, 2]);
        same(BTreeMap::from([("k", 1)]));
        same(1u128);
    }
}
