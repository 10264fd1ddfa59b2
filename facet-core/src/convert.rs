//! Records to items and back, as Faceteer writes them: the library's attributes added on
//! the way out, the facet and schema version checked on the way in.

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;

use crate::facet::{Facet, ItemError};
use crate::item::Item;
use crate::schema::{FACET_ATTRIBUTE, PK, SCHEMA_VERSION_ATTRIBUTE, SK, TTL_ATTRIBUTE};

/// Refuse a record's own attributes (before the library adds its own) when one of them has
/// a name the library writes and no field of `F` declares it ([`ItemError::ReservedAttribute`]).
/// Only names that can start a library attribute are compared.
fn check_own_attributes<F: Facet>(item: &Item) -> Result<(), ItemError> {
    let reserved = item.keys().find(|name| {
        crate::schema::is_library_attribute(name) && !F::ATTRIBUTES.contains(&name.as_str())
    });
    match reserved {
        Some(name) => Err(ItemError::ReservedAttribute {
            facet: F::SCHEMA.name,
            attribute: name.clone(),
        }),
        None => Ok(()),
    }
}

/// Convert a record to the item stored in the table: its serde attributes plus `PK`, `SK`,
/// the index key attributes, `facet` and, when set, `ttl` (epoch seconds).
///
/// Attributes are written by [`crate::marshal`]: `None` members are left out at every depth,
/// as Faceteer leaves out `undefined` ones (reading the item back gives `None` again), and
/// explicit nulls ([`crate::Nullable::Null`], `()`) are kept as `NULL`.
///
/// Refused: a key in the partition of the guard items of unique values
/// ([`KeyError::ReservedPartition`](crate::key::KeyError::ReservedPartition), as [`ItemError::Key`]), and a record whose own
/// attributes take the name of one the library writes ([`ItemError::ReservedAttribute`]).
pub fn to_item<F: Facet>(record: &F) -> Result<Item, ItemError> {
    crate::facet::register_sensitive::<F>();
    validate_for_write(record)?;
    let key = primary_key(record)?;
    let (item, size) = sized_record_attributes(record)?;
    with_library_attributes(record, key, item, size)
}

/// The item a write stores for `record`: [`to_item`]'s, encrypted and signed when the facet
/// has encrypted or signed fields ([`crate::crypto`]).
pub fn to_stored_item<F: Facet>(record: &F) -> Result<Item, ItemError> {
    encrypt_item::<F>(to_item(record)?)
}

/// Run the facet's validator on a record about to be written, when the facet asks.
pub(crate) fn validate_for_write<F: Facet>(record: &F) -> Result<(), ItemError> {
    if F::VALIDATE_ON_WRITE {
        record.validate().map_err(|message| ItemError::Validation {
            facet: F::SCHEMA.name,
            message,
        })?;
    }
    Ok(())
}

/// The record's key, refused in the guards' partition.
pub(crate) fn primary_key<F: Facet>(record: &F) -> Result<crate::facet::Key<F>, ItemError> {
    let facet = F::SCHEMA.name;
    let key = record
        .primary_key()
        .map_err(|source| ItemError::Key { facet, source })?;
    // However the key was built, no record lands in the guards' partition.
    crate::unique::check_table_partition(&key.pk)
        .map_err(|source| ItemError::Key { facet, source })?;
    Ok(key)
}

/// The record's own attributes, before the library adds its own: none of them may take
/// their names.
pub fn record_attributes<F: Facet>(record: &F) -> Result<Item, ItemError> {
    sized_record_attributes(record).map(|(item, _)| item)
}

/// [`record_attributes`], with their stored size when it was counted as they were written
/// (by the code the derive generates).
fn sized_record_attributes<F: Facet>(record: &F) -> Result<(Item, Option<usize>), ItemError> {
    let facet = F::SCHEMA.name;
    // The key attributes (PK, SK and the indexes' own: none for a native index), `facet`,
    // the schema version and `ttl` when written: room made once, so inserting them never
    // rehashes (and no larger than needed: an item's table is its largest allocation).
    let room = F::SCHEMA.key_attributes().count()
        + 1
        + usize::from(F::SCHEMA_VERSION.is_some())
        + usize::from(record.ttl_seconds().is_some());
    let serialize = |source| ItemError::Serialize { facet, source };
    // Written field by field, every name is a field's (the derive refuses a field stored
    // under a library attribute's name).
    if let Some(fields) = record.own_attributes(room) {
        return fields.finish_sized().map_err(serialize);
    }
    let item: Item = crate::marshal::to_attributes_with_room(record, room).map_err(serialize)?;
    check_own_attributes::<F>(&item)?;
    Ok((item, None))
}

