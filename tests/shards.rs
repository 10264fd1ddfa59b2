//! Write sharding against a real DynamoDB-API server: one shard at a time, and all shards
//! merged in sort-key order with one compound cursor, for 4, 16 and 256 shards.

use crate::common;

use std::collections::HashSet;

use common::query_error;
use faceteer::{
    error::CursorError, error::KeyError, pick::KeyFields, query::Query, Error, Facet, Table,
};
use faceteer_suite::fresh_facet_table;
use serde::{Deserialize, Serialize};

macro_rules! sharded_event {
    ($name:ident, $count:literal) => {
        /// Events of a day, spread over shards by event id.
        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        #[facet(name = "EVENT")]
        struct $name {
            #[pk(prefix = "#DAY")]
            day: String,
            #[sk(prefix = "#AT")]
            at: String,
            #[shard(count = $count)]
            #[sk]
            event_id: String,
            kind: String,
        }

        impl $name {
            fn new(i: usize) -> Self {
                $name {
                    day: "2026-11-21".into(),
                    // Several events share a time: merged order must still be total.
                    at: format!("{:02}:{:02}", (i / 3) / 60 % 24, (i / 3) % 60),
                    event_id: format!("ev-{i}"),
                    kind: if i % 4 == 0 { "alert" } else { "info" }.into(),
                }
            }
        }
    };
}
sharded_event!(Event4, 4);
sharded_event!(Event16, 16);
sharded_event!(Event256, 256);

/// Walk every page of `query`; check order and that each record comes exactly once.
async fn walk<F: Facet + Clone + Send, I: KeyFields + faceteer::pick::WholeRecords>(
    table: &Table,
    query: Query<F, I>,
    key: impl Fn(&F) -> (String, String),
    reverse: bool,
) -> (Vec<F>, usize) {
    let mut all: Vec<F> = Vec::new();
    let mut pages = 0;
    let mut cursor = None;
    loop {
        let page = table.query(query.clone().cursor(cursor)).await.unwrap();
        pages += 1;
        if page.cursor.is_some() {
            assert!(
                !page.records.is_empty(),
                "a page with a cursor holds records"
            );
        }
        all.extend(page.records);
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
        assert!(pages < 10_000, "pagination does not end");
    }
    let keys: Vec<(String, String)> = all.iter().map(&key).collect();
    let unique: HashSet<&(String, String)> = keys.iter().collect();
    assert_eq!(unique.len(), keys.len(), "every record exactly once");
    for pair in keys.windows(2) {
        if reverse {
            assert!(pair[0].0 >= pair[1].0, "descending: {:?}", pair);
        } else {
            assert!(pair[0].0 <= pair[1].0, "ascending: {:?}", pair);
        }
    }
    (all, pages)
}

macro_rules! merged_walk_test {
    ($test:ident, $facet:ident, $count:literal, $items:literal, $limit:literal) => {
        async fn $test() {
            let table = fresh_facet_table::<$facet>(stringify!($test)).await;
            let events: Vec<$facet> = (0..$items).map($facet::new).collect();
            let put = table.put_many(events.clone()).await;
            assert!(put.is_complete());
            let key = |e: &$facet| (e.at.clone(), e.event_id.clone());

            // Every shard on its own holds part of the day, in order.
            let mut per_shard = 0;
            for shard in 0..$count {
                let got = table
                    .query($facet::query("2026-11-21").list().shard(shard))
                    .all()
                    .await
                    .unwrap();
                assert!(got.windows(2).all(|w| w[0].at <= w[1].at));
                per_shard += got.len();
            }
            assert_eq!(per_shard, $items);

            let mut want: Vec<(String, String)> = events.iter().map(key).collect();
            want.sort_by(|a, b| a.0.cmp(&b.0));
            let want_set: HashSet<_> = want.iter().cloned().collect();

            for reverse in [false, true] {
                let mut q = $facet::query("2026-11-21").list().limit($limit);
                if reverse {
                    q = q.reverse();
                }
                let (all, pages) = walk(&table, q, key, reverse).await;
                assert_eq!(all.len(), $items, "reverse = {reverse}");
                assert_eq!(all.iter().map(key).collect::<HashSet<_>>(), want_set);
                assert_eq!(
                    pages,
                    ($items as usize).div_ceil($limit),
                    "exact limit per page"
                );
            }

            // Without a limit, and with a range and a filter, the merged walk is still exact.
            let (all, _) = walk(&table, $facet::query("2026-11-21").list(), key, false).await;
            assert_eq!(all.len(), $items);
            let f = $facet::fields();
            let q = $facet::query("2026-11-21")
                .greater_than_or_equal(("00:10", ""))
                .filter(f.kind.eq("alert"))
                .limit($limit / 2);
            let (all, _) = walk(&table, q, key, false).await;
            let expected = events
                .iter()
                .filter(|e| e.at.as_str() >= "00:10" && e.kind == "alert")
                .count();
            assert_eq!(all.len(), expected);

            // first() over all shards is the overall first.
            let first = table
                .query($facet::query("2026-11-21").list().first())
                .await
                .unwrap()
                .unwrap();
            assert_eq!(first.at, want[0].0);
            let last = table
                .query($facet::query("2026-11-21").list().first().reverse())
                .await
                .unwrap()
                .unwrap();
            assert_eq!(last.at, want[want.len() - 1].0);
        }
        faceteer_suite::engines!($test);
    };
}

