//! Item building and reading per record: faceteer's derived conversion against hand-written
//! `aws-sdk-dynamodb` code producing the same item (same attributes, same key strings).
//!
//! `cargo bench --bench items`

use std::collections::HashMap;
use std::hint::black_box;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use faceteer::{Facet, Item};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "TASK")]
#[serde(rename_all = "camelCase")]
struct Task {
    #[pk(prefix = "#TEAM")]
    #[gsi(n = 1, alias = "TeamDue", pk, prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#TASK")]
    task_id: String,
    #[gsi(n = 2, alias = "UserStatus", pk, prefix = "#USER_STATUS")]
    assigned_user_id: String,
    #[gsi(n = 2, pk)]
    status: String,
    #[gsi(n = 1, sk, prefix = "#TASK_DUE")]
    #[gsi(n = 2, sk, prefix = "#TASK_DUE")]
    #[serde(with = "faceteer::timestamp")]
    date_due: DateTime<Utc>,
    title: String,
    points: u32,
    done: bool,
}

fn sample() -> Task {
    Task {
        team_id: "team-2f1c9a".into(),
        task_id: "task-81d0be4c".into(),
        assigned_user_id: "user-77ab".into(),
        status: "open".into(),
        date_due: Utc.with_ymd_and_hms(2026, 11, 21, 9, 30, 0).unwrap(),
        title: "Write the quarterly report".into(),
        points: 8,
        done: false,
    }
}

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// What a careful hand-written mapping does: build every attribute and key string.
fn hand_to_item(t: &Task) -> Item {
    let due = t.date_due.to_rfc3339_opts(SecondsFormat::Millis, true);
    let mut item = HashMap::with_capacity(16);
    item.insert("teamId".to_owned(), s(&t.team_id));
    item.insert("taskId".to_owned(), s(&t.task_id));
    item.insert("assignedUserId".to_owned(), s(&t.assigned_user_id));
    item.insert("status".to_owned(), s(&t.status));
    item.insert("dateDue".to_owned(), s(&due));
    item.insert("title".to_owned(), s(&t.title));
    item.insert("points".to_owned(), AttributeValue::N(t.points.to_string()));
    item.insert("done".to_owned(), AttributeValue::Bool(t.done));
    item.insert("PK".to_owned(), s(format!("#TEAM_{}", t.team_id)));
    item.insert("SK".to_owned(), s(format!("#TASK_{}", t.task_id)));
    item.insert("GSI1PK".to_owned(), s(format!("#TEAM_{}", t.team_id)));
    item.insert("GSI1SK".to_owned(), s(format!("#TASK_DUE_{due}")));
    item.insert(
        "GSI2PK".to_owned(),
        s(format!("#USER_STATUS_{}_{}", t.assigned_user_id, t.status)),
    );
    item.insert("GSI2SK".to_owned(), s(format!("#TASK_DUE_{due}")));
    item.insert("facet".to_owned(), s("TASK"));
    item
}

/// Take string attribute `name` out of an owned item (no copy).
fn take_s(item: &mut Item, name: &str) -> Option<String> {
    match item.remove(name)? {
        AttributeValue::S(s) => Some(s),
        _ => None,
    }
}

/// What a careful hand-written reader does with an owned item: move each attribute out.
fn hand_from_item(mut item: Item) -> Option<Task> {
    let date_due = DateTime::parse_from_rfc3339(item.get("dateDue")?.as_s().ok()?)
        .ok()?
        .with_timezone(&Utc);
    Some(Task {
        team_id: take_s(&mut item, "teamId")?,
        task_id: take_s(&mut item, "taskId")?,
        assigned_user_id: take_s(&mut item, "assignedUserId")?,
        status: take_s(&mut item, "status")?,
        date_due,
        title: take_s(&mut item, "title")?,
        points: item.get("points")?.as_n().ok()?.parse().ok()?,
        done: *item.get("done")?.as_bool().ok()?,
    })
}

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
