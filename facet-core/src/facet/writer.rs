//! A record's own attributes written field by field, by the code `#[derive(Facet)]`
//! generates: the attributes [`crate::marshal::to_attributes`] writes through the record's
//! `Serialize`, without going through it.
//!
//! Each field's value is put as its attribute directly where its type allows ([`Plain`]:
//! strings, booleans, integers, `DateTime<Utc>`, and options of those), and through
//! faceteer's marshalling otherwise (a field of any other type, or with a codec of its
//! own). The generated code picks between the two per field, at compile time, by which
//! trait's method applies to the field's type:
//!
//! ```ignore
//! (&&Value(&self.team_id)).put_in(&mut writer, "teamId");
//! ```
//!
//! [`ByPlain`] is implemented for `&Value<T>` when `T: Plain`, so it is found first; any
//! other `T` falls through to [`BySerde`], implemented for `Value<T>`.
//!
//! The derive writes a record this way only when it follows every serde option of the
//! struct (no `flatten`, no `tag`, no option it does not know): the names it writes are the
//! ones serde's derive gives the fields, and the values are the ones faceteer's
//! marshalling gives them, both checked by this module's tests and the derive's.

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use crate::item::Item;
use crate::marshal::{within, Error, Marshal, NESTED};

/// What one field writes: its attribute, nothing (an absent optional value), or an error.
pub type Written = Result<Option<AttributeValue>, Error>;

/// A record's attributes being written, field by field. The first error is kept (named by
/// its field, as the `Serialize` path names it), and reported by [`FieldWriter::finish`].
///
/// The stored size of the attributes is added up as they are put (each as
/// [`attribute_size`](crate::limits::attribute_size) counts it), so that a write needs no
/// second pass over the item to know it fits.
#[derive(Debug)]
pub struct FieldWriter {
    item: Item,
    error: Option<Error>,
    /// The stored bytes put so far.
    size: usize,
    /// A value's size could not be counted (a number DynamoDB refuses, which the full
    /// check reports).
    uncounted: bool,
}

impl FieldWriter {
    /// A writer with room for `capacity` attributes (the record's and the library's).
    #[inline]
    pub fn with_capacity(capacity: usize) -> Self {
        FieldWriter {
            item: Item::with_capacity(capacity),
            error: None,
            size: 0,
            uncounted: false,
        }
    }

    /// Put attribute `name`, with what its field wrote.
    #[inline]
    pub fn put(&mut self, name: &'static str, value: Written) {
        match value {
            Ok(Some(value)) => self.insert(name, value),
            Ok(None) => {}
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(within(&name, e));
                }
            }
        }
    }

    /// The attributes written, or the first field's error.
    #[inline]
    pub fn finish(self) -> Result<Item, Error> {
        self.finish_sized().map(|(item, _)| item)
    }

    /// The attributes written with their stored size (`None`: not counted), or the first
    /// field's error.
    #[inline]
    pub(crate) fn finish_sized(self) -> Result<(Item, Option<usize>), Error> {
        match self.error {
            Some(e) => Err(e),
            None => Ok((self.item, (!self.uncounted).then_some(self.size))),
        }
    }

    #[inline]
    fn insert(&mut self, name: &'static str, value: AttributeValue) {
        match crate::limits::attribute_size(name, &value) {
            Ok(size) => self.size += size,
            Err(_) => self.uncounted = true,
        }
        self.item.insert(name.to_owned(), value);
    }
}

/// A field's value, to be written by [`ByPlain`] or [`BySerde`].
pub struct Value<'a, T: ?Sized>(pub &'a T);

/// A type whose values faceteer's marshalling stores as one plain attribute, put here
/// directly (made in place in the item: no intermediate value moved through calls).
pub trait Plain {
    /// Put the attribute `name`, as faceteer's marshalling writes it (nothing for an absent
    /// value).
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str);
}

impl Plain for String {
    #[inline]
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str) {
        writer.insert(name, AttributeValue::S(self.clone()));
    }
}

impl Plain for str {
    #[inline]
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str) {
        writer.insert(name, AttributeValue::S(self.to_owned()));
    }
}

impl Plain for bool {
    #[inline]
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str) {
        writer.insert(name, AttributeValue::Bool(*self));
    }
}

macro_rules! plain_integers {
    ($($t:ty),*) => {$(
        impl Plain for $t {
            #[inline]
            fn put_in(&self, writer: &mut FieldWriter, name: &'static str) {
                writer.insert(name, AttributeValue::N(self.to_string()));
            }
        }
    )*};
}
plain_integers!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

#[cfg(feature = "chrono")]
impl Plain for chrono::DateTime<chrono::Utc> {
    #[inline]
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str) {
        writer.insert(name, AttributeValue::S(crate::timestamp::to_iso(self)));
    }
}

impl<T: Plain + ?Sized> Plain for &T {
    #[inline]
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str) {
        (**self).put_in(writer, name);
    }
}

impl<T: Plain> Plain for Option<T> {
    #[inline]
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str) {
        if let Some(value) = self {
            value.put_in(writer, name);
        }
    }
}

