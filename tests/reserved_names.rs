//! Reserved names are reserved everywhere: no record's key is a guard item's key (whatever
//! delimiter, empty prefix or values spell it), and no record's own attributes (a flattened
//! map's entries) take the name of an attribute the library writes.

use crate::common;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue as AV;
use common::*;
use faceteer::{error::ItemError, error::KeyError, Error, Facet};
use faceteer_core::unique::{GUARD_PREFIX, GUARD_SK, OWNER_PK};
use serde::{Deserialize, Serialize};

/// A facet with a unique handle: each handle is owned through a guard item
/// (`PK = $unique#HOLDER#handle#<len>:<handle>`, `SK = $unique`).
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "HOLDER")]
pub struct Holder {
    #[pk(prefix = "#HOLDER")]
    #[sk(prefix = "#HOLDER")]
    pub id: String,
    #[unique]
    pub handle: String,
}

/// A facet whose keys can spell a guard's: the delimiter `$` and empty prefixes.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "SNEAKY", delimiter = "$")]
pub struct Sneaky {
    #[pk(prefix = "")]
    pub a: String,
    #[sk(prefix = "")]
    pub b: String,
    pub note: String,
}

/// A facet with a flattened map: its entries are stored as top-level attributes.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "LOOSE")]
pub struct Loose {
    #[pk(prefix = "#LOOSE")]
    #[sk(prefix = "#LOOSE")]
    pub id: String,
    #[serde(flatten)]
    pub extra: HashMap<String, String>,
}

faceteer::table! {
    pub struct Reserved { Holder, Sneaky, Loose }
}

fn holder(id: &str, handle: &str) -> Holder {
    Holder {
        id: id.into(),
        handle: handle.into(),
    }
}

fn is_reserved_partition(e: &Error) -> bool {
    matches!(
        e,
        Error::Key(KeyError::ReservedPartition { .. })
            | Error::Item(ItemError::Key {
                source: KeyError::ReservedPartition { .. },
                ..
            })
    )
}

async fn no_key_lands_on_a_guard() {
    let table = fresh_table::<Reserved>("reserved-keys").await;
    table.put(&holder("1", "h")).await.unwrap();
    let guard_pk = format!("{GUARD_PREFIX}#HOLDER#handle#1:h");
    let guard_key = faceteer::Item::from([
        ("PK".to_owned(), AV::S(guard_pk.clone())),
        ("SK".to_owned(), AV::S(GUARD_SK.to_owned())),
    ]);
    let guard = get_raw(&table, guard_key.clone()).await.expect("the guard");
    assert_eq!(guard[OWNER_PK], AV::S("#HOLDER_1".into()));

    // `$` + `unique#HOLDER#handle#1:h`, `$` + `unique`: the guard's key, refused by every
    // way to a key.
    let tail = guard_pk.strip_prefix('$').unwrap();
    let sneaky = Sneaky {
        a: tail.into(),
        b: "unique".into(),
        note: "mine now".into(),
    };
    let err = table.put(&sneaky).await.unwrap_err();
    assert!(is_reserved_partition(&err), "{err:?}");
    assert!(err.to_string().contains("$unique"), "{err}");
    let err = faceteer::to_item(&sneaky).unwrap_err();
    assert!(
        matches!(
            &err,
            ItemError::Key {
                facet: "SNEAKY",
                source: KeyError::ReservedPartition { key },
            } if *key == guard_pk
        ),
        "{err:?}"
    );
    let err = Sneaky::key(tail, "unique").unwrap_err();
    assert!(is_reserved_partition(&err), "{err:?}");
    let err = query_error(&table, Sneaky::query(tail).list()).await;
    assert!(is_reserved_partition(&err), "{err:?}");
    let err = table
        .transact_write()
        .put(table.put(&sneaky))
        .await
        .unwrap_err();
    assert!(is_reserved_partition(&err), "{err:?}");
    // A key built by hand reaches no guard either: deletes and updates refuse it.
    let by_hand = faceteer::Key::<Sneaky>::from_parts(guard_pk.clone(), GUARD_SK.to_owned());
    let err = table.delete(&by_hand).await.unwrap_err();
    assert!(is_reserved_partition(&err), "{err:?}");
    let change = Sneaky::fields().note.set("mine now");
    let err = table.update(&by_hand, change).await.unwrap_err();
    assert!(is_reserved_partition(&err), "{err:?}");

    // The guard stands as it was, and still owns its value until its record goes.
    assert_eq!(get_raw(&table, guard_key).await, Some(guard));
    let err = table.put(&holder("2", "h")).await.unwrap_err();
    assert!(matches!(err, Error::Unique { .. }), "{err:?}");
    table.delete(&Holder::key("1").unwrap()).await.unwrap();
    table.put(&holder("2", "h")).await.unwrap();

    // Under a prefix the same values are a key of their own: only the guards' partition
    // is refused.
    let plain = Sneaky {
        a: "x".into(),
        b: "unique".into(),
        note: "fine".into(),
    };
    table.put(&plain).await.unwrap();
    let key = Sneaky::key("x", "unique").unwrap();
    assert_eq!((key.pk(), key.sk()), ("$x", GUARD_SK));
    assert_eq!(table.get(&key).await.unwrap(), Some(plain));
}

