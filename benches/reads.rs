//! Client CPU per record of faceteer's reads and writes, on the README's `Task` (10,000
//! distinct records), against what a careful user writes without faceteer:
//!
//! * `faceteer`: the default direct read path (requests sent by faceteer, answers decoded
//!   from their JSON straight into records);
//! * `faceteer-sdk-sent`: requests sent by the SDK, answers decoded by faceteer
//!   (`ReadPath::SdkSent`);
//! * `faceteer-sdk-path`: faceteer reading through the SDK's decoder
//!   (`ReadPath::Sdk`);
//! * `hand-written`: `aws-sdk-dynamodb` with every attribute and key built and read by hand;
//! * `serde_dynamo`: `aws-sdk-dynamodb` with serde_dynamo's items and hand-built keys;
//! * `parse floor` (reads): `serde_json` reading the same answers' bodies (recorded from the
//!   stub) into `IgnoredAny`, with no request sent: what reading those bytes costs at least;
//! * `serde_json typed` (reads): `serde_json` reading those same bodies straight into
//!   records, through a derived mirror of the item's JSON (each member `{"S": …}`; `facet`
//!   checked, each record validated, the other attributes the library writes passed over;
//!   timestamps read by `faceteer::timestamp`): what a typed decoder written with serde's
//!   derive does, its lists growing as serde's do;
//! * `faceteer decoding` (reads): faceteer's one-pass reader
//!   (`faceteer_core::wire::pass`) on those same bodies, with no request sent: each answer
//!   straight into its records, `facet` checked, each record validated, its keys noted. The
//!   `faceteer` arm reads each answer so, then also boxes each record with its notes until
//!   the read hands it over.
//!
//! Every arm gets its inputs built before timing (keys, records), and clones what it
//! consumes inside the timed region, as the others do.
//!
//! The stub server answers from a thread of its own; the client runs on this thread (a
//! current-thread runtime) and only this thread's CPU time is counted. Before timing, every
//! arm's output is checked equal: the same items reach the stub, the same records come back
//! in the same order, with the same number of requests.
//!
//! `cargo bench --bench reads`; the README's figures: `scripts/measure.sh`.

mod support;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;
use criterion::{criterion_group, criterion_main, Criterion};
use faceteer::testing::StubConfig;
use faceteer::{Item, ReadPath};
use faceteer_core::schema;
use faceteer_core::wire::pass;
use faceteer_suite::bench_task::{
    check_task, dynamo_from_item, dynamo_to_item, hand_from_item, hand_key, hand_to_item, task,
    Task, TaskStatus,
};
use support::{boxed, cpu_arms, user_get, user_put, Run, StubThread};

const TABLE: &str = "bench";
const TEAM: &str = "team-bench";
const N: usize = 10_000;

fn tasks(n: usize) -> impl Iterator<Item = Task> {
    (0..n).map(|i| task(TEAM, i))
}

/// A user's page walk over one partition, records decoded by `read`.
async fn user_query(client: &Client, read: fn(Item) -> Option<Task>) -> Vec<Task> {
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
                .map(|item| read(item).expect("a task")),
        );
        start = page.last_evaluated_key;
        if start.is_none() {
            return out;
        }
    }
}

fn hand_keys() -> Vec<Item> {
    tasks(N).map(|t| hand_key(&t.team_id, &t.task_id)).collect()
}

/// The floor of reading `answers`: each body parsed by `serde_json` into `IgnoredAny`.
fn parse_floor(answers: &[String]) {
    for body in answers {
        let _: serde::de::IgnoredAny = serde_json::from_str(body).expect("an answer");
    }
}

/// The notes the direct read path takes of each item it reads whole: its `PK` and `SK`.
fn key_notes() -> pass::Notes {
    pass::Notes::new([schema::PK, schema::SK]).expect("two notes")
}

/// `BatchGetItem` answers read as faceteer's direct path reads them: in one pass, straight
/// into records.
fn decode_gets(answers: &[Arc<String>]) -> Vec<Task> {
    let mut out = Vec::with_capacity(N);
    for body in answers {
        let answer = pass::batch_get::<Task>(body, TABLE, key_notes()).expect("one pass");
        out.extend(answer.records.into_iter().map(|(task, _)| task));
    }
    out
}

