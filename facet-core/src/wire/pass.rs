//! A `Query` or `BatchGetItem` answer read in one pass: each item straight into a record of
//! one facet, the attributes its reader looks up (keys, `ttl`) noted on the way, items of
//! other facets passed over. Nothing of the answer is read twice.
//!
//! The pass reads what [`super::answer`] and [`super::from_wire`] read, or gives way to
//! them: an answer holding any item that is not a valid record of the facet at its schema
//! version (an older version, a member of the wrong type, a validator's refusal, a key that
//! is neither a string nor a number) is not read here (`None`), and its reader reads it the
//! general way, which answers exactly for each item.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::{
    self, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;

use super::answer::{is_empty, Consumed};
use super::record::{ItemMembers, Noting, Reading};
use super::tree::{self, CowStr, Tag};
use crate::facet::Facet;
use crate::item::Item;

pub use super::record::{Notes, MOST_NOTED};

/// A noted text: where it lies in the answer's body, or its own copy when the JSON escaped
/// it.
#[derive(Debug, Clone)]
enum Text {
    At(u32, u32),
    Own(Box<str>),
}

impl Text {
    /// `text`, borrowed from `body` (a string the JSON reader did not unescape) or not.
    fn of(body: &str, text: Cow<'_, str>) -> Text {
        if let Cow::Borrowed(s) = &text {
            let start = (s.as_ptr() as usize).wrapping_sub(body.as_ptr() as usize);
            let end = start.wrapping_add(s.len());
            // Within the body (it is: the reader borrows from nothing else).
            if let (Ok(a), Ok(b), Some(_)) = (
                u32::try_from(start),
                u32::try_from(end),
                body.get(start..end),
            ) {
                return Text::At(a, b);
            }
        }
        Text::Own(text.into_owned().into_boxed_str())
    }

    fn get<'a>(&'a self, body: &'a str) -> &'a str {
        match self {
            Text::At(a, b) => &body[*a as usize..*b as usize],
            Text::Own(s) => s,
        }
    }
}

/// What a pass noted of one item: the asked attributes it holds, and its `ttl`.
#[derive(Debug, Clone)]
pub struct Noted {
    facet: &'static str,
    body: Arc<String>,
    notes: Notes,
    values: [Option<(Tag, Text)>; MOST_NOTED],
    ttl: Option<Text>,
}

impl Noted {
    /// The facet whose record the pass read from the item.
    pub fn facet(&self) -> &'static str {
        self.facet
    }

    /// Whether attribute `name` was noted (so that [`Noted::text`] and [`Noted::value`]
    /// answer for it).
    pub fn holds(&self, name: &str) -> bool {
        self.notes.position(name).is_some()
    }

    fn noted(&self, name: &str) -> Option<(Tag, &str)> {
        let (tag, text) = self.values[self.notes.position(name)?].as_ref()?;
        Some((*tag, text.get(&self.body)))
    }

    /// The text of the noted string attribute `name`, if the item has it.
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.noted(name)? {
            (Tag::S, text) => Some(text),
            _ => None,
        }
    }

    /// The value of the noted attribute `name` (a string or a number), if the item has it.
    pub fn value(&self, name: &str) -> Option<AttributeValue> {
        match self.noted(name)? {
            (Tag::S, text) => Some(AttributeValue::S(text.to_owned())),
            (_, text) => Some(AttributeValue::N(text.to_owned())),
        }
    }

    /// The item's `PK` and `SK` strings, when noted.
    pub fn key(&self) -> Option<(&str, &str)> {
        Some((self.text(crate::schema::PK)?, self.text(crate::schema::SK)?))
    }

    /// The text of the item's `ttl` number, noted for a facet with a `#[ttl]` field.
    pub fn ttl(&self) -> Option<&str> {
        self.ttl.as_ref().map(|t| t.get(&self.body))
    }
}

/// What `noting` noted of an item of facet `facet` in answer `body`.
fn noted(noting: Noting<'_>, facet: &'static str, body: &Arc<String>) -> Noted {
    let Noting {
        notes, values, ttl, ..
    } = noting;
    Noted {
        facet,
        body: Arc::clone(body),
        notes,
        values: values.map(|v| v.map(|(tag, text)| (tag, Text::of(body, text)))),
        ttl: ttl.map(|t| Text::of(body, t)),
    }
}

/// The records of one answer's items, each with what was noted of it.
pub type Records<F> = Vec<(F, Noted)>;

/// A page of a Query, read in one pass.
#[derive(Debug)]
pub struct Page<F> {
    /// The records of facet `F`, in order, each with what was noted of its item.
    pub records: Records<F>,
    /// `LastEvaluatedKey`, when more may follow.
    pub last_evaluated_key: Option<Item>,
    /// `Count`: the items matched (after a filter).
    pub count: u64,
    /// `ScannedCount`: the items read (before a filter).
    pub scanned_count: u64,
    /// The capacity the answer reports, object by object.
    pub consumed: Consumed,
}

