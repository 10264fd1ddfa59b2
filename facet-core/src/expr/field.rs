//! Field handles: one typed handle per field of a facet, how it encodes its values, and its
//! kind (what updates it has).

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use super::error::ExprError;
use super::path::{Nest, Path};

/// An operand's value, or why it could not be encoded.
pub(crate) type Value = Result<AttributeValue, ExprError>;

/// A handle on one attribute of facet `F` holding values of type `T` (the field's type `S`
/// without `Option`).
///
/// `K` is the field's kind for updates ([`Updatable`]): plain attributes
/// have update operations, key fields do not.
pub struct Field<F, T, S = T, K = Attribute> {
    pub(super) name: &'static str,
    pub(super) position: u16,
    /// The members from the attribute down to the value (none: the whole attribute).
    pub(super) nest: Nest,
    /// The serializer the value is stored with, as text (`""`: faceteer's marshalling), so
    /// that two fields compared or assigned one to the other store alike.
    pub(super) codec: &'static str,
    pub(super) encode: Encoder<T>,
    _types: PhantomData<FieldTypes<F, T, S, K>>,
}

/// The phantom types of a [`Field`].
type FieldTypes<F, T, S, K> = fn() -> (F, T, S, K);

impl<F, T, S, K> Clone for Field<F, T, S, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F, T, S, K> Copy for Field<F, T, S, K> {}

impl<F, T, S, K> std::fmt::Debug for Field<F, T, S, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&HandleDebug(self.path()), f)
    }
}

/// How a handle on the attribute or path `P` prints: `Field(path)`, for a [`Field`] and for
/// each handle of a facet's generated handles struct
/// ([`crate::facet::handles::debug_handles`]).
pub(crate) struct HandleDebug<P>(pub(crate) P);

impl<P: std::fmt::Display> std::fmt::Debug for HandleDebug<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Field({})", self.0)
    }
}

/// What a field's encoder gives for one value: its attribute value, or `None` when the value
/// is stored as nothing (an absent `Option`).
pub type Encoded = Result<Option<AttributeValue>, crate::marshal::Error>;

/// A field's own serialization of one value of its (`Option`-less) type: the very function a
/// put uses for the field (its `serde(with)` included), so that a condition, filter or update
/// operand is the text a put stores. It gives the value back, so that an update can keep it.
pub type Encoder<T> = fn(T) -> (Encoded, T);

/// The encoder of a field without a serde codec: faceteer's marshalling of the value.
pub fn encode_plain<T: Serialize>(value: T) -> (Encoded, T) {
    (crate::marshal::to_attribute_value(&value), value)
}

/// `value` through `encode`, as an operand: an absent value is an error (compare with
/// `exists()` / `not_exists()`, or `remove()` it).
pub(crate) fn encode_operand<T>(field: &'static str, encode: Encoder<T>, value: T) -> Value {
    match encode(value).0 {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(ExprError::Value {
            field,
            reason: "the value is stored as nothing (absent); use `exists()` / `not_exists()` \
                     in conditions and `remove()` in updates"
                .into(),
        }),
        Err(e) => Err(value_error(field, e)),
    }
}

/// `value` as an operand at `path`, through `encode` (an error names the path when it lies
/// inside an attribute).
pub(crate) fn operand_at<T>(path: &Path, encode: Encoder<T>, value: T) -> Value {
    encode_operand(path.root(), encode, value).map_err(|e| at(path, e))
}

/// `e`, its reason naming `path` when it lies inside an attribute.
pub(crate) fn at(path: &Path, e: ExprError) -> ExprError {
    match e {
        ExprError::Value { field, reason } if !path.is_top_level() => ExprError::Value {
            field,
            reason: format!("at `{path}`: {reason}"),
        },
        other => other,
    }
}

/// A value of `field` its serialization refused.
pub(crate) fn value_error(field: &'static str, e: crate::marshal::Error) -> ExprError {
    ExprError::Value {
        field,
        reason: e.to_string(),
    }
}

