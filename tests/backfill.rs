//! Backfills: a table's stored records brought to the design its facets declare now (a new
//! index, a shard schedule, a sparse index, a moved base key, a newer schema version), with
//! concurrent writers, a kill and a resume, a capacity budget, a dry run and lost answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use faceteer::backfill::{Checkpoint, Report, Why};
use faceteer::{Facet, Item, Table};
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

use crate::common;

/// An order of the shop, its facet's indexes declared by `$index`.
macro_rules! order {
    ($($index:meta),+) => {
        /// An order.
        #[allow(clippy::duplicated_attributes)]
        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        #[facet(name = "ORDER", $($index),+)]
        pub struct Order {
            #[pk(prefix = "#CUSTOMER")]
            pub customer: String,
            #[sk(prefix = "#ORDER")]
            pub id: String,
            pub status: String,
            pub amount: u32,
            #[serde(with = "faceteer::timestamp")]
            pub created: DateTime<Utc>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub note: Option<String>,
        }
    };
}

/// The shop as first deployed: orders by status, one partition per status.
mod v1 {
    use super::*;

    order!(gsi(
        n = 1,
        alias = "ByStatus",
        pk(prefix = "#STATUS", fields(status)),
        sk(prefix = "#ORDER", fields(id))
    ));

    faceteer::table! {
        pub struct Shop { Order }
    }
}

/// The shop now: the status partitions sharded (2 shards, 8 for orders from June 2026), a
/// customer's orders by creation time, and a sparse index of the orders with a note.
mod v2 {
    use super::*;

    order!(
        gsi(
            n = 1,
            alias = "ByStatus",
            pk(
                prefix = "#STATUS",
                fields(status),
                shard(
                    count = 2,
                    fields(id),
                    grow(from = "2026-06-01T00:00:00Z", count = 8),
                    time = created
                )
            ),
            sk(prefix = "#ORDER", fields(id))
        ),
        gsi(
            n = 2,
            alias = "ByCustomerCreated",
            pk(prefix = "#CUSTOMER", fields(customer)),
            sk(prefix = "#CREATED", fields(created))
        ),
        gsi(
            n = 3,
            alias = "Noted",
            sparse,
            pk(prefix = "#NOTED", fields(note)),
            sk(prefix = "#ORDER", fields(id))
        )
    );

    impl From<v1::Order> for Order {
        fn from(o: v1::Order) -> Order {
            Order {
                customer: o.customer,
                id: o.id,
                status: o.status,
                amount: o.amount,
                created: o.created,
                note: o.note,
            }
        }
    }

    faceteer::table! {
        pub struct Shop { Order }
    }
}

fn order(i: usize) -> v1::Order {
    v1::Order {
        customer: format!("c{}", i % 400),
        id: format!("o{i:05}"),
        status: ["new", "paid", "shipped"][i % 3].into(),
        amount: (i % 1000) as u32,
        created: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
            + chrono::Duration::minutes(i as i64 * 20_000 / 1_000),
        note: i.is_multiple_of(7).then(|| format!("gift {i}")),
    }
}

/// The same table through the current design's handle.
fn now_as(table: &Table) -> Table {
    faceteer_suite::patient(Table::declared::<v2::Shop>(
        table.client().clone(),
        table.name(),
    ))
}

/// Every `ORDER` item must be what a put of its record writes now; returns the records.
async fn check_every_item_is_as_put(table: &Table) -> HashMap<String, v2::Order> {
    let mut records = HashMap::new();
    for item in common::raw_items(table).await {
        let record: v2::Order = faceteer::from_item(item.clone()).unwrap();
        let put = faceteer::to_item(&record).unwrap();
        assert_eq!(item, put, "{} is not as a put writes it", record.id);
        records.insert(record.id.clone(), record);
    }
    records
}

fn assert_complete(report: &Report) {
    assert!(report.failed.is_empty(), "{report}");
    assert!(report.unknown.is_empty(), "{report}");
    assert!(report.is_complete(), "{report}");
    assert_eq!(report.totals.settled(), report.totals.scanned, "{report}");
}

