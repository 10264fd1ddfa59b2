//! Moving a live table from a concatenated index key to a native (multi-attribute) one,
//! with writers running throughout (the path `docs/evolving.md` documents):
//!
//! 1. declare the native index beside the old one (`V2`) and create it: DynamoDB fills it
//!    from the records' own attributes, so a backfill finds nothing missing;
//! 2. check both indexes answer the same queries the same way;
//! 3. switch the queries to the native index and drop the old one from the facet (`V3`);
//!    a backfill removes the old key attributes.
//!
//! After every step every record reads, and at the end the native index holds exactly the
//! records, in priority (as a number) then due order.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;

use faceteer::{Facet, Table};
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};
use tokio::sync::RwLock;

macro_rules! ticket {
    ($(#[$meta:meta])* $name:ident) => {
        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        $(#[$meta])*
        #[serde(rename_all = "camelCase")]
        struct $name {
            #[pk(prefix = "#TEAM")]
            team: String,
            #[sk(prefix = "#TICKET")]
            id: String,
            status: String,
            priority: u32,
            due: String,
            title: String,
        }
    };
}

ticket!(
    /// The table as it is: GSI1 by team and status, sorted by priority (written sortable)
    /// then due date, all in two concatenated text attributes.
    #[facet(
        name = "TICKET",
        gsi(n = 1, pk(prefix = "#QUEUE", fields(team, status)), sk(prefix = "#P", fields(priority, due), sortable(priority)))
    )]
    TicketV1
);

ticket!(
    /// Step 1: the native index declared beside the old one.
    #[facet(
        name = "TICKET",
        gsi(n = 1, pk(prefix = "#QUEUE", fields(team, status)), sk(prefix = "#P", fields(priority, due), sortable(priority))),
        gsi(n = 2, native, pk(fields(team, status)), sk(fields(priority, due)))
    )]
    TicketV2
);

ticket!(
    /// Step 3: the native index alone.
    #[facet(
        name = "TICKET",
        gsi(n = 2, native, pk(fields(team, status)), sk(fields(priority, due)))
    )]
    TicketV3
);

faceteer::table! { struct V1 { TicketV1 } }
faceteer::table! { struct V2 { TicketV2 } }
faceteer::table! { struct V3 { TicketV3 } }

const TEAMS: [&str; 3] = ["a", "b", "c"];
const STATUSES: [&str; 2] = ["open", "closed"];

fn fields(i: u32, round: u32) -> (String, String, String, u32, String, String) {
    let seed = i.wrapping_mul(2_654_435_761).wrapping_add(round * 40_503);
    (
        TEAMS[(i % 3) as usize].to_owned(),
        format!("t{i:03}"),
        STATUSES[(seed % 2) as usize].to_owned(),
        // 1..=12: text order would put 10 before 9.
        seed % 12 + 1,
        // Unique per record and round, so the index order has no ties.
        format!(
            "2026-12-{:02}T{:02}:{:02}:{:02}",
            1 + seed % 28,
            i / 60,
            i % 60,
            round % 60
        ),
        format!("ticket {i} round {round}"),
    )
}

macro_rules! make {
    ($ty:ident, $i:expr, $round:expr) => {{
        let (team, id, status, priority, due, title) = fields($i, $round);
        $ty {
            team,
            id,
            status,
            priority,
            due,
            title,
        }
    }};
}

/// Which facet version the application runs.
const PHASE_V1: u8 = 1;
const PHASE_V2: u8 = 2;
const PHASE_V3: u8 = 3;

/// Put records of the current version until told to stop; a write never fails.
async fn writer(
    table: Table,
    phase: Arc<AtomicU8>,
    stop: Arc<AtomicBool>,
    pause: Arc<RwLock<()>>,
    seed: u32,
) -> u32 {
    let mut writes = 0;
    let mut round = seed;
    while !stop.load(Ordering::Relaxed) {
        let _running = pause.read().await;
        round += 1;
        let i = round.wrapping_mul(7) % 60;
        let result = match phase.load(Ordering::Relaxed) {
            PHASE_V1 => table.put(&make!(TicketV1, i, round)).await.map(|_| ()),
            PHASE_V2 => table.put(&make!(TicketV2, i, round)).await.map(|_| ()),
            _ => table.put(&make!(TicketV3, i, round)).await.map(|_| ()),
        };
        result.expect("a write of the running version");
        writes += 1;
        drop(_running);
        tokio::task::yield_now().await;
    }
    writes
}

/// Every record reads as `F`, in every team's partition: none is unreadable.
async fn all_read<F: Facet + Send + Sync + 'static>(
    table: &Table,
    query: fn(&str) -> faceteer::query::Query<F>,
) -> Vec<F> {
    let mut out = Vec::new();
    for team in TEAMS {
        let collected = table.query(query(team)).all_with_failures().await.unwrap();
        assert!(
            collected.failed.is_empty(),
            "unreadable records: {:?}",
            collected.failed
        );
        out.extend(collected.records);
    }
    out
}

