//! The answers of the read operations, from their JSON: each item kept as its own JSON text
//! (decoded later, straight into a record), keys and cursors built as the SDK builds them.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;

use std::borrow::Cow;

use super::record::{attribute_number, attribute_texts, from_wire};
use super::tree;
use crate::facet::{Facet, ItemError};
use crate::item::Item;

/// One stored item of an answer, as its JSON text (a slice of the answer's body, shared).
#[derive(Clone)]
pub struct WireItem {
    body: Arc<String>,
    range: Range<usize>,
}

impl std::fmt::Debug for WireItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.json())
    }
}

impl WireItem {
    /// An item from its JSON text (`{"PK": {"S": ".."}, ..}`).
    pub fn new(json: impl Into<String>) -> Self {
        let body = Arc::new(json.into());
        let range = 0..body.len();
        WireItem { body, range }
    }

    fn within(body: &Arc<String>, raw: &RawValue) -> Self {
        let text = raw.get();
        let start = text.as_ptr() as usize - body.as_ptr() as usize;
        WireItem {
            body: Arc::clone(body),
            range: start..start + text.len(),
        }
    }

    /// The item's JSON text.
    pub fn json(&self) -> &str {
        &self.body[self.range.clone()]
    }

    /// The item as the SDK's attribute values.
    pub fn to_item(&self) -> Result<Item, serde_json::Error> {
        tree::item(self.json())
    }

    /// The item as the SDK's attribute values, read for facet `facet` ([`tree::item_of`]).
    pub fn to_item_of(&self, facet: &'static str) -> Result<Item, ItemError> {
        tree::item_of(self.json(), facet)
    }

    /// The text of the item's top-level string (`S`) attribute `name`, if it has one.
    pub fn text(&self, name: &str) -> Option<Cow<'_, str>> {
        let [text] = attribute_texts(self.json(), [name]);
        text.flatten()
    }

    /// The texts of the item's string attributes `PK` and `SK`, read in one pass.
    pub fn key_texts(&self) -> Option<(Cow<'_, str>, Cow<'_, str>)> {
        match attribute_texts(self.json(), [crate::schema::PK, crate::schema::SK]) {
            [Some(Some(pk)), Some(Some(sk))] => Some((pk, sk)),
            _ => None,
        }
    }

    /// The text of the item's top-level number (`N`) attribute `name`, if it has one.
    pub fn number(&self, name: &str) -> Option<Cow<'_, str>> {
        attribute_number(self.json(), name)
    }

    /// Whether the item belongs to another facet than `expected` (its `facet` attribute
    /// names another one), as [`crate::convert::is_foreign`] tells of the SDK's item.
    pub fn is_foreign(&self, expected: &str) -> bool {
        let [facet] = attribute_texts(self.json(), [crate::schema::FACET_ATTRIBUTE]);
        facet.is_some_and(|text| text.as_deref() != Some(expected))
    }

    /// The record of facet `F` this item holds: what [`crate::from_item`] answers for it.
    pub fn decode<F: Facet>(&self) -> Result<F, ItemError> {
        // An encrypted facet's item is verified and decrypted whole, as a tree.
        if F::CRYPTO.is_some() {
            return crate::convert::from_item::<F>(self.to_item_of(F::SCHEMA.name)?);
        }
        from_wire::<F>(self.json())
    }
}

/// The capacity an answer reports (`ConsumedCapacity`, one object or a list of them):
/// the capacity units summed, and each object's JSON text as the answer wrote it (what
/// OpenTelemetry's `aws.dynamodb.consumed_capacity` records).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Consumed {
    /// The capacity units, summed.
    pub units: f64,
    /// Each `ConsumedCapacity` object's JSON text.
    pub json: Vec<String>,
}

#[derive(Deserialize)]
struct Capacity {
    #[serde(rename = "CapacityUnits", default)]
    units: Option<f64>,
}

impl Consumed {
    /// Read an answer's `ConsumedCapacity` value, if it has one.
    pub(super) fn of(raw: Option<&RawValue>) -> Result<Consumed, serde_json::Error> {
        let Some(raw) = raw else {
            return Ok(Consumed::default());
        };
        let objects: Vec<&RawValue> = if raw.get().trim_start().starts_with('[') {
            serde_json::from_str(raw.get())?
        } else if raw.get().trim() == "null" {
            Vec::new()
        } else {
            vec![raw]
        };
        let mut out = Consumed::default();
        for object in objects {
            let c: Capacity = serde_json::from_str(object.get())?;
            out.units += c.units.unwrap_or(0.0);
            out.json.push(object.get().to_owned());
        }
        Ok(out)
    }
}

