//! Shard-count schedules against real DynamoDB-API servers: records keep the shard their
//! period gives them, and all-shard queries cover every shard any period uses.

use chrono::{DateTime, TimeZone, Utc};
use faceteer::{Facet, Table};
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "READING")]
struct Reading {
    #[pk(prefix = "#SENSOR")]
    sensor: String,
    #[sk(prefix = "#READING")]
    #[gsi(n = 1, sk, prefix = "#READING")]
    #[shard(
        count = 4,
        gsi = 1,
        grow(from = "2027-01-01T00:00:00Z", count = 32),
        time = created
    )]
    id: String,
    #[gsi(n = 1, pk, prefix = "#SITE")]
    site: String,
    #[serde(with = "faceteer::timestamp")]
    created: DateTime<Utc>,
    value: u32,
}

faceteer::table! {
    struct ReadingTable { Reading }
}

fn reading(i: u32) -> Reading {
    // Half before the growth, half after.
    let day = if i.is_multiple_of(2) { 2026 } else { 2027 };
    Reading {
        sensor: format!("s{}", i % 3),
        id: format!("r{i:03}"),
        site: "north".into(),
        created: Utc.with_ymd_and_hms(day, 6, 1, 0, 0, i).unwrap(),
        value: i,
    }
}

async fn gsi1pk(table: &Table, r: &Reading) -> String {
    let key = r.primary_key().unwrap();
    let item = table
        .client()
        .get_item()
        .table_name(table.name())
        .key(
            "PK",
            aws_sdk_dynamodb::types::AttributeValue::S(key.pk().into()),
        )
        .key(
            "SK",
            aws_sdk_dynamodb::types::AttributeValue::S(key.sk().into()),
        )
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    item["GSI1PK"].as_s().unwrap().clone()
}

async fn records_keep_their_period_and_queries_cover_every_shard() {
    let table = fresh_table::<ReadingTable>("shard-schedule").await;
    let readings: Vec<Reading> = (0..40).map(reading).collect();
    assert!(table.put_many(readings.clone()).await.is_complete());

    // Old records have Faceteer's ids over 4 shards; new ones two-digit ids over 32.
    for r in &readings {
        let pk = gsi1pk(&table, r).await;
        let expected = if r.created.timestamp() < 1_798_761_600 {
            faceteer_core::shard::shard_id(&[r.id.as_str()], 4)
        } else {
            faceteer_core::shard::shard_id(&[r.id.as_str()], 32)
        };
        assert_eq!(pk, format!("#SITE_{expected}_north"), "{}", r.id);
    }

    // Rewriting an old record keeps its shard.
    let mut old = readings[0].clone();
    let before = gsi1pk(&table, &old).await;
    old.value = 999;
    table.put(&old).await.unwrap();
    assert_eq!(gsi1pk(&table, &old).await, before);

    // An all-shard query reads all 4 + 32 shard ids: every record once, in order.
    let mut expected = readings.clone();
    expected[0] = old.clone();
    for limit in [3, 7, 100] {
        let mut got = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = table
                .query(
                    Reading::gsi1("north")
                        .list()
                        .limit(limit)
                        .cursor(cursor.clone()),
                )
                .await
                .unwrap();
            got.extend(page.records);
            cursor = page.cursor;
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!(got, expected, "limit {limit}");
    }

    // `.shard(n)` numbers the 36 ids; together they hold every record once.
    let mut total = 0;
    for n in 0..36 {
        total += table
            .query(Reading::gsi1("north").list().shard(n))
            .all()
            .await
            .unwrap()
            .len();
    }
    assert_eq!(total, 40);
    let e = table
        .query(Reading::gsi1("north").list().shard(36))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("36"), "{e}");
}

faceteer_suite::engines!(records_keep_their_period_and_queries_cover_every_shard);
