//! Batch writes, batch reads and a 100-page query: the CPU faceteer uses against hand-written
//! `aws-sdk-dynamodb` code sending the same requests, both against the in-process stub server
//! ([`faceteer::testing::StubServer`]) on one thread, so that the process CPU time measured is the
//! client's work plus the same stub work for both arms. Then the peak memory of streaming
//! 100,000 records through `put_many`, `get_many` and `delete_many`.
//!
//! Before timing, each pair is run once and must produce identical output: the same items
//! and keys reach the stub (recorded), the same records come back, the same number of
//! requests is sent.
//!
//! `cargo bench --bench batches`

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, PutRequest, WriteRequest};
use aws_sdk_dynamodb::Client;
use criterion::{criterion_group, criterion_main, Criterion};
use faceteer::testing::{StubConfig, StubServer};
use faceteer::{Facet, Item, Outcome, Table};
use faceteer_suite::bench_task::{hand_from_item, hand_to_item, task, Task};
use futures::StreamExt;

/// Live heap bytes and their peak, for the memory figures.
struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
/// Counting is on only while a peak is measured, so the CPU benchmarks pay nothing for it.
static COUNTING: AtomicBool = AtomicBool::new(false);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        grew(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        grew(size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, size) }
    }
}

/// Count `bytes` more (or fewer) live bytes, while counting.
#[inline]
fn grew(bytes: isize) {
    if COUNTING.load(Ordering::Relaxed) {
        let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak heap growth (MiB) while `work` runs.
async fn peak_mib<T>(work: impl std::future::Future<Output = T>) -> (T, f64) {
    // What is freed while counting but was allocated before may take LIVE below zero: the
    // peak is measured from where counting starts.
    LIVE.store(0, Ordering::SeqCst);
    PEAK.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    let out = work.await;
    COUNTING.store(false, Ordering::SeqCst);
    let peak = PEAK.load(Ordering::SeqCst);
    (out, peak as f64 / (1024.0 * 1024.0))
}

/// This process's CPU time.
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Benchmark `ours` against `theirs` in `g` by the process CPU time of their runs, paired:
/// each measured run of one arm follows an unmeasured run of the other, so both arms are
/// measured in the same conditions (heap, connections, caches) whichever criterion runs
/// first. Without pairing, the arm measured first paid for the heap's growth and the two
/// arms' ratio moved by ±15% from run to run on the 2-core machine.
fn cpu_pair<A, B, FA, FB>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    rt: &tokio::runtime::Runtime,
    name: &str,
    ours: impl Fn() -> FA,
    theirs: impl Fn() -> FB,
) where
    FA: std::future::Future<Output = A>,
    FB: std::future::Future<Output = B>,
{
    let (ours, theirs) = (&ours, &theirs);
    g.bench_function(format!("{name}/faceteer"), |b| {
        b.iter_custom(|iters| rt.block_on(cpu_after(iters, ours, theirs)))
    });
    g.bench_function(format!("{name}/hand-written"), |b| {
        b.iter_custom(|iters| rt.block_on(cpu_after(iters, theirs, ours)))
    });
}

/// The CPU time of `iters` runs of `measured`, each after an unmeasured run of `other`.
async fn cpu_after<A, B, FA, FB>(
    iters: u64,
    measured: impl Fn() -> FA,
    other: impl Fn() -> FB,
) -> Duration
where
    FA: std::future::Future<Output = A>,
    FB: std::future::Future<Output = B>,
{
    let mut spent = Duration::ZERO;
    for _ in 0..iters {
        other().await;
        let start = cpu_time();
        measured().await;
        spent += cpu_time() - start;
    }
    spent
}

const TABLE: &str = "bench";
const TEAM: &str = "team-bench";

fn tasks(n: usize) -> impl Iterator<Item = Task> {
    (0..n).map(|i| task(TEAM, i))
}

/// Hand-written `put_many`: 25 per request, 4 requests in flight, unprocessed items resent.
async fn hand_put(client: &Client, records: impl Iterator<Item = Task>) -> usize {
    let requests = records.map(|t| {
        WriteRequest::builder()
            .put_request(
                PutRequest::builder()
                    .set_item(Some(hand_to_item(&t)))
                    .build()
                    .unwrap(),
            )
            .build()
    });
    let chunks = futures::stream::iter(ChunksOf::new(requests, 25));
    chunks
        .map(|mut chunk: Vec<WriteRequest>| async move {
            let n = chunk.len();
            while !chunk.is_empty() {
                let out = client
                    .batch_write_item()
                    .request_items(TABLE, chunk)
                    .send()
                    .await
                    .expect("batch write");
                chunk = out
                    .unprocessed_items
                    .and_then(|mut u| u.remove(TABLE))
                    .unwrap_or_default();
            }
            n
        })
        .buffer_unordered(4)
        .fold(0, |a, n| async move { a + n })
        .await
}

/// Hand-written `get_many`: 100 keys per request, 4 in flight, records decoded.
async fn hand_get(client: &Client, keys: impl Iterator<Item = Item>) -> Vec<Task> {
    futures::stream::iter(ChunksOf::new(keys, 100))
        .map(|mut keys: Vec<Item>| async move {
            let mut found = Vec::with_capacity(keys.len());
            while !keys.is_empty() {
                let out = client
                    .batch_get_item()
                    .request_items(
                        TABLE,
                        KeysAndAttributes::builder()
                            .set_keys(Some(keys))
                            .build()
                            .unwrap(),
                    )
                    .send()
                    .await
                    .expect("batch get");
                found.extend(
                    out.responses
                        .and_then(|mut r| r.remove(TABLE))
                        .unwrap_or_default()
                        .into_iter()
                        .map(|item| hand_from_item(item).expect("a task")),
                );
                keys = out
                    .unprocessed_keys
                    .and_then(|mut u| u.remove(TABLE))
                    .map(|k| k.keys)
                    .unwrap_or_default();
            }
            found
        })
        .buffer_unordered(4)
        .flat_map(futures::stream::iter)
        .collect()
        .await
}

/// Hand-written page walk over one partition.
async fn hand_query(client: &Client) -> Vec<Task> {
    let mut out = Vec::new();
    let mut start: Option<HashMap<String, AttributeValue>> = None;
    loop {
        let page = client
            .query()
            .table_name(TABLE)
            .key_condition_expression("#pk = :pk AND begins_with(#sk, :sk)")
            .expression_attribute_names("#pk", "PK")
            .expression_attribute_names("#sk", "SK")
            .expression_attribute_values(":pk", AttributeValue::S(format!("#TEAM_{TEAM}")))
            .expression_attribute_values(":sk", AttributeValue::S("#TASK".into()))
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("query");
        out.extend(
            page.items
                .unwrap_or_default()
                .into_iter()
                .map(|item| hand_from_item(item).expect("a task")),
        );
        start = page.last_evaluated_key;
        if start.is_none() {
            return out;
        }
    }
}

/// An iterator's items in chunks of `n`, pulled lazily.
struct ChunksOf<I> {
    inner: I,
    n: usize,
}

impl<I> ChunksOf<I> {
    fn new(inner: I, n: usize) -> Self {
        ChunksOf { inner, n }
    }
}

impl<I: Iterator> Iterator for ChunksOf<I> {
    type Item = Vec<I::Item>;
    fn next(&mut self) -> Option<Vec<I::Item>> {
        let chunk: Vec<I::Item> = self.inner.by_ref().take(self.n).collect();
        (!chunk.is_empty()).then_some(chunk)
    }
}

fn sorted(mut tasks: Vec<Task>) -> Vec<Task> {
    tasks.sort_by(|a, b| a.task_id.cmp(&b.task_id));
    tasks
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stub = rt
        .block_on(StubServer::start(StubConfig {
            page_size: 100,
            latency: Duration::ZERO,
        }))
        .unwrap();
    let client = faceteer::local_client(&stub.endpoint()).expect("a local endpoint");
    let table = Table::with_facets(client.clone(), TABLE, [Task::SCHEMA]).unwrap();
    const N: usize = 10_000;
    let keys: Vec<_> = tasks(N)
        .map(|t| Task::key(t.team_id, t.task_id).unwrap())
        .collect();
    stub.load(tasks(N).map(|t| faceteer::to_item(&t).unwrap()));

    // Identical output, and the same number of requests.
    rt.block_on(async {
        stub.record(true);
        let before = stub.requests();
        let report = table.put_many(tasks(N)).await;
        assert!(report.is_complete() && report.written.len() == N);
        let ours = stub.take_recorded();
        let mid = stub.requests();
        assert_eq!(hand_put(&client, tasks(N)).await, N);
        let theirs = stub.take_recorded();
        assert_eq!(ours.len(), N);
        assert_eq!(ours, theirs, "both arms write the same items");
        assert_eq!(mid - before, stub.requests() - mid, "the same requests");
        stub.record(false);

        let before = stub.requests();
        let found = table.get_many(keys.clone()).await;
        assert!(found.is_complete() && found.found.len() == N);
        let mid = stub.requests();
        let theirs = hand_get(&client, keys.iter().map(|k| k.to_item())).await;
        assert_eq!(sorted(found.found), sorted(theirs));
        assert_eq!(mid - before, stub.requests() - mid);

        let before = stub.requests();
        let ours = table.query(Task::query(TEAM).list()).all().await.unwrap();
        let mid = stub.requests();
        let theirs = hand_query(&client).await;
        assert_eq!(ours.len(), N);
        assert_eq!(ours, theirs);
        assert_eq!(
            mid - before,
            100,
            "one request per page, no look-ahead request"
        );
        assert_eq!(stub.requests() - mid, 100);
    });

    let mut g = c.benchmark_group("CPU");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(8));
    let (table, client, keys) = (&table, &client, &keys);
    cpu_pair(
        &mut g,
        &rt,
        "put_many 10k",
        || async move { assert!(table.put_many(tasks(N)).await.is_complete()) },
        || async move { assert_eq!(hand_put(client, tasks(N)).await, N) },
    );
    // The same writes, each outcome consumed as it comes (the awaited report above keeps
    // every written record until the end, as `PutReport::written`).
    cpu_pair(
        &mut g,
        &rt,
        "put_many 10k streamed",
        || async move {
            let outcomes = table.put_many(tasks(N)).stream();
            let done = outcomes
                .fold(0, |n, o| async move {
                    n + matches!(o, Outcome::Done(_)) as usize
                })
                .await;
            assert_eq!(done, N);
        },
        || async move { assert_eq!(hand_put(client, tasks(N)).await, N) },
    );
    cpu_pair(
        &mut g,
        &rt,
        "get_many 10k",
        || async move { assert_eq!(table.get_many(keys.iter().cloned()).await.found.len(), N) },
        || async move {
            let found = hand_get(client, keys.iter().map(|k| k.to_item())).await;
            assert_eq!(found.len(), N);
        },
    );
    cpu_pair(
        &mut g,
        &rt,
        "query 100 pages",
        || async move {
            let all = table.query(Task::query(TEAM).list()).all().await.unwrap();
            assert_eq!(all.len(), N);
        },
        || async move { assert_eq!(hand_query(client).await.len(), N) },
    );
    g.finish();

    // Peak memory of 100,000 records, generated as they are pulled.
    const BIG: usize = 100_000;
    rt.block_on(async {
        let (n, ours) = peak_mib(async {
            let mut outcomes = std::pin::pin!(table.put_many(tasks(BIG)).stream());
            let mut written = 0;
            while let Some(o) = outcomes.next().await {
                assert!(matches!(o, Outcome::Done(_)));
                written += 1;
            }
            written
        })
        .await;
        assert_eq!(n, BIG);
        let (n, theirs) = peak_mib(hand_put(client, tasks(BIG))).await;
        assert_eq!(n, BIG);
        let (report, awaited) = peak_mib(async { table.put_many(tasks(BIG)).await }).await;
        assert_eq!(report.written.len(), BIG);
        drop(report);
        println!(
            "peak memory, put of {BIG} records: faceteer stream {ours:.1} MiB, hand-written \
             {theirs:.1} MiB, faceteer awaited report (holds every record) {awaited:.1} MiB"
        );

        let big_keys = || tasks(BIG).map(|t| Task::key(t.team_id, t.task_id).unwrap());
        let (n, ours) = peak_mib(async {
            let outcomes = table.get_many(big_keys()).stream();
            outcomes.fold(0, |n, _| async move { n + 1 }).await
        })
        .await;
        assert_eq!(n, BIG);
        let (n, deleted) = peak_mib(async {
            let outcomes = table.delete_many(big_keys()).stream();
            outcomes.fold(0, |n, _| async move { n + 1 }).await
        })
        .await;
        assert_eq!(n, BIG);
        println!(
            "peak memory, {BIG} keys: get_many stream {ours:.1} MiB, delete_many stream \
             {deleted:.1} MiB"
        );
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