/// The one member of a one-element list or set, as an attribute value: how an element of a
/// list or set field is stored (encoded as a collection of one through the field's encoder).
pub(crate) fn only_member(field: &'static str, collection: Value) -> Value {
    let member = match collection? {
        AttributeValue::L(mut l) if l.len() == 1 => l.pop(),
        AttributeValue::Ss(mut s) if s.len() == 1 => s.pop().map(AttributeValue::S),
        AttributeValue::Ns(mut s) if s.len() == 1 => s.pop().map(AttributeValue::N),
        AttributeValue::Bs(mut s) if s.len() == 1 => s.pop().map(AttributeValue::B),
        _ => None,
    };
    member.ok_or_else(|| ExprError::Value {
        field,
        reason: "an element is stored as a list or set member, but the field's serialization \
                 of one element is not a one-member list or set"
            .into(),
    })
}

impl<F, T: Serialize, S, K> Field<F, T, S, K> {
    /// A handle on attribute `name`, whose values are stored as faceteer marshals them.
    pub const fn new(name: &'static str) -> Self {
        Self::numbered(name, u16::MAX)
    }

    /// A handle on attribute `name`, the facet's field number `position` (generated code
    /// builds these; the position ties projections to what an index projects).
    #[doc(hidden)]
    pub const fn numbered(name: &'static str, position: u16) -> Self {
        Self::coded(name, position, encode_plain::<T>)
    }
}

impl<F, T, S, K> Field<F, T, S, K> {
    /// A handle on attribute `name`, field number `position`, whose values are stored by
    /// `encode` (generated for fields with `#[serde(with = ..)]` or `serialize_with`).
    #[doc(hidden)]
    pub const fn coded(name: &'static str, position: u16, encode: Encoder<T>) -> Self {
        Field {
            name,
            position,
            nest: Nest::TOP,
            codec: "",
            encode,
            _types: PhantomData,
        }
    }

    /// The same handle, its values stored by the serializer `codec` names (generated code:
    /// the normalised path of a `serde(with)` or `serialize_with`).
    #[doc(hidden)]
    pub const fn with_codec(mut self, codec: &'static str) -> Self {
        self.codec = codec;
        self
    }

    /// A handle on member `name` of this field's values (a struct that derives
    /// [`Nested`](super::Nested)), holding values of type `U` stored by `encode` (generated
    /// code).
    #[doc(hidden)]
    pub const fn __member<U, S2>(
        self,
        name: &'static str,
        encode: Encoder<U>,
        codec: &'static str,
    ) -> Field<F, U, S2, NestedAttribute> {
        Field {
            name: self.name,
            position: self.position,
            nest: self.nest.child(name),
            codec,
            encode,
            _types: PhantomData,
        }
    }

    /// The handle itself (generated code reaches a handle through this in `const` code, where
    /// the `Deref` of a nested field's handles does not run).
    #[doc(hidden)]
    pub const fn __faceteer_field(self) -> Self {
        self
    }

    /// The document path of the value: the attribute, and the members down to it.
    pub fn path(&self) -> Path {
        self.nest.path(self.name)
    }

    /// The serializer text (`""`: faceteer's marshalling).
    pub(crate) fn codec(&self) -> &'static str {
        self.codec
    }

    /// `value` as the field stores it (an absent value is an error).
    pub(crate) fn operand(&self, value: T) -> Value {
        if self.nest.is_top() {
            return encode_operand(self.name, self.encode, value);
        }
        operand_at(&self.path(), self.encode, value)
    }

    /// `value` as the field stores it, for a key condition (generated and runtime code).
    #[doc(hidden)]
    pub fn key_operand(&self, value: T) -> Result<AttributeValue, ExprError> {
        self.operand(value)
    }

    /// The field's encoder.
    pub(crate) fn encoder(&self) -> Encoder<T> {
        self.encode
    }

    /// The attribute name (for a nested member, the top-level attribute holding it).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Whether the handle is a whole attribute rather than a member inside one.
    pub const fn is_top_level(&self) -> bool {
        self.nest.is_top()
    }

    /// The field's position among the facet's fields (`u16::MAX` for handles not made by
    /// the derive).
    #[doc(hidden)]
    pub const fn position(&self) -> usize {
        self.position as usize
    }
}