/// A BatchGetItem answer for one table, read in one pass.
#[derive(Debug)]
pub struct BatchGet<F> {
    /// The records of facet `F` found, each with what was noted of its item.
    pub records: Records<F>,
    /// The keys left unprocessed.
    pub unprocessed: Vec<Item>,
    /// The capacity the answer reports, object by object.
    pub consumed: Consumed,
}

/// Read a Query answer in one pass: its records of `F`, noting `notes` of each; items of
/// other facets are passed over. `None` when the answer is not read here (see the module's
/// words): read it with [`super::answer::page`].
pub fn page<F: Facet>(body: &Arc<String>, notes: Notes) -> Option<Page<F>> {
    #[derive(Default)]
    struct Raw<'j, F> {
        records: Option<Records<F>>,
        last: Option<Option<&'j RawValue>>,
        count: Option<u64>,
        scanned: Option<u64>,
        consumed: Option<Option<&'j RawValue>>,
    }
    struct Envelope<'c, F> {
        cx: &'c Cx<'c, F>,
    }
    impl<'de, F: Facet> Visitor<'de> for Envelope<'_, F> {
        type Value = Raw<'de, F>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a Query answer")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut raw = Raw {
                records: None,
                last: None,
                count: None,
                scanned: None,
                consumed: None,
            };
            while let Some(key) = map.next_key_seed(CowStr)? {
                match &*key {
                    "Items" => once(&mut raw.records, map.next_value_seed(Items(self.cx)))?,
                    "LastEvaluatedKey" => once(&mut raw.last, map.next_value())?,
                    "Count" => once(&mut raw.count, map.next_value())?,
                    "ScannedCount" => once(&mut raw.scanned, map.next_value())?,
                    "ConsumedCapacity" => once(&mut raw.consumed, map.next_value())?,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(raw)
        }
    }
    let cx = Cx::<F>::new(body, notes)?;
    let mut de = serde_json::Deserializer::from_str(body);
    let raw = de.deserialize_map(Envelope { cx: &cx }).ok()?;
    de.end().ok()?;
    let last = match raw.last.flatten() {
        Some(k) if !is_empty(k) => Some(tree::item(k.get()).ok()?),
        _ => None,
    };
    Some(Page {
        records: raw.records.unwrap_or_default(),
        last_evaluated_key: last,
        count: raw.count.unwrap_or(0),
        scanned_count: raw.scanned.unwrap_or(0),
        consumed: Consumed::of(raw.consumed.flatten()).ok()?,
    })
}

/// Read a BatchGetItem answer for table `table` in one pass: its records of `F`, noting
/// `notes` of each; items of other facets are passed over. `None` when the answer is not
/// read here: read it with [`super::answer::batch_get`].
pub fn batch_get<F: Facet>(body: &Arc<String>, table: &str, notes: Notes) -> Option<BatchGet<F>> {
    #[derive(serde::Deserialize)]
    struct Keys<'a> {
        #[serde(rename = "Keys", borrow, default)]
        keys: Vec<&'a RawValue>,
    }
    struct Raw<'j, F> {
        records: Option<Records<F>>,
        unprocessed: Option<std::collections::HashMap<Cow<'j, str>, Keys<'j>>>,
        consumed: Option<Option<&'j RawValue>>,
    }
    struct Envelope<'c, F> {
        cx: &'c Cx<'c, F>,
        table: &'c str,
    }
    impl<'de, F: Facet> Visitor<'de> for Envelope<'_, F> {
        type Value = Raw<'de, F>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a BatchGetItem answer")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut raw = Raw {
                records: None,
                unprocessed: None,
                consumed: None,
            };
            let mut responses = None;
            while let Some(key) = map.next_key_seed(CowStr)? {
                match &*key {
                    "Responses" => {
                        let seed = Responses {
                            cx: self.cx,
                            table: self.table,
                        };
                        once(&mut responses, map.next_value_seed(seed))?
                    }
                    "UnprocessedKeys" => once(&mut raw.unprocessed, map.next_value())?,
                    "ConsumedCapacity" => once(&mut raw.consumed, map.next_value())?,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            raw.records = responses.flatten();
            Ok(raw)
        }
    }
    /// The `Responses` map: the records of `table`'s items.
    struct Responses<'c, F> {
        cx: &'c Cx<'c, F>,
        table: &'c str,
    }
    impl<'de, F: Facet> DeserializeSeed<'de> for Responses<'_, F> {
        type Value = Option<Records<F>>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de, F: Facet> Visitor<'de> for Responses<'_, F> {
        type Value = Option<Records<F>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("the items of each table")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut records = None;
            while let Some(name) = map.next_key_seed(CowStr)? {
                if name == self.table {
                    once(&mut records, map.next_value_seed(Items(self.cx)))?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(records)
        }
    }
    let mut cx = Cx::<F>::new(body, notes)?;
    cx.expected = batch_answer_room(body.len());
    let mut de = serde_json::Deserializer::from_str(body);
    let raw = de.deserialize_map(Envelope { cx: &cx, table }).ok()?;
    de.end().ok()?;
    let unprocessed = match raw.unprocessed.as_ref().and_then(|u| u.get(table)) {
        Some(k) => k
            .keys
            .iter()
            .map(|k| tree::item(k.get()))
            .collect::<Result<_, _>>()
            .ok()?,
        None => Vec::new(),
    };
    Some(BatchGet {
        records: raw.records.unwrap_or_default(),
        unprocessed,
        consumed: Consumed::of(raw.consumed.flatten()).ok()?,
    })
}

