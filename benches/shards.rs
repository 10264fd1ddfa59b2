//! Query latency on the local DynamoDB-API server: one shard of a 16-shard partition
//! against all 16 shards merged, for the same page size.
//!
//! `cargo bench --bench shards` runs on the embedded engine (in-process dynoxide); set
//! `FACETEER_DYNAMODB_ENDPOINT` to measure another server (moto, dynalite, DynamoDB Local).

use criterion::{criterion_group, criterion_main, Criterion};
use faceteer::{Facet, Table};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Facet, Serialize, Deserialize)]
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

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let table: Table = rt.block_on(async {
        let table = faceteer_suite::fresh_facet_table::<Event>("bench-shards").await;
        let events = (0..1600).map(|i| Event {
            day: "2026-11-21".into(),
            at: format!("{:04}", i),
            event_id: format!("ev-{i}"),
            payload: "x".repeat(200),
        });
        let put = table.put_many(events).await;
        assert!(put.is_complete());
        table
    });

    let mut g = c.benchmark_group("query 20 records");
    g.sample_size(30);
    g.bench_function("one shard", |b| {
        b.to_async(&rt).iter(|| async {
            let page = table
                .query(Event::query("2026-11-21").list().shard(3).limit(20))
                .await
                .unwrap();
            assert_eq!(page.records.len(), 20);
        })
    });
    g.bench_function("all 16 shards merged", |b| {
        b.to_async(&rt).iter(|| async {
            let page = table
                .query(Event::query("2026-11-21").list().limit(20))
                .await
                .unwrap();
            assert_eq!(page.records.len(), 20);
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
