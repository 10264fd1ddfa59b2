//! [`Nullable`]: an attribute that can be absent, `NULL`, or hold a value.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// An attribute with three states, as a JavaScript property has: absent (`undefined`),
/// `null`, or a value.
///
/// A plain `Option<T>` field is left out of the item when it is `None` (Faceteer drops
/// `undefined` members). Use `Nullable<T>` where the stored item must say `NULL`
/// explicitly, for example to share a table with a TypeScript service that writes `null`.
///
/// The field needs `#[serde(default)]`, so that a missing attribute reads as
/// [`Nullable::Absent`] (serde would otherwise read it as `NULL`; `#[derive(Facet)]`
/// refuses a `Nullable` field without it).
///
/// ```
/// use faceteer_core::nullable::Nullable;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// struct Shipping {
///     city: String,
///     #[serde(default)]
///     instructions: Nullable<String>, // absent, NULL, or a string
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Nullable<T> {
    /// No attribute at all (JavaScript `undefined`).
    #[default]
    Absent,
    /// The attribute is `NULL`.
    Null,
    /// The attribute holds a value.
    Value(T),
}

impl<T> Nullable<T> {
    /// `true` when there is no attribute.
    pub fn is_absent(&self) -> bool {
        matches!(self, Nullable::Absent)
    }

    /// `true` when the attribute is `NULL`.
    pub fn is_null(&self) -> bool {
        matches!(self, Nullable::Null)
    }

    /// The value, if there is one.
    pub fn value(&self) -> Option<&T> {
        match self {
            Nullable::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The value, if there is one (absent and `NULL` both give `None`).
    pub fn into_option(self) -> Option<T> {
        match self {
            Nullable::Value(v) => Some(v),
            _ => None,
        }
    }
}

impl<T> From<T> for Nullable<T> {
    fn from(value: T) -> Self {
        Nullable::Value(value)
    }
}

impl<T: Serialize> Serialize for Nullable<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // faceteer's item serializer leaves the member out.
            Nullable::Absent => serializer.serialize_none(),
            Nullable::Null => serializer.serialize_unit(),
            Nullable::Value(v) => serializer.serialize_some(v),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Nullable<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NullableVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for NullableVisitor<T> {
            type Value = Nullable<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("null or a value")
            }

            // Present and NULL (a missing attribute never gets here: `#[serde(default)]`).
            fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Nullable::Null)
            }

            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Nullable::Null)
            }

            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                T::deserialize(d).map(Nullable::Value)
            }
        }

        deserializer.deserialize_option(NullableVisitor(PhantomData))
    }
}
