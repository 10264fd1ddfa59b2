//! Conformance with `@faceteer/facet` 6.0.0 items: `faceteer-items.json` holds, for each case,
//! a facet configuration, a model and the exact item Faceteer wrote for it. A Rust struct
//! declaring the same facet must write exactly that item (numbers compared by value) and read
//! the item back as the model. No case is skipped.

use crate::common;

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Utc};
use faceteer::{Facet, Item, Nullable, TtlValue};
use faceteer_core::schema::KeySchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "ORDER")]
#[serde(rename_all = "camelCase")]
pub(crate) struct Order {
    #[pk(prefix = "#CUSTOMER")]
    #[gsi(n = 1, alias = "GSIStatusPlaced", pk, prefix = "#CUST_STATUS")]
    pub(crate) customer_id: String,
    #[gsi(n = 1, pk)]
    pub(crate) status: String,
    #[gsi(n = 2, alias = "GSIRegionPlaced", pk, prefix = "#REGION")]
    pub(crate) region: String,
    #[gsi(n = 1, sk, prefix = "#PLACED")]
    #[gsi(n = 2, sk, prefix = "#PLACED")]
    #[serde(with = "faceteer::timestamp")]
    pub(crate) placed_at: DateTime<Utc>,
    #[sk(prefix = "#ORDER")]
    #[gsi(n = 2, sk)]
    #[shard(count = 8, gsi = 2)]
    pub(crate) order_id: String,
    #[serde(default, with = "faceteer::timestamp::option")]
    pub(crate) shipped_at: Option<DateTime<Utc>>,
    pub(crate) total: f64,
    pub(crate) items: u32,
    pub(crate) gift: bool,
    pub(crate) note: String,
    pub(crate) lines: Vec<Line>,
    pub(crate) shipping: Shipping,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Line {
    pub(crate) sku: String,
    pub(crate) qty: u64,
    pub(crate) price: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Shipping {
    pub(crate) city: String,
    pub(crate) zip: Option<String>,
    #[serde(default)]
    pub(crate) instructions: Nullable<String>,
}

/// Faceteer's `ttl` field may hold epoch seconds, a `Date` or text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Expires {
    Seconds(i64),
    At(#[serde(with = "faceteer::timestamp")] DateTime<Utc>),
    Text(String),
}

impl TtlValue for Expires {
    fn ttl_seconds(&self) -> Option<i64> {
        match self {
            Expires::Seconds(s) => Some(*s),
            Expires::At(t) => t.ttl_seconds(),
            Expires::Text(t) => faceteer::key::ttl_from_text(t),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "DEVICE", delimiter = "#")]
#[serde(rename_all = "camelCase")]
pub(crate) struct Device {
    #[pk(prefix = "OWNER")]
    #[gsi(n = 3, alias = "GSISerial", sk, prefix = "OWNER")]
    pub(crate) owner_id: String,
    #[sk(prefix = "DEVICE")]
    pub(crate) kind: String,
    #[sk]
    pub(crate) device_id: String,
    #[gsi(n = 3, pk, prefix = "SERIAL")]
    pub(crate) serial: Option<String>,
    #[ttl]
    pub(crate) expires: Expires,
    #[serde(with = "faceteer::timestamp")]
    pub(crate) enrolled: DateTime<Utc>,
    #[serde(default, with = "faceteer::timestamp::option")]
    pub(crate) last_seen: Option<DateTime<Utc>>,
    pub(crate) tags: Vec<String>,
    pub(crate) battery: f64,
    pub(crate) active: bool,
    pub(crate) meta: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "EVENT")]
#[serde(rename_all = "camelCase")]
pub(crate) struct Event {
    #[pk(prefix = "#STREAM")]
    #[shard(count = 16)]
    pub(crate) stream_id: String,
    #[sk(prefix = "#SEQ")]
    #[shard(count = 16)]
    pub(crate) seq: u64,
    pub(crate) payload: Payload,
    #[serde(with = "faceteer::timestamp")]
    pub(crate) at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Payload {
    pub(crate) kind: String,
    pub(crate) from: Option<String>,
    pub(crate) to: Option<String>,
    #[serde(default)]
    pub(crate) reason: Nullable<String>,
}

#[derive(Deserialize)]
struct Case {
    facet: Value,
    model: Value,
    item: Value,
}

fn load_cases() -> Vec<Case> {
    common::load_vectors("faceteer-items.json")
}

/// The model as plain JSON: `{"$undefined": true}` members removed, `{"$date": iso}` as the
/// ISO text.
fn plain_model(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.contains_key("$date") => m["$date"].clone(),
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| v.get("$undefined").is_none())
                .map(|(k, v)| (k.clone(), plain_model(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(plain_model).collect()),
        other => other.clone(),
    }
}

/// AttributeValue JSON (`{"S": ..}`, `{"N": ..}`, …) as an SDK attribute value.
fn attribute(v: &Value) -> AttributeValue {
    let (kind, inner) = v
        .as_object()
        .and_then(|m| m.iter().next())
        .expect("an attribute value is a one-member object");
    let strings = || -> Vec<String> {
        inner
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    match kind.as_str() {
        "S" => AttributeValue::S(inner.as_str().unwrap().to_owned()),
        "N" => AttributeValue::N(inner.as_str().unwrap().to_owned()),
        "BOOL" => AttributeValue::Bool(inner.as_bool().unwrap()),
        "NULL" => AttributeValue::Null(inner.as_bool().unwrap()),
        "L" => AttributeValue::L(inner.as_array().unwrap().iter().map(attribute).collect()),
        "M" => AttributeValue::M(item(inner)),
        "SS" => AttributeValue::Ss(strings()),
        "NS" => AttributeValue::Ns(strings()),
        "B" => AttributeValue::B(Blob::new(inner.as_str().unwrap().as_bytes())),
        other => panic!("attribute type {other} is not in the vectors' vocabulary"),
    }
}

fn item(v: &Value) -> Item {
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), attribute(v)))
        .collect()
}

/// A DynamoDB number's value: sign, significant digits, exponent of the first digit.
fn number_value(text: &str) -> (bool, String, i64) {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().expect("exponent")),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let leading = digits.len() - digits.trim_start_matches('0').len();
    let significant = digits.trim_start_matches('0').trim_end_matches('0');
    if significant.is_empty() {
        return (false, "0".into(), 0);
    }
    let position = int.len() as i64 - leading as i64 + exponent;
    (negative, significant.to_owned(), position)
}

