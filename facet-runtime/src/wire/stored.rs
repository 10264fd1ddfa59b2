//! A stored item as an answer brought it: the SDK's tree, or the JSON text the direct read
//! path keeps (decoded only once, straight into a record).

use std::any::Any;
use std::borrow::Cow;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::wire::pass::{self, Noted, Notes};
use faceteer_core::wire::WireItem;
use faceteer_core::{Facet, Item, ItemError};

/// One stored item of an answer.
#[derive(Debug)]
pub(crate) enum Stored {
    /// Decoded by the SDK.
    Tree(Item),
    /// Its JSON text (the direct read path).
    Wire(WireItem),
    /// Its record, read in the pass that read the answer (the direct read path's
    /// [`OnePass`]), with what was noted of its item.
    Read(Decoded),
}

/// A record read in an answer's one pass, and what was noted of its item.
pub(crate) struct Decoded {
    record: Box<dyn Any + Send>,
    noted: Noted,
}

impl std::fmt::Debug for Decoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoded")
            .field("noted", &self.noted)
            .finish_non_exhaustive()
    }
}

/// How the direct read path reads the items of a `Query` or `BatchGetItem` answer in one
/// pass, for reads of whole records of one facet: each straight into a record, its keys and
/// `ttl` noted on the way ([`faceteer_core::wire::pass`]). An answer the pass does not read
/// is read the general way.
#[derive(Clone, Copy)]
pub(crate) struct OnePass {
    page: fn(&Arc<String>, Notes) -> Option<PassPage>,
    batch: fn(&Arc<String>, &str, Notes) -> Option<PassBatch>,
    notes: Notes,
}

/// A Query answer read in one pass: the records, `LastEvaluatedKey`, `Count`,
/// `ScannedCount` and the capacity consumed.
pub(crate) type PassPage = (
    Vec<Stored>,
    Option<Item>,
    u64,
    u64,
    faceteer_core::wire::answer::Consumed,
);

/// A BatchGetItem answer read in one pass: the records, the keys left unprocessed and the
/// capacity consumed.
pub(crate) type PassBatch = (
    Vec<Stored>,
    Vec<Item>,
    faceteer_core::wire::answer::Consumed,
);

impl OnePass {
    /// The pass reading records of `F`, noting `PK`, `SK` and `keys` (an index's key
    /// attributes, those the library writes); `None` when `F`'s items are not read so (an
    /// encrypted facet, a key attribute that is one of the record's own fields, more
    /// attributes than a pass notes).
    pub(crate) fn of<F: Facet>(keys: &[&'static str]) -> Option<OnePass> {
        if F::CRYPTO.is_some() || !keys.iter().all(|k| F::SCHEMA.is_stored_only(k)) {
            return None;
        }
        let notes = Notes::new(
            [faceteer_core::schema::PK, faceteer_core::schema::SK]
                .into_iter()
                .chain(keys.iter().copied()),
        )?;
        Some(OnePass {
            page: read_page::<F>,
            batch: read_batch::<F>,
            notes,
        })
    }

    /// A Query answer's records, when the pass reads it.
    pub(crate) fn page(&self, body: &Arc<String>) -> Option<PassPage> {
        (self.page)(body, self.notes)
    }

    /// A BatchGetItem answer's records for table `table`, when the pass reads it.
    pub(crate) fn batch(&self, body: &Arc<String>, table: &str) -> Option<PassBatch> {
        (self.batch)(body, table, self.notes)
    }
}

fn read<F: Facet>(records: pass::Records<F>) -> Vec<Stored> {
    records
        .into_iter()
        .map(|(record, noted)| {
            Stored::Read(Decoded {
                record: Box::new(record),
                noted,
            })
        })
        .collect()
}

fn read_page<F: Facet>(body: &Arc<String>, notes: Notes) -> Option<PassPage> {
    let page = pass::page::<F>(body, notes)?;
    Some((
        read(page.records),
        page.last_evaluated_key,
        page.count,
        page.scanned_count,
        page.consumed,
    ))
}

fn read_batch<F: Facet>(body: &Arc<String>, table: &str, notes: Notes) -> Option<PassBatch> {
    let answer = pass::batch_get::<F>(body, table, notes)?;
    Some((read(answer.records), answer.unprocessed, answer.consumed))
}

/// What the read paths look up in a stored item before (or instead of) decoding it.
pub(crate) trait Attributes {
    /// The text of the string (`S`) attribute `name`, if it has one.
    fn text(&self, name: &str) -> Option<Cow<'_, str>>;

    /// The key value (`S`, `N` or `B`) of attribute `name`, if it has one.
    fn value(&self, name: &str) -> Option<AttributeValue>;
}

impl Attributes for Item {
    fn text(&self, name: &str) -> Option<Cow<'_, str>> {
        match self.get(name) {
            Some(AttributeValue::S(s)) => Some(Cow::Borrowed(s)),
            _ => None,
        }
    }

