//! `#[created]` and `#[updated]`: set by every write as documented, stored as Faceteer
//! stores dates, and the index key built from `updated` always matches the stored record.

use crate::common;

use std::time::Duration;

use chrono::{DateTime, Utc};
use faceteer::{Facet, Table};
use faceteer_core::{from_item, to_item, Item};
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

/// A document, listed by team in the order of its last change.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "DOC",
    gsi(
        n = 1,
        alias = "ByChange",
        pk(prefix = "#TEAM", fields(team)),
        sk(prefix = "#CHANGED", fields(updated))
    )
)]
struct Doc {
    #[pk(prefix = "#DOC")]
    #[sk(prefix = "#DOC")]
    id: String,
    team: String,
    title: String,
    #[created]
    created: DateTime<Utc>,
    #[updated]
    updated: DateTime<Utc>,
    #[version]
    version: u64,
}

faceteer::table! {
    struct Docs { Doc }
}

fn doc(id: &str, title: &str) -> Doc {
    let long_ago = DateTime::parse_from_rfc3339("2001-01-01T00:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    Doc {
        id: id.into(),
        team: "t1".into(),
        title: title.into(),
        created: long_ago,
        updated: long_ago,
        version: 0,
    }
}

/// The stored item under `id`, read straight from the engine.
async fn raw(table: &Table, id: &str) -> Item {
    let key = Doc::key(id).unwrap().to_item();
    common::patient(table)
        .get_item()
        .table_name(table.name())
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .expect("stored")
}

/// The stored record, after checking that its index keys are what a put of it writes.
async fn stored(table: &Table, id: &str) -> Doc {
    let item = raw(table, id).await;
    let record: Doc = from_item(item.clone()).unwrap();
    let put = to_item(&record).unwrap();
    for attribute in ["GSI1PK", "GSI1SK", "created", "updated"] {
        assert_eq!(
            item.get(attribute),
            put.get(attribute),
            "{attribute} of {id}"
        );
    }
    let text = item["updated"].as_s().unwrap();
    assert!(
        text.len() == 24 && text.ends_with('Z'),
        "stored as toISOString(): {text}"
    );
    record
}

/// A short pause, so that the next write's time is later.
async fn tick() {
    tokio::time::sleep(Duration::from_millis(5)).await;
}

async fn every_write_sets_the_times_it_documents() {
    let table = fresh_table::<Docs>("write-times").await;
    let f = Doc::fields();
    let before = Utc::now() - chrono::Duration::seconds(1);

    // A create sets both.
    table.put(&doc("d1", "a")).if_not_exists().await.unwrap();
    let d1 = stored(&table, "d1").await;
    assert!(d1.created > before, "{d1:?}");
    assert_eq!(d1.created, d1.updated);

    // An update moves `updated` (and the index key built from it), never `created`.
    tick().await;
    let key = Doc::key("d1").unwrap();
    table.update(&key, f.title.set("b")).await.unwrap();
    let after_update = stored(&table, "d1").await;
    assert_eq!(after_update.created, d1.created);
    assert!(after_update.updated > d1.updated);

    // A read-modify-write keeps `created`; a put with `keep_created` too.
    tick().await;
    let modified = table
        .modify(&key, |d: &mut Doc| d.title = "c".into())
        .await
        .unwrap();
    let after_modify = stored(&table, "d1").await;
    assert_eq!(after_modify.created, d1.created);
    assert!(after_modify.updated > after_update.updated);
    assert_eq!(modified.unwrap().title, "c");
    tick().await;
    table
        .put(&Doc {
            title: "d".into(),
            ..after_modify.clone()
        })
        .keep_created()
        .await
        .unwrap();
    let kept = stored(&table, "d1").await;
    assert_eq!(kept.created, d1.created);
    assert!(kept.updated > after_modify.updated);

    // A plain put replaces the whole record: the time of the write.
    tick().await;
    table
        .put(&Doc {
            title: "e".into(),
            ..kept.clone()
        })
        .await
        .unwrap();
    let replaced = stored(&table, "d1").await;
    assert!(replaced.created > d1.created);
    assert_eq!(replaced.created, replaced.updated);

    // An upsert keeps `created` of an existing record and sets both on a new one.
    tick().await;
    table
        .upsert(&Doc {
            title: "f".into(),
            ..doc("d1", "")
        })
        .await
        .unwrap();
    let upserted = stored(&table, "d1").await;
    assert_eq!(upserted.created, replaced.created);
    assert!(upserted.updated > replaced.updated);
    table.upsert(&doc("d2", "new")).await.unwrap();
    let d2 = stored(&table, "d2").await;
    assert!(d2.created > before);
    assert_eq!(d2.created, d2.updated);

    // A move keeps `created`.
    tick().await;
    let moved = Doc {
        id: "d3".into(),
        ..upserted.clone()
    };
    table.move_to(&key, &moved).await.unwrap();
    let d3 = stored(&table, "d3").await;
    assert_eq!(d3.created, upserted.created);
    assert!(d3.updated > upserted.updated);

    // The index lists records in the order of their last change.
    let listed: Vec<String> = table
        .query(Doc::by_change("t1").list())
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert_eq!(listed, ["d2", "d3"]);

    // A transaction's steps set them too.
    tick().await;
    table
        .transact_write()
        .update(&Doc::key("d2").unwrap(), f.title.set("g"))
        .await
        .unwrap();
    let d2_later = stored(&table, "d2").await;
    assert_eq!(d2_later.created, d2.created);
    assert!(d2_later.updated > d2.updated);
}

faceteer_suite::engines!(every_write_sets_the_times_it_documents);
