//! Item building and reading per record, on the README's `Task` (2,048 distinct records):
//! faceteer's derived conversion against a hand-written `aws-sdk-dynamodb` mapping and
//! serde_dynamo with hand-built keys, each producing the same items and records; and
//! faceteer's direct read of an item's JSON (what the direct read path does per item); and
//! a put's item with the `Task`'s two indexes native against the same indexes concatenated
//! (bytes and CPU).
//!
//! `cargo bench --bench items`

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use faceteer::Item;
use faceteer_suite::bench_task::{
    dynamo_from_item, dynamo_to_item, hand_from_item, hand_to_item, task, Task,
};
use faceteer_suite::catalogue::NativeTask;
use support::thread_cpu;

const N: usize = 2_048;

/// Time `arms` in turn, each measured pass over the records following an unmeasured pass
/// of the next arm (the same allocator state for all); `prepare` runs before each pass,
/// and each pass's output is freed after it, unmeasured.
fn rotate<T>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    prepare: &dyn Fn(),
    arms: &[(&str, &dyn Fn() -> T)],
) {
    for (i, (name, measured)) in arms.iter().enumerate() {
        let other = arms[(i + 1) % arms.len()].1;
        g.bench_function(*name, |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    prepare();
                    black_box(other());
                    prepare();
                    let start = thread_cpu();
                    let out = black_box(measured());
                    spent += thread_cpu() - start;
                    // Freed outside the measured time.
                    drop(out);
                }
                // Per record.
                spent / N as u32
            })
        });
    }
}

/// Build and drop the item of each of `tasks` (faceteer's arm). In a frame of its own, for a
/// profiler to count (`FACETEER_PROFILE=build`).
#[inline(never)]
fn build_ours(tasks: &[Task]) {
    for t in tasks {
        drop(black_box(faceteer::to_item(t).unwrap()));
    }
}

/// The same, hand-written (`FACETEER_PROFILE=build-hand`).
#[inline(never)]
fn build_hand(tasks: &[Task]) {
    for t in tasks {
        drop(black_box(hand_to_item(t)));
    }
}

fn bench(c: &mut Criterion) {
    let tasks: Vec<Task> = (0..N).map(|i| task("team-2f1c9a", i)).collect();
    let items: Vec<Item> = tasks
        .iter()
        .map(|t| faceteer::to_item(t).unwrap())
        .collect();
    let json: Vec<String> = items
        .iter()
        .map(faceteer::testing::item_json_text)
        .collect();
    // Every arm builds the same items and reads back the same records.
    for ((t, item), json) in tasks.iter().zip(&items).zip(&json) {
        assert_eq!(&hand_to_item(t), item);
        assert_eq!(&dynamo_to_item(t), item);
        assert_eq!(hand_from_item(item.clone()).as_ref(), Some(t));
        assert_eq!(dynamo_from_item(item.clone()).as_ref(), Some(t));
        assert_eq!(&faceteer::from_item::<Task>(item.clone()).unwrap(), t);
        assert_eq!(&faceteer_core::wire::from_wire::<Task>(json).unwrap(), t);
    }

    // `FACETEER_PROFILE=build|build-hand` builds the items in a loop, for a profiler (the
    // functions the arms run); other values are other benchmarks'.
    let profiled = match std::env::var("FACETEER_PROFILE").as_deref() {
        Ok("build") => Some(build_ours as fn(&[Task])),
        Ok("build-hand") => Some(build_hand as fn(&[Task])),
        _ => None,
    };
    if let Some(build) = profiled {
        for _ in 0..200 {
            build(&tasks);
        }
        return;
    }

    // Each item is dropped as soon as it is built, as a put drops it once sent (and each
    // record as soon as it is read): every arm pays for its own allocations and frees, in
    // the allocator's steady state.
    let mut g = c.benchmark_group("build item (per record)");
    let ours = || build_ours(&tasks);
    let hand = || build_hand(&tasks);
    let dynamo = || {
        for t in &tasks {
            drop(black_box(dynamo_to_item(t)));
        }
    };
    rotate(
        &mut g,
        &|| {},
        &[
            ("faceteer", &ours),
            ("hand-written", &hand),
            ("serde_dynamo", &dynamo),
        ],
    );
    g.finish();

    // The same two indexes, concatenated (the README's `Task`) and native (`NativeTask`):
    // a put builds an item without the four index key attributes. Both arms build the same
    // record attributes; the native item is the concatenated one less its GSI attributes.
    let natives: Vec<NativeTask> = tasks.iter().map(NativeTask::from).collect();
    let index_keys = ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"];
    let (mut concatenated_bytes, mut native_bytes) = (0usize, 0usize);
    for (t, n) in tasks.iter().zip(&natives) {
        let mut concatenated = faceteer::to_item(t).unwrap();
        let native = faceteer::to_item(n).unwrap();
        concatenated_bytes += faceteer_core::limits::item_size(&concatenated).unwrap();
        native_bytes += faceteer_core::limits::item_size(&native).unwrap();
        for k in index_keys {
            concatenated.remove(k);
        }
        assert_eq!(concatenated, native);
    }
    println!(
        "item bytes, two indexes: concatenated {:.1}, native {:.1} per record ({:.3}x)",
        concatenated_bytes as f64 / N as f64,
        native_bytes as f64 / N as f64,
        native_bytes as f64 / concatenated_bytes as f64
    );
    let mut g = c.benchmark_group("put item, two indexes (per record)");
    let concatenated = || {
        for t in &tasks {
            drop(black_box(faceteer::to_item(t).unwrap()));
        }
    };
    let native = || {
        for t in &natives {
            drop(black_box(faceteer::to_item(t).unwrap()));
        }
    };
    rotate(
        &mut g,
        &|| {},
        &[("concatenated", &concatenated), ("native", &native)],
    );
    g.finish();

    // The readers of the SDK's items take them by value: each pass reads a copy, made
    // before it, outside the measured time.
    let mut g = c.benchmark_group("read item (per record)");
    let copies = std::cell::RefCell::new(Vec::new());
    let copy = || *copies.borrow_mut() = items.clone();
    let take = || std::mem::take(&mut *copies.borrow_mut());
    let ours = || {
        for item in take() {
            drop(black_box(faceteer::from_item::<Task>(item).unwrap()));
        }
    };
    let hand = || {
        for item in take() {
            drop(black_box(hand_from_item(item).unwrap()));
        }
    };
    let dynamo = || {
        for item in take() {
            drop(black_box(dynamo_from_item(item).unwrap()));
        }
    };
    let direct = || {
        for j in &json {
            drop(black_box(
                faceteer_core::wire::from_wire::<Task>(j).unwrap(),
            ));
        }
    };
    rotate(
        &mut g,
        &copy,
        &[
            ("faceteer", &ours),
            ("hand-written", &hand),
            ("serde_dynamo", &dynamo),
            ("faceteer from JSON", &direct),
        ],
    );
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