/// A writer deployed with the new design changes records while the backfill runs: it
/// replaces some (a put of the whole record), changes the amount of others (an update
/// touching no key) and deletes some. It returns what it left each record it touched as.
async fn concurrent_writer(
    table: Table,
    records: usize,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> HashMap<String, Option<v2::Order>> {
    let mut left: HashMap<String, Option<v2::Order>> = HashMap::new();
    let mut rng = fastrand::Rng::with_seed(27);
    let mut writes = 0;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) || writes < 20 {
        writes += 1;
        let i = rng.usize(..records);
        let id = format!("o{i:05}");
        let current = match left.get(&id) {
            Some(Some(o)) => o.clone(),
            Some(None) => continue,
            None => v2::Order::from(order(i)),
        };
        match rng.u8(..10) {
            0..=3 => {
                let mut o = current;
                o.status = "returned".into();
                o.note = Some(format!("returned after write {writes}"));
                table.put(&o).await.unwrap();
                left.insert(id, Some(o));
            }
            4..=8 => {
                let key = v2::Order::key(&current.customer, &current.id).unwrap();
                let amount = 5_000 + writes;
                table
                    .update(&key, v2::Order::fields().amount.set(amount))
                    .await
                    .unwrap();
                left.insert(id, Some(v2::Order { amount, ..current }));
            }
            _ => {
                let key = v2::Order::key(&current.customer, &current.id).unwrap();
                table.delete(&key).await.unwrap();
                left.insert(id, None);
            }
        }
        if writes % 16 == 0 {
            tokio::task::yield_now().await;
        }
    }
    left
}

