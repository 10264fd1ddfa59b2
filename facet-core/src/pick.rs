//! Compile-time projections: read only some attributes of a facet's records.
//!
//! Declare a projection struct with `#[derive(Pick)]`, naming fields of the facet with their
//! types (checked at compile time). `select::<P>()` on a get, a batch get or a query reads
//! only those attributes plus the key fields, with a DynamoDB `ProjectionExpression`, and
//! returns [`Picked<P, I>`]: the chosen fields (`P`), the base key fields
//! ([`PickValidator::Keys`]) and, on an index query, the index's key fields (`I`).
//!
//! A facet allows projections only once it declares how projected records are validated:
//! `#[facet(pick_validator = path)]` (a `fn(&Item, &[&str]) -> Result<(), E: Display>`
//! given the projected item and its attribute names) or `#[facet(pick_validator = trust)]`.

use std::ops::Deref;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;

use crate::convert::check_facet;
use crate::facet::{Facet, ItemError, Key};
use crate::item::Item;
use crate::key::KeyError;
use crate::schema::FACET_ATTRIBUTE;

/// How a facet validates projected records. Implemented by `#[facet(pick_validator = ..)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no pick validator, so its records cannot be projected with `select`",
    label = "projections of `{Self}` are not enabled",
    note = "enable them on the facet: `#[facet(pick_validator = path::to::check)]` with \
            `fn check(item: &Item, attributes: &[&str]) -> Result<(), E>`, or \
            `#[facet(pick_validator = trust)]` to accept projected items as read"
)]
pub trait PickValidator: Facet {
    /// The base key fields (the generated `<Facet>Keys` struct), held by projections.
    type Keys: KeyFields;

    /// The base-table key of the record whose key fields these are.
    #[doc(hidden)]
    fn keys_to_key(keys: &Self::Keys) -> Result<Key<Self>, KeyError>;

    /// Check a projected item holding `attributes`.
    #[doc(hidden)]
    fn validate_pick(item: &Item, attributes: &[&'static str]) -> Result<(), String>;
}

/// A set of a facet's fields read from an item: a projection or a set of key fields.
pub trait FromPicked: Sized {
    /// The stored attribute names read.
    #[doc(hidden)]
    const ATTRIBUTES: &'static [&'static str];
    /// Build the value from a projected item.
    #[doc(hidden)]
    fn from_picked(item: &Item) -> Result<Self, serde_dynamo::Error>;
}

/// A projection of a facet, declared with `#[derive(Pick)]`.
pub trait Projection: FromPicked {
    /// The facet projected.
    type Facet: PickValidator;
}

/// The key fields of a facet (base keys: [`PickValidator::Keys`]) or of one of its indexes.
pub trait KeyFields: FromPicked + Send + Sync + 'static {}

/// Field number `N` of facet `F`: names a field at the type level, for
/// [`IndexProjects`].
pub struct FieldAt<F, const N: usize>(std::marker::PhantomData<fn() -> F>);

/// Holds when the index whose key fields are `Self` projects the field `Fld`
/// (a [`FieldAt`]). `#[derive(Facet)]` implements it from the index's declared projection;
/// the base table ([`BaseTable`]) and indexes projecting whole items hold every field.
#[diagnostic::on_unimplemented(
    message = "the index read through `{Self}` does not project a field this projection selects",
    label = "`{Self}` does not project `{Fld}` (`FieldAt<Facet, N>` is the facet's field number N, counted from 0)",
    note = "add the field to the index's declaration, `#[facet(index(gsi = n, include(..)))]`, \
            select fewer fields, or read whole records by key with `.fetch_records()`"
)]
pub trait IndexProjects<Fld> {}

impl<F, const N: usize> IndexProjects<FieldAt<F, N>> for BaseTable {}

/// Holds when every field of the projection `Self` is projected by the index whose key
/// fields are `I`. `#[derive(Pick)]` implements it.
#[diagnostic::on_unimplemented(
    message = "the index read through `{I}` does not project every field of `{Self}`",
    label = "selects a field the index does not project",
    note = "add the fields to the index's declaration, `#[facet(index(gsi = n, include(..)))]`, \
            select fewer fields, or read whole records by key with `.fetch_records()`"
)]
pub trait ProjectedBy<I> {}

/// Holds when reads through the index whose key fields are `Self` return whole items: the
/// base table and indexes projecting all attributes (the default).
#[diagnostic::on_unimplemented(
    message = "the index read through `{Self}` does not project whole records",
    label = "this index is declared `keys_only` or `include(..)`",
    note = "read a projection of what it holds with `.select::<P>()`, or fetch whole records \
            by key with `.fetch_records()` (one batched read of the table per page)"
)]
pub trait WholeRecords {}

impl WholeRecords for BaseTable {}

/// No index: the key fields of a base-table query (none beyond [`PickValidator::Keys`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BaseTable;

impl FromPicked for BaseTable {
    const ATTRIBUTES: &'static [&'static str] = &[];
    fn from_picked(_: &Item) -> Result<Self, serde_dynamo::Error> {
        Ok(BaseTable)
    }
}

impl KeyFields for BaseTable {}

/// One projected record: the chosen fields, the base key fields and (on index queries) the
/// index's key fields. Dereferences to the chosen fields.
pub struct Picked<P: Projection, I = BaseTable> {
    /// The chosen fields.
    pub fields: P,
    /// The base key fields: feed them back with [`Picked::key`].
    pub keys: <P::Facet as PickValidator>::Keys,
    /// The index's key fields ([`BaseTable`] on base-table reads).
    pub index_keys: I,
}

