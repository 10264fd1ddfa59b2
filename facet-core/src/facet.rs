//! The [`Facet`] trait, implemented by `#[derive(Facet)]`, and item conversion.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::key::KeyError;
use crate::schema::{FacetSchema, FACET_ATTRIBUTE, TTL_ATTRIBUTE};

/// A DynamoDB item: attribute name to value.
pub type Item = HashMap<String, AttributeValue>;

/// A record type stored in the single table. Implement it with `#[derive(Facet)]`.
pub trait Facet: Serialize + DeserializeOwned + Send + Sync + Sized + 'static {
    /// The static description of the facet's keys and indexes.
    const SCHEMA: &'static FacetSchema;

    /// Typed handles on the facet's attributes (the generated `<Facet>Fields` struct), for
    /// conditions and filters.
    type Fields: Copy;

    /// The facet's attribute handles: `Task::fields().status.eq(TaskStatus::Open)`.
    fn fields() -> Self::Fields;

    /// Run the validator before every write too (`#[facet(validate_on_write)]`).
    const VALIDATE_ON_WRITE: bool = false;

    /// The attribute of the `#[version]` field, when the facet has one: every put checks it
    /// and stores it plus one, every update adds one.
    const VERSION: Option<&'static str> = None;

    /// This record's `#[version]` (0 without one; a new record is at 0).
    fn version(&self) -> u64 {
        0
    }

    /// The same record at version `version` (unchanged without a `#[version]` field).
    fn with_version(self, version: u64) -> Self {
        let _ = version;
        self
    }

    /// This record's base-table key.
    fn primary_key(&self) -> Result<Key<Self>, KeyError>;

    /// Insert this record's index key attributes (`GSInPK`, `GSInSK`) into `item`, checking
    /// each one's length with `keys`.
    fn write_index_keys(
        &self,
        item: &mut Item,
        keys: &mut crate::limits::KeyLengths,
    ) -> Result<(), KeyError>;

    /// The `#[ttl]` field as epoch seconds, when set.
    fn ttl_seconds(&self) -> Option<i64>;

    /// The facet's validator (`#[facet(validator = path)]`); runs on every record read.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

/// The base-table key of one record of facet `F`: the `PK` and `SK` strings.
pub struct Key<F> {
    pk: String,
    sk: String,
    _facet: PhantomData<fn() -> F>,
}

impl<F> Key<F> {
    /// A key from its `PK` and `SK` strings, as built by the facet's key builder.
    pub fn from_parts(pk: String, sk: String) -> Self {
        Key {
            pk,
            sk,
            _facet: PhantomData,
        }
    }

    /// The partition key string.
    pub fn pk(&self) -> &str {
        &self.pk
    }

    /// The sort key string.
    pub fn sk(&self) -> &str {
        &self.sk
    }

    /// The key as a DynamoDB key map (`PK`, `SK`).
    pub fn to_item(&self) -> Item {
        let mut item = HashMap::with_capacity(2);
        item.insert(
            crate::schema::PK.to_owned(),
            AttributeValue::S(self.pk.clone()),
        );
        item.insert(
            crate::schema::SK.to_owned(),
            AttributeValue::S(self.sk.clone()),
        );
        item
    }
}

impl<F> Clone for Key<F> {
    fn clone(&self) -> Self {
        Key::from_parts(self.pk.clone(), self.sk.clone())
    }
}

impl<F> PartialEq for Key<F> {
    fn eq(&self, other: &Self) -> bool {
        self.pk == other.pk && self.sk == other.sk
    }
}

impl<F> Eq for Key<F> {}

impl<F> std::hash::Hash for Key<F> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.pk.hash(state);
        self.sk.hash(state);
    }
}

impl<F> fmt::Debug for Key<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key")
            .field("pk", &self.pk)
            .field("sk", &self.sk)
            .finish()
    }
}

/// A facet with a `#[version]` field: its records can be changed with optimistic locking
/// (`Table::modify`). Implemented by `#[derive(Facet)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `#[version]` field",
    note = "add a `#[version] version: u64` field to `{Self}`: read-modify-write needs a \
            version to detect a concurrent change"
)]
pub trait Versioned: Facet {}