    fn value(&self, name: &str) -> Option<AttributeValue> {
        self.get(name)
            .filter(|v| faceteer_core::schema::ScalarType::of(v).is_some())
            .cloned()
    }
}

impl Attributes for Stored {
    fn text(&self, name: &str) -> Option<Cow<'_, str>> {
        match self {
            Stored::Tree(item) => item.text(name),
            Stored::Wire(wire) => wire.text(name),
            Stored::Read(read) => {
                debug_assert!(read.noted.holds(name), "{name} is not noted");
                read.noted.text(name).map(Cow::Borrowed)
            }
        }
    }

    fn value(&self, name: &str) -> Option<AttributeValue> {
        match self {
            Stored::Tree(item) => item.value(name),
            Stored::Read(read) => {
                debug_assert!(read.noted.holds(name), "{name} is not noted");
                read.noted.value(name)
            }
            // Once per page (the last item's key): a string or number read in place, binary
            // through the item's tree.
            Stored::Wire(wire) => match (wire.text(name), wire.number(name)) {
                (Some(s), _) => Some(AttributeValue::S(s.into_owned())),
                (None, Some(n)) => Some(AttributeValue::N(n.into_owned())),
                (None, None) => wire.to_item().ok()?.value(name),
            },
        }
    }
}

impl Stored {
    /// A copy of it; `None` for a record read in one pass (a record need not be `Clone`).
    pub(crate) fn try_clone(&self) -> Option<Stored> {
        match self {
            Stored::Tree(item) => Some(Stored::Tree(item.clone())),
            Stored::Wire(wire) => Some(Stored::Wire(wire.clone())),
            Stored::Read(_) => None,
        }
    }

    /// Whether the item belongs to another facet than `facet`. (A pass reads records of
    /// one facet and passes over the items of others.)
    pub(crate) fn is_foreign(&self, facet: &str) -> bool {
        match self {
            Stored::Tree(item) => faceteer_core::convert::is_foreign(item, facet),
            Stored::Wire(wire) => wire.is_foreign(facet),
            Stored::Read(_) => false,
        }
    }

    /// Its `PK` and `SK` strings.
    pub(crate) fn key(&self) -> Option<(Cow<'_, str>, Cow<'_, str>)> {
        match self {
            Stored::Tree(item) => crate::wire::keys::key_refs(item)
                .map(|(pk, sk)| (Cow::Borrowed(pk), Cow::Borrowed(sk))),
            Stored::Wire(wire) => wire.key_texts(),
            Stored::Read(read) => read
                .noted
                .key()
                .map(|(pk, sk)| (Cow::Borrowed(pk), Cow::Borrowed(sk))),
        }
    }

    /// Whether its `ttl` time is at or before `now` (epoch seconds).
    pub(crate) fn is_expired(&self, now: i64) -> bool {
        match self {
            Stored::Tree(item) => faceteer_core::plan::is_expired(item, now),
            Stored::Wire(wire) => wire
                .number(faceteer_core::schema::TTL_ATTRIBUTE)
                .is_some_and(|ttl| faceteer_core::plan::ttl_passed(&ttl, now)),
            Stored::Read(read) => read
                .noted
                .ttl()
                .is_some_and(|ttl| faceteer_core::plan::ttl_passed(ttl, now)),
        }
    }

    /// The record of facet `F` it holds.
    pub(crate) fn decode<F: Facet>(self) -> Result<F, ItemError> {
        match self {
            Stored::Tree(item) => faceteer_core::from_item(item),
            Stored::Wire(wire) => wire.decode::<F>(),
            Stored::Read(read) => read.take::<F>(),
        }
    }

    /// The item as the SDK's attribute values. The JSON of an answer is checked when the
    /// answer is read; what it cannot hold as attribute values (an unknown type, bytes that
    /// are not base64) is a [`ItemError::Deserialize`] of facet `facet`.
    pub(crate) fn into_item(self, facet: &'static str) -> Result<Item, ItemError> {
        match self {
            Stored::Tree(item) => Ok(item),
            Stored::Wire(wire) => wire.to_item_of(facet),
            Stored::Read(_) => Err(ItemError::deserialize(
                facet,
                serde::de::Error::custom(
                    "the item was read into a record in one pass, and is no longer held",
                ),
            )),
        }
    }
}

impl Decoded {
    /// The record, a `T` (the record of the facet its pass read).
    pub(crate) fn take<T: 'static>(self) -> Result<T, ItemError> {
        self.record
            .downcast::<T>()
            .map(|record| *record)
            .map_err(|_| {
                ItemError::deserialize(
                    self.noted.facet(),
                    serde::de::Error::custom(
                        "the item was read in one pass into another kind of record",
                    ),
                )
            })
    }

    /// What was noted of its item.
    pub(crate) fn noted(&self) -> &Noted {
        &self.noted
    }
}
