//! A record's attributes written field by field (the code `#[derive(Facet)]` generates) are
//! exactly what its `Serialize` writes through faceteer's marshalling: every kind of field
//! type and serde option, present and absent values, errors named by their field, and the
//! item size limit. A struct whose serde options faceteer does not follow field by field
//! (`flatten`, `tag`) is written through `Serialize`.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue as AV;
use chrono::{DateTime, TimeZone, Utc};
use faceteer::{error::ItemError, Facet, Nullable};
use faceteer_core::convert::record_attributes;
use faceteer_core::marshal::to_attributes;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Mood {
    Calm,
    RatherCross,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Place {
    pub city: String,
    pub floor: Option<i16>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Shape {
    Dot,
    Circle(f64),
    Box { w: u32, h: u32 },
}

/// A value its own serialize function writes in capitals.
fn shout<S: serde::Serializer>(value: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&value.to_uppercase())
}

/// Every kind of field: plain types (written directly), other types (marshalled), serde's
/// renames, codecs, skips and predicates.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "EVERY")]
#[serde(rename_all = "camelCase")]
pub struct Every {
    #[pk(prefix = "#E")]
    #[sk(prefix = "#E")]
    pub id: String,
    pub text: String,
    pub maybe_text: Option<String>,
    pub small: u8,
    pub signed: i64,
    pub big: u64,
    pub word: usize,
    pub flag: bool,
    pub maybe_flag: Option<bool>,
    pub at: DateTime<Utc>,
    #[serde(with = "faceteer::timestamp")]
    pub due: DateTime<Utc>,
    #[serde(default, with = "faceteer::timestamp::option")]
    pub done: Option<DateTime<Utc>>,
    pub maybe_at: Option<DateTime<Utc>>,
    pub mood: Mood,
    pub shape: Shape,
    pub place: Place,
    pub score: f64,
    pub ratio: f32,
    pub letter: char,
    pub tags: Vec<String>,
    #[serde(with = "serde_dynamo::string_set")]
    pub labels: Vec<String>,
    pub counts: BTreeMap<String, i32>,
    pub twice: Option<Option<u16>>,
    #[serde(default)]
    pub cleared: Nullable<String>,
    pub nothing: (),
    #[serde(rename = "renamed_by_hand")]
    pub renamed: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unless_empty: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unless_none: Option<String>,
    #[serde(default, skip_serializing_if = "std::option::Option::is_none")]
    pub unless_none_path: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_some")]
    pub unless_some: Option<String>,
    #[serde(serialize_with = "shout")]
    pub loud: String,
    #[serde(skip)]
    pub never: String,
    #[serde(skip_deserializing)]
    pub written_only: u32,
}

fn at(seconds: i64, millis: u32) -> DateTime<Utc> {
    Utc.timestamp_opt(seconds, millis * 1_000_000).unwrap()
}

fn every(i: u32) -> Every {
    Every {
        id: format!("e{i}"),
        text: "plain".into(),
        maybe_text: (i.is_multiple_of(2)).then(|| "there".into()),
        small: i as u8,
        signed: -(i as i64) * 1_000_000_007,
        big: u64::MAX - u64::from(i),
        word: i as usize,
        flag: i.is_multiple_of(3),
        maybe_flag: (!i.is_multiple_of(4)).then_some(i.is_multiple_of(5)),
        at: at(1_700_000_000 + i64::from(i), i % 1000),
        due: at(1_800_000_000 - i64::from(i), 999),
        done: (i % 2 == 1).then(|| at(-86_400 * 365 * 30, 1)),
        maybe_at: (i % 3 == 1).then(|| at(0, 0)),
        mood: if i.is_multiple_of(2) {
            Mood::Calm
        } else {
            Mood::RatherCross
        },
        shape: match i % 3 {
            0 => Shape::Dot,
            1 => Shape::Circle(f64::from(i) / 3.0),
            _ => Shape::Box { w: i, h: i + 1 },
        },
        place: Place {
            city: "Lyon".into(),
            floor: (i.is_multiple_of(2)).then_some(-1),
        },
        score: f64::from(i) * 0.1,
        ratio: 0.1,
        letter: 'é',
        tags: vec!["a".into(), "b".into()],
        labels: vec!["x".into()],
        counts: BTreeMap::from([("k".to_owned(), i as i32)]),
        twice: match i % 3 {
            0 => None,
            1 => Some(None),
            _ => Some(Some(7)),
        },
        cleared: match i % 3 {
            0 => Nullable::Absent,
            1 => Nullable::Null,
            _ => Nullable::Value("v".into()),
        },
        nothing: (),
        renamed: "r".into(),
        unless_empty: if i.is_multiple_of(2) {
            String::new()
        } else {
            "set".into()
        },
        unless_none: i.is_multiple_of(3).then(|| format!("n{i}")),
        unless_none_path: (i % 4 == 1).then_some(i),
        unless_some: i.is_multiple_of(5).then(|| "left out".into()),
        loud: "quiet".into(),
        never: "skipped".into(),
        written_only: i,
    }
}

/// The attributes through `Serialize` (faceteer's marshalling), the oracle.
fn through_serde<T: Serialize>(record: &T) -> HashMap<String, AV> {
    to_attributes(record).unwrap()
}

#[test]
fn every_kind_of_field_is_written_as_serialize_writes_it() {
    assert!(
        Every::own_attributes(&every(0), 0).is_some(),
        "a struct of followed serde options is written field by field"
    );
    for i in 0..12 {
        let record = every(i);
        let direct = record_attributes(&record).unwrap();
        assert_eq!(direct, through_serde(&record), "record {i}");
    }
    // Some spot checks of what that is.
    let item = record_attributes(&every(1)).unwrap();
    assert_eq!(item["loud"], AV::S("QUIET".into()));
    assert_eq!(item["renamed_by_hand"], AV::S("r".into()));
    assert_eq!(item["due"], AV::S("2027-01-15T07:59:59.999Z".into()));
    assert_eq!(item["mood"], AV::S("RATHER_CROSS".into()));
    assert_eq!(item["cleared"], AV::Null(true));
    assert!(!item.contains_key("never"));
    assert!(!item.contains_key("twice"));
    assert!(!record_attributes(&every(0))
        .unwrap()
        .contains_key("unlessEmpty"));
}

/// A handle gives a value as a put stores the field, whatever the field's
/// `skip_serializing_if`: `Option::is_none` (by any path) never leaves out a value a handle
/// gives, so those handles marshal it plainly; a skip that can hold (`String::is_empty`,
/// `Option::is_some`) leaves it out, as a put does.
#[test]
fn a_handle_gives_a_value_as_a_put_stores_it() {
    let f = Every::fields();
    let record = Every {
        unless_none: Some("there".into()),
        unless_none_path: Some(7),
        unless_some: Some("left out".into()),
        unless_empty: String::new(),
        ..every(1)
    };
    let put = through_serde(&record);
    let stored = |name: &str| put.get(name).cloned();
    // Stored under serde's camelCase names.
    assert_eq!(
        f.unless_none.encoded("there".into()).unwrap(),
        stored("unlessNone")
    );
    assert_eq!(stored("unlessNone"), Some(AV::S("there".into())));
    assert_eq!(
        f.unless_none_path.encoded(7).unwrap(),
        stored("unlessNonePath")
    );
    assert_eq!(stored("unlessNonePath"), Some(AV::N("7".into())));
    // Skips that hold for the value leave it out, from a put and from a handle.
    assert_eq!(stored("unlessSome"), None);
    assert_eq!(f.unless_some.encoded("left out".into()).unwrap(), None);
    assert_eq!(stored("unlessEmpty"), None);
    assert_eq!(f.unless_empty.encoded(String::new()).unwrap(), None);
    assert_eq!(
        f.unless_empty.encoded("set".into()).unwrap(),
        Some(AV::S("set".into()))
    );
}

#[test]
fn a_value_serde_refuses_is_refused_naming_its_field() {
    let mut record = every(2);
    record.score = f64::NAN;
    let direct = faceteer::to_item(&record).unwrap_err();
    let serde = to_attributes(&record).unwrap_err();
    match direct {
        ItemError::Serialize { facet, source } => {
            assert_eq!(facet, "EVERY");
            assert_eq!(source.to_string(), serde.to_string());
            assert!(source.to_string().starts_with("at `score`"), "{source}");
        }
        other => panic!("expected a serialize error, got {other:?}"),
    }
}

/// A struct with a flattened map: written through `Serialize` (its entries are attributes
/// of their own), and a reserved name among them is still refused.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "FLAT")]
pub struct Flat {
    #[pk(prefix = "#F")]
    #[sk(prefix = "#F")]
    pub id: String,
    #[serde(flatten)]
    pub extra: BTreeMap<String, String>,
}

/// A struct serde writes with a tag of its own.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "TAGGED")]
#[serde(tag = "kind")]
pub struct Tagged {
    #[pk(prefix = "#T")]
    #[sk(prefix = "#T")]
    pub id: String,
}

#[test]
fn options_not_followed_field_by_field_write_through_serialize() {
    let flat = Flat {
        id: "f".into(),
        extra: BTreeMap::from([("color".to_owned(), "red".to_owned())]),
    };
    assert!(Flat::own_attributes(&flat, 0).is_none());
    let item = faceteer::to_item(&flat).unwrap();
    assert_eq!(item["color"], AV::S("red".into()));
    let hostile = Flat {
        id: "f".into(),
        extra: BTreeMap::from([("GSI1PK".to_owned(), "x".to_owned())]),
    };
    assert!(matches!(
        faceteer::to_item(&hostile),
        Err(ItemError::ReservedAttribute { .. })
    ));

    let tagged = Tagged { id: "t".into() };
    assert!(Tagged::own_attributes(&tagged, 0).is_none());
    let item = faceteer::to_item(&tagged).unwrap();
    assert_eq!(item["kind"], AV::S("Tagged".into()));
}

/// The size counted as attributes are written lets a fitting item through and stops one
/// over 400 KB with the same report as a full measure (size and largest attribute).
#[test]
fn the_item_size_limit_holds_when_written_field_by_field() {
    let mut record = every(3);
    record.text = "x".repeat(300 * 1024);
    faceteer::to_item(&record).expect("300 KB fits");
    record.text = "x".repeat(400 * 1024);
    let err = faceteer::to_item(&record).unwrap_err();
    let ItemError::Limit { source, .. } = err else {
        panic!("expected a limit error, got {err:?}");
    };
    // The size the full measure gives for the same item.
    let mut item = through_serde(&record);
    item.extend(
        faceteer::to_item(&every(3))
            .unwrap()
            .into_iter()
            .filter(|(k, _)| faceteer_core::schema::is_library_attribute(k)),
    );
    let expected: usize = item
        .iter()
        .map(|(k, v)| faceteer_core::limits::attribute_size(k, v).unwrap())
        .sum();
    let text = source.to_string();
    assert!(
        text.contains(&format!("the item is {expected} bytes")),
        "{text}"
    );
    assert!(text.contains("text"), "names the largest attribute: {text}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any values: the attributes written field by field are those `Serialize` writes.
    #[test]
    fn any_values_are_written_as_serialize_writes_them(
        i in 0u32..1000,
        text in ".{0,40}",
        maybe in proptest::option::of(".{0,12}"),
        signed in any::<i64>(),
        big in any::<u64>(),
        seconds in -62_000_000_000i64..250_000_000_000,
        millis in 0u32..1000,
        score in -1e12f64..1e12,
        tags in proptest::collection::vec(".{0,6}", 0..4),
    ) {
        let mut record = every(i);
        record.text = text;
        record.maybe_text = maybe;
        record.signed = signed;
        record.big = big;
        record.at = at(seconds, millis);
        record.maybe_at = Some(at(seconds / 2, millis));
        record.score = score;
        record.tags = tags;
        prop_assert_eq!(record_attributes(&record).unwrap(), through_serde(&record));
    }
}

/// A record of optional fields and an optional TTL, for the room its item is made with.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "SPARSE")]
pub struct Sparse {
    #[pk(prefix = "#S")]
    #[sk(prefix = "#S")]
    pub id: String,
    pub a: Option<String>,
    pub b: Option<u32>,
    pub c: Option<bool>,
    pub d: Option<String>,
    pub e: Option<DateTime<Utc>>,
    pub f: Option<Vec<String>>,
    #[ttl]
    #[serde(default, with = "faceteer::timestamp::option")]
    pub expires: Option<DateTime<Utc>>,
}

/// The capacity `HashMap` gives a table made for exactly `item`'s attributes.
fn exact_capacity(item: &HashMap<String, AV>) -> usize {
    HashMap::<String, AV>::with_capacity(item.len()).capacity()
}

/// An item's table is made once, for the attributes it holds: an absent optional field
/// and an unset `ttl` take no room.
#[test]
fn an_items_table_is_sized_to_what_it_holds() {
    for present in 0..=6 {
        for ttl in [false, true] {
            let some = |n: usize| present > n;
            let record = Sparse {
                id: format!("s{present}{ttl}"),
                a: some(0).then(|| "a".into()),
                b: some(1).then_some(2),
                c: some(2).then_some(true),
                d: some(3).then(|| "d".into()),
                e: some(4).then(|| at(1_800_000_000, 5)),
                f: some(5).then(|| vec!["f".into()]),
                expires: ttl.then(|| at(1_900_000_000, 0)),
            };
            let item = faceteer::to_item(&record).unwrap();
            assert_eq!(item.len(), 4 + present + 2 * usize::from(ttl));
            assert_eq!(item.capacity(), exact_capacity(&item), "{record:?}");
        }
    }
    // The README's `Task`: an optional index key field and a TTL, each present in some
    // records and absent in others; and the same with native indexes, which add no key
    // attributes of their own.
    for i in 0..24 {
        let task = faceteer_suite::catalogue::task("team-a", i);
        let item = faceteer::to_item(&task).unwrap();
        assert_eq!(item.capacity(), exact_capacity(&item), "task {i}");
        let native = faceteer_suite::catalogue::NativeTask::from(&task);
        let item = faceteer::to_item(&native).unwrap();
        assert_eq!(item.capacity(), exact_capacity(&item), "native task {i}");
    }
}

/// The handles struct prints as a derived `Debug` would: its name, then each stored field
/// under its Rust name as its handle prints itself (a skipped field has no handle).
#[test]
fn the_handles_print_each_field_as_its_handle() {
    let note = crate::common::Note::fields();
    assert_eq!(
        format!("{note:?}"),
        "NoteFields { notebook: Field(notebook), note_id: Field(noteId), author: \
         Field(author), status: Field(status), rank: Field(rank), body: Field(body), \
         expires_at: Field(expiresAt) }"
    );
    assert_eq!(format!("{:?}", note.note_id), "Field(noteId)");
    let every = format!("{:#?}", Every::fields());
    assert!(
        every.starts_with("EveryFields {\n    id: Field(id),\n"),
        "{every}"
    );
    assert!(
        every.contains("    renamed: Field(renamed_by_hand),\n"),
        "{every}"
    );
    assert!(!every.contains("never"), "{every}");
}