/// The fewest bytes an item takes in an answer: `{"PK":{"S":""},"SK":{"S":""}}`.
const LEAST_ITEM_BYTES: usize = 29;

/// Room for the records of a `BatchGetItem` answer of `len` bytes: as many as it can hold,
/// and no more than a request reads.
fn batch_answer_room(len: usize) -> usize {
    (len / LEAST_ITEM_BYTES).min(crate::limits::MAX_BATCH_GET_KEYS)
}

/// Set `slot` to `value`, refusing a member given twice (as the general reader does).
fn once<T, E: de::Error>(slot: &mut Option<T>, value: Result<T, E>) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::custom("a member given twice"));
    }
    *slot = Some(value?);
    Ok(())
}

/// What reading each item of an answer needs.
struct Cx<'j, F> {
    body: &'j Arc<String>,
    notes: Notes,
    current: u32,
    /// Room to make for the answer's records before reading them (the JSON reader does not
    /// know how many a list holds): growing the list would move every record read so far.
    expected: usize,
    facet: PhantomData<fn() -> F>,
}

impl<'j, F: Facet> Cx<'j, F> {
    /// `None` for a facet whose items are not read in one pass (an encrypted facet's are
    /// verified and decrypted whole).
    fn new(body: &'j Arc<String>, notes: Notes) -> Option<Self> {
        F::CRYPTO.is_none().then_some(Cx {
            body,
            notes,
            current: F::SCHEMA_VERSION.unwrap_or(1),
            expected: 0,
            facet: PhantomData,
        })
    }
}

/// An answer's list of items: the records, items of other facets passed over.
struct Items<'c, 'j, F>(&'c Cx<'j, F>);

impl<'de, F: Facet> DeserializeSeed<'de> for Items<'_, '_, F> {
    type Value = Records<F>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, F: Facet> Visitor<'de> for Items<'_, '_, F> {
    type Value = Records<F>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of items")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut records = Vec::with_capacity(seq.size_hint().unwrap_or(self.0.expected));
        while let Some(read) = seq.next_element_seed(OneItem(self.0))? {
            records.extend(read);
        }
        Ok(records)
    }
}

/// One item: its record and what was noted, `None` for an item of another facet.
struct OneItem<'c, 'j, F>(&'c Cx<'j, F>);

impl<'de, F: Facet> DeserializeSeed<'de> for OneItem<'_, '_, F> {
    type Value = Option<(F, Noted)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, F: Facet> Visitor<'de> for OneItem<'_, '_, F> {
    type Value = Option<(F, Noted)>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an item")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let cx = self.0;
        let mut versioned = false;
        let mut noting = Noting::new(cx.notes);
        let read = {
            let mut members = ItemMembers {
                map,
                cx: Reading {
                    schema: F::SCHEMA,
                    versioned: &mut versioned,
                    current: cx.current,
                    pass: Some(&mut noting),
                },
            };
            F::deserialize(MembersDe(&mut members))
        };
        match noting.foreign {
            Some(true) => return Ok(None),
            Some(false) => return Err(A::Error::custom("an item naming its facet twice")),
            None => {}
        }
        let record = read?;
        // An item without a version is at version 1; a record its validator refuses is
        // reported by the general reader.
        if !(versioned || cx.current == 1) || record.validate().is_err() {
            return Err(A::Error::custom("an item read the general way"));
        }
        Ok(Some((record, noted(noting, F::SCHEMA.name, cx.body))))
    }
}

/// An item's members, as the record's deserializer reads them.
struct MembersDe<'m, 'a, 'j, A>(&'m mut ItemMembers<'a, 'j, A>);

impl<'de, A: MapAccess<'de>> Deserializer<'de> for MembersDe<'_, '_, 'de, A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_answer_makes_room_for_what_it_can_hold() {
        // No item fits in an answer shorter than the smallest item.
        assert_eq!(batch_answer_room(0), 0);
        assert_eq!(batch_answer_room(LEAST_ITEM_BYTES - 1), 0);
        // The smallest items, each counted.
        let three = r#"{"PK":{"S":""},"SK":{"S":""}}"#.repeat(3);
        assert_eq!(batch_answer_room(three.len()), 3);
        // Never more than one request reads, however long the answer.
        assert_eq!(
            batch_answer_room(16 * 1024 * 1024),
            crate::limits::MAX_BATCH_GET_KEYS
        );
    }
}