merged_walk_test!(four_shards_merge_in_order, Event4, 4, 150, 11);
merged_walk_test!(sixteen_shards_merge_in_order, Event16, 16, 200, 23);
merged_walk_test!(
    two_hundred_fifty_six_shards_merge_in_order,
    Event256,
    256,
    400,
    97
);

async fn shard_cursors_are_checked() {
    let table = fresh_facet_table::<Event4>("shard-cursors").await;
    let put = table.put_many((0..30).map(Event4::new)).await;
    assert!(put.is_complete());
    let page = table
        .query(Event4::query("2026-11-21").list().limit(5))
        .await
        .unwrap();
    let all_cursor = page.cursor.unwrap();
    let one = table
        .query(Event4::query("2026-11-21").list().shard(1).limit(2))
        .await
        .unwrap();
    let one_cursor = one.cursor.unwrap();

    // A single-shard cursor on an all-shard query and the other way round are refused.
    let err = query_error(
        &table,
        Event4::query("2026-11-21")
            .list()
            .cursor(one_cursor.clone()),
    )
    .await;
    assert!(
        matches!(err, Error::Cursor(CursorError::Foreign { .. })),
        "{err:?}"
    );
    let err = query_error(
        &table,
        Event4::query("2026-11-21")
            .list()
            .shard(1)
            .cursor(all_cursor.clone()),
    )
    .await;
    assert!(
        matches!(err, Error::Cursor(CursorError::Foreign { .. })),
        "{err:?}"
    );
    // Another day's cursor too.
    let err = query_error(
        &table,
        Event4::query("2026-11-22")
            .list()
            .cursor(all_cursor.clone()),
    )
    .await;
    assert!(
        matches!(err, Error::Cursor(CursorError::Foreign { .. })),
        "{err:?}"
    );
    // A shard id out of range is a key error.
    let err = query_error(&table, Event4::query("2026-11-21").list().shard(4)).await;
    assert!(
        matches!(
            err,
            Error::Key(KeyError::ShardOutOfRange { shard: 4, count: 4 })
        ),
        "{err:?}"
    );
    // Gets compute the shard from the record.
    let got = table
        .get(&Event4::key("2026-11-21", "ev-3", "00:01").unwrap())
        .await
        .unwrap();
    assert_eq!(got.unwrap().event_id, "ev-3");
}

/// An index partition sharded by another field.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "ORDER")]
struct Order {
    #[pk(prefix = "#ORDER")]
    #[sk(prefix = "#ORDER")]
    #[shard(count = 16, gsi = 1)]
    id: String,
    #[gsi(n = 1, alias = "Status", pk, prefix = "#STATUS")]
    status: String,
    #[gsi(n = 1, sk, prefix = "#PLACED")]
    placed: String,
}

async fn sharded_index_partitions_merge_too() {
    let table = fresh_facet_table::<Order>("sharded-gsi").await;
    let orders: Vec<Order> = (0..120)
        .map(|i| Order {
            id: format!("o{i}"),
            status: if i % 3 == 0 { "open" } else { "shipped" }.into(),
            placed: format!("2026-11-{:02}T{:02}", 1 + i % 28, i % 24),
        })
        .collect();
    assert!(table.put_many(orders.clone()).await.is_complete());
    let key = |o: &Order| (o.placed.clone(), o.id.clone());
    let (all, _) = walk(&table, Order::by_status("open").list().limit(9), key, false).await;
    assert_eq!(
        all.len(),
        orders.iter().filter(|o| o.status == "open").count()
    );
    let (all, _) = walk(
        &table,
        Order::gsi1("shipped").list().limit(13).reverse(),
        key,
        true,
    )
    .await;
    assert_eq!(
        all.len(),
        orders.iter().filter(|o| o.status == "shipped").count()
    );
}

faceteer_suite::engines!(
    shard_cursors_are_checked,
    sharded_index_partitions_merge_too,
);