/// Why a record could not be turned into an item or back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ItemError {
    /// The record's key could not be built.
    #[error("cannot build the key of a `{facet}` record: {source}")]
    Key {
        /// The facet name.
        facet: &'static str,
        /// The key error.
        #[source]
        source: KeyError,
    },
    /// serde_dynamo could not serialize the record.
    #[error("cannot serialize a `{facet}` record: {source}")]
    Serialize {
        /// The facet name.
        facet: &'static str,
        /// The serde_dynamo error.
        #[source]
        source: serde_dynamo::Error,
    },
    /// The stored item does not deserialize into the facet's type.
    #[error("a stored item is not a valid `{facet}` record: {source}")]
    Deserialize {
        /// The facet name.
        facet: &'static str,
        /// The serde_dynamo error.
        #[source]
        source: serde_dynamo::Error,
    },
    /// The item breaks a DynamoDB limit (size, key length, number); nothing was sent.
    #[error("a `{facet}` record cannot be stored: {source}")]
    Limit {
        /// The facet name.
        facet: &'static str,
        /// The limit broken.
        #[source]
        source: crate::limits::LimitError,
    },
    /// The facet's validator rejected the record.
    #[error("a `{facet}` record failed validation: {message}")]
    Validation {
        /// The facet name.
        facet: &'static str,
        /// The validator's message.
        message: String,
    },
    /// The stored item belongs to another facet.
    #[error("expected a `{expected}` item, found a `{found}` item")]
    WrongFacet {
        /// The facet asked for.
        expected: &'static str,
        /// The `facet` attribute of the item.
        found: String,
    },
}

/// Convert a record to the item stored in the table: its serde attributes plus `PK`, `SK`,
/// the index key attributes, `facet` and, when set, `ttl` (epoch seconds).
///
/// Attributes are written by [`crate::marshal`]: `None` members are left out at every depth,
/// as Faceteer leaves out `undefined` ones (reading the item back gives `None` again), and
/// explicit nulls ([`crate::Nullable::Null`], `()`) are kept as `NULL`.
pub fn to_item<F: Facet>(record: &F) -> Result<Item, ItemError> {
    let facet = F::SCHEMA.name;
    if F::VALIDATE_ON_WRITE {
        record
            .validate()
            .map_err(|message| ItemError::Validation { facet, message })?;
    }
    let key = record
        .primary_key()
        .map_err(|source| ItemError::Key { facet, source })?;
    // PK, SK, two per index, facet, ttl: room made once, so inserting them never rehashes.
    let room = 4 + 2 * F::SCHEMA.indexes.len();
    let mut item: Item = crate::marshal::to_attributes_with_room(record, room)
        .map_err(|source| ItemError::Serialize { facet, source })?;
    // Key lengths are checked as the keys are added, the size once the item is whole.
    let mut keys = crate::limits::KeyLengths::default();
    keys.partition(crate::schema::PK, &key.pk);
    keys.sort(crate::schema::SK, &key.sk);
    item.insert(crate::schema::PK.to_owned(), AttributeValue::S(key.pk));
    item.insert(crate::schema::SK.to_owned(), AttributeValue::S(key.sk));
    record
        .write_index_keys(&mut item, &mut keys)
        .map_err(|source| ItemError::Key { facet, source })?;
    item.insert(
        FACET_ATTRIBUTE.to_owned(),
        AttributeValue::S(facet.to_owned()),
    );
    if let Some(ttl) = record.ttl_seconds() {
        item.insert(TTL_ATTRIBUTE.to_owned(), AttributeValue::N(ttl.to_string()));
    }
    crate::limits::check_size(&item)
        .and_then(|()| keys.finish())
        .map_err(|source| ItemError::Limit { facet, source })?;
    Ok(item)
}

/// Whether `item` belongs to another facet than `expected` (its `facet` attribute names
/// another one). Reads of one facet skip such items: facets share partitions.
pub fn is_foreign(item: &Item, expected: &str) -> bool {
    item.get(FACET_ATTRIBUTE)
        .is_some_and(|value| !names_facet(value, expected))
}

/// Whether a `facet` attribute's value names facet `expected`.
fn names_facet(value: &AttributeValue, expected: &str) -> bool {
    matches!(value, AttributeValue::S(name) if name == expected)
}