/// `Query` answers read as faceteer's direct path reads them: in one pass, straight into
/// records.
fn decode_pages(answers: &[Arc<String>]) -> Vec<Task> {
    let mut out = Vec::with_capacity(N);
    for body in answers {
        let page = pass::page::<Task>(body, key_notes()).expect("one pass");
        out.extend(page.records.into_iter().map(|(task, _)| task));
    }
    out
}

/// An attribute value of one kind, as an answer's JSON holds it (`{"S": …}`).
#[derive(serde::Deserialize)]
struct S<T> {
    #[serde(rename = "S")]
    s: T,
}

/// A timestamp as `faceteer::timestamp` reads it.
struct Iso(chrono::DateTime<chrono::Utc>);

impl<'de> serde::Deserialize<'de> for Iso {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        faceteer::timestamp::deserialize(d).map(Iso)
    }
}

/// The README's `Task` as a stored item's JSON holds it, with its `facet`; the other
/// attributes the library writes (keys, `ttl`) are passed over.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireTask<'a> {
    #[serde(borrow)]
    facet: S<&'a str>,
    team_id: S<String>,
    task_id: S<String>,
    date_due: S<Iso>,
    #[serde(default)]
    assigned_user_id: Option<S<String>>,
    status: S<TaskStatus>,
    date_created: S<Iso>,
    #[serde(default)]
    expires_at: Option<S<Iso>>,
}

/// The record `w` holds, when it is a `Task` that passes the README's validator.
fn typed_record(w: WireTask<'_>) -> Option<Task> {
    if w.facet.s != "TASK" {
        return None;
    }
    let task = Task {
        team_id: w.team_id.s,
        task_id: w.task_id.s,
        date_due: w.date_due.s.0,
        assigned_user_id: w.assigned_user_id.map(|u| u.s),
        status: w.status.s,
        date_created: w.date_created.s.0,
        expires_at: w.expires_at.map(|t| t.s.0),
    };
    check_task(&task).ok().map(|()| task)
}

/// `BatchGetItem` answers read by `serde_json` straight into records (`serde_json typed`).
fn typed_gets(answers: &[String]) -> Vec<Task> {
    // The table's answers (the benchmark's table is `bench`).
    #[derive(serde::Deserialize)]
    struct Responses<'a> {
        #[serde(borrow)]
        bench: Vec<WireTask<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Answer<'a> {
        #[serde(rename = "Responses", borrow)]
        responses: Responses<'a>,
    }
    let mut out = Vec::with_capacity(N);
    for body in answers {
        let answer: Answer<'_> = serde_json::from_str(body).expect("an answer");
        out.extend(answer.responses.bench.into_iter().filter_map(typed_record));
    }
    out
}

/// `Query` answers read by `serde_json` straight into records (`serde_json typed`).
fn typed_pages(answers: &[String]) -> Vec<Task> {
    #[derive(serde::Deserialize)]
    struct Answer<'a> {
        #[serde(rename = "Items", borrow)]
        items: Vec<WireTask<'a>>,
    }
    let mut out = Vec::with_capacity(N);
    for body in answers {
        let answer: Answer<'_> = serde_json::from_str(body).expect("an answer");
        out.extend(answer.items.into_iter().filter_map(typed_record));
    }
    out
}

/// Run `f` in a frame of its own, for a profiler to count (`FACETEER_PROFILE`).
#[inline(never)]
fn profiled(f: &dyn Fn()) {
    f()
}

fn sorted(mut tasks: Vec<Task>) -> Vec<Task> {
    tasks.sort_by(|a, b| a.task_id.cmp(&b.task_id));
    tasks
}