/// `item`, the attributes of `record`, with the library's: `key`, the index keys, `facet`,
/// the schema version and `ttl`; its key lengths and size checked. `own_size` is the stored
/// size of `item`'s attributes when it was counted as they were written: the item then
/// fits when that and the library's attributes do, with no pass over it.
pub(crate) fn with_library_attributes<F: Facet>(
    record: &F,
    key: crate::facet::Key<F>,
    mut item: Item,
    own_size: Option<usize>,
) -> Result<Item, ItemError> {
    let facet = F::SCHEMA.name;
    // Key lengths are checked as the keys are added, the size once the item is whole.
    let mut keys = crate::limits::KeyLengths::default();
    keys.insert(&mut item, PK, true, key.pk);
    keys.insert(&mut item, SK, false, key.sk);
    record
        .write_index_keys(&mut item, &mut keys)
        .map_err(|source| ItemError::Key { facet, source })?;
    let mut size = own_size.map(|own| own + keys.bytes() + FACET_ATTRIBUTE.len() + facet.len());
    item.insert(
        FACET_ATTRIBUTE.to_owned(),
        AttributeValue::S(facet.to_owned()),
    );
    let numbers = [
        (SCHEMA_VERSION_ATTRIBUTE, F::SCHEMA_VERSION.map(i64::from)),
        (TTL_ATTRIBUTE, record.ttl_seconds()),
    ];
    for (name, number) in numbers {
        if let Some(number) = number {
            let value = AttributeValue::N(number.to_string());
            size = match (size, crate::limits::attribute_size(name, &value)) {
                (Some(size), Ok(more)) => Some(size + more),
                _ => None,
            };
            item.insert(name.to_owned(), value);
        }
    }
    // Counted, the size is an upper bound (an attribute put twice counts twice): only an
    // item that may not fit is measured again, and the error, if any, names its largest
    // attribute.
    let fits = size.is_some_and(|size| size <= crate::limits::MAX_ITEM_BYTES);
    let checked = if fits {
        Ok(())
    } else {
        crate::limits::check_size(&item)
    };
    checked
        .and_then(|()| keys.finish())
        .and_then(|()| crate::limits::check_native_keys(&item, F::SCHEMA))
        .and_then(|()| crate::limits::check_vector_values(F::SCHEMA, |name| item.get(name)))
        .map_err(|source| ItemError::Limit { facet, source })?;
    Ok(item)
}

/// An item's (or key's) `PK` and `SK` strings, borrowed, when it has both.
pub fn key_refs(item: &Item) -> Option<(&str, &str)> {
    match (item.get(PK), item.get(SK)) {
        (Some(AttributeValue::S(pk)), Some(AttributeValue::S(sk))) => Some((pk, sk)),
        _ => None,
    }
}

/// An item's (or key's) `PK` and `SK` strings, each empty when absent: for errors that
/// name the key.
pub fn key_pair(item: &Item) -> (String, String) {
    let text = |name| match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    };
    (text(PK), text(SK))
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
    crate::facet::register_sensitive::<F>();
    let item = decrypt_item::<F>(item)?;
    let schema = F::SCHEMA;
    if F::SCHEMA_VERSION.is_some() || item.contains_key(SCHEMA_VERSION_ATTRIBUTE) {
        check_facet(&item, schema.name)?;
        // A facet without a declared version is at version 1: an item written by newer code
        // (at a later version) is refused, not misread.
        let current = F::SCHEMA_VERSION.unwrap_or(1);
        let stored = stored_version::<F>(&item, current)?;
        if stored < current {
            let record = F::upgrade(stored, item)?;
            record.validate().map_err(|message| ItemError::Validation {
                facet: schema.name,
                message,
            })?;
            return Ok(record);
        }
    }
    // Another facet's item is told as such whatever else is wrong with it (deserializing
    // stops at the first bad member, in the map's order).
    check_facet(&item, schema.name)?;
    let skip = |name: &str, _: &AttributeValue| schema.is_stored_only(name);
    let record = crate::unmarshal::from_attributes::<F>(item, &skip);
    let record = record.map_err(|source| ItemError::deserialize(schema.name, source))?;
    record.validate().map_err(|message| ItemError::Validation {
        facet: schema.name,
        message,
    })?;
    Ok(record)
}

