//! Stream records, and their changes typed by facet or collection.

use std::collections::BTreeMap;
use std::time::SystemTime;

use faceteer_core::collection::{facet_of, Collection};
use faceteer_core::{from_item, Facet, Item, ItemError};

#[cfg(any(feature = "streams", feature = "lambda"))]
use crate::table::rename::Renamer;
use crate::wire::keys::key_pair;

/// The kind of a stream record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// An item was created.
    Insert,
    /// An item was changed.
    Modify,
    /// An item was deleted.
    Remove,
}

/// One stream record, untyped, with attribute names in faceteer's (a table with other
/// names, [`TableNames`](crate::schema::TableNames), is renamed back). Its `Debug` prints the
/// items with the attributes of `#[sensitive]` fields masked.
#[derive(Clone, PartialEq)]
pub struct Record {
    /// What happened.
    pub kind: Kind,
    /// The item's key attributes.
    pub keys: Item,
    /// The item before the change, when the stream records it.
    pub old: Option<Item>,
    /// The item after the change, when the stream records it.
    pub new: Option<Item>,
    /// The record's sequence number in its shard.
    pub sequence_number: String,
    /// About when the change was made.
    pub at: Option<SystemTime>,
    /// Whether DynamoDB itself deleted the item because its time to live passed.
    pub expired: bool,
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use faceteer_core::redact::ShownItem;
        f.debug_struct("Record")
            .field("kind", &self.kind)
            .field("keys", &ShownItem(&self.keys))
            .field("old", &self.old.as_ref().map(ShownItem))
            .field("new", &self.new.as_ref().map(ShownItem))
            .field("sequence_number", &self.sequence_number)
            .field("at", &self.at)
            .field("expired", &self.expired)
            .finish()
    }
}

#[cfg(any(feature = "streams", feature = "lambda"))]
impl Record {
    /// The record with its images and keys renamed from the table's names to faceteer's.
    pub(crate) fn renamed(mut self, renamer: Option<&Renamer>) -> Record {
        if let Some(r) = renamer {
            self.keys = r.item_in(self.keys);
            self.old = self.old.map(|i| r.item_in(i));
            self.new = self.new.map(|i| r.item_in(i));
        }
        self
    }
}

/// Whether a stream record's user identity is DynamoDB's time-to-live service.
#[cfg(any(feature = "streams", feature = "lambda"))]
pub(crate) fn is_expiry(kind: Option<&str>, principal: Option<&str>) -> bool {
    kind == Some("Service") && principal == Some("dynamodb.amazonaws.com")
}

/// A change of one record, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Change<T> {
    /// The record was created.
    Insert(T),
    /// The record was changed: the images the stream's view type records (at least one).
    Modify {
        /// The record before.
        old: Option<T>,
        /// The record after.
        new: Option<T>,
    },
    /// The record was deleted.
    Remove {
        /// The record as it was.
        old: T,
        /// Whether DynamoDB deleted it because its time to live passed.
        expired: bool,
    },
}

impl<T> Change<T> {
    /// The record as the change left it (`None` after a removal, or when the stream
    /// records no new image).
    pub fn after(&self) -> Option<&T> {
        match self {
            Change::Insert(new) => Some(new),
            Change::Modify { new, .. } => new.as_ref(),
            Change::Remove { .. } => None,
        }
    }

    /// The record before the change (`None` for an insert, or when the stream records no
    /// old image).
    pub fn before(&self) -> Option<&T> {
        match self {
            Change::Insert(_) => None,
            Change::Modify { old, .. } => old.as_ref(),
            Change::Remove { old, .. } => Some(old),
        }
    }

    /// The kind of change.
    pub fn kind(&self) -> Kind {
        match self {
            Change::Insert(_) => Kind::Insert,
            Change::Modify { .. } => Kind::Modify,
            Change::Remove { .. } => Kind::Remove,
        }
    }
}

/// A typed change with where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Event<T> {
    /// The change.
    pub change: Change<T>,
    /// The item's partition key.
    pub pk: faceteer_core::redact::KeyText,
    /// The item's sort key.
    pub sk: faceteer_core::redact::KeyText,
    /// The record's sequence number.
    pub sequence_number: String,
    /// About when the change was made.
    pub at: Option<SystemTime>,
}

/// A record of the facet (or collection) whose image does not read.
#[derive(Debug)]
pub struct Unreadable {
    /// The facet the image names.
    pub facet: String,
    /// The item's partition key.
    pub pk: faceteer_core::redact::KeyText,
    /// The item's sort key.
    pub sk: faceteer_core::redact::KeyText,
    /// The record's sequence number.
    pub sequence_number: String,
    /// Why it does not read.
    pub error: ItemError,
}

