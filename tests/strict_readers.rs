//! Strict readers share the table: Faceteer for TypeScript strips only `facet`, `PK`,
//! `SK`, its own index keys and `ttl` from an item before its validator, and a strict
//! validator (a zod `.strict()` schema) refuses anything else. Every kind of write of
//! faceteer-rs — put, conditional and versioned puts, updates of every operation, updates
//! that create, upserts, `modify`, moves, transactions, unique-guarded writes, backfills —
//! must leave items such a reader reads: the model's fields and the attributes Faceteer
//! strips, nothing else. Each item is then compared with what a put of its record stores.

use crate::common;

use std::collections::BTreeSet;

use chrono::{DateTime, TimeZone, Utc};
use faceteer::{Facet, Item, Table};
use faceteer_core::unique::is_guard;
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

/// A card: indexed, expiring, versioned, with write times and a unique number.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "CARD")]
#[serde(rename_all = "camelCase")]
struct Card {
    #[pk(prefix = "#USER")]
    #[gsi(n = 1, alias = "ByUserStatus", pk, prefix = "#USER")]
    user_id: String,
    #[sk(prefix = "#CARD")]
    card_id: String,
    #[gsi(n = 1, sk, prefix = "#STATUS")]
    status: String,
    #[unique]
    number: Option<String>,
    points: i64,
    log: Vec<String>,
    nickname: Option<String>,
    #[ttl]
    expires_at: Option<DateTime<Utc>>,
    #[created]
    created: DateTime<Utc>,
    #[updated]
    updated: DateTime<Utc>,
    #[version]
    version: u64,
}

/// A note on a card, with no unique field (its writes take the plain paths).
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "CARD_NOTE")]
#[serde(rename_all = "camelCase")]
struct CardNote {
    #[pk(prefix = "#USER")]
    user_id: String,
    #[sk(prefix = "#NOTE")]
    note_id: String,
    #[gsi(n = 2, alias = "ByTopic", pk, prefix = "#TOPIC")]
    topic: Option<String>,
    count: i64,
    lines: Vec<String>,
    #[ttl]
    expires_at: Option<DateTime<Utc>>,
}

faceteer::table! {
    struct Wallet { Card, CardNote }
}

fn card(user: &str, id: &str, number: Option<&str>) -> Card {
    let at = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
    Card {
        user_id: user.into(),
        card_id: id.into(),
        status: "active".into(),
        number: number.map(Into::into),
        points: 0,
        log: Vec::new(),
        nickname: Some("main".into()),
        expires_at: Some(at + chrono::Duration::days(365)),
        created: at,
        updated: at,
        version: 0,
    }
}

fn note(user: &str, id: &str) -> CardNote {
    CardNote {
        user_id: user.into(),
        note_id: id.into(),
        topic: Some("travel".into()),
        count: 0,
        lines: Vec::new(),
        expires_at: None,
    }
}

/// What Faceteer strips from an item of facet `F` before its validator.
fn stripped<F: Facet>() -> BTreeSet<&'static str> {
    F::SCHEMA.stored_only_attributes().collect()
}

/// A strict Faceteer reader of facet `F`: refuses an item holding any attribute besides
/// the ones Faceteer strips and the model's fields.
fn strict_read<F: Facet>(item: &Item) -> Result<F, String> {
    let stripped = stripped::<F>();
    let unknown: Vec<&String> = item
        .keys()
        .filter(|name| !stripped.contains(name.as_str()))
        .filter(|name| !F::ATTRIBUTES.contains(&name.as_str()))
        .collect();
    if !unknown.is_empty() {
        return Err(format!("unrecognized keys: {unknown:?}"));
    }
    faceteer_core::from_item::<F>(item.clone()).map_err(|e| e.to_string())
}

/// Every record item in the table is read by a strict reader of its facet, and holds the
/// attributes a put of the record it reads as stores: `(cards, notes)` read.
async fn every_item_reads_strictly(table: &Table, after: &str) -> (usize, usize) {
    let mut counts = (0, 0);
    for item in common::raw_items(table).await {
        if is_guard(&item) {
            continue;
        }
        let facet = item["facet"].as_s().unwrap().clone();
        let put = match facet.as_str() {
            "CARD" => {
                counts.0 += 1;
                let record = strict_read::<Card>(&item).unwrap_or_else(|e| {
                    panic!("after {after}: a strict reader refuses {item:?}: {e}")
                });
                // A put stores the version after the record's.
                let record = Card {
                    version: record.version - 1,
                    ..record
                };
                table.put(&record).plan().unwrap().item
            }
            "CARD_NOTE" => {
                counts.1 += 1;
                let record = strict_read::<CardNote>(&item).unwrap_or_else(|e| {
                    panic!("after {after}: a strict reader refuses {item:?}: {e}")
                });
                table.put(&record).plan().unwrap().item
            }
            other => panic!("after {after}: an item of facet {other}"),
        };
        let names = |i: &Item| i.keys().cloned().collect::<BTreeSet<String>>();
        assert_eq!(
            names(&item),
            names(&put),
            "after {after}: the item holds other attributes than a put of its record"
        );
    }
    counts
}

