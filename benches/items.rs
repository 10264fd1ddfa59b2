//! Item building and reading per record: faceteer's derived conversion against hand-written
//! `aws-sdk-dynamodb` code producing the same item (same attributes, same key strings).
//!
//! `cargo bench --bench items`

use std::hint::black_box;

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use faceteer::Item;

use faceteer_suite::bench_task::{hand_from_item, hand_to_item, sample, Task};

fn bench(c: &mut Criterion) {
    let task = sample();
    let item = faceteer::to_item(&task).unwrap();
    // Both paths build the same item and read back the same record.
    assert_eq!(item, hand_to_item(&task));
    assert_eq!(hand_from_item(item.clone()).unwrap(), task);
    assert_eq!(faceteer::from_item::<Task>(item.clone()).unwrap(), task);

    // Each arm is measured in runs of 64 that follow 64 unmeasured runs of the other arm,
    // so both see the same allocator state (measured one after the other, the two arms'
    // ratio moved by ±15% from run to run on the 2-core machine).
    let mut g = c.benchmark_group("build item");
    let ours = || faceteer::to_item(black_box(&task)).unwrap();
    let theirs = || hand_to_item(black_box(&task));
    g.bench_function("faceteer", |b| b.iter_custom(|n| paired(n, ours, theirs)));
    g.bench_function("hand-written", |b| {
        b.iter_custom(|n| paired(n, theirs, ours))
    });
    g.finish();

    // Both readers take the item by value; the copies each run reads are made outside the
    // measured time.
    let mut g = c.benchmark_group("read item");
    let ours = |item| faceteer::from_item::<Task>(item).unwrap();
    let theirs = |item| hand_from_item(item).unwrap();
    g.bench_function("faceteer", |b| {
        b.iter_custom(|n| paired_by_value(n, &item, ours, theirs))
    });
    g.bench_function("hand-written", |b| {
        b.iter_custom(|n| paired_by_value(n, &item, theirs, ours))
    });
    g.finish();
}

const RUN: u64 = 64;

/// The time of `n` runs of `measured`, in runs of [`RUN`] each after as many of `other`.
fn paired<A, B>(n: u64, measured: impl Fn() -> A, other: impl Fn() -> B) -> Duration {
    let mut spent = Duration::ZERO;
    let mut left = n;
    while left > 0 {
        let run = left.min(RUN);
        for _ in 0..run {
            black_box(other());
        }
        let start = Instant::now();
        for _ in 0..run {
            black_box(measured());
        }
        spent += start.elapsed();
        left -= run;
    }
    spent
}

/// [`paired`] for readers of an owned item: each run's copy of `item` is made beforehand.
fn paired_by_value<A, B>(
    n: u64,
    item: &Item,
    measured: impl Fn(Item) -> A,
    other: impl Fn(Item) -> B,
) -> Duration {
    let mut spent = Duration::ZERO;
    let mut left = n;
    while left > 0 {
        let run = left.min(RUN) as usize;
        for copy in vec![item.clone(); run] {
            black_box(other(copy));
        }
        let copies = vec![item.clone(); run];
        let start = Instant::now();
        let outputs: Vec<A> = copies.into_iter().map(&measured).collect();
        spent += start.elapsed();
        drop(black_box(outputs));
        left -= run as u64;
    }
    spent
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
