//! Native (multi-attribute) index keys: the DynamoDB type of a key field
//! ([`KeyScalar`]).
//!
//! A native index (`#[facet(gsi(n = .., native, pk(fields(..)), sk(fields(..))))]`) is keyed
//! by the record's own attributes, each declared to DynamoDB as `S`, `N` or `B`. The type of
//! each key field comes from its Rust type through [`KeyScalar`], or from its codec: the
//! `chrono::serde::ts_*` codecs store numbers (`N`), `serde_bytes` binary (`B`).

use crate::schema::ScalarType;

/// A type whose values a native index key can hold, with the DynamoDB type faceteer's
/// marshalling stores them as.
///
/// Implemented for strings, characters, integers, floats and (with the `chrono` feature)
/// `DateTime<Utc>` (Faceteer's ISO-8601 text, `S`) and `NaiveDate` (`S`). `#[derive(KeyPart)]`
/// implements it (`S`) for an enum whose variants are all units. Implement it for your own
/// types whose serde form is a string, a number or bytes:
///
/// ```
/// use faceteer_core::native::KeyScalar;
/// use faceteer_core::schema::ScalarType;
///
/// #[derive(serde::Serialize)]
/// struct Priority(u8);
///
/// impl KeyScalar for Priority {
///     const TYPE: ScalarType = ScalarType::N;
/// }
/// ```
///
/// A put, and an update setting the field, check every native key value they write against
/// its declared type ([`LimitError::KeyType`](crate::limits::LimitError::KeyType)) and
/// DynamoDB's key rules (not empty, within the key lengths), so a wrong declaration or value
/// is an error before the request. A write DynamoDB could still refuse: an attribute of the
/// same name another facet stores with another type, when that facet does not declare the
/// index (`faceteer::table!` refuses two facets declaring it with two types).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no DynamoDB key type, so it cannot be a field of a native index key",
    label = "a native index key field must be stored as `S`, `N` or `B`",
    note = "implement `faceteer::key::KeyScalar` for `{Self}` (`const TYPE: ScalarType = ScalarType::S;`, `N` or `B`), \
            or keep this field out of the index's `pk(fields(..))` / `sk(fields(..))`"
)]
pub trait KeyScalar {
    /// The DynamoDB type of the stored values.
    const TYPE: ScalarType;
}

macro_rules! scalar {
    ($ty:expr => $($t:ty),*) => {
        $(impl KeyScalar for $t {
            const TYPE: ScalarType = $ty;
        })*
    };
}

scalar!(ScalarType::S => String, str, char, Box<str>, std::rc::Rc<str>, std::sync::Arc<str>);
scalar!(ScalarType::N => u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);
scalar!(ScalarType::N => std::num::NonZeroU8, std::num::NonZeroU16, std::num::NonZeroU32,
    std::num::NonZeroU64, std::num::NonZeroI8, std::num::NonZeroI16, std::num::NonZeroI32,
    std::num::NonZeroI64);

impl KeyScalar for std::borrow::Cow<'_, str> {
    const TYPE: ScalarType = ScalarType::S;
}

impl<T: KeyScalar + ?Sized> KeyScalar for &T {
    const TYPE: ScalarType = T::TYPE;
}

impl<T: KeyScalar> KeyScalar for Option<T> {
    const TYPE: ScalarType = T::TYPE;
}

#[cfg(feature = "chrono")]
scalar!(ScalarType::S => chrono::DateTime<chrono::Utc>, chrono::NaiveDate);