async fn every_write_leaves_items_strict_readers_read() {
    let table = fresh_table::<Wallet>("strict").await;
    let (c, n) = (Card::fields(), CardNote::fields());

    // Puts: plain, if not exists, versioned, unique-guarded.
    table.put(&card("u1", "c1", Some("4111"))).await.unwrap();
    table
        .put(&card("u1", "c2", None))
        .if_not_exists()
        .await
        .unwrap();
    table.put(&note("u1", "n1")).await.unwrap();
    table.put(&note("u1", "n2")).if_not_exists().await.unwrap();
    assert_eq!(every_item_reads_strictly(&table, "puts").await, (2, 2));

    // Updates of every operation, on a guarded facet and a plain one.
    let k1 = Card::key("u1", "c1").unwrap();
    table
        .update(
            &k1,
            c.points.add(5) & c.log.append(["a".to_owned()]) & c.status.set("frozen"),
        )
        .await
        .unwrap();
    table.update(&k1, c.nickname.remove()).await.unwrap();
    table.update(&k1, c.number.set("4222")).await.unwrap();
    let kn = CardNote::key("u1", "n1").unwrap();
    table
        .update(&kn, n.count.add(1) & n.lines.append(["x".to_owned()]))
        .await
        .unwrap();
    table.update(&kn, n.topic.remove()).await.unwrap();
    let _: CardNote = table
        .update(&kn, n.count.add(1))
        .returning_new()
        .await
        .unwrap();
    assert_eq!(every_item_reads_strictly(&table, "updates").await, (2, 2));

    // Updates that create, both branches, on both facets.
    for id in ["c3", "c1"] {
        table
            .update(&Card::key("u1", id).unwrap(), c.points.add(1))
            .or_create(&card("u1", id, Some(&format!("5{id}"))))
            .await
            .unwrap();
    }
    for id in ["n3", "n1"] {
        table
            .update(&CardNote::key("u1", id).unwrap(), n.count.add(1))
            .or_create(&note("u1", id))
            .await
            .unwrap();
    }
    assert_eq!(every_item_reads_strictly(&table, "or_create").await, (3, 3));

    // Upserts, creating and merging.
    table.upsert(&card("u1", "c4", None)).await.unwrap();
    let c2 = table
        .get(&Card::key("u1", "c2").unwrap())
        .await
        .unwrap()
        .unwrap();
    table.upsert(&Card { points: 9, ..c2 }).await.unwrap();
    table.upsert(&note("u1", "n4")).await.unwrap();
    table
        .upsert(&CardNote {
            count: 7,
            ..note("u1", "n2")
        })
        .await
        .unwrap();
    assert_eq!(every_item_reads_strictly(&table, "upserts").await, (4, 4));

    // modify, a move, a transaction, deletes.
    table
        .modify(&Card::key("u1", "c4").unwrap(), |r: &mut Card| {
            r.points += 1
        })
        .await
        .unwrap();
    let c4 = table
        .get(&Card::key("u1", "c4").unwrap())
        .await
        .unwrap()
        .unwrap();
    table
        .move_to(
            &Card::key("u1", "c4").unwrap(),
            &Card {
                card_id: "c5".into(),
                ..c4
            },
        )
        .await
        .unwrap();
    table
        .transact_write()
        .put(table.put(&note("u1", "n5")))
        .update(table.update(&CardNote::key("u1", "n4").unwrap(), n.count.add(2)))
        .delete(table.delete(&CardNote::key("u1", "n3").unwrap()))
        .await
        .unwrap();
    table
        .delete(&Card::key("u1", "c3").unwrap())
        .if_exists()
        .await
        .unwrap();
    assert_eq!(
        every_item_reads_strictly(&table, "modify, move, transaction").await,
        (3, 4)
    );

    // Under LostAnswers::Resend (one-step transactions) the same writes store the same.
    let resend = table
        .clone()
        .with_lost_answers(faceteer::LostAnswers::Resend);
    resend
        .update(&kn, n.count.add(1) & n.lines.append(["y".to_owned()]))
        .await
        .unwrap();
    resend.put(&note("u1", "n6")).if_not_exists().await.unwrap();
    resend
        .update(&CardNote::key("u1", "n7").unwrap(), n.count.add(1))
        .or_create(&note("u1", "n7"))
        .await
        .unwrap();
    assert_eq!(every_item_reads_strictly(&table, "resend").await, (3, 6));

    // A backfill rewrites what differs from a put, and removes a write token an earlier
    // faceteer stored.
    let client = common::patient(&table);
    client
        .update_item()
        .table_name(table.name())
        .key("PK", kn_pk(&kn))
        .key(
            "SK",
            aws_sdk_dynamodb::types::AttributeValue::S(kn.sk().to_owned()),
        )
        .update_expression("SET #t = :t")
        .expression_attribute_names("#t", "_faceteer_write")
        .expression_attribute_values(
            ":t",
            aws_sdk_dynamodb::types::AttributeValue::S("old".into()),
        )
        .send()
        .await
        .unwrap();
    let refused = common::raw_items(&table)
        .await
        .into_iter()
        .filter(|i| !is_guard(i))
        .any(|i| strict_read::<CardNote>(&i).is_err_and(|e| e.contains("_faceteer_write")));
    assert!(refused, "the strict reader refuses an item holding a token");
    let report = table.backfill::<CardNote>().await.unwrap();
    assert_eq!(report.totals.rewritten, 1, "{report}");
    assert_eq!(every_item_reads_strictly(&table, "backfill").await, (3, 6));
}

fn kn_pk(key: &faceteer::Key<CardNote>) -> aws_sdk_dynamodb::types::AttributeValue {
    aws_sdk_dynamodb::types::AttributeValue::S(key.pk().to_owned())
}

faceteer_suite::engines!(every_write_leaves_items_strict_readers_read);