/// A write's answer `body`, `{}` when it is empty (an empty answer, as the SDK reads one).
fn or_empty(body: &str) -> &str {
    if body.trim().is_empty() {
        "{}"
    } else {
        body
    }
}

/// Whether a raw value is `null`.
fn is_null(raw: &RawValue) -> bool {
    raw.get().trim() == "null"
}

/// Whether a raw item is an empty map (an answer's `{}` for "no item").
pub(super) fn is_empty(raw: &RawValue) -> bool {
    raw.get()
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .eq(*b"{}")
}

/// A page of a Query or Scan.
#[derive(Debug)]
pub struct Page {
    /// The items, in order.
    pub items: Vec<WireItem>,
    /// `LastEvaluatedKey`, when more may follow.
    pub last_evaluated_key: Option<Item>,
    /// `Count`: the items matched (after a filter).
    pub count: u64,
    /// `ScannedCount`: the items read (before a filter).
    pub scanned_count: u64,
    /// The capacity units the request consumed.
    pub capacity_units: f64,
    /// The capacity the answer reports, object by object.
    pub consumed: Consumed,
}

/// Read a Query or Scan answer.
pub fn page(body: String) -> Result<Page, serde_json::Error> {
    page_in(Arc::new(body))
}

/// [`page`] of a body already shared.
pub fn page_in(body: Arc<String>) -> Result<Page, serde_json::Error> {
    #[derive(Deserialize)]
    struct Raw<'a> {
        #[serde(rename = "Items", borrow, default)]
        items: Vec<&'a RawValue>,
        #[serde(rename = "LastEvaluatedKey", borrow, default)]
        last: Option<&'a RawValue>,
        #[serde(rename = "Count", default)]
        count: u64,
        #[serde(rename = "ScannedCount", default)]
        scanned_count: u64,
        #[serde(rename = "ConsumedCapacity", borrow, default)]
        consumed: Option<&'a RawValue>,
    }
    let raw: Raw<'_> = serde_json::from_str(&body)?;
    let consumed = Consumed::of(raw.consumed)?;
    let last = match raw.last {
        Some(k) if !is_empty(k) => Some(tree::item(k.get())?),
        _ => None,
    };
    Ok(Page {
        items: raw
            .items
            .iter()
            .map(|i| WireItem::within(&body, i))
            .collect(),
        last_evaluated_key: last,
        count: raw.count,
        scanned_count: raw.scanned_count,
        capacity_units: consumed.units,
        consumed,
    })
}

/// Read a GetItem answer: the item, if any, and the capacity consumed.
pub fn get(body: String) -> Result<(Option<WireItem>, Consumed), serde_json::Error> {
    #[derive(Deserialize)]
    struct Raw<'a> {
        #[serde(rename = "Item", borrow, default)]
        item: Option<&'a RawValue>,
        #[serde(rename = "ConsumedCapacity", borrow, default)]
        consumed: Option<&'a RawValue>,
    }
    let body = Arc::new(body);
    let raw: Raw<'_> = serde_json::from_str(&body)?;
    let item = raw
        .item
        .filter(|i| !is_empty(i))
        .map(|i| WireItem::within(&body, i));
    Ok((item, Consumed::of(raw.consumed)?))
}

/// A BatchGetItem answer, for one table.
#[derive(Debug)]
pub struct BatchGet {
    /// The items found.
    pub found: Vec<WireItem>,
    /// The keys left unprocessed.
    pub unprocessed: Vec<Item>,
    /// The capacity units the request consumed.
    pub capacity_units: f64,
    /// The capacity the answer reports, object by object.
    pub consumed: Consumed,
}

/// Read a BatchGetItem answer for table `table`.
pub fn batch_get(body: String, table: &str) -> Result<BatchGet, serde_json::Error> {
    batch_get_in(Arc::new(body), table)
}