/// Every name the library writes next to a record's fields.
const RESERVED: [&str; 12] = [
    "PK",
    "SK",
    "facet",
    "ttl",
    "_faceteer_write",
    "_facet_version",
    "GSI1PK",
    "GSI1SK",
    "GSI20PK",
    "GSI20SK",
    "LSI1SK",
    "LSI5SK",
];

fn loose(id: &str, entries: &[(&str, &str)]) -> Loose {
    Loose {
        id: id.into(),
        extra: entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    }
}

async fn a_flattened_map_cannot_write_a_library_attribute() {
    let table = fresh_table::<Reserved>("reserved-attributes").await;
    for (i, name) in RESERVED.into_iter().enumerate() {
        let id = format!("r{i}");
        let record = loose(&id, &[("color", "red"), (name, "x")]);
        let refused = |err: &ItemError| {
            matches!(
                err,
                ItemError::ReservedAttribute { facet: "LOOSE", attribute } if attribute == name
            )
        };
        let err = faceteer::to_item(&record).unwrap_err();
        assert!(refused(&err), "{name}: {err:?}");
        assert!(err.to_string().contains("rename the map entry"), "{err}");
        assert!(err.to_string().contains(&format!("`{name}`")), "{err}");
        match table.put(&record).await.unwrap_err() {
            Error::Item(err) => assert!(refused(&err), "{name}: {err:?}"),
            other => panic!("{name}: {other:?}"),
        }
        // Nothing was written.
        let key = Loose::key(&id).unwrap();
        assert_eq!(get_raw(&table, key.to_item()).await, None, "{name}");
        // A batch refuses the record alike, before any request.
        let report = table.put_many([record]).await;
        assert!(report.written.is_empty(), "{name}: {report:?}");
        assert_eq!(report.failed.len(), 1, "{name}: {report:?}");
        match &report.failed[0].reason {
            faceteer::error::FailureReason::Item(err) => assert!(refused(err), "{name}: {err:?}"),
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(get_raw(&table, key.to_item()).await, None, "{name}");
    }

    // Other entries, lower-case look-alikes among them, are stored and read back.
    let record = loose(
        "ok",
        &[("color", "red"), ("pk", "p"), ("Facet", "f"), ("GSI1", "g")],
    );
    table.put(&record).await.unwrap();
    let key = Loose::key("ok").unwrap();
    assert_eq!(table.get(&key).await.unwrap(), Some(record.clone()));
    let raw = get_raw(&table, key.to_item()).await.unwrap();
    assert_eq!(raw["pk"], AV::S("p".into()));
    assert_eq!(raw["PK"], AV::S("#LOOSE_ok".into()));
    assert_eq!(raw["facet"], AV::S("LOOSE".into()));
}

faceteer_suite::engines!(
    no_key_lands_on_a_guard,
    a_flattened_map_cannot_write_a_library_attribute
);