async fn a_live_table_moves_to_a_native_index_with_writers_running() {
    let table = fresh_table::<V1>("native-migration").await;
    for i in 0..60 {
        table.put(&make!(TicketV1, i, 0)).await.unwrap();
    }
    let phase = Arc::new(AtomicU8::new(PHASE_V1));
    let stop = Arc::new(AtomicBool::new(false));
    let pause = Arc::new(RwLock::new(()));
    let writers: Vec<_> = (0..2)
        .map(|n| {
            tokio::spawn(writer(
                table.clone(),
                phase.clone(),
                stop.clone(),
                pause.clone(),
                n * 1000,
            ))
        })
        .collect();

    // Step 1: declare the native index beside the old one; create it; deploy.
    let v2 = Table::declared::<V2>(table.client().clone(), table.name().to_owned());
    assert_eq!(v2.create_missing_indexes().await.unwrap(), ["GSI2"]);
    phase.store(PHASE_V2, Ordering::Relaxed);
    all_read(&v2, |t| TicketV2::query(t.to_owned()).list()).await;
    // Nothing is missing from the native index: its keys are the records' attributes.
    let report = v2.backfill::<TicketV2>().await.unwrap();
    assert!(report.is_complete(), "{report}");
    assert_eq!(report.totals.rewritten, 0, "{report}");
    assert!(v2.verify().await.unwrap().is_ok());

    // Step 2: both indexes answer the same queries the same way (writers paused).
    {
        let _quiet = pause.write().await;
        for team in TEAMS {
            for status in STATUSES {
                let old = v2
                    .query(TicketV2::gsi1(team.to_owned(), status.to_owned()).list())
                    .all()
                    .await
                    .unwrap();
                let new = v2
                    .query(TicketV2::gsi2(team, status).list())
                    .all()
                    .await
                    .unwrap();
                assert_eq!(old, new, "{team}/{status}");
                let old = v2
                    .query(TicketV2::gsi1(team.to_owned(), status.to_owned()).begins_with((5u32,)))
                    .all()
                    .await
                    .unwrap();
                let new = v2
                    .query(TicketV2::gsi2(team, status).eq(5).list())
                    .all()
                    .await
                    .unwrap();
                assert_eq!(old, new, "{team}/{status}, priority 5");
            }
        }
    }

    // Step 3: the queries use the native index; the old index leaves the facet, and a
    // backfill removes its attributes.
    let v3 = Table::declared::<V3>(table.client().clone(), table.name().to_owned());
    phase.store(PHASE_V3, Ordering::Relaxed);
    all_read(&v3, |t| TicketV3::query(t.to_owned()).list()).await;
    let report = v3.backfill::<TicketV3>().await.unwrap();
    assert!(report.is_complete(), "{report}");
    stop.store(true, Ordering::Relaxed);
    let mut writes = 0;
    for w in writers {
        writes += w.await.unwrap();
    }
    assert!(writes > 0, "the writers ran");
    // What the writers left after the backfill is rewritten too (a V2 write in flight).
    let report = v3.backfill::<TicketV3>().await.unwrap();
    assert!(report.is_complete(), "{report}");

    // The end: no record holds the old key attributes; the native index holds them all,
    // in priority order as numbers, then due.
    let records = all_read(&v3, |t| TicketV3::query(t.to_owned()).list()).await;
    assert_eq!(records.len(), 60);
    for t in &records {
        let key = TicketV3::key(&t.team, &t.id).unwrap();
        let item = crate::common::get_record_item(&v3, key.to_item())
            .await
            .unwrap();
        assert!(
            !item.contains_key("GSI1PK") && !item.contains_key("GSI1SK"),
            "{item:?}"
        );
    }
    for team in TEAMS {
        for status in STATUSES {
            let mut want: Vec<TicketV3> = records
                .iter()
                .filter(|t| t.team == team && t.status == status)
                .cloned()
                .collect();
            want.sort_by(|a, b| (a.priority, &a.due).cmp(&(b.priority, &b.due)));
            let got = v3
                .query(TicketV3::gsi2(team, status).list())
                .all()
                .await
                .unwrap();
            assert_eq!(got, want, "{team}/{status}");
        }
    }
    let verification = v3.verify().await.unwrap();
    assert!(verification.is_ok(), "{:?}", verification.differences);
    assert_eq!(
        verification.unused_indexes,
        ["GSI1"],
        "drop it when no reader is left"
    );
    v3.delete_table().await.unwrap();
}

faceteer_suite::engines!(a_live_table_moves_to_a_native_index_with_writers_running);