/// [`batch_get`] of a body already shared.
pub fn batch_get_in(body: Arc<String>, table: &str) -> Result<BatchGet, serde_json::Error> {
    #[derive(Deserialize)]
    struct Keys<'a> {
        #[serde(rename = "Keys", borrow, default)]
        keys: Vec<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Raw<'a> {
        #[serde(rename = "Responses", borrow, default)]
        responses: HashMap<Cow<'a, str>, Vec<&'a RawValue>>,
        #[serde(rename = "UnprocessedKeys", borrow, default)]
        unprocessed: HashMap<Cow<'a, str>, Keys<'a>>,
        #[serde(rename = "ConsumedCapacity", borrow, default)]
        consumed: Option<&'a RawValue>,
    }
    let raw: Raw<'_> = serde_json::from_str(&body)?;
    let found = raw
        .responses
        .get(table)
        .map(|items| items.iter().map(|i| WireItem::within(&body, i)).collect())
        .unwrap_or_default();
    let unprocessed = match raw.unprocessed.get(table) {
        Some(k) => k
            .keys
            .iter()
            .map(|k| tree::item(k.get()))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let consumed = Consumed::of(raw.consumed)?;
    Ok(BatchGet {
        found,
        unprocessed,
        capacity_units: consumed.units,
        consumed,
    })
}

/// Read a TransactGetItems answer: each step's item (`None` for no item), in order, and the
/// capacity consumed.
pub fn transact_get(body: String) -> Result<(Vec<Option<WireItem>>, Consumed), serde_json::Error> {
    #[derive(Deserialize)]
    struct Response<'a> {
        #[serde(rename = "Item", borrow, default)]
        item: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Raw<'a> {
        #[serde(rename = "Responses", borrow, default)]
        responses: Vec<Response<'a>>,
        #[serde(rename = "ConsumedCapacity", borrow, default)]
        consumed: Option<&'a RawValue>,
    }
    let body = Arc::new(body);
    let raw: Raw<'_> = serde_json::from_str(&body)?;
    let items = raw
        .responses
        .iter()
        .map(|r| {
            r.item
                .filter(|i| !is_empty(i))
                .map(|i| WireItem::within(&body, i))
        })
        .collect();
    Ok((items, Consumed::of(raw.consumed)?))
}

/// A PutItem, UpdateItem or DeleteItem answer.
#[derive(Debug, Default, PartialEq)]
pub struct Written {
    /// The attributes it returned (`Attributes`), when it asked for any and some are.
    pub attributes: Option<Item>,
    /// The capacity it consumed.
    pub consumed: Consumed,
    /// Its item collection (`ItemCollectionMetrics`): the collection's key and its size
    /// estimate in GB, each when the answer gives it.
    pub collection: Option<(Option<Item>, Option<Vec<f64>>)>,
}

/// Read a PutItem, UpdateItem or DeleteItem answer.
pub fn written(body: &str) -> Result<Written, serde_json::Error> {
    #[derive(Deserialize)]
    struct Collection<'a> {
        #[serde(rename = "ItemCollectionKey", borrow, default)]
        key: Option<&'a RawValue>,
        #[serde(rename = "SizeEstimateRangeGB", default)]
        size: Option<Vec<f64>>,
    }
    #[derive(Deserialize)]
    struct Raw<'a> {
        #[serde(rename = "Attributes", borrow, default)]
        attributes: Option<&'a RawValue>,
        #[serde(rename = "ConsumedCapacity", borrow, default)]
        consumed: Option<&'a RawValue>,
        #[serde(rename = "ItemCollectionMetrics", borrow, default)]
        collection: Option<Collection<'a>>,
    }
    let raw: Raw<'_> = serde_json::from_str(or_empty(body))?;
    let attributes = match raw.attributes.filter(|a| !is_empty(a) && !is_null(a)) {
        Some(a) => Some(tree::item(a.get())?),
        None => None,
    };
    let collection = match raw.collection {
        Some(c) => {
            let key = match c.key.filter(|k| !is_null(k)) {
                Some(k) => Some(tree::item(k.get())?),
                None => None,
            };
            Some((key, c.size))
        }
        None => None,
    };
    Ok(Written {
        attributes,
        consumed: Consumed::of(raw.consumed)?,
        collection,
    })
}

/// A request of a BatchWriteItem answer left unprocessed.
#[derive(Debug, Clone, PartialEq)]
pub enum Unprocessed {
    /// A put of this item.
    Put(Item),
    /// A delete of this key.
    Delete(Item),
}

/// A BatchWriteItem answer, for one table.
#[derive(Debug, Default, PartialEq)]
pub struct BatchWritten {
    /// The requests left unprocessed, in the answer's order.
    pub unprocessed: Vec<Unprocessed>,
    /// The capacity it consumed.
    pub consumed: Consumed,
}

