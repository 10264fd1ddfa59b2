//! What the request benchmarks share: a stub server on a thread of its own, the CPU clock of
//! the client's thread, and arms measured in turn.

#![allow(dead_code)] // Each benchmark uses a part.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use aws_sdk_dynamodb::types::{KeysAndAttributes, PutRequest, WriteRequest};
use aws_sdk_dynamodb::Client;
use faceteer::testing::{StubConfig, StubServer};
use faceteer::Item;
use futures::StreamExt;

/// The client's runtime: the benchmark's own thread, whose CPU the arms count.
pub fn client_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A client of `stub`, and table `name` of the README's `Task` reached through it.
pub fn task_table(stub: &StubServer, name: &str) -> (Client, faceteer::Table) {
    let client = faceteer::local_client(&stub.endpoint()).expect("a local endpoint");
    let schemas = [<faceteer_suite::bench_task::Task as faceteer::Facet>::SCHEMA];
    let table = faceteer::Table::with_facets(client.clone(), name, schemas).unwrap();
    (client, table)
}

/// The stub server, answering from its own thread and runtime: its CPU is not the client's.
pub struct StubThread {
    pub server: StubServer,
}

impl StubThread {
    pub fn start(config: StubConfig) -> Self {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("stub".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async {
                    let server = StubServer::start(config).await.unwrap();
                    tx.send(server).unwrap();
                    std::future::pending::<()>().await
                })
            })
            .unwrap();
        StubThread {
            server: rx.recv().unwrap(),
        }
    }
}

/// The CPU time of the calling thread (the client's: its runtime runs on this thread only).
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// A client's run as a boxed future.
pub fn boxed<'a>(run: impl Future<Output = ()> + 'a) -> Pin<Box<dyn Future<Output = ()> + 'a>> {
    Box::pin(run)
}

/// A client's run: one future per call.
pub type Run<'a> = &'a dyn Fn() -> Pin<Box<dyn Future<Output = ()> + 'a>>;

/// Benchmark every arm of `arms` in `g` by the client thread's CPU time, each measured run
/// following an unmeasured run of the next arm, so that all are measured in the same
/// conditions (heap, connections, caches) whichever criterion runs first.
pub fn cpu_arms(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    rt: &tokio::runtime::Runtime,
    name: &str,
    arms: &[(&str, Run<'_>)],
) {
    cpu_arms_per(g, rt, arms, |arm| format!("{name}/{arm}"), 1);
}

/// [`cpu_arms`], each arm's benchmark named `id(arm)` and its time divided by `per` (the
/// writes or records of one run).
pub fn cpu_arms_per(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    rt: &tokio::runtime::Runtime,
    arms: &[(&str, Run<'_>)],
    id: impl Fn(&str) -> String,
    per: u32,
) {
    for (i, (arm, measured)) in arms.iter().enumerate() {
        let other = arms[(i + 1) % arms.len()].1;
        g.bench_function(id(arm), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let mut spent = Duration::ZERO;
                    for _ in 0..iters {
                        other().await;
                        let start = thread_cpu();
                        measured().await;
                        spent += thread_cpu() - start;
                    }
                    spent / per
                })
            })
        });
    }
}

/// An iterator's items in chunks of `n`, pulled lazily.
pub struct ChunksOf<I> {
    inner: I,
    n: usize,
}

impl<I> ChunksOf<I> {
    pub fn new(inner: I, n: usize) -> Self {
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

/// A user's `put_many` of `items` to `table`: 25 per request, 4 requests in flight,
/// unprocessed items resent. How many were written.
pub async fn user_put(client: &Client, table: &str, items: impl Iterator<Item = Item>) -> usize {
    let requests = items.map(|item| {
        WriteRequest::builder()
            .put_request(PutRequest::builder().set_item(Some(item)).build().unwrap())
            .build()
    });
    futures::stream::iter(ChunksOf::new(requests, 25))
        .map(|mut chunk: Vec<WriteRequest>| async move {
            let n = chunk.len();
            while !chunk.is_empty() {
                let out = client
                    .batch_write_item()
                    .request_items(table, chunk)
                    .send()
                    .await
                    .expect("batch write");
                chunk = out
                    .unprocessed_items
                    .and_then(|mut u| u.remove(table))
                    .unwrap_or_default();
            }
            n
        })
        .buffer_unordered(4)
        .fold(0, |a, n| async move { a + n })
        .await
}

/// A user's `get_many` of `table`: 100 keys per request, 4 in flight, unprocessed keys
/// resent, records decoded by `read`.
pub async fn user_get<T>(
    client: &Client,
    table: &str,
    keys: impl Iterator<Item = Item> + Send,
    read: fn(Item) -> Option<T>,
) -> Vec<T> {
    futures::stream::iter(ChunksOf::new(keys, 100))
        .map(|mut keys: Vec<Item>| async move {
            let mut found = Vec::with_capacity(keys.len());
            while !keys.is_empty() {
                let out = client
                    .batch_get_item()
                    .request_items(
                        table,
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
                        .and_then(|mut r| r.remove(table))
                        .unwrap_or_default()
                        .into_iter()
                        .map(|item| read(item).expect("a record")),
                );
                keys = out
                    .unprocessed_keys
                    .and_then(|mut u| u.remove(table))
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