/// The facet a `facet` attribute's value names, as text for an error.
fn facet_named(value: &AttributeValue) -> String {
    match value {
        AttributeValue::S(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// Refuse an item whose `facet` attribute names another facet than `expected` (an item
/// without the attribute is accepted).
pub(crate) fn check_facet(item: &Item, expected: &'static str) -> Result<(), ItemError> {
    match item.get(FACET_ATTRIBUTE) {
        Some(value) if !names_facet(value, expected) => Err(ItemError::WrongFacet {
            expected,
            found: facet_named(value),
        }),
        _ => Ok(()),
    }
}

/// Convert a stored item back to a record and run the facet's validator.
///
/// The key attributes, `facet` and `ttl` are removed before deserializing, so facets may use
/// `#[serde(deny_unknown_fields)]`. An item whose `facet` attribute names another facet is
/// refused with [`ItemError::WrongFacet`].
pub fn from_item<F: Facet>(item: Item) -> Result<F, ItemError> {
    let schema = F::SCHEMA;
    // The `facet` attribute is checked as the item is read, not looked up first.
    let found: std::cell::Cell<Option<String>> = std::cell::Cell::new(None);
    let skip = |name: &str, value: &AttributeValue| {
        if name == FACET_ATTRIBUTE {
            if !names_facet(value, schema.name) {
                found.set(Some(facet_named(value)));
            }
            return true;
        }
        schema.is_stored_only(name)
    };
    let record = crate::unmarshal::from_attributes::<F>(item, &skip);
    if let Some(found) = found.take() {
        return Err(ItemError::WrongFacet {
            expected: schema.name,
            found,
        });
    }
    let record = record.map_err(|source| ItemError::Deserialize {
        facet: schema.name,
        source,
    })?;
    record.validate().map_err(|message| ItemError::Validation {
        facet: schema.name,
        message,
    })?;
    Ok(record)
}

/// Epoch seconds from text, as Faceteer reads a string `ttl` field (JavaScript's
/// `parseInt(text, 10)`): leading whitespace and an optional sign, then the leading decimal
/// digits; `None` when there are none (Faceteer then writes no `ttl`) or they overflow `i64`.
///
/// For a `#[ttl]` field of a type of your own that may hold text:
/// `impl TtlValue for Expiry { .. Expiry::Text(t) => ttl_from_text(t) .. }`.
pub fn ttl_from_text(text: &str) -> Option<i64> {
    let text = text.trim_start();
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let end = digits
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    let value: i64 = digits[..end].parse().ok()?;
    Some(if negative { -value } else { value })
}

/// A `#[ttl]` field's value: a time or an integer of epoch seconds.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[ttl]` field",
    label = "not a time or an integer",
    note = "a `#[ttl]` field holds epoch seconds: use `DateTime<Utc>`, `SystemTime`, an integer, \
            or an `Option` of one of those"
)]
pub trait TtlValue {
    /// The value as epoch seconds (`None` when absent).
    fn ttl_seconds(&self) -> Option<i64>;
}

macro_rules! int_ttl {
    ($($t:ty),*) => {$(
        impl TtlValue for $t {
            fn ttl_seconds(&self) -> Option<i64> {
                i64::try_from(*self).ok()
            }
        }
    )*};
}
int_ttl!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T: TtlValue> TtlValue for Option<T> {
    fn ttl_seconds(&self) -> Option<i64> {
        self.as_ref().and_then(TtlValue::ttl_seconds)
    }
}

impl TtlValue for std::time::SystemTime {
    fn ttl_seconds(&self) -> Option<i64> {
        match self.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).ok(),
            Err(e) => i64::try_from(e.duration().as_secs()).ok().map(|s| -s),
        }
    }
}

#[cfg(feature = "chrono")]
impl TtlValue for chrono::DateTime<chrono::Utc> {
    fn ttl_seconds(&self) -> Option<i64> {
        Some(self.timestamp())
    }
}

#[cfg(test)]
mod tests {
    use super::ttl_from_text;

    #[test]
    fn ttl_text_reads_like_parse_int() {
        assert_eq!(ttl_from_text("1800000000"), Some(1_800_000_000));
        assert_eq!(ttl_from_text("  42abc"), Some(42));
        assert_eq!(ttl_from_text("-7"), Some(-7));
        assert_eq!(ttl_from_text("abc"), None);
        assert_eq!(ttl_from_text(""), None);
        assert_eq!(ttl_from_text("99999999999999999999"), None);
    }
}