/// A value accepted where a field of type `T` is compared: a `T` itself (so a plain integer
/// literal takes the field's integer type: `f.version.eq(3)`), a reference to one, and `&str`
/// or `Cow<str>` for `String` fields.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be compared with a `{T}` field",
    label = "expected a `{T}` value",
    note = "pass a `{T}` (or a reference to one)"
)]
pub trait FieldValue<T> {
    /// The value as the field's type.
    fn into_field_value(self) -> T;
}

impl<T> FieldValue<T> for T {
    fn into_field_value(self) -> T {
        self
    }
}

impl<T: Clone> FieldValue<T> for &T {
    fn into_field_value(self) -> T {
        self.clone()
    }
}

impl FieldValue<String> for &str {
    fn into_field_value(self) -> String {
        self.to_owned()
    }
}

impl FieldValue<String> for std::borrow::Cow<'_, str> {
    fn into_field_value(self) -> String {
        self.into_owned()
    }
}

/// Whether a field's handle has every update operation. Only plain attributes do: the
/// table's key fields cannot change (write a new record instead), and fields that index
/// keys or the TTL are built from can only be `set` or `remove`d (the update then rebuilds
/// those attributes), since their new value must be known.
#[diagnostic::on_unimplemented(
    message = "this update operation is not available on this field: it is `{Self}`",
    label = "not available here",
    note = "a key field identifies the record: to change it, move the record to its new key \
            with `table.move_to(&old_key, &changed_record)` (one transaction deletes the old \
            record and creates the new one, unique guards included)",
    note = "a field an index key or the TTL is built from can be `set(..)` or `remove()`d: \
            its new value must be known, so that the update rebuilds those keys too",
    note = "the `#[version]` counter is moved by every put and update; it is not set by hand",
    note = "a `#[created]` or `#[updated]` field is set by the library to the time of the \
            write: every put, update and upsert sets `#[updated]`, a write that creates the \
            record sets `#[created]`, and a put over a stored record keeps its `#[created]`",
    note = "an `#[encrypt]` or `#[sign_only]` field is encrypted and signed with its whole \
            item on the client: the server cannot change it; put the record again \
            (`table.put`, or `table.modify(..)` to read, change and put it)"
)]
pub trait Updatable {}

/// Whether a field can be `set` (or `remove`d): plain attributes, and the fields index keys
/// or the TTL are built from (their derived attributes are rebuilt in the same request).
#[diagnostic::on_unimplemented(
    message = "this field cannot be set: it is `{Self}`",
    label = "cannot be set",
    note = "a key field identifies the record: to change it, move the record to its new key \
            with `table.move_to(&old_key, &changed_record)` (one transaction deletes the old \
            record and creates the new one, unique guards included)",
    note = "the `#[version]` counter is moved by every put and update; it is not set by hand",
    note = "a `#[created]` or `#[updated]` field is set by the library to the time of the \
            write: every put, update and upsert sets `#[updated]`, a write that creates the \
            record sets `#[created]`, and a put over a stored record keeps its `#[created]`",
    note = "an `#[encrypt]` or `#[sign_only]` field is encrypted and signed with its whole \
            item on the client: the server cannot change it; put the record again \
            (`table.put`, or `table.modify(..)` to read, change and put it)"
)]
pub trait Settable {
    /// Whether index keys or the TTL are built from the field (the update keeps its value).
    #[doc(hidden)]
    const KEYED: bool;
}

/// The kind of a field that is a plain attribute: it has update operations.
#[derive(Debug, Clone, Copy)]
pub enum Attribute {}
impl Updatable for Attribute {}
impl Settable for Attribute {
    const KEYED: bool = false;
}

/// The kind of a member inside a field's value (`f.address.city`, reached through a struct
/// that derives [`Nested`](super::Nested)): it has every update operation, and keys are never
/// built from it.
#[derive(Debug, Clone, Copy)]
pub enum NestedAttribute {}
impl Updatable for NestedAttribute {}
impl Settable for NestedAttribute {
    const KEYED: bool = false;
}