fn bench(c: &mut Criterion) {
    let stub = StubThread::start(StubConfig {
        page_size: 100,
        latency: Duration::ZERO,
    });
    let stub = &stub.server;
    let rt = support::client_runtime();
    let (client, table) = support::task_table(stub, TABLE);
    let sdk_path = table.clone().with_read_path(ReadPath::Sdk);
    let sdk_sent = table.clone().with_read_path(ReadPath::SdkSent);
    let keys: Vec<_> = tasks(N)
        .map(|t| Task::key(t.team_id, t.task_id).unwrap())
        .collect();
    stub.load(tasks(N).map(|t| faceteer::to_item(&t).unwrap()));
    let all = || sorted(tasks(N).collect());
    let hand_keys = hand_keys();

    // Every arm's output is the same, with the same number of requests.
    rt.block_on(async {
        stub.record(true);
        let before = stub.requests();
        assert!(table.put_many(tasks(N)).await.is_complete());
        let ours = stub.take_recorded();
        let mid = stub.requests();
        assert_eq!(
            user_put(&client, TABLE, tasks(N).map(|t| hand_to_item(&t))).await,
            N
        );
        let hand = stub.take_recorded();
        assert_eq!(
            user_put(&client, TABLE, tasks(N).map(|t| dynamo_to_item(&t))).await,
            N
        );
        let dynamo = stub.take_recorded();
        assert_eq!(ours.len(), N);
        let first_difference = |theirs: &[String]| {
            ours.iter()
                .zip(theirs)
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("faceteer: {a}\nthe other arm: {b}"))
        };
        assert_eq!(
            first_difference(&hand),
            None,
            "the hand-written arm writes faceteer's items"
        );
        assert_eq!(
            first_difference(&dynamo),
            None,
            "the serde_dynamo arm writes faceteer's items"
        );
        assert_eq!((hand.len(), dynamo.len()), (N, N));
        assert_eq!(mid - before, (N / 25) as u64, "the same requests");
        stub.record(false);

        let expected = all();
        for t in [&table, &sdk_sent, &sdk_path] {
            let found = t.get_many(keys.clone()).await;
            assert!(found.is_complete());
            assert_eq!(sorted(found.found), expected);
        }
        assert_eq!(
            sorted(user_get(&client, TABLE, hand_keys.iter().cloned(), hand_from_item).await),
            expected
        );
        assert_eq!(
            sorted(user_get(&client, TABLE, hand_keys.iter().cloned(), dynamo_from_item).await),
            expected
        );

        let expected: Vec<Task> = tasks(N).collect();
        for t in [&table, &sdk_sent, &sdk_path] {
            let before = stub.requests();
            let ours = t.query(Task::query(TEAM).list()).all().await.unwrap();
            assert_eq!(ours, expected);
            assert_eq!(stub.requests() - before, 100, "one request per page");
        }
        assert_eq!(user_query(&client, hand_from_item).await, expected);
        assert_eq!(user_query(&client, dynamo_from_item).await, expected);
    });

    // The answers every read arm parses, recorded from one run of the user's reads.
    let (get_answers, query_answers) = rt.block_on(async {
        stub.record_answers(true);
        user_get(&client, TABLE, hand_keys.iter().cloned(), hand_from_item).await;
        let get = stub.take_answers();
        user_query(&client, hand_from_item).await;
        let query = stub.take_answers();
        stub.record_answers(false);
        (get, query)
    });
    assert_eq!((get_answers.len(), query_answers.len()), (N / 100, 100));
    let per_item = |answers: &[String]| answers.iter().map(String::len).sum::<usize>() / N;
    // The decoding arms read the very bodies the floor parses, and give every record.
    let shared = |answers: &[String]| answers.iter().cloned().map(Arc::new).collect::<Vec<_>>();
    let (get_bodies, query_bodies) = (shared(&get_answers), shared(&query_answers));
    assert_eq!(sorted(decode_gets(&get_bodies)), all());
    assert_eq!(decode_pages(&query_bodies), tasks(N).collect::<Vec<_>>());
    assert_eq!(sorted(typed_gets(&get_answers)), all());
    assert_eq!(typed_pages(&query_answers), tasks(N).collect::<Vec<_>>());
    println!(
        "answer bytes per record: get_many {}, query {}",
        per_item(&get_answers),
        per_item(&query_answers)
    );

    // `FACETEER_PROFILE=get|query` runs only faceteer's arm in a loop, for a profiler;
    // `decode-get|decode-query` its decoding alone, `floor-get|floor-query` the parse floor,
    // `typed-get|typed-query` serde_json's typed decoding (each in a frame `profiled`).
    if let Ok(what) = std::env::var("FACETEER_PROFILE") {
        rt.block_on(async {
            for _ in 0..50 {
                match what.as_str() {
                    "decode-get" => profiled(&|| assert_eq!(decode_gets(&get_bodies).len(), N)),
                    "decode-query" => {
                        profiled(&|| assert_eq!(decode_pages(&query_bodies).len(), N))
                    }
                    "floor-get" => profiled(&|| parse_floor(&get_answers)),
                    "floor-query" => profiled(&|| parse_floor(&query_answers)),
                    "typed-get" => profiled(&|| assert_eq!(typed_gets(&get_answers).len(), N)),
                    "typed-query" => profiled(&|| assert_eq!(typed_pages(&query_answers).len(), N)),
                    "get" => assert_eq!(table.get_many(keys.iter().cloned()).await.found.len(), N),
                    _ => assert_eq!(
                        table
                            .query(Task::query(TEAM).list())
                            .all()
                            .await
                            .unwrap()
                            .len(),
                        N
                    ),
                }
            }
        });
        return;
    }

    let mut g = c.benchmark_group("client CPU");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(6));
    let (table, sdk_path, sdk_sent, client, keys) = (&table, &sdk_path, &sdk_sent, &client, &keys);
    let (hand_keys, get_answers, query_answers) = (&hand_keys, &get_answers, &query_answers);
    let (get_bodies, query_bodies) = (&get_bodies, &query_bodies);

    let ours = || boxed(async move { assert!(table.put_many(tasks(N)).await.is_complete()) });
    let hand = || {
        boxed(async move {
            assert_eq!(
                user_put(client, TABLE, tasks(N).map(|t| hand_to_item(&t))).await,
                N
            )
        })
    };
    let dynamo = || {
        boxed(async move {
            assert_eq!(
                user_put(client, TABLE, tasks(N).map(|t| dynamo_to_item(&t))).await,
                N
            )
        })
    };
    let arms: [(&str, Run<'_>); 3] = [
        ("faceteer", &ours),
        ("hand-written", &hand),
        ("serde_dynamo", &dynamo),
    ];
    cpu_arms(&mut g, &rt, "put_many 10k", &arms);

    let pick = |t: &str| match t {
        "sdk" => sdk_path,
        "sent" => sdk_sent,
        _ => table,
    };
    let get = |t: &'static str| {
        let target = pick(t);
        move || {
            boxed(
                async move { assert_eq!(target.get_many(keys.iter().cloned()).await.found.len(), N) },
            )
        }
    };
    let (direct, sent, via_sdk) = (get("direct"), get("sent"), get("sdk"));
    let hand = || {
        boxed(async move {
            let found = user_get(client, TABLE, hand_keys.iter().cloned(), hand_from_item).await;
            assert_eq!(found.len(), N)
        })
    };
    let dynamo = || {
        boxed(async move {
            let found = user_get(client, TABLE, hand_keys.iter().cloned(), dynamo_from_item).await;
            assert_eq!(found.len(), N)
        })
    };
    let floor = || boxed(async move { parse_floor(get_answers) });
    let decoding = || boxed(async move { assert_eq!(decode_gets(get_bodies).len(), N) });
    let typed = || boxed(async move { assert_eq!(typed_gets(get_answers).len(), N) });
    let arms: [(&str, Run<'_>); 8] = [
        ("faceteer", &direct),
        ("faceteer-sdk-sent", &sent),
        ("faceteer-sdk-path", &via_sdk),
        ("hand-written", &hand),
        ("serde_dynamo", &dynamo),
        ("parse floor", &floor),
        ("faceteer decoding", &decoding),
        ("serde_json typed", &typed),
    ];
    cpu_arms(&mut g, &rt, "get_many 10k", &arms);

    let walk = |t: &'static str| {
        let target = pick(t);
        move || {
            boxed(async move {
                let all = target.query(Task::query(TEAM).list()).all().await.unwrap();
                assert_eq!(all.len(), N)
            })
        }
    };
    let (direct, sent, via_sdk) = (walk("direct"), walk("sent"), walk("sdk"));
    let hand =
        || boxed(async move { assert_eq!(user_query(client, hand_from_item).await.len(), N) });
    let dynamo =
        || boxed(async move { assert_eq!(user_query(client, dynamo_from_item).await.len(), N) });
    let floor = || boxed(async move { parse_floor(query_answers) });
    let decoding = || boxed(async move { assert_eq!(decode_pages(query_bodies).len(), N) });
    let typed = || boxed(async move { assert_eq!(typed_pages(query_answers).len(), N) });
    let arms: [(&str, Run<'_>); 8] = [
        ("faceteer", &direct),
        ("faceteer-sdk-sent", &sent),
        ("faceteer-sdk-path", &via_sdk),
        ("hand-written", &hand),
        ("serde_dynamo", &dynamo),
        ("parse floor", &floor),
        ("faceteer decoding", &decoding),
        ("serde_json typed", &typed),
    ];
    cpu_arms(&mut g, &rt, "query 100 pages", &arms);
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