/// A field of a [`Plain`] type: its attribute put directly.
pub trait ByPlain {
    /// Put the field's attribute `name`.
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str);
}

impl<T: Plain + ?Sized> ByPlain for &Value<'_, T> {
    #[inline]
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str) {
        Plain::put_in(self.0, writer, name);
    }
}

/// A field of any other type: its attribute made by faceteer's marshalling.
pub trait BySerde {
    /// Put the field's attribute `name`.
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str);
}

impl<T: Serialize + ?Sized> BySerde for Value<'_, T> {
    #[inline]
    fn put_in(&self, writer: &mut FieldWriter, name: &'static str) {
        writer.put(name, self.0.serialize(NESTED));
    }
}

/// The attribute a field's own serialize function (`with`, `serialize_with`) writes with
/// faceteer's marshalling.
#[inline]
pub fn with(serialize: impl FnOnce(Marshal) -> Written) -> Written {
    serialize(NESTED)
}

#[cfg(test)]
// `(&&Value(&v))` is the generated code's form: the borrows choose the trait.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;
    use crate::nullable::Nullable;
    use chrono::TimeZone;
    use std::collections::BTreeMap;

    /// What `(&&Value(&v)).put_in(..)` writes, as the derive's generated code calls it:
    /// the attribute, or `None` when it is left out.
    macro_rules! written {
        ($v:expr) => {{
            #[allow(unused_imports)]
            use super::{ByPlain as _, BySerde as _};
            let mut w = FieldWriter::with_capacity(1);
            (&&Value(&$v)).put_in(&mut w, "a");
            w.finish().unwrap().remove("a")
        }};
    }

    /// Every plain type writes what faceteer's marshalling writes for it.
    #[test]
    fn plain_values_are_what_marshalling_writes() {
        let t = chrono::Utc.with_ymd_and_hms(2026, 11, 10, 9, 0, 0).unwrap()
            + chrono::Duration::nanoseconds(123_456_789);
        let far = chrono::Utc.with_ymd_and_hms(12026, 1, 2, 3, 4, 5).unwrap();
        macro_rules! same {
            ($($v:expr),* $(,)?) => {$(
                let v = $v;
                assert_eq!(written!(v), crate::marshal::to_attribute_value(&v).unwrap(), "{:?}", v);
            )*};
        }
        same!(
            String::from("x"),
            String::new(),
            true,
            0u8,
            u64::MAX,
            i64::MIN,
            -3i32,
            u128::MAX,
            usize::MAX,
            t,
            far,
            Some(String::from("y")),
            None::<String>,
            Some(Some(4u16)),
            Some(None::<u16>),
            Some(t),
        );
        assert_eq!(written!("s"), Some(AttributeValue::S("s".into())));
    }

    /// Other types go through faceteer's marshalling: the same attribute as through the
    /// record's `Serialize`.
    #[test]
    fn other_types_are_marshalled() {
        let map = BTreeMap::from([("k".to_owned(), vec![1.5f64])]);
        assert_eq!(
            written!(map),
            crate::marshal::to_attribute_value(&map).unwrap()
        );
        assert_eq!(
            written!(Nullable::<String>::Null),
            Some(AttributeValue::Null(true))
        );
        assert_eq!(written!(Nullable::<String>::Absent), None);
        assert_eq!(written!(()), Some(AttributeValue::Null(true)));
        let mut w = FieldWriter::with_capacity(1);
        (&&Value(&f64::NAN)).put_in(&mut w, "nan");
        assert!(w.finish().is_err());
    }

    /// The first error is reported, named by its field, and nothing after it hides it.
    #[test]
    fn the_first_error_names_its_field() {
        let mut w = FieldWriter::with_capacity(4);
        w.put("ok", Ok(Some(AttributeValue::Bool(true))));
        w.put("gone", Ok(None));
        (&&Value(&f32::INFINITY)).put_in(&mut w, "bad");
        (&&Value(&f64::NAN)).put_in(&mut w, "worse");
        let e = w.finish().unwrap_err().to_string();
        assert!(e.starts_with("at `bad`: inf"), "{e}");

        let mut w = FieldWriter::with_capacity(4);
        w.put("ok", Ok(Some(AttributeValue::Bool(true))));
        w.put("gone", Ok(None));
        let item = w.finish().unwrap();
        assert_eq!(item.len(), 1);
        assert_eq!(item["ok"], AttributeValue::Bool(true));
    }

    /// A field's own serialize function writes through faceteer's marshalling.
    #[test]
    fn own_serializers_write_through_marshalling() {
        fn upper<S: serde::Serializer>(v: &str, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&v.to_uppercase())
        }
        assert_eq!(
            with(|s| upper("abc", s)).unwrap(),
            Some(AttributeValue::S("ABC".into()))
        );
        let t = chrono::Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
        assert_eq!(
            with(|s| crate::timestamp::serialize(&t, s)).unwrap(),
            written!(t)
        );
    }
}
