//! Client CPU per single-item operation on the README's `Task` (2,048 distinct records, one
//! request at a time), faceteer against the `aws-sdk-dynamodb` code a careful user writes:
//!
//! * `get`: `table.get(&Task::key(..)?)` against `get_item` of a hand-built key, the record
//!   read by hand and validated;
//! * `put`: `table.put(&task)` against `put_item` of the hand-built item;
//! * `delete`: `table.delete(&Task::key(..)?)` against `delete_item` of a hand-built key;
//! * `update`: the README's `f.status.set(..) & f.assigned_user_id.unchanged(..)` against the
//!   `update_item` a user writes for it (the status, the `GSI2PK` built from it, and the
//!   condition on the assignee).
//!
//! Every arm starts from the same records or ids and builds its own keys and items inside
//! the timed region. The hand-written requests ask for the consumed capacity (`TOTAL`), as
//! faceteer's do (it reports it on each operation's span), and the update for the stored
//! item when its condition fails, as faceteer's does. Before timing, each pair is checked to send the same requests (the
//! stub records them, byte counts compared) and to read the same records.
//!
//! `cargo bench --bench single`; the README's figures: `scripts/measure.sh`.

mod support;

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeValue, ReturnConsumedCapacity as Capacity, ReturnValuesOnConditionCheckFailure,
};
use aws_sdk_dynamodb::Client;
use criterion::{criterion_group, criterion_main, Criterion};
use faceteer::testing::StubConfig;
use faceteer::Table;
use faceteer_suite::bench_task::{hand_from_item, hand_key, hand_to_item, task, Task, TaskStatus};
use support::{boxed, cpu_arms_per, Run, StubThread};

const TABLE: &str = "bench";
const TEAM: &str = "team-single";
const N: usize = 2_048;

fn s(text: impl Into<String>) -> AttributeValue {
    AttributeValue::S(text.into())
}

async fn ours_get(table: &Table, tasks: &[Task]) -> usize {
    let mut found = 0;
    for t in tasks {
        let key = Task::key(&t.team_id, &t.task_id).unwrap();
        found += usize::from(table.get(&key).await.unwrap().is_some());
    }
    found
}

async fn hand_get(client: &Client, tasks: &[Task]) -> usize {
    let mut found = 0;
    for t in tasks {
        let out = client
            .get_item()
            .table_name(TABLE)
            .return_consumed_capacity(Capacity::Total)
            .set_key(Some(hand_key(&t.team_id, &t.task_id)))
            .send()
            .await
            .expect("get");
        found += usize::from(out.item.and_then(hand_from_item).is_some());
    }
    found
}

async fn ours_put(table: &Table, tasks: &[Task]) {
    for t in tasks {
        table.put(t).await.unwrap();
    }
}

async fn hand_put(client: &Client, tasks: &[Task]) {
    for t in tasks {
        client
            .put_item()
            .table_name(TABLE)
            .return_consumed_capacity(Capacity::Total)
            .set_item(Some(hand_to_item(t)))
            .send()
            .await
            .expect("put");
    }
}

async fn ours_delete(table: &Table, tasks: &[Task]) {
    for t in tasks {
        let key = Task::key(&t.team_id, &t.task_id).unwrap();
        table.delete(&key).await.unwrap();
    }
}

async fn hand_delete(client: &Client, tasks: &[Task]) {
    for t in tasks {
        client
            .delete_item()
            .table_name(TABLE)
            .return_consumed_capacity(Capacity::Total)
            .set_key(Some(hand_key(&t.team_id, &t.task_id)))
            .send()
            .await
            .expect("delete");
    }
}

/// The README's update: the status set, the assignee named as it is stored.
async fn ours_update(table: &Table, tasks: &[Task]) {
    let f = Task::fields();
    for t in tasks {
        let key = Task::key(&t.team_id, &t.task_id).unwrap();
        let user = t.assigned_user_id.as_deref().expect("an assigned task");
        let change = f.status.set(TaskStatus::Completed) & f.assigned_user_id.unchanged(user);
        table.update(&key, change).await.unwrap();
    }
}

/// The `update_item` a user writes for it: the status and the `GSI2PK` built from it, on
/// condition that the record exists and its assignee is the one named.
async fn hand_update(client: &Client, tasks: &[Task]) {
    for t in tasks {
        let user = t.assigned_user_id.as_deref().expect("an assigned task");
        let status = TaskStatus::Completed.text();
        client
            .update_item()
            .table_name(TABLE)
            .return_consumed_capacity(Capacity::Total)
            .set_key(Some(hand_key(&t.team_id, &t.task_id)))
            .update_expression(UPDATE_EXPRESSION)
            .condition_expression(UPDATE_CONDITION)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .expression_attribute_names("#n0", "status")
            .expression_attribute_names("#n1", "GSI2PK")
            .expression_attribute_names("#n2", "PK")
            .expression_attribute_names("#n3", "assignedUserId")
            .expression_attribute_values(":v0", s(status))
            .expression_attribute_values(":v1", s(format!("#USER_STATUS_{user}_{status}")))
            .expression_attribute_values(":v2", s(user))
            .send()
            .await
            .expect("update");
    }
}

const UPDATE_EXPRESSION: &str = "SET #n0 = :v0, #n1 = :v1";
const UPDATE_CONDITION: &str = "(attribute_exists(#n2)) AND (#n3 = :v2)";

