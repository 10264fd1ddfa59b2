//! The `#[created]` and `#[updated]` fields: the time of the write, set by the library.
//!
//! Every put, create, update and upsert sets `#[updated]` to the time of the write, and a
//! write that creates the record sets `#[created]` too. A put replaces the whole record, so
//! it sets `#[created]` as well, unless asked to keep the stored one
//! ([`Put::keep_created`](crate::write::Put::keep_created)); an upsert keeps it when the record
//! exists; an update never changes it; [`Table::move_to`](crate::Table::move_to) keeps it.
//! Times are stored through the field's codec: a `DateTime<Utc>` as Faceteer stores dates
//! (`toISOString()`, milliseconds) unless its serde codec says otherwise, an integer field as
//! the epoch number its attribute names (`#[created(seconds)]`, `#[updated(millis)]`); index
//! keys built from them are rebuilt with them.

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::expr::Update;
use faceteer_core::schema::FacetSchema;
use faceteer_core::{Facet, Item};

use crate::error::Result;

/// What a write leaves in the `#[created]` field.
#[derive(Debug, Clone)]
pub(crate) enum Created {
    /// The time of the write: it creates the record.
    Now,
    /// The stored value (`None`: the record has none, and gets the time of the write).
    Keep(#[cfg_attr(not(feature = "chrono"), allow(dead_code))] Option<AttributeValue>),
    /// The record's own value (a record read, changed and written back).
    AsIs,
}

/// The time of a write, to the millisecond (as stored).
#[cfg(feature = "chrono")]
fn now() -> faceteer_core::chrono::DateTime<faceteer_core::chrono::Utc> {
    use faceteer_core::chrono::{SubsecRound, Utc};
    Utc::now().trunc_subsecs(3)
}

/// Whether a key or the TTL of `schema` is built from `attribute`.
pub(crate) fn keys_built_from(schema: &FacetSchema, attribute: &str) -> bool {
    let keys = [&schema.pk, &schema.sk]
        .into_iter()
        .chain(schema.indexes.iter().flat_map(|i| i.keys()));
    keys.flat_map(|k| k.inputs()).any(|name| name == attribute)
        || schema.ttl_field == Some(attribute)
}

/// `item`, the item of a record of `F`, with the time of the write in its `#[updated]`
/// field and `created` in its `#[created]` field; the keys built from them rebuilt.
pub(crate) fn stamp_item<F: Facet>(item: Item, created: Created) -> Result<Item> {
    #[cfg(feature = "chrono")]
    {
        let mut item = item;
        if F::CREATED.is_none() && F::UPDATED.is_none() {
            return Ok(item);
        }
        let times = F::write_time_attributes(&now())?;
        let put = |item: &mut Item, name: &str, value: Option<AttributeValue>| match value {
            Some(v) => item.insert(name.to_owned(), v),
            None => item.remove(name),
        };
        if let Some(name) = F::UPDATED {
            put(&mut item, name, times.updated);
        }
        if let Some(name) = F::CREATED {
            match created {
                Created::Keep(Some(stored)) => {
                    item.insert(name.to_owned(), stored);
                }
                Created::Keep(None) | Created::Now => {
                    put(&mut item, name, times.created);
                }
                Created::AsIs => {}
            }
        }
        let rebuild = [F::CREATED, F::UPDATED]
            .into_iter()
            .flatten()
            .any(|name| keys_built_from(F::SCHEMA, name));
        if rebuild {
            let record: F = faceteer_core::from_item(item)?;
            item = faceteer_core::to_item(&record)?;
        }
        Ok(item)
    }
    #[cfg(not(feature = "chrono"))]
    {
        let _ = created;
        Ok(item)
    }
}

/// `change` with the time of the write in the `#[updated]` field.
pub(crate) fn stamp_update<F: Facet>(change: Update<F>) -> Update<F> {
    #[cfg(feature = "chrono")]
    {
        F::stamp_update(change, &now())
    }
    #[cfg(not(feature = "chrono"))]
    {
        change
    }
}