/// The kinds of handles that are one whole attribute (every kind but [`NestedAttribute`]):
/// what an API that keeps, orders by or names a whole attribute takes.
#[diagnostic::on_unimplemented(
    message = "this API takes a whole attribute, not a member inside one",
    label = "a member of a nested value",
    note = "name the field that holds it (`f.address`, not `f.address.city`)"
)]
pub trait TopLevel {}
impl TopLevel for Attribute {}
impl TopLevel for PartOfThePrimaryKey {}
impl TopLevel for PartOfAnIndexKeyOrTheTtl {}
impl TopLevel for SetByTheLibrary {}
impl TopLevel for TheVersionCounter {}

/// The kind of an `#[encrypt]` field: encrypted on the client, so the server can neither
/// compare nor change it (no conditions, filters or update operations; a query reaches it
/// through its `#[beacon]`).
#[derive(Debug, Clone, Copy)]
pub enum Encrypted {}
impl TopLevel for Encrypted {}

/// The kind of a `#[sign_only]` field: readable, so conditions and filters compare it, and
/// signed with its whole item, so updates cannot change it.
#[derive(Debug, Clone, Copy)]
pub enum SignedOnly {}
impl TopLevel for SignedOnly {}
impl Comparable for SignedOnly {}

/// The kinds of handles the server can compare: every kind but [`Encrypted`].
#[diagnostic::on_unimplemented(
    message = "this field is encrypted: the server cannot compare it",
    label = "an `#[encrypt]` field",
    note = "an `#[encrypt]` field is stored as ciphertext, so no condition or filter can read \
            it (and a comparison with another field cannot either)",
    note = "to find records by its value, give it a beacon (`#[beacon(length = N)]`) and put \
            it in an index key: the index's query is typed like any other, and records whose \
            beacon merely collides are dropped after decryption; or read the records and test \
            the decrypted value in Rust"
)]
pub trait Comparable {}
impl Comparable for Attribute {}
impl Comparable for NestedAttribute {}
impl Comparable for PartOfThePrimaryKey {}
impl Comparable for PartOfAnIndexKeyOrTheTtl {}
impl Comparable for SetByTheLibrary {}
impl Comparable for TheVersionCounter {}

/// The kind of a field the table's partition or sort key is built from.
#[derive(Debug, Clone, Copy)]
pub enum PartOfThePrimaryKey {}

/// The kind of a field an index key or the TTL attribute is built from: it can be set or
/// removed, and the update rebuilds those attributes.
#[derive(Debug, Clone, Copy)]
pub enum PartOfAnIndexKeyOrTheTtl {}
impl Settable for PartOfAnIndexKeyOrTheTtl {
    const KEYED: bool = true;
}

/// The kind of a `#[created]` or `#[updated]` field: the library sets it to the time of the
/// write (every write for `#[updated]`, a write that creates the record for `#[created]`).
#[derive(Debug, Clone, Copy)]
pub enum SetByTheLibrary {}

/// The kind of the `#[version]` counter: every put and update moves it.
#[derive(Debug, Clone, Copy)]
pub enum TheVersionCounter {}

/// A numeric field type: `add` and `subtract` apply.
pub trait Numeric: Serialize {}
macro_rules! numeric {
    ($($t:ty),*) => {$( impl Numeric for $t {} )*};
}
numeric!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);

/// A list or set field type: `contains_element`, `add_to_set` and `delete_from_set` take
/// its elements (encoded as the field encodes a collection of them).
pub trait Collection: FromIterator<Self::Element> {
    /// The element type.
    type Element;
}

impl<E> Collection for Vec<E> {
    type Element = E;
}

impl<E: Eq + std::hash::Hash, H: std::hash::BuildHasher + Default> Collection
    for std::collections::HashSet<E, H>
{
    type Element = E;
}

impl<E: Ord> Collection for std::collections::BTreeSet<E> {
    type Element = E;
}