async fn a_new_index_and_shard_schedule_reach_every_record_while_it_is_written() {
    let records = match faceteer_suite::engine() {
        faceteer_suite::Engine::Embedded => 20_000,
        faceteer_suite::Engine::Moto => 1_500,
    };
    let old = fresh_table::<v2::Shop>("backfill").await;
    let old = faceteer_suite::patient(Table::declared::<v1::Shop>(
        old.client().clone(),
        old.name(),
    ));
    assert!(old.put_many((0..records).map(order)).await.is_complete());
    let table = now_as(&old);

    // A dry run counts, per attribute, and writes nothing.
    let dry = table.backfill::<v2::Order>().dry_run().await.unwrap();
    assert!(dry.dry_run);
    assert_eq!(dry.totals.scanned, records as u64);
    assert_eq!(dry.totals.rewritten, records as u64, "{dry}");
    let attributes = &dry.facets["ORDER"].attributes;
    let noted = (0..records).filter(|i| i.is_multiple_of(7)).count() as u64;
    assert_eq!(attributes["GSI1PK"], records as u64, "{dry}");
    assert_eq!(attributes["GSI2PK"], records as u64, "{dry}");
    assert_eq!(attributes["GSI2SK"], records as u64, "{dry}");
    assert_eq!(attributes["GSI3PK"], noted, "{dry}");
    assert!(!attributes.contains_key("GSI1SK"), "{dry}");
    let none: Vec<v2::Order> = table
        .query(v2::Order::by_customer_created("c1").list())
        .all()
        .await
        .unwrap();
    assert!(none.is_empty(), "the dry run wrote nothing");

    // The writer starts; the backfill is killed a third of the way in.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = tokio::spawn(concurrent_writer(table.clone(), records, stop.clone()));
    let saved: Arc<Mutex<Option<faceteer::backfill::Progress>>> = Arc::default();
    let kill = Arc::new(tokio::sync::Notify::new());
    let first = {
        let (saved, kill) = (saved.clone(), kill.clone());
        table
            .backfill::<v2::Order>()
            .segments(4)
            .page_size(250)
            .on_progress(move |p| {
                // A crash-safe backfill stores the checkpoint as text.
                let text = p.checkpoint.to_text();
                assert_eq!(Checkpoint::from_text(&text).unwrap(), p.checkpoint);
                *saved.lock().unwrap() = Some(p.clone());
                if p.scanned >= records as u64 / 3 {
                    kill.notify_one();
                }
            })
    };
    tokio::select! {
        done = first => panic!("the backfill finished before it was killed: {:?}", done.map(|r| r.to_string())),
        () = kill.notified() => {}
    }
    let at_kill = saved.lock().unwrap().clone().unwrap();
    assert!(!at_kill.checkpoint.is_done());

    // Resumed from the last checkpoint: finished pages are not read again.
    let resumed = table
        .backfill::<v2::Order>()
        .resume_from(at_kill.checkpoint.clone())
        .await
        .unwrap();
    assert_complete(&resumed);
    assert!(resumed.totals.scanned > 0);
    assert!(
        resumed.totals.scanned <= records as u64 - at_kill.scanned,
        "{} read again after {} of {records}",
        resumed.totals.scanned,
        at_kill.scanned
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let left = writer.await.unwrap();

    // Every item is as a put writes it, and no concurrent write was lost.
    let stored = check_every_item_is_as_put(&table).await;
    for i in 0..records {
        let id = format!("o{i:05}");
        let expected = left
            .get(&id)
            .cloned()
            .unwrap_or_else(|| Some(v2::Order::from(order(i))));
        assert_eq!(stored.get(&id), expected.as_ref(), "record {id}");
    }
    // The new design answers: a customer's orders by creation time, the noted ones, and
    // every shard of a status.
    let c1 = table
        .query(v2::Order::by_customer_created("c1").list())
        .all()
        .await
        .unwrap();
    assert_eq!(
        c1.len(),
        stored.values().filter(|o| o.customer == "c1").count()
    );
    let paid = table
        .query(v2::Order::by_status("paid").list())
        .all()
        .await
        .unwrap();
    assert_eq!(
        paid.len(),
        stored.values().filter(|o| o.status == "paid").count()
    );
    // A second pass finds nothing to do.
    let again = table.backfill::<v2::Order>().await.unwrap();
    assert_complete(&again);
    assert_eq!(again.totals.rewritten, 0, "{again}");
    assert_eq!(again.totals.already_right, stored.len() as u64);
}

/// A device partition grows hot: its base partition key is sharded, so every record moves
/// to a new key (a transaction each: delete the old item, create the new). A record whose
/// new key already holds an item is left, with why.
mod devices {
    use super::*;

    pub mod before {
        use super::*;
        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        #[facet(name = "DEVICE", pk(prefix = "DEVICES", fields()))]
        pub struct Device {
            #[sk(prefix = "#DEVICE")]
            pub id: String,
            pub model: String,
        }
        faceteer::table! { pub struct Fleet { Device } }
    }

    pub mod after {
        use super::*;
        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        #[facet(
            name = "DEVICE",
            pk(prefix = "DEVICES", fields(), shard(count = 4, fields(id)))
        )]
        pub struct Device {
            #[sk(prefix = "#DEVICE")]
            pub id: String,
            pub model: String,
        }
        faceteer::table! { pub struct Fleet { Device } }
    }
}