/// The schema version `item` was stored at (1 without the attribute), refused when newer
/// than `current`.
pub fn stored_version<F: Facet>(item: &Item, current: u32) -> Result<u32, ItemError> {
    let refuse = |found: String| ItemError::SchemaVersion {
        facet: F::SCHEMA.name,
        found,
        current,
    };
    match item.get(SCHEMA_VERSION_ATTRIBUTE) {
        None => Ok(1),
        Some(AttributeValue::N(n)) => match n.parse::<u32>() {
            Ok(v) if (1..=current).contains(&v) => Ok(v),
            _ => Err(refuse(n.clone())),
        },
        Some(other) => Err(refuse(format!("{other:?}"))),
    }
}

/// Read `item` as the shape `T` a facet's records had at an older schema version (the
/// argument of an upgrade function): its attributes, without the key attributes, `facet`,
/// `ttl` and the stored version that `F` writes next to them.
pub fn read_shape<F: Facet, T: DeserializeOwned>(item: Item) -> Result<T, ItemError> {
    let schema = F::SCHEMA;
    let skip = |name: &str, _: &AttributeValue| schema.is_stored_only(name);
    crate::unmarshal::from_attributes::<T>(item, &skip)
        .map_err(|source| ItemError::deserialize(schema.name, source))
}

/// Read `item` as the shape `T` an older schema version stored, and upgrade it with
/// `upgrade` (the generated `Facet::upgrade` calls it for each declared function).
pub fn upgrade_with<F: Facet, T: DeserializeOwned>(
    item: Item,
    upgrade: fn(T) -> F,
) -> Result<F, ItemError> {
    read_shape::<F, T>(item).map(upgrade)
}

/// Whether a stored item carries the encryption header (it was written encrypted).
pub fn is_encrypted(item: &Item) -> bool {
    item.contains_key(crate::crypto::HEADER)
}

/// Encrypt and sign the item of a record of `F` as the installed cipher does, when `F` has
/// encrypted or signed fields; any other item is returned as it is.
pub fn encrypt_item<F: Facet>(item: Item) -> Result<Item, ItemError> {
    match F::CRYPTO {
        None => Ok(item),
        Some(schema) => {
            let facet = F::SCHEMA.name;
            let cipher = crate::crypto::cipher_for(facet)
                .map_err(|source| ItemError::Encryption { facet, source })?;
            cipher
                .encrypt(schema, item)
                .map_err(|source| ItemError::Encryption { facet, source })
        }
    }
}

/// Verify and decrypt a stored item of `F` when it was written encrypted. A plaintext item of
/// an encrypted facet is read only when the cipher allows plaintext reads (while a backfill
/// encrypts a facet's existing records); otherwise it is refused
/// ([`crate::crypto::CipherError::Plaintext`]). Items of facets without encrypted fields are returned as
/// they are.
pub fn decrypt_item<F: Facet>(item: Item) -> Result<Item, ItemError> {
    let Some(schema) = F::CRYPTO else {
        return Ok(item);
    };
    let facet = F::SCHEMA.name;
    let cipher = crate::crypto::cipher_for(facet)
        .map_err(|source| ItemError::Encryption { facet, source })?;
    if is_encrypted(&item) {
        return cipher
            .decrypt(schema, item)
            .map_err(|source| ItemError::Encryption { facet, source });
    }
    if cipher.allows_plaintext_reads(facet) {
        Ok(item)
    } else {
        Err(ItemError::Encryption {
            facet,
            source: crate::crypto::CipherError::Plaintext { facet },
        })
    }
}
