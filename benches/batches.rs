//! The peak heap of streaming 100,000 records of the README's `Task` through `put_many`,
//! `get_many` and `delete_many`, against a hand-written loop sending the same requests; and
//! of an awaited `get_many` of 100,000 stored records (every record held at the end)
//! against the hand-written reads collecting the same records.
//! (The CPU of reads and writes is measured in `benches/reads.rs`.)
//!
//! `cargo bench --bench batches`

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use criterion::{criterion_group, criterion_main, Criterion};
use faceteer::batch::Outcome;
use faceteer::testing::StubConfig;
use faceteer_suite::bench_task::{hand_from_item, hand_key, hand_to_item, task, Task};
use futures::StreamExt;
use support::{user_get, user_put, StubThread};

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

const TABLE: &str = "bench";
const TEAM: &str = "team-bench";

fn tasks(n: usize) -> impl Iterator<Item = Task> {
    (0..n).map(|i| task(TEAM, i))
}

/// Hand-written `put_many` of `records`.
async fn hand_put(client: &Client, records: impl Iterator<Item = Task>) -> usize {
    user_put(client, TABLE, records.map(|t| hand_to_item(&t))).await
}

fn bench(_: &mut Criterion) {
    let stub = StubThread::start(StubConfig {
        page_size: 100,
        latency: Duration::ZERO,
    });
    let rt = support::client_runtime();
    let (client, table) = support::task_table(&stub.server, TABLE);
    let (table, client) = (&table, &client);
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

        // Awaited reads of 100,000 stored records: both arms hold every record at the end,
        // and generate their keys as they are pulled.
        stub.server
            .load(tasks(BIG).map(|t| faceteer::to_item(&t).unwrap()));
        let (found, ours) = peak_mib(async { table.get_many(big_keys()).await.found }).await;
        assert_eq!(found.len(), BIG);
        drop(found);
        let hand_keys = tasks(BIG).map(|t| hand_key(&t.team_id, &t.task_id));
        let (found, theirs) =
            peak_mib(async { user_get(client, TABLE, hand_keys, hand_from_item).await }).await;
        assert_eq!(found.len(), BIG);
        drop(found);
        println!(
            "peak memory, awaited get_many of {BIG} records: faceteer {ours:.1} MiB, \
             hand-written {theirs:.1} MiB"
        );
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