impl<P: Projection, I> Picked<P, I> {
    /// The record's base-table key, for `get`, `delete` and friends.
    pub fn key(&self) -> Result<Key<P::Facet>, KeyError> {
        <P::Facet as PickValidator>::keys_to_key(&self.keys)
    }
}

impl<P: Projection, I> Deref for Picked<P, I> {
    type Target = P;
    fn deref(&self) -> &P {
        &self.fields
    }
}

impl<P, I> std::fmt::Debug for Picked<P, I>
where
    P: Projection + std::fmt::Debug,
    I: std::fmt::Debug,
    <P::Facet as PickValidator>::Keys: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Picked")
            .field("fields", &self.fields)
            .field("keys", &self.keys)
            .field("index_keys", &self.index_keys)
            .finish()
    }
}

impl<P, I> Clone for Picked<P, I>
where
    P: Projection + Clone,
    I: Clone,
    <P::Facet as PickValidator>::Keys: Clone,
{
    fn clone(&self) -> Self {
        Picked {
            fields: self.fields.clone(),
            keys: self.keys.clone(),
            index_keys: self.index_keys.clone(),
        }
    }
}

/// The attributes to project for `P` read through an index with key fields `I`: the chosen
/// and key fields, plus the key attributes (`PK`, `SK`, the index's) and `facet`, which the
/// library needs for cursors and checks.
pub fn projection_attributes<P: Projection, I: KeyFields>(
    index_attributes: &[&'static str],
) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let all = P::ATTRIBUTES
        .iter()
        .chain(<<P::Facet as PickValidator>::Keys as FromPicked>::ATTRIBUTES)
        .chain(I::ATTRIBUTES)
        .chain(index_attributes)
        .chain(&[crate::schema::PK, crate::schema::SK, FACET_ATTRIBUTE]);
    for a in all {
        if !out.contains(a) {
            out.push(a);
        }
    }
    out
}

/// Turn a projected item into a [`Picked`]: check the facet, run the pick validator, read
/// the chosen and key fields.
pub fn picked_from_item<P, I>(
    item: Item,
    attributes: &[&'static str],
) -> Result<Picked<P, I>, ItemError>
where
    P: Projection,
    P::Facet: PickValidator,
    I: KeyFields,
{
    let facet = <P::Facet as Facet>::SCHEMA.name;
    check_facet(&item, facet)?;
    // An encrypted or signed attribute is read with its whole item, which verifies it.
    if let Some(crypto) = <P::Facet as Facet>::CRYPTO {
        if let Some(attribute) = P::ATTRIBUTES.iter().find(|a| crypto.action(a).is_some()) {
            return Err(ItemError::Encryption {
                facet,
                source: crate::crypto::CipherError::Projection { facet, attribute },
            });
        }
    }
    <P::Facet as PickValidator>::validate_pick(&item, attributes)
        .map_err(|message| ItemError::Validation { facet, message })?;
    let err = |source| ItemError::deserialize(facet, source);
    Ok(Picked {
        fields: P::from_picked(&item).map_err(err)?,
        keys: <<P::Facet as PickValidator>::Keys as FromPicked>::from_picked(&item).map_err(err)?,
        index_keys: I::from_picked(&item).map_err(err)?,
    })
}

#[doc(hidden)]
/// Read attribute `name` of a projected item as a `T` (an absent attribute reads as `null`,
/// so optional fields become `None`). Used by generated code.
pub fn read_attribute<T: DeserializeOwned>(
    item: &Item,
    name: &str,
) -> Result<T, serde_dynamo::Error> {
    match item.get(name) {
        Some(v) => crate::unmarshal::from_attribute_value(v.clone()),
        None => crate::unmarshal::from_attribute_value(AttributeValue::Null(true)).map_err(|_| {
            <serde_dynamo::Error as serde::de::Error>::custom(format!(
                "the projected item has no `{name}` attribute"
            ))
        }),
    }
}

/// The value at `path` (a member of a `#[nested]` field) of a projected item, as `T`: absent
/// when a map on the way is missing (an `Option` reads `None`).
#[doc(hidden)]
pub fn read_path<T: DeserializeOwned>(
    item: &Item,
    path: &crate::expr::Path,
) -> Result<T, serde_dynamo::Error> {
    match path.find(item) {
        Some(v) => crate::unmarshal::from_attribute_value(v.clone()),
        None => crate::unmarshal::from_attribute_value(AttributeValue::Null(true)).map_err(|_| {
            <serde_dynamo::Error as serde::de::Error>::custom(format!(
                "the projected item has no `{path}`"
            ))
        }),
    }
}

/// Holds when a projection declares a field with the facet's own type. Used by
/// `#[derive(Pick)]` to check projections at compile time.
#[diagnostic::on_unimplemented(
    message = "the projection declares this field as `{Self}`, but the facet stores a `{S}`",
    label = "expected `{S}`, the type of the facet's field",
    note = "a projection field has exactly the type of the facet field it names"
)]
pub trait SameType<S> {}

impl<T> SameType<T> for T {}

/// A facet field whose stored type `S` a projection field is checked against.
pub struct PickCheck<S> {
    name: &'static str,
    _stored: std::marker::PhantomData<fn() -> S>,
}

/// Start checking a projection field against the facet field `field`. Used by
/// `#[derive(Pick)]`.
pub const fn pick_field<F, T, S, K>(field: crate::expr::Field<F, T, S, K>) -> PickCheck<S> {
    PickCheck {
        name: field.name(),
        _stored: std::marker::PhantomData,
    }
}

impl<S> PickCheck<S> {
    /// Holds when the projection declares the field as `D`, the facet's own type; gives the
    /// field's attribute name.
    pub const fn declared_as<D: SameType<S>>(self) -> &'static str {
        self.name
    }
}
