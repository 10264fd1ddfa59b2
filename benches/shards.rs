//! All-shard query latency: one shard of a 16-shard partition against all 16 shards merged,
//! for the same page size, on a server that answers concurrently after a fixed delay (the
//! in-process stub, [`faceteer::testing::StubServer`], 2 ms per request unless
//! `FACETEER_BENCH_LATENCY_MS` says otherwise). With every shard read at
//! once, a merged page costs about one request's latency.
//!
//! Before timing: the merged page must equal the first 20 records of all 1,600 in sort-key
//! order, the one-shard page the first 20 of that shard, and each page must take exactly one
//! request per shard read.
//!
//! `cargo bench --bench shards`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use faceteer::testing::{StubConfig, StubServer};
use faceteer::{Facet, Table};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "EVENT")]
struct Event {
    #[pk(prefix = "#DAY")]
    day: String,
    #[sk(prefix = "#AT")]
    at: String,
    #[shard(count = 16)]
    #[sk]
    event_id: String,
    payload: String,
}

const DAY: &str = "2026-11-21";

fn bench(c: &mut Criterion) {
    // `FACETEER_BENCH_LATENCY_MS` sets the server's delay per request (default 2).
    let latency_ms: u64 = std::env::var("FACETEER_BENCH_LATENCY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let stub = rt
        .block_on(StubServer::start(StubConfig {
            page_size: 100,
            latency: Duration::from_millis(latency_ms),
        }))
        .unwrap();
    let events: Vec<Event> = (0..1600)
        .map(|i| Event {
            day: DAY.into(),
            at: format!("{i:04}"),
            event_id: format!("ev-{i}"),
            payload: "x".repeat(200),
        })
        .collect();
    stub.load(events.iter().map(|e| faceteer::to_item(e).unwrap()));
    let client = faceteer::local_client(&stub.endpoint()).expect("a local endpoint");
    let table = Table::with_facets(client, "bench", [Event::SCHEMA]).unwrap();

    // Both arms return the records they should, one request per shard read.
    let shard_3 = Event::query(DAY).list().shard(3).limit(20);
    let merged = Event::query(DAY).list().limit(20);
    rt.block_on(async {
        let before = stub.requests();
        let page = table.query(merged.clone()).await.unwrap();
        assert_eq!(stub.requests() - before, 16);
        assert_eq!(page.records, events[..20].to_vec());

        let before = stub.requests();
        let page = table.query(shard_3.clone()).await.unwrap();
        assert_eq!(stub.requests() - before, 1);
        // The first 20 records of the one partition they all come from.
        let pk_of = |e: &Event| faceteer::to_item(e).unwrap()["PK"].as_s().unwrap().clone();
        let shard_pk = pk_of(&page.records[0]);
        let expected: Vec<Event> = events
            .iter()
            .filter(|e| pk_of(e) == shard_pk)
            .take(20)
            .cloned()
            .collect();
        assert_eq!(page.records, expected);
    });

    let mut g = c.benchmark_group(format!("query 20 records, {latency_ms} ms per request"));
    g.sample_size(30);
    g.bench_function("one shard", |b| {
        b.to_async(&rt).iter(|| async {
            let page = table.query(shard_3.clone()).await.unwrap();
            assert_eq!(page.records.len(), 20);
        })
    });
    g.bench_function("all 16 shards merged", |b| {
        b.to_async(&rt).iter(|| async {
            let page = table.query(merged.clone()).await.unwrap();
            assert_eq!(page.records.len(), 20);
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