async fn a_sharded_base_key_moves_every_record() {
    use devices::{after, before};
    let table = fresh_table::<after::Fleet>("backfill-move").await;
    let old = Table::declared::<before::Fleet>(table.client().clone(), table.name());
    let device = |i: usize| before::Device {
        id: format!("d{i:03}"),
        model: format!("m{}", i % 3),
    };
    assert!(old.put_many((0..120).map(device)).await.is_complete());
    // d007 was already written at its new key by the new code, with another model.
    let taken = after::Device {
        id: "d007".into(),
        model: "newer".into(),
    };
    table.put(&taken).await.unwrap();

    let report = table.backfill_table::<after::Fleet>().await.unwrap();
    // A record moved ahead of the scan is read again at its new key, already right.
    assert!(report.totals.scanned >= 121, "{report}");
    assert_eq!(report.totals.rewritten, 119, "{report}");
    assert_eq!(
        report.totals.already_right,
        report.totals.scanned - 120,
        "{report}"
    );
    assert_eq!(report.facets["DEVICE"].attributes["PK"], 119, "{report}");
    assert_eq!(report.failed.len(), 1, "{report}");
    let failed = &report.failed[0];
    assert_eq!(
        (failed.pk.as_str(), failed.sk.as_str()),
        ("DEVICES", "#DEVICE_d007")
    );
    assert!(matches!(&failed.why, Why::KeyTaken { pk, .. } if pk.starts_with("DEVICES_")));
    assert!(failed.why.to_string().contains("already holds an item"));

    // Both d007 items are kept; every other record is at its sharded key only.
    let items = common::raw_items(&table).await;
    assert_eq!(items.len(), 121);
    let at_old: Vec<&Item> = items
        .iter()
        .filter(|i| i["PK"].as_s().unwrap() == "DEVICES")
        .collect();
    assert_eq!(at_old.len(), 1);
    for i in 0..120 {
        let id = format!("d{i:03}");
        let got = table.get(&after::Device::key(&id).unwrap()).await.unwrap();
        let want = if id == "d007" {
            taken.clone()
        } else {
            after::Device {
                id: id.clone(),
                model: format!("m{}", i % 3),
            }
        };
        assert_eq!(got, Some(want));
    }
}

/// A person's name was stored as two attributes; version 2 stores one, renamed.
pub(crate) mod people {
    use super::*;

    pub mod v1 {
        use super::*;
        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        #[facet(name = "PERSON")]
        pub struct Person {
            #[pk(prefix = "#PERSON")]
            #[sk(prefix = "#PERSON")]
            pub id: String,
            pub first: String,
            pub last: String,
        }
        faceteer::table! { pub struct People { Person } }
    }

    pub mod v2 {
        use super::*;

        /// The shape version 1 stored.
        #[derive(Deserialize)]
        pub struct PersonV1 {
            pub id: String,
            pub first: String,
            pub last: String,
        }

        pub fn from_v1(p: PersonV1) -> Person {
            Person {
                id: p.id,
                full_name: format!("{} {}", p.first, p.last),
                nickname: None,
            }
        }

        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        #[facet(name = "PERSON", schema_version = 2, upgrade = from_v1)]
        pub struct Person {
            #[pk(prefix = "#PERSON")]
            #[sk(prefix = "#PERSON")]
            pub id: String,
            #[serde(rename = "fullName")]
            pub full_name: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub nickname: Option<String>,
        }
        faceteer::table! { pub struct People { Person } }
    }
}