fn bench(c: &mut Criterion) {
    let stub = StubThread::start(StubConfig {
        page_size: 100,
        latency: Duration::ZERO,
    });
    let stub = &stub.server;
    let rt = support::client_runtime();
    let (client, table) = support::task_table(stub, TABLE);
    let tasks: Vec<Task> = (0..N)
        .map(|i| {
            let mut t = task(TEAM, i);
            t.assigned_user_id
                .get_or_insert_with(|| format!("user-{i}"));
            t
        })
        .collect();
    stub.load(tasks.iter().map(|t| faceteer::to_item(t).unwrap()));
    let (table, client, tasks) = (&table, &client, &tasks[..]);

    // Each pair sends the same requests (recorded, and counted in bytes) and reads the same
    // records.
    rt.block_on(async {
        let before = stub.bytes_received("GetItem");
        assert_eq!(ours_get(table, tasks).await, N);
        let mid = stub.bytes_received("GetItem");
        assert_eq!(hand_get(client, tasks).await, N);
        let after = stub.bytes_received("GetItem");
        assert_eq!(mid - before, after - mid, "get: the same request bytes");
        let same = |name: &str, ours: Vec<String>, theirs: Vec<String>| {
            assert_eq!(ours.len(), N, "{name}: one request per record");
            let first = ours.iter().zip(&theirs).find(|(a, b)| a != b);
            assert_eq!(
                first, None,
                "{name}: faceteer's request, then the hand-written one"
            );
        };
        for (name, target) in [
            ("put", "PutItem"),
            ("delete", "DeleteItem"),
            ("update", "UpdateItem"),
        ] {
            stub.record(true);
            let before = stub.bytes_received(target);
            match name {
                "put" => ours_put(table, tasks).await,
                "delete" => ours_delete(table, tasks).await,
                _ => ours_update(table, tasks).await,
            }
            let ours = stub.take_recorded();
            let mid = stub.bytes_received(target);
            match name {
                "put" => hand_put(client, tasks).await,
                "delete" => hand_delete(client, tasks).await,
                _ => hand_update(client, tasks).await,
            }
            let theirs = stub.take_recorded();
            let after = stub.bytes_received(target);
            stub.record(false);
            same(name, ours, theirs);
            assert_eq!(mid - before, after - mid, "{name}: the same request bytes");
        }
    });

    // `FACETEER_PROFILE=get|put|delete|update` runs only faceteer's arm in a loop, for a
    // profiler (`hand-get`, … the hand-written arm).
    if let Ok(what) = std::env::var("FACETEER_PROFILE") {
        rt.block_on(async {
            for _ in 0..20 {
                match what.as_str() {
                    "get" => assert_eq!(ours_get(table, tasks).await, N),
                    "put" => ours_put(table, tasks).await,
                    "delete" => ours_delete(table, tasks).await,
                    "update" => ours_update(table, tasks).await,
                    "hand-get" => assert_eq!(hand_get(client, tasks).await, N),
                    "hand-put" => hand_put(client, tasks).await,
                    "hand-delete" => hand_delete(client, tasks).await,
                    _ => hand_update(client, tasks).await,
                }
            }
        });
        return;
    }

    let mut g = c.benchmark_group("single item (per operation)");
    // Twenty samples of ten seconds: with ten of six, a get's ratio moved by 13% between two
    // runs at one commit.
    g.sample_size(20);
    g.measurement_time(Duration::from_secs(10));
    let per = N as u32;
    let get_ours = || boxed(async move { assert_eq!(ours_get(table, tasks).await, N) });
    let get_hand = || boxed(async move { assert_eq!(hand_get(client, tasks).await, N) });
    let put_ours = || boxed(ours_put(table, tasks));
    let put_hand = || boxed(hand_put(client, tasks));
    let delete_ours = || boxed(ours_delete(table, tasks));
    let delete_hand = || boxed(hand_delete(client, tasks));
    let update_ours = || boxed(ours_update(table, tasks));
    let update_hand = || boxed(hand_update(client, tasks));
    let ops: [(&str, Run<'_>, Run<'_>); 4] = [
        ("get", &get_ours, &get_hand),
        ("put", &put_ours, &put_hand),
        ("delete", &delete_ours, &delete_hand),
        ("update", &update_ours, &update_hand),
    ];
    // The hand-written code again, on the table's own client (faceteer's interceptor and
    // settings): what the client costs apart from faceteer's own work.
    let on_table = table.client();
    let get_table = || boxed(async move { assert_eq!(hand_get(on_table, tasks).await, N) });
    let put_table = || boxed(hand_put(on_table, tasks));
    let delete_table = || boxed(hand_delete(on_table, tasks));
    let update_table = || boxed(hand_update(on_table, tasks));
    let on_tables: [Run<'_>; 4] = [&get_table, &put_table, &delete_table, &update_table];
    for ((op, ours, hand), on_table) in ops.into_iter().zip(on_tables) {
        let arms: [(&str, Run<'_>); 3] = [
            ("faceteer", ours),
            ("hand-written", hand),
            ("hand-written, table's client", on_table),
        ];
        cpu_arms_per(&mut g, &rt, &arms, |arm| format!("{op}/{arm}"), per);
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