/// Compare two attribute values, numbers by value; `Err` names the first difference.
fn same(path: &str, got: &AttributeValue, want: &AttributeValue) -> Result<(), String> {
    use AttributeValue as A;
    match (got, want) {
        (A::N(a), A::N(b)) if number_value(a) == number_value(b) => Ok(()),
        (A::Ns(a), A::Ns(b)) if a.len() == b.len() => {
            let mut a: Vec<_> = a.iter().map(|n| number_value(n)).collect();
            let mut b: Vec<_> = b.iter().map(|n| number_value(n)).collect();
            a.sort();
            b.sort();
            (a == b)
                .then_some(())
                .ok_or_else(|| format!("{path}: {got:?} != {want:?}"))
        }
        (A::L(a), A::L(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .try_for_each(|(i, (a, b))| same(&format!("{path}[{i}]"), a, b)),
        (A::M(a), A::M(b)) => same_item(path, a, b),
        (a, b) if a == b => Ok(()),
        _ => Err(format!("{path}: wrote {got:?}, Faceteer wrote {want:?}")),
    }
}

fn same_item(path: &str, got: &Item, want: &Item) -> Result<(), String> {
    let mut names: Vec<&String> = got.keys().chain(want.keys()).collect();
    names.sort();
    names.dedup();
    for name in names {
        let at = format!("{path}.{name}");
        match (got.get(name), want.get(name)) {
            (Some(g), Some(w)) => same(&at, g, w)?,
            (Some(g), None) => return Err(format!("{at}: wrote {g:?}, Faceteer wrote nothing")),
            (None, Some(w)) => return Err(format!("{at}: wrote nothing, Faceteer wrote {w:?}")),
            (None, None) => unreachable!(),
        }
    }
    Ok(())
}

/// The facet configuration of the vector, compared with the derived schema.
fn check_schema<F: Facet>(config: &Value) {
    let schema = F::SCHEMA;
    let text = |v: &Value| v.as_str().unwrap().to_owned();
    let names = |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(text).collect() };
    let check_key = |what: &str, key: &KeySchema, config: &Value| {
        assert_eq!(key.prefix, text(&config["prefix"]), "{what} prefix");
        assert_eq!(key.fields, names(&config["keys"]), "{what} fields");
        match (&key.shard, config.get("shard")) {
            (None, None) => {}
            (Some(s), Some(c)) => {
                assert_eq!(
                    u64::from(s.count),
                    c["count"].as_u64().unwrap(),
                    "{what} shards"
                );
                assert_eq!(s.fields, names(&c["keys"]), "{what} shard fields");
            }
            (s, c) => panic!("{what}: shard {s:?} against {c:?}"),
        }
    };
    assert_eq!(schema.name, text(&config["name"]));
    assert_eq!(schema.delimiter, text(&config["delimiter"]));
    assert_eq!(
        schema.ttl_field.map(str::to_owned),
        config.get("ttl").map(text)
    );
    check_key("PK", &schema.pk, &config["PK"]);
    check_key("SK", &schema.sk, &config["SK"]);
    let indexes = config["indexes"].as_array().unwrap();
    assert_eq!(schema.indexes.len(), indexes.len(), "indexes");
    for (index, config) in schema.indexes.iter().zip(indexes) {
        assert_eq!(index.name, text(&config["index"]));
        assert_eq!(
            index.alias.map(str::to_owned),
            config.get("alias").map(text)
        );
        check_key(index.name, &index.pk, &config["PK"]);
        let sk = index
            .sk
            .as_ref()
            .expect("every Faceteer index has a sort key");
        check_key(index.name, sk, &config["SK"]);
    }
}

/// Write the model and compare with Faceteer's item; read Faceteer's item back as the model.
fn check_case<F: Facet + PartialEq + std::fmt::Debug>(case: &Case) {
    check_schema::<F>(&case.facet);
    let model: F = serde_json::from_value(plain_model(&case.model))
        .unwrap_or_else(|e| panic!("model {} as a Rust record: {e}", case.model));
    let expected = item(&case.item);
    let written = faceteer::to_item(&model).expect("the record is written");
    if let Err(difference) = same_item(F::SCHEMA.name, &written, &expected) {
        panic!("writing {}: {difference}", case.model);
    }
    let read: F = faceteer::from_item(expected).expect("Faceteer's item reads back");
    assert_eq!(read, model, "reading Faceteer's item for {}", case.model);
}

#[test]
fn every_item_vector_is_written_and_read_as_faceteer_does() {
    let cases = load_cases();
    assert!(!cases.is_empty());
    let mut checked: HashMap<String, usize> = HashMap::new();
    for case in &cases {
        let name = case.facet["name"].as_str().unwrap();
        match name {
            "ORDER" => check_case::<Order>(case),
            "DEVICE" => check_case::<Device>(case),
            "EVENT" => check_case::<Event>(case),
            other => panic!("no Rust facet declared for vector facet {other}: add one"),
        }
        *checked.entry(name.to_owned()).or_default() += 1;
    }
    assert_eq!(checked.values().sum::<usize>(), cases.len());
}

#[test]
fn numbers_compare_by_value() {
    assert_eq!(number_value("1e-7"), number_value("0.0000001"));
    assert_eq!(number_value("-12"), number_value("-12.0"));
    assert_eq!(number_value("0"), number_value("-0.00"));
    assert_ne!(number_value("10"), number_value("1"));
    assert_ne!(number_value("-1"), number_value("1"));
}

/// The vectors' records of each facet, in file order.
fn models_of(cases: &[Case]) -> (Vec<Order>, Vec<Device>, Vec<Event>) {
    fn of<T: serde::de::DeserializeOwned>(cases: &[Case], name: &str) -> Vec<T> {
        cases
            .iter()
            .filter(|c| c.facet["name"] == name)
            .map(|c| serde_json::from_value(plain_model(&c.model)).unwrap())
            .collect()
    }
    (of(cases, "ORDER"), of(cases, "DEVICE"), of(cases, "EVENT"))
}

/// The records of Faceteer's item vectors, as Rust records.
pub(crate) fn vector_models() -> (Vec<Order>, Vec<Device>, Vec<Event>) {
    models_of(&load_cases())
}

faceteer::table! {
    /// The vectors' facets, in one table.
    struct VectorTable { Order, Device, Event }
}

/// Items written by Faceteer 6.0.0, stored as they are, are found by every access pattern
/// of their Rust facets: by key, by base partition, and through each index (sharded and
/// absent-field partitions included). Items Rust writes are byte-identical to these (the test
/// above), so Faceteer's access patterns find Rust's records the same way.
async fn faceteer_items_are_found_through_every_access_pattern() {
    let table = faceteer_suite::fresh_table::<VectorTable>("interop").await;
    let cases = load_cases();
    for case in &cases {
        common::put_raw(&table, item(&case.item)).await.unwrap();
    }
    let (orders, devices, events) = models_of(&cases);

    for o in &orders {
        let key = Order::key(&o.customer_id, &o.order_id).unwrap();
        assert_eq!(table.get(&key).await.unwrap().as_ref(), Some(o));
        let by_status = table
            .query(Order::by_gsi_status_placed(&o.customer_id, &o.status).equals(o.placed_at))
            .await
            .unwrap();
        assert_eq!(by_status.records, vec![o.clone()]);
        // GSI2 is sharded by order id: every shard is read and merged.
        let by_region = table
            .query(Order::by_gsi_region_placed(&o.region).list())
            .all()
            .await
            .unwrap();
        assert_eq!(by_region, vec![o.clone()]);
    }
    let c1 = table.query(Order::query("c-1").list()).all().await.unwrap();
    assert_eq!(c1, orders[..2].to_vec());

    for d in &devices {
        let key = Device::key(&d.owner_id, &d.kind, &d.device_id).unwrap();
        assert_eq!(table.get(&key).await.unwrap().as_ref(), Some(d));
        let by_serial = table
            .query(Device::by_gsi_serial(d.serial.as_deref()).equals(&d.owner_id))
            .all()
            .await
            .unwrap();
        assert_eq!(by_serial, vec![d.clone()]);
    }
    let u1 = table
        .query(Device::query("u-1").begins_with(("laptop",)))
        .all()
        .await
        .unwrap();
    assert_eq!(u1, vec![devices[1].clone()]);

    for e in &events {
        let key = Event::key(&e.stream_id, e.seq).unwrap();
        assert_eq!(table.get(&key).await.unwrap().as_ref(), Some(e));
        let found = table
            .query(Event::query(&e.stream_id).equals(e.seq))
            .await
            .unwrap();
        assert_eq!(found.records, vec![e.clone()]);
    }
}

faceteer_suite::engines!(faceteer_items_are_found_through_every_access_pattern,);