async fn records_of_an_older_schema_version_are_upgraded_and_rewritten() {
    use people::{v1, v2};
    let table = fresh_table::<v2::People>("backfill-version").await;
    let old = Table::declared::<v1::People>(table.client().clone(), table.name());
    for (id, first, last) in [("p1", "Ada", "Lovelace"), ("p2", "Alan", "Turing")] {
        old.put(&v1::Person {
            id: id.into(),
            first: first.into(),
            last: last.into(),
        })
        .await
        .unwrap();
    }
    // Reads upgrade transparently.
    let ada = table.get(&v2::Person::key("p1").unwrap()).await.unwrap();
    assert_eq!(
        ada.as_ref().map(|p| p.full_name.as_str()),
        Some("Ada Lovelace")
    );
    // An update of an old record would mix two shapes: refused, nothing written.
    let refused = table
        .update(
            &v2::Person::key("p1").unwrap(),
            v2::Person::fields().nickname.set("Countess"),
        )
        .await;
    assert!(
        matches!(&refused, Err(faceteer::Error::OlderSchema { found, .. }) if found == "1"),
        "{refused:?}"
    );
    // A put writes the new shape; a backfill rewrites the rest.
    table
        .put(&v2::Person {
            id: "p3".into(),
            full_name: "Grace Hopper".into(),
            nickname: None,
        })
        .await
        .unwrap();
    let report = table.backfill_table::<v2::People>().await.unwrap();
    assert_complete(&report);
    assert_eq!(report.totals.rewritten, 2, "{report}");
    assert_eq!(report.totals.already_right, 1, "{report}");
    let attributes = &report.facets["PERSON"].attributes;
    for a in ["_facet_version", "fullName", "first", "last"] {
        assert_eq!(attributes.get(a), Some(&2), "{a}: {report}");
    }
    let raw = common::get_raw(&table, v2::Person::key("p2").unwrap().to_item())
        .await
        .unwrap();
    assert_eq!(raw["_facet_version"].as_n().unwrap(), "2");
    assert_eq!(raw["fullName"].as_s().unwrap(), "Alan Turing");
    assert!(!raw.contains_key("first") && !raw.contains_key("last"));
    // Now the update applies.
    table
        .update(
            &v2::Person::key("p1").unwrap(),
            v2::Person::fields().nickname.set("Countess"),
        )
        .await
        .unwrap();
    // An item written by newer code is refused, not misread.
    let mut newer = raw.clone();
    newer.insert(
        "_facet_version".into(),
        aws_sdk_dynamodb::types::AttributeValue::N("3".into()),
    );
    common::put_raw(&table, newer).await.unwrap();
    let err = table
        .get(&v2::Person::key("p2").unwrap())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("schema version 3"), "{err}");
    // The backfill reports it as failed, with why, and leaves it.
    let report = table.backfill::<v2::Person>().await.unwrap();
    assert_eq!(report.failed.len(), 1, "{report}");
    assert!(matches!(report.failed[0].why, Why::Unreadable(_)));
}

async fn a_capacity_budget_paces_the_backfill() {
    let table = fresh_table::<v2::Shop>("backfill-budget").await;
    let old = Table::declared::<v1::Shop>(table.client().clone(), table.name());
    assert!(old.put_many((0..60).map(order)).await.is_complete());
    let started = tokio::time::Instant::now();
    let report = table
        .backfill::<v2::Order>()
        .segments(2)
        .capacity_per_second(20.0)
        .await
        .unwrap();
    assert_complete(&report);
    assert_eq!(report.totals.rewritten, 60);
    // 60 rewrites and a scan, 20 units a second with a second's worth saved up: the
    // capacity beyond the first second's paces the rest.
    let capacity = report.totals.capacity;
    assert!(capacity > 30.0, "{report}");
    let paced = Duration::from_secs_f64((capacity - 20.0) / 20.0 * 0.9);
    assert!(
        started.elapsed() >= paced,
        "{:?} for {capacity} units",
        started.elapsed()
    );
}

async fn rewrites_whose_answers_are_lost_are_never_guessed() {
    let (proxy, table, direct) = common::lossy_table::<v2::Shop>("backfill-lossy", 11).await;
    let old = Table::declared::<v1::Shop>(direct.client().clone(), direct.name());
    assert!(old.put_many((0..200).map(order)).await.is_complete());
    let report = table.backfill::<v2::Order>().segments(2).await.unwrap();
    assert!(
        proxy
            .stats()
            .lost_answers
            .load(std::sync::atomic::Ordering::Relaxed)
            > 0
    );
    assert!(report.failed.is_empty(), "{report}");
    // Each item is rewritten, or its rewrite is reported unknown: nothing else.
    assert_eq!(
        report.totals.rewritten + report.unknown.len() as u64,
        200,
        "{report}"
    );
    // A second pass, straight to the engine, finds at most the unknown ones to do.
    let again = now_as(&direct).backfill::<v2::Order>().await.unwrap();
    assert_complete(&again);
    assert!(again.totals.rewritten <= report.unknown.len() as u64);
    check_every_item_is_as_put(&direct).await;
}

faceteer_suite::engines!(
    a_new_index_and_shard_schedule_reach_every_record_while_it_is_written,
    a_sharded_base_key_moves_every_record,
    records_of_an_older_schema_version_are_upgraded_and_rewritten,
    a_capacity_budget_paces_the_backfill,
    rewrites_whose_answers_are_lost_are_never_guessed,
);
