//! Item building and reading per record: faceteer's derived conversion against hand-written
//! `aws-sdk-dynamodb` code producing the same item (same attributes, same key strings).
//!
//! `cargo bench --bench items`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

use faceteer_suite::bench_task::{hand_from_item, hand_to_item, sample, Task};

fn bench(c: &mut Criterion) {
    let task = sample();
    let item = faceteer::core::to_item(&task).unwrap();
    // Both paths build the same item and read back the same record.
    assert_eq!(item, hand_to_item(&task));
    assert_eq!(hand_from_item(item.clone()).unwrap(), task);
    assert_eq!(
        faceteer::core::from_item::<Task>(item.clone()).unwrap(),
        task
    );

    let mut g = c.benchmark_group("build item");
    g.bench_function("faceteer", |b| {
        b.iter(|| faceteer::core::to_item(black_box(&task)).unwrap())
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| hand_to_item(black_box(&task)))
    });
    g.finish();

    // Both readers take the item by value; the copy each iteration reads is made outside
    // the measured time.
    let mut g = c.benchmark_group("read item");
    g.bench_function("faceteer", |b| {
        b.iter_batched(
            || item.clone(),
            |item| faceteer::core::from_item::<Task>(item).unwrap(),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("hand-written", |b| {
        b.iter_batched(
            || item.clone(),
            |item| hand_from_item(item).unwrap(),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
