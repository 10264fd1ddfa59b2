//! The direct read path ([`faceteer::ReadPath::Direct`]) reads exactly what the SDK's path
//! reads: random items of every attribute type decoded both ways, to equal records and equal
//! errors; and the same pages read through a server both ways.

use crate::common;

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue as AV;
use base64::Engine as _;
use common::*;
use faceteer::{Facet, Item, ReadPath};
use faceteer_core::wire::{from_wire, tree};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An item in DynamoDB's JSON, written here independently of the code under test.
fn json(item: &Item) -> String {
    fn value(v: &AV) -> Value {
        let b64 = |b: &[u8]| Value::String(base64::engine::general_purpose::STANDARD.encode(b));
        let (kind, value) = match v {
            AV::S(s) => ("S", Value::String(s.clone())),
            AV::N(n) => ("N", Value::String(n.clone())),
            AV::Bool(b) => ("BOOL", Value::Bool(*b)),
            AV::Null(b) => ("NULL", Value::Bool(*b)),
            AV::B(b) => ("B", b64(b.as_ref())),
            AV::Ss(v) => ("SS", v.iter().cloned().map(Value::String).collect()),
            AV::Ns(v) => ("NS", v.iter().cloned().map(Value::String).collect()),
            AV::Bs(v) => ("BS", v.iter().map(|b| b64(b.as_ref())).collect()),
            AV::L(l) => ("L", l.iter().map(value).collect()),
            AV::M(m) => ("M", map(m)),
            other => panic!("no JSON for {other:?}"),
        };
        Value::Object(serde_json::Map::from_iter([(kind.to_owned(), value)]))
    }
    fn map(m: &Item) -> Value {
        Value::Object(m.iter().map(|(k, v)| (k.clone(), value(v))).collect())
    }
    map(item).to_string()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Color {
    Red,
    Green,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Shape {
    Circle(f64),
    Rect { w: u16, h: u16 },
    Point,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inner {
    pub label: String,
    pub tags: Vec<String>,
    pub depth: Option<Box<Inner>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meters(pub f64);

/// A facet with a field of every kind serde and DynamoDB have.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "EVERYTHING", validator = no_poison)]
#[serde(rename_all = "camelCase")]
pub struct Everything {
    #[pk(prefix = "#E")]
    pub id: String,
    #[sk(prefix = "#N")]
    #[gsi(n = 1, pk, prefix = "#NN")]
    pub n: u32,
    pub text: String,
    pub small: i8,
    pub big: i64,
    pub unsigned: u64,
    pub float: f64,
    pub flag: bool,
    pub maybe: Option<String>,
    #[serde(default)]
    pub absent: Option<i32>,
    pub list: Vec<i64>,
    pub nested: Vec<Vec<String>>,
    pub map: HashMap<String, f64>,
    pub numeric_keys: BTreeMap<u32, String>,
    #[serde(with = "serde_bytes_like")]
    pub bytes: Vec<u8>,
    pub tuple: (i32, String),
    pub color: Color,
    pub shape: Shape,
    pub inner: Inner,
    pub ch: char,
    pub unit: (),
    pub meters: Meters,
    pub json: serde_json::Value,
}

/// Bytes as serde bytes (`B`), not a list of numbers.
mod serde_bytes_like {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        let _ = Deserialize::deserialize as fn(D) -> Result<Vec<u8>, D::Error>;
        d.deserialize_byte_buf(Bytes)
    }
}

fn no_poison(e: &Everything) -> Result<(), String> {
    if e.text.starts_with("POISON") {
        return Err("poisoned text".into());
    }
    Ok(())
}

faceteer::table! { pub struct Everywhere { Everything } }

fn inner() -> impl Strategy<Value = Inner> {
    let leaf =
        ("\\PC{0,8}", proptest::collection::vec("\\PC{0,4}", 0..3)).prop_map(|(label, tags)| {
            Inner {
                label,
                tags,
                depth: None,
            }
        });
    leaf.prop_recursive(2, 4, 1, |inner| {
        ("\\PC{0,8}", inner).prop_map(|(label, depth)| Inner {
            label,
            tags: Vec::new(),
            depth: Some(Box::new(depth)),
        })
    })
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i32>().prop_map(serde_json::Value::from),
        "\\PC{0,6}".prop_map(serde_json::Value::from),
        proptest::collection::vec(any::<u8>(), 0..3).prop_map(serde_json::Value::from),
    ]
}

prop_compose! {
    fn everything()(
        id in "[a-z0-9]{1,8}",
        n in any::<u32>(),
        text in "(POISON)?[\\PC\"\\\\\\n\\t]{0,16}",
        small in any::<i8>(),
        big in any::<i64>(),
        unsigned in any::<u64>(),
        float in -1e100f64..1e100,
        flag in any::<bool>(),
        maybe in proptest::option::of("\\PC{0,8}"),
        list in proptest::collection::vec(any::<i64>(), 0..4),
        nested in proptest::collection::vec(proptest::collection::vec("\\PC{0,3}", 0..3), 0..3),
        map in proptest::collection::hash_map("[a-z]{1,4}", -1e6f64..1e6, 0..3),
        numeric_keys in proptest::collection::btree_map(any::<u32>(), "\\PC{0,3}", 0..3),
        bytes in proptest::collection::vec(any::<u8>(), 0..8),
        tuple in (any::<i32>(), "\\PC{0,4}"),
        color in prop_oneof![Just(Color::Red), Just(Color::Green)],
        shape in prop_oneof![
            (-1e3f64..1e3).prop_map(Shape::Circle),
            (any::<u16>(), any::<u16>()).prop_map(|(w, h)| Shape::Rect { w, h }),
            Just(Shape::Point),
        ],
        inner in inner(),
        ch in any::<char>(),
        meters in -1e9f64..1e9,
        json in json_value(),
    ) -> Everything {
        Everything {
            id, n, text, small, big, unsigned, float, flag, maybe, absent: None, list, nested,
            map, numeric_keys, bytes, tuple, color, shape, inner, ch, unit: (),
            meters: Meters(meters), json,
        }
    }
}

/// A stored item of the facet with some attributes replaced (by any value, another facet's
/// name, a schema version) or removed.
fn altered_item() -> impl Strategy<Value = (Item, bool)> {
    let names = [
        "PK",
        "SK",
        "facet",
        "GSI1PK",
        "text",
        "small",
        "big",
        "unsigned",
        "float",
        "flag",
        "maybe",
        "absent",
        "list",
        "nested",
        "map",
        "numericKeys",
        "bytes",
        "tuple",
        "color",
        "shape",
        "inner",
        "ch",
        "unit",
        "meters",
        "json",
        "_facet_version",
        "extra",
    ];
    let special = prop_oneof![
        Just(AV::S("OTHER".into())),
        Just(AV::S("EVERYTHING".into())),
        Just(AV::N("1".into())),
        Just(AV::N("2".into())),
        Just(AV::N("x".into())),
        Just(AV::Null(true)),
    ];
    let value = prop_oneof![3 => attribute_value(), 1 => special];
    let changes = proptest::collection::vec((0..names.len(), proptest::option::of(value)), 0..4);
    (everything(), changes).prop_map(move |(record, changes)| {
        let mut item = faceteer::to_item(&record).unwrap();
        // Which member an error names is certain only with at most one altered member
        // holding a scalar (maps are walked in their `HashMap` order).
        let scalar = |v: &Option<AV>| {
            matches!(
                v,
                None | Some(AV::S(_) | AV::N(_) | AV::B(_) | AV::Bool(_) | AV::Null(_))
            )
        };
        let certain = changes.len() <= 1 && changes.iter().all(|(_, v)| scalar(v));
        for (at, value) in changes {
            match value {
                Some(v) => item.insert(names[at].to_owned(), v),
                None => item.remove(names[at]),
            };
        }
        (item, certain)
    })
}

/// The kind of an error (its variant, and its facet), without what it found.
fn kind(e: &str) -> &str {
    e.split([':', ',', '(', '{']).next().unwrap_or(e)
}

/// A record, or the error's text.
fn outcome<F: std::fmt::Debug>(r: Result<F, faceteer::error::ItemError>) -> Result<F, String> {
    r.map_err(|e| e.to_string())
}

fn cases() -> ProptestConfig {
    ProptestConfig {
        cases: 1_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn any_item_reads_from_json_as_the_sdk_tree(
        item in proptest::collection::hash_map("\\PC{1,6}", attribute_value(), 0..8)
    ) {
        prop_assert_eq!(tree::item(&json(&item)).unwrap(), item);
    }

    #[test]
    fn a_record_reads_from_json_as_it_was_written(record in everything()) {
        let item = faceteer::to_item(&record).unwrap();
        let direct = outcome(from_wire::<Everything>(&json(&item)));
        let sdk = outcome(faceteer::from_item::<Everything>(item));
        prop_assert_eq!(&direct, &sdk);
        if !record.text.starts_with("POISON") {
            prop_assert_eq!(direct, Ok(record));
        }
    }

    #[test]
    fn any_altered_item_reads_alike_both_ways((item, certain) in altered_item()) {
        let direct = outcome(from_wire::<Everything>(&json(&item)));
        let sdk = outcome(faceteer::from_item::<Everything>(item));
        match (&direct, &sdk) {
            // With several bad members, which one an error names depends on the order of
            // the item's map (a `HashMap` in both paths), and a map printed in an error
            // prints in that order too: the errors agree in kind.
            (Err(a), Err(b)) if !certain => {
                prop_assert_eq!(kind(a), kind(b))
            }
            _ => prop_assert_eq!(direct, sdk),
        }
    }

    #[test]
    fn a_versioned_facet_reads_alike_both_ways(
        version in proptest::option::of(prop_oneof![Just("1"), Just("2"), Just("3"), Just("z")]),
        full in proptest::option::of("\\PC{0,6}"),
        first in proptest::option::of("\\PC{0,6}"),
    ) {
        use crate::backfill::people::v2::Person;
        let mut item = Item::new();
        item.insert("PK".into(), AV::S("#PERSON_p".into()));
        item.insert("id".into(), AV::S("p".into()));
        if let Some(v) = version {
            item.insert("_facet_version".into(), AV::N(v.into()));
        }
        if let Some(f) = full {
            item.insert("fullName".into(), AV::S(f));
        }
        if let Some(f) = first {
            item.insert("first".into(), AV::S(f.clone()));
            item.insert("last".into(), AV::S(f));
        }
        let direct = outcome(from_wire::<Person>(&json(&item)));
        let sdk = outcome(faceteer::from_item::<Person>(item));
        prop_assert_eq!(direct, sdk);
    }
}

/// The JSON of one attribute value, `{"T": ..}`.
fn value_json(v: &AV) -> String {
    let member = json(&Item::from([(String::new(), v.clone())]));
    member["{\"\":".len()..member.len() - 1].to_owned()
}

/// Members a duplicate is injected for: the library's attributes, then fields of every
/// kind, then a name no field has.
const DUPLICATED: [&str; 16] = [
    "facet",
    "PK",
    "SK",
    "_facet_version",
    "ttl",
    "GSI1PK",
    "text",
    "small",
    "maybe",
    "absent",
    "map",
    "inner",
    "color",
    "shape",
    "json",
    "extra",
];

/// One injected member: its name, its JSON text and the value that text holds.
type Injected = (String, String, AV);

/// A value to inject for a name: any, one that names this or another facet or version, the
/// same value the item holds, or (as raw text) a map that holds a member twice itself.
fn injected_value() -> impl Strategy<Value = Option<(String, AV)>> {
    let with_json = |v: AV| Some((value_json(&v), v));
    let m = |pairs: &[(&str, AV)]| {
        AV::M(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    };
    let s = |t: &str| AV::S(t.into());
    let n = |t: &str| AV::N(t.into());
    // `{"M": {"a": 1, "a": 2}}` and an `Inner` whose label comes twice: the last is kept.
    let nested = [
        (
            r#"{"M":{"a":{"N":"1"},"b":{"N":"2"},"a":{"N":"3"}}}"#.to_owned(),
            m(&[("a", n("3")), ("b", n("2"))]),
        ),
        (
            r#"{"M":{"label":{"S":"x"},"tags":{"L":[]},"label":{"S":"y"}}}"#.to_owned(),
            m(&[("label", s("y")), ("tags", AV::L(vec![]))]),
        ),
    ];
    prop_oneof![
        3 => attribute_value().prop_map(with_json),
        3 => prop_oneof![
            Just(s("EVERYTHING")),
            Just(s("OTHER")),
            Just(n("1")),
            Just(n("2")),
            Just(s("#E_x")),
            Just(s("Red")),
            Just(n("7")),
        ]
        .prop_map(with_json),
        3 => Just(None),
        1 => proptest::sample::select(nested.to_vec()).prop_map(Some),
    ]
}

/// A record's item, as JSON with members injected before and after its own (so that each
/// name given twice or more comes first or last), and the item the SDK's decoder reads from
/// that text: each name's last member.
fn item_with_duplicates() -> impl Strategy<Value = (String, Item)> {
    let injection = (0..DUPLICATED.len(), injected_value(), any::<bool>());
    (everything(), proptest::collection::vec(injection, 1..5)).prop_map(|(record, injections)| {
        let item = faceteer::to_item(&record).unwrap();
        let (mut before, mut after): (Vec<Injected>, Vec<Injected>) = (vec![], vec![]);
        for (at, value, last) in injections {
            let name = DUPLICATED[at];
            // `None`: the very value the item holds (or the facet's name).
            let (text, value) = value.unwrap_or_else(|| {
                let v = item
                    .get(name)
                    .cloned()
                    .unwrap_or(AV::S("EVERYTHING".into()));
                (value_json(&v), v)
            });
            let member = (name.to_owned(), text, value);
            if last {
                after.push(member)
            } else {
                before.push(member)
            }
        }
        let own = json(&item);
        let member = |(n, text, _): &Injected| format!("{}:{text}", Value::from(n.as_str()));
        let members: Vec<String> = (before.iter().map(member))
            .chain(std::iter::once(own[1..own.len() - 1].to_owned()))
            .chain(after.iter().map(member))
            .collect();
        let text = format!("{{{}}}", members.join(","));
        let mut expected = Item::new();
        for (n, _, v) in &before {
            expected.insert(n.clone(), v.clone());
        }
        expected.extend(item);
        for (n, _, v) in after {
            expected.insert(n, v);
        }
        (text, expected)
    })
}

/// An attribute's text, when it is a string.
fn s_of<'a>(item: &'a Item, name: &str) -> Option<&'a str> {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

proptest! {
    #![proptest_config(cases())]

    /// An item holding members twice (`facet`, the keys, the schema version, `ttl`, fields,
    /// members of nested maps) reads alike both ways: the SDK's decoder keeps each name's
    /// last member, and so do the tree, the direct decoder and the direct path's lookups
    /// of single attributes (the facet, the keys, the ttl).
    #[test]
    fn duplicated_members_read_alike_both_ways((text, expected) in item_with_duplicates()) {
        let tree = tree::item(&text).unwrap();
        prop_assert_eq!(&tree, &expected, "{}", text);
        let direct = outcome(from_wire::<Everything>(&text));
        let sdk = outcome(faceteer::from_item::<Everything>(expected.clone()));
        match (&direct, &sdk) {
            (Err(a), Err(b)) => prop_assert_eq!(kind(a), kind(b), "{}", text),
            _ => prop_assert_eq!(&direct, &sdk, "{}", text),
        }
        let wire = faceteer_core::wire::WireItem::new(text.clone());
        prop_assert_eq!(
            wire.is_foreign("EVERYTHING"),
            faceteer_core::convert::is_foreign(&expected, "EVERYTHING"),
            "{}", text
        );
        let keys = wire.key_texts();
        let keys = keys.as_ref().map(|(pk, sk)| (pk.as_ref(), sk.as_ref()));
        let want = s_of(&expected, "PK").zip(s_of(&expected, "SK"));
        prop_assert_eq!(keys, want, "{}", text);
        let number = |name: &str| expected.get(name).and_then(|v| v.as_n().ok()).cloned();
        let facet = wire.text("facet").map(|t| t.into_owned());
        prop_assert_eq!(facet.as_deref(), s_of(&expected, "facet"), "{}", text);
        let ttl = wire.number("ttl").map(|t| t.into_owned());
        prop_assert_eq!(ttl, number("ttl"), "{}", text);
        let version = wire.number("_facet_version").map(|t| t.into_owned());
        prop_assert_eq!(version, number("_facet_version"), "{}", text);
    }
}

/// What the general path reads of a Query answer's items for facet `EVERYTHING`, as a
/// typed query keeps them: each item not of another facet, its record (or error) with its
/// `PK`, `SK`, `GSI1PK` and `ttl`.
type Kept = (
    Result<Everything, String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn general_page(body: &str) -> Vec<Kept> {
    let page = faceteer_core::wire::answer::page(body.to_owned()).unwrap();
    page.items
        .iter()
        .filter(|w| !w.is_foreign("EVERYTHING"))
        .map(|w| {
            let text = |n: &str| w.text(n).map(|t| t.into_owned());
            let (pk, sk) = (text("PK"), text("SK"));
            let gsi = text("GSI1PK");
            (
                outcome(w.decode::<Everything>()),
                pk.zip(sk).map(|(p, s)| format!("{p}|{s}")),
                gsi,
                w.number("ttl").map(|t| t.into_owned()),
            )
        })
        .collect()
}

/// What the one pass reads of the same answer, `None` when it leaves it to the general path.
fn one_pass_page(body: &str) -> Option<Vec<Kept>> {
    use faceteer_core::wire::pass;
    let notes = pass::Notes::new(["PK", "SK", "GSI1PK"]).unwrap();
    let page = pass::page::<Everything>(&std::sync::Arc::new(body.to_owned()), notes)?;
    Some(
        page.records
            .into_iter()
            .map(|(record, noted)| {
                let key = noted.key().map(|(p, s)| format!("{p}|{s}"));
                let gsi = noted.text("GSI1PK").map(str::to_owned);
                // The ttl as noted: passed at a time when, and only when, the item's is.
                (Ok(record), key, gsi, None)
            })
            .collect(),
    )
}

/// A Query answer holding `items` (JSON texts).
fn query_answer(items: &[String]) -> String {
    format!(
        r#"{{"Items":[{}],"Count":{n},"ScannedCount":{n}}}"#,
        items.join(","),
        n = items.len()
    )
}

proptest! {
    #![proptest_config(cases())]

    /// A Query answer read in one pass gives exactly the records, keys and index keys the
    /// general path gives (items of other facets passed over), or leaves the answer to it:
    /// whatever members an item holds twice, whatever its version, validity or facet.
    #[test]
    fn an_answer_read_in_one_pass_reads_as_the_general_path(
        items in proptest::collection::vec(
            prop_oneof![
                item_with_duplicates().prop_map(|(text, _)| text),
                everything().prop_map(|r| json(&faceteer::to_item(&r).unwrap())),
                altered_item().prop_map(|(item, _)| json(&item)),
            ],
            0..6,
        )
    ) {
        let body = query_answer(&items);
        let general = general_page(&body);
        if let Some(read) = one_pass_page(&body) {
            let strip = |k: &Kept| (k.0.clone(), k.1.clone(), k.2.clone());
            let general: Vec<_> = general.iter().map(strip).collect();
            let read: Vec<_> = read.iter().map(strip).collect();
            prop_assert_eq!(read, general, "{}", body);
        }
    }
}

/// The pass reads a clean answer itself: records in order, other facets' items passed over,
/// keys noted (escaped texts too).
#[test]
fn a_clean_answer_is_read_in_one_pass() {
    use faceteer_core::wire::pass;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let records: Vec<Everything> = (0..3)
        .map(|i| {
            let mut r = everything().new_tree(&mut runner).unwrap().current();
            r.id = format!("id\"{i}");
            r.text = "clean".into();
            r
        })
        .collect();
    let mut items: Vec<String> = records
        .iter()
        .map(|r| json(&faceteer::to_item(r).unwrap()))
        .collect();
    // A ttl on the second, and another facet's item between the first and the second.
    items[1] = items[1].replacen('{', r#"{"ttl":{"N":"100"},"#, 1);
    items.insert(
        1,
        r##"{"facet":{"S":"OTHER"},"PK":{"S":"#E_x"},"SK":{"S":"#N_1"}}"##.into(),
    );
    let body = query_answer(&items);
    let notes = pass::Notes::new(["PK", "SK"]).unwrap();
    let page = pass::page::<Everything>(&std::sync::Arc::new(body.clone()), notes)
        .expect("a clean answer is read in one pass");
    let read: Vec<&Everything> = page.records.iter().map(|(r, _)| r).collect();
    assert_eq!(read, records.iter().collect::<Vec<_>>());
    let general = general_page(&body);
    for ((_, noted), kept) in page.records.iter().zip(&general) {
        let key = noted.key().map(|(p, s)| format!("{p}|{s}"));
        assert_eq!(key, kept.1);
        assert!(key.unwrap().starts_with("#E_id\""));
        // `EVERYTHING` has no `#[ttl]` field: its items' `ttl` is not the library's, and
        // never hides them (the table hides expired records of facets with one only;
        // `tests/expiry.rs` reads those through the pass).
        assert!(noted.ttl().is_none());
    }
    assert_eq!((page.count, page.scanned_count), (4, 4));
    // An item at another schema version, or one its validator refuses, leaves the whole
    // answer to the general path.
    let mut poisoned = records[0].clone();
    poisoned.text = "POISON".into();
    let refused = query_answer(&[json(&faceteer::to_item(&poisoned).unwrap())]);
    assert!(pass::page::<Everything>(&std::sync::Arc::new(refused), notes).is_none());
}

/// The measured case: a second `facet` member naming another facet after the record's own
/// (the SDK keeps the second: another facet's item) and before it (the SDK keeps the
/// record's: the record).
#[test]
fn a_duplicated_facet_member_reads_as_its_last_one() {
    let item = |facets: [&str; 2]| {
        format!(
            r##"{{"facet":{{"S":"{}"}},"PK":{{"S":"#L_1"}},"SK":{{"S":"#L_1"}},"id":{{"S":"1"}},"facet":{{"S":"{}"}}}}"##,
            facets[0], facets[1]
        )
    };
    let foreign = item(["LENIENT", "OTHER"]);
    let wire = faceteer_core::wire::WireItem::new(foreign.clone());
    assert!(wire.is_foreign("LENIENT"));
    let direct = outcome(from_wire::<Lenient>(&foreign));
    assert_eq!(
        direct,
        outcome(faceteer::from_item::<Lenient>(
            tree::item(&foreign).unwrap()
        ))
    );
    assert!(direct.unwrap_err().contains("OTHER"));
    let own = item(["OTHER", "LENIENT"]);
    let wire = faceteer_core::wire::WireItem::new(own.clone());
    assert!(!wire.is_foreign("LENIENT"));
    let direct = outcome(from_wire::<Lenient>(&own));
    assert_eq!(
        direct,
        outcome(faceteer::from_item::<Lenient>(tree::item(&own).unwrap()))
    );
    assert_eq!(direct.unwrap().id, "1");
}

/// Both read paths, through a real server, read the same pages: the same records, the same
/// records refused (with the same errors), the same cursors, the same capacity.
async fn both_read_paths_read_the_same_pages() {
    let table = fresh_table::<Everywhere>("wire-paths").await;
    let runner = &mut proptest::test_runner::TestRunner::deterministic();
    let records: Vec<Everything> = (0..120)
        .map(|i| {
            let mut r = everything().new_tree(runner).unwrap().current();
            r.id = "same".into();
            r.n = i;
            r.text = if i % 17 == 0 {
                format!("POISON {i}")
            } else {
                r.text.replace("POISON", "")
            };
            r
        })
        .collect();
    // Poisoned records are refused on write only by a validator on write: this one reads.
    let written = table.put_many(records.clone()).await;
    assert!(written.is_complete(), "{written:?}");
    let sdk = table.clone().with_read_path(ReadPath::Sdk);
    let direct = table.clone().with_read_path(ReadPath::Direct);
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let query = || {
            let q = Everything::query("same").list().limit(25);
            match &cursor {
                Some(c) => q.cursor(c),
                None => q,
            }
        };
        let a = sdk.query(query()).await.unwrap();
        let b = direct.query(query()).await.unwrap();
        assert_eq!(a.records, b.records);
        let errors = |p: &faceteer::Page<Everything>| {
            p.failed
                .iter()
                .map(|f| (f.pk.clone(), f.sk.clone(), f.error.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(errors(&a), errors(&b));
        assert_eq!(a.cursor, b.cursor);
        pages += 1;
        match b.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(pages, 5);
    // Batch reads, gets and scans. (Records compare by value: their `HashMap` fields print
    // in any order.)
    let keys: Vec<_> = (0..130u32)
        .map(|n| Everything::key("same", n).unwrap())
        .collect();
    let (a, b) = (
        sdk.get_many(keys.clone()).await,
        direct.get_many(keys).await,
    );
    let failed = |r: &faceteer::batch::GetReport<Everything>| -> Vec<String> {
        r.failed.iter().map(|f| format!("{f:?}")).collect()
    };
    assert_eq!(a.found, b.found);
    assert_eq!(a.missing, b.missing);
    assert_eq!(failed(&a), failed(&b));
    assert_eq!(
        (b.found.len(), b.missing.len(), b.failed.len()),
        (112, 10, 8)
    );
    for n in [0u32, 1, 17, 500] {
        let key = Everything::key("same", n).unwrap();
        match (sdk.get(&key).await, direct.get(&key).await) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (a, b) => assert_eq!(a.unwrap_err().to_string(), b.unwrap_err().to_string()),
        }
    }
    let (a, b) = (
        sdk.scan::<Everything>().all_with_failures().await.unwrap(),
        direct
            .scan::<Everything>()
            .all_with_failures()
            .await
            .unwrap(),
    );
    let failed = |c: &faceteer::query::Collected<Everything>| -> Vec<String> {
        c.failed.iter().map(|f| format!("{f:?}")).collect()
    };
    assert_eq!(a.records.len(), 112);
    assert_eq!(a.records, b.records);
    assert_eq!(failed(&a), failed(&b));
}

faceteer_suite::engines!(both_read_paths_read_the_same_pages);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub a: u8,
    pub b: Option<String>,
}

/// A field that swallows its own errors (a nested value that does not read becomes `None`).
fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Meta>, D::Error> {
    Ok(Option::<Meta>::deserialize(d).unwrap_or(None))
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "LENIENT")]
pub struct Lenient {
    #[pk(prefix = "#L")]
    #[sk(prefix = "#L")]
    pub id: String,
    #[serde(default, deserialize_with = "lenient")]
    pub meta: Option<Meta>,
    #[serde(default)]
    pub note: Option<String>,
}

/// A field deserializer that swallows an error inside a nested map leaves the JSON reader
/// out of step with the item: the direct read then reads it again from the tree, as the SDK
/// path does, and sees every member after it (the other facet's name among them).
#[test]
fn a_swallowed_nested_error_reads_alike_both_ways() {
    for facet in ["LENIENT", "OTHER"] {
        let text = format!(
            r##"{{"PK":{{"S":"#L_1"}},"SK":{{"S":"#L_1"}},"id":{{"S":"1"}},"meta":{{"M":{{"a":{{"N":"300"}},"b":{{"S":"x"}}}}}},"note":{{"S":"hello"}},"facet":{{"S":"{facet}"}}}}"##
        );
        let item = tree::item(&text).unwrap();
        let direct = outcome(from_wire::<Lenient>(&text));
        let sdk = outcome(faceteer::from_item::<Lenient>(item));
        assert_eq!(direct, sdk);
        if facet == "LENIENT" {
            assert_eq!(direct.unwrap().note.as_deref(), Some("hello"));
        } else {
            assert!(direct.unwrap_err().contains("OTHER"));
        }
    }
}