/// The changes of a batch of stream records, typed, with every record accounted for.
#[derive(Debug)]
pub struct Changes<T> {
    /// The changes of the facet or collection, in stream order.
    pub events: Vec<Event<T>>,
    /// Records of other facets, by the facet their image names (`""`: none).
    pub skipped: BTreeMap<String, u64>,
    /// Records without an image to tell the facet by (a `KEYS_ONLY` stream, or an insert
    /// on an `OLD_IMAGE` one).
    pub without_image: u64,
    /// Records of the facet that do not read.
    pub unreadable: Vec<Unreadable>,
}

impl<T> Default for Changes<T> {
    fn default() -> Self {
        Changes {
            events: Vec::new(),
            skipped: BTreeMap::new(),
            without_image: 0,
            unreadable: Vec::new(),
        }
    }
}

impl<T> Changes<T> {
    /// How many records the batch held.
    pub fn records(&self) -> u64 {
        self.events.len() as u64
            + self.skipped.values().sum::<u64>()
            + self.without_image
            + self.unreadable.len() as u64
    }
}

/// The records of facet `F` among `records`, typed. It runs no hooks: with a table whose
/// facets have hooks ([`crate::hook`]), decode with [`Table::decode_changes`](crate::Table::decode_changes).
pub fn decode<F: Facet>(records: impl IntoIterator<Item = Record>) -> Changes<F> {
    decode_with(records, |item| {
        if facet_of(&item) == Some(F::SCHEMA.name) {
            from_item::<F>(item).map(Some)
        } else {
            Ok(None)
        }
    })
}

/// The records of the facets of collection `C` among `records`, typed.
pub fn decode_collection<C: Collection>(records: impl IntoIterator<Item = Record>) -> Changes<C> {
    decode_with(records, C::from_item)
}

fn decode_with<T>(
    records: impl IntoIterator<Item = Record>,
    read: impl Fn(Item) -> Result<Option<T>, ItemError>,
) -> Changes<T> {
    let mut changes = Changes::default();
    for record in records {
        let Some(image) = record.new.as_ref().or(record.old.as_ref()) else {
            changes.without_image += 1;
            continue;
        };
        let facet = facet_of(image).unwrap_or_default().to_owned();
        let (pk, sk) = key_pair(&record.keys);
        let read_image = |image: Option<Item>| image.map(&read).transpose().map(Option::flatten);
        let (old, new) = match (read_image(record.old), read_image(record.new)) {
            (Ok(old), Ok(new)) => (old, new),
            (Err(error), _) | (_, Err(error)) => {
                changes.unreadable.push(Unreadable {
                    facet,
                    pk: pk.into(),
                    sk: sk.into(),
                    sequence_number: record.sequence_number,
                    error,
                });
                continue;
            }
        };
        let change = match (record.kind, old, new) {
            (Kind::Insert, _, Some(new)) => Change::Insert(new),
            (Kind::Modify, old, new) if old.is_some() || new.is_some() => {
                Change::Modify { old, new }
            }
            (Kind::Remove, Some(old), _) => Change::Remove {
                old,
                expired: record.expired,
            },
            _ => {
                *changes.skipped.entry(facet).or_default() += 1;
                continue;
            }
        };
        changes.events.push(Event {
            change,
            pk: pk.into(),
            sk: sk.into(),
            sequence_number: record.sequence_number,
            at: record.at,
        });
    }
    changes
}

impl crate::table::Table {
    /// The records of facet `F` among `records`, typed, as [`decode`] types them, each image
    /// through the facet's `after_read` hooks ([`crate::hook`]): an image a hook refuses
    /// makes its record [`Changes::unreadable`]. A Lambda handler on a hooked table decodes
    /// with this.
    pub async fn decode_changes<F: Facet>(
        &self,
        records: impl IntoIterator<Item = Record>,
    ) -> Changes<F> {
        let mut changes = decode::<F>(records);
        let Some(hooked) = self.hooks_for::<F>() else {
            return changes;
        };
        let mut events = Vec::with_capacity(changes.events.len());
        for mut event in std::mem::take(&mut changes.events) {
            let images: Vec<&mut F> = match &mut event.change {
                Change::Insert(new) => vec![new],
                Change::Modify { old, new } => old.iter_mut().chain(new.iter_mut()).collect(),
                Change::Remove { old, .. } => vec![old],
            };
            let mut refused = None;
            for image in images {
                if let Err(e) = hooked
                    .after_read(image, crate::hook::ReadKind::Stream)
                    .await
                {
                    refused = Some(e);
                    break;
                }
            }
            match refused {
                None => events.push(event),
                Some(error) => changes.unreadable.push(Unreadable {
                    facet: F::SCHEMA.name.to_owned(),
                    pk: event.pk,
                    sk: event.sk,
                    sequence_number: event.sequence_number,
                    error,
                }),
            }
        }
        changes.events = events;
        changes
    }
}
