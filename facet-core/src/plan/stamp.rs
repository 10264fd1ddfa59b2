//! The `#[created]` and `#[updated]` fields: the time of the write, set by the library.
//!
//! Every put, create, update and upsert sets `#[updated]` to the time of the write, and a
//! write that creates the record sets `#[created]` too. A put replaces the whole record, so
//! it sets `#[created]` as well, unless asked to keep the stored one; an upsert keeps it when
//! the record exists; an update never changes it; a move keeps it. Times are stored through
//! the field's codec: a `DateTime<Utc>` as Faceteer stores dates (`toISOString()`,
//! milliseconds) unless its serde codec says otherwise, an integer field as the epoch number
//! its attribute names (`#[created(seconds)]`, `#[updated(millis)]`); index keys built from
//! them are written from the stamped values.
//!
//! The time is the caller's ([`WriteClock`]): planning reads no clock.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::convert::{primary_key, record_attributes, validate_for_write, with_library_attributes};
use crate::expr::Update;
use crate::facet::{Facet, ItemError};
use crate::item::Item;
use crate::schema::FacetSchema;

/// The time of a write, as the caller read it (to the millisecond, as stored).
#[cfg(feature = "chrono")]
pub type WriteClock = chrono::DateTime<chrono::Utc>;

/// The time of a write: without the `chrono` feature no field holds one.
#[cfg(not(feature = "chrono"))]
pub type WriteClock = ();

/// The time of a write, read now and truncated to the millisecond (as stored): what the
/// runtime reads once per write and passes to every plan of it.
#[cfg(feature = "chrono")]
pub fn write_clock_now() -> WriteClock {
    use chrono::SubsecRound;
    chrono::Utc::now().trunc_subsecs(3)
}

/// The time of a write: without the `chrono` feature no field holds one.
#[cfg(not(feature = "chrono"))]
pub fn write_clock_now() -> WriteClock {}

/// What a write leaves in the `#[created]` field.
#[derive(Debug, Clone)]
pub enum Created {
    /// The time of the write: it creates the record.
    Now,
    /// The stored value (`None`: the record has none, and gets the time of the write).
    Keep(Option<AttributeValue>),
    /// The record's own value (a record read, changed and written back).
    AsIs,
}

/// Whether a key or the TTL of `schema` is built from `attribute`.
pub fn keys_built_from(schema: &FacetSchema, attribute: &str) -> bool {
    let keys = [&schema.pk, &schema.sk]
        .into_iter()
        .chain(schema.indexes.iter().flat_map(|i| i.written_keys()));
    keys.flat_map(|k| k.inputs()).any(|name| name == attribute)
        || schema.ttl_field == Some(attribute)
}

/// The item of `record` as a write at `now` stores it: the time of the write in its
/// `#[updated]` field, `created` in its `#[created]` field, and every key and the TTL
/// written from those values. The record is marshalled once; when a key is built from a
/// write time, or the facet validates on write, the stamped attributes are read back once:
/// for the keys, and for the validator, which sees the record as it is stored.
pub fn stamped_item<F: Facet>(
    record: &F,
    created: Created,
    now: &WriteClock,
) -> Result<Item, ItemError> {
    #[cfg(feature = "chrono")]
    if F::CREATED.is_some() || F::UPDATED.is_some() {
        // The key is checked before the attributes, as `to_item` checks them.
        let key = primary_key(record)?;
        let mut item = record_attributes(record)?;
        let times = F::write_time_attributes(now)?;
        let mut put = |name: &str, value: Option<AttributeValue>| match value {
            Some(v) => item.insert(name.to_owned(), v),
            None => item.remove(name),
        };
        if let Some(name) = F::UPDATED {
            put(name, times.updated);
        }
        if let Some(name) = F::CREATED {
            match created {
                Created::Keep(Some(stored)) => {
                    put(name, Some(stored));
                }
                Created::Keep(None) | Created::Now => {
                    put(name, times.created);
                }
                Created::AsIs => {}
            }
        }
        let rebuild = [F::CREATED, F::UPDATED]
            .into_iter()
            .flatten()
            .any(|name| keys_built_from(F::SCHEMA, name));
        if !rebuild && !F::VALIDATE_ON_WRITE {
            return with_library_attributes(record, key, item, None);
        }
        // The record as stored: the validator sees its write times, and the keys built from
        // them are written from it.
        let stamped: F = crate::unmarshal::from_attributes(item.clone(), &|_, _| false)
            .map_err(|source| ItemError::deserialize(F::SCHEMA.name, source))?;
        validate_for_write(&stamped)?;
        if !rebuild {
            return with_library_attributes(record, key, item, None);
        }
        let key = primary_key(&stamped)?;
        return with_library_attributes(&stamped, key, item, None);
    }
    let _ = (created, now);
    crate::convert::to_item(record)
}

/// `change` with the time of the write in the `#[updated]` field.
pub fn stamp_update<F: Facet>(change: Update<F>, now: &WriteClock) -> Update<F> {
    #[cfg(feature = "chrono")]
    {
        F::stamp_update(change, now)
    }
    #[cfg(not(feature = "chrono"))]
    {
        let _ = now;
        change
    }
}