/// Read a BatchWriteItem answer for table `table`.
pub fn batch_written(body: &str, table: &str) -> Result<BatchWritten, serde_json::Error> {
    #[derive(Deserialize)]
    struct Put<'a> {
        #[serde(rename = "Item", borrow)]
        item: &'a RawValue,
    }
    #[derive(Deserialize)]
    struct Delete<'a> {
        #[serde(rename = "Key", borrow)]
        key: &'a RawValue,
    }
    #[derive(Deserialize)]
    struct Request<'a> {
        #[serde(rename = "PutRequest", borrow, default)]
        put: Option<Put<'a>>,
        #[serde(rename = "DeleteRequest", borrow, default)]
        delete: Option<Delete<'a>>,
    }
    #[derive(Deserialize)]
    struct Raw<'a> {
        #[serde(rename = "UnprocessedItems", borrow, default)]
        unprocessed: Option<HashMap<Cow<'a, str>, Option<Vec<Request<'a>>>>>,
        #[serde(rename = "ConsumedCapacity", borrow, default)]
        consumed: Option<&'a RawValue>,
    }
    let raw: Raw<'_> = serde_json::from_str(or_empty(body))?;
    let mut unprocessed = Vec::new();
    let requests = raw
        .unprocessed
        .as_ref()
        .and_then(|u| u.get(table))
        .and_then(Option::as_ref);
    for request in requests.into_iter().flatten() {
        unprocessed.push(match (&request.put, &request.delete) {
            (Some(put), None) => Unprocessed::Put(tree::item(put.item.get())?),
            (None, Some(delete)) => Unprocessed::Delete(tree::item(delete.key.get())?),
            _ => {
                use serde::de::Error as _;
                let why = "an unprocessed request is neither one put nor one delete";
                return Err(serde_json::Error::custom(why));
            }
        });
    }
    Ok(BatchWritten {
        unprocessed,
        consumed: Consumed::of(raw.consumed)?,
    })
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue as AV;

    use super::*;

    #[test]
    fn write_answers_read_their_attributes_capacity_and_collection() {
        let body = r#"{"Attributes":{"PK":{"S":"a"},"n":{"N":"1"}},
            "ConsumedCapacity":{"TableName":"t","CapacityUnits":2.0},
            "ItemCollectionMetrics":{"ItemCollectionKey":{"PK":{"S":"a"}},"SizeEstimateRangeGB":[0.0,1.0]}}"#;
        let w = written(body).unwrap();
        let attributes = w.attributes.unwrap();
        assert_eq!(attributes.get("n"), Some(&AV::N("1".into())));
        assert_eq!(w.consumed.units, 2.0);
        let (key, size) = w.collection.unwrap();
        assert_eq!(key.unwrap().get("PK"), Some(&AV::S("a".into())));
        assert_eq!(size, Some(vec![0.0, 1.0]));
        assert_eq!(written("").unwrap(), Written::default());
        assert_eq!(written(r#"{"Attributes":null}"#).unwrap().attributes, None);

        assert_eq!(written("{}").unwrap(), Written::default());
        assert_eq!(written(r#"{"Attributes":{}}"#).unwrap().attributes, None);
        assert!(written(r#"{"Attributes":{"a":{"Q":"?"}}}"#).is_err());
        assert!(written("[").is_err());
    }

    #[test]
    fn batch_write_answers_read_their_unprocessed_requests() {
        let body = r#"{"UnprocessedItems":{"t":[{"PutRequest":{"Item":{"PK":{"S":"a"}}}},
            {"DeleteRequest":{"Key":{"PK":{"S":"b"}}}}],"other":[{"PutRequest":{"Item":{}}}]},
            "ConsumedCapacity":[{"TableName":"t","CapacityUnits":3.0}]}"#;
        let w = batch_written(body, "t").unwrap();
        let key = |v: &str| Item::from([("PK".to_owned(), AV::S(v.into()))]);
        assert_eq!(
            w.unprocessed,
            vec![Unprocessed::Put(key("a")), Unprocessed::Delete(key("b"))]
        );
        assert_eq!(w.consumed.units, 3.0);
        assert_eq!(batch_written("{}", "t").unwrap(), BatchWritten::default());
        assert_eq!(batch_written("", "t").unwrap(), BatchWritten::default());
        let nothing = r#"{"UnprocessedItems":null,"ConsumedCapacity":null}"#;
        assert_eq!(
            batch_written(nothing, "t").unwrap(),
            BatchWritten::default()
        );
        let both =
            r#"{"UnprocessedItems":{"t":[{"PutRequest":{"Item":{}},"DeleteRequest":{"Key":{}}}]}}"#;
        assert!(batch_written(both, "t").is_err());
        assert!(batch_written(r#"{"UnprocessedItems":{"t":[{}]}}"#, "t").is_err());
    }
}
