//! Telemetry by OpenTelemetry's conventions: every operation's span carries the DynamoDB
//! attributes that apply to it, and every operation records its metrics.

use std::collections::BTreeMap;

use crate::common::spans::{traced, SpanFields};
use faceteer::{Error, Table};
use faceteer_suite::catalogue::{task, Task, TaskStatus};
use serde_json::Value;

faceteer::table! {
    /// The README's tasks.
    pub struct Tasks { Task }
}

fn field<'a>(span: &'a SpanFields, name: &str) -> &'a str {
    span.get(name)
        .map(String::as_str)
        .unwrap_or_else(|| panic!("no `{name}` in {span:#?}"))
}

fn json(span: &SpanFields, name: &str) -> Value {
    serde_json::from_str(field(span, name)).unwrap_or_else(|e| panic!("`{name}`: {e}"))
}

/// The attributes every operation's span has, for `operation` on `table`.
fn assert_common(span: &SpanFields, operation: &str, table: &Table) {
    assert_eq!(field(span, "db.system.name"), "aws.dynamodb");
    assert_eq!(field(span, "db.operation.name"), operation);
    assert_eq!(field(span, "rpc.method"), operation);
    assert_eq!(field(span, "rpc.system"), "aws-api");
    assert_eq!(field(span, "rpc.service"), "DynamoDB");
    assert_eq!(field(span, "db.collection.name"), table.name());
    assert_eq!(
        json(span, "aws.dynamodb.table_names"),
        serde_json::json!([table.name()])
    );
    assert_eq!(field(span, "server.address"), "127.0.0.1", "{span:#?}");
    field(span, "server.port").parse::<u16>().unwrap();
    field(span, "cloud.region");
    field(span, "faceteer.duration_ms").parse::<f64>().unwrap();
    assert!(field(span, "faceteer.requests").parse::<u32>().unwrap() >= 1);
}

/// The capacity list: one JSON object per `ConsumedCapacity`, naming the table; their
/// units sum to `faceteer.capacity_units`.
fn assert_capacity(span: &SpanFields, table: &Table) {
    let list = json(span, "aws.dynamodb.consumed_capacity");
    let list: Vec<Value> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| serde_json::from_str(s.as_str().expect("a JSON text")).unwrap())
        .collect();
    assert!(!list.is_empty(), "{span:#?}");
    let mut sum = 0.0;
    for c in &list {
        assert_eq!(c["TableName"], table.name(), "{c}");
        sum += c["CapacityUnits"].as_f64().unwrap();
    }
    let total: f64 = field(span, "faceteer.capacity_units").parse().unwrap();
    assert!((sum - total).abs() < 1e-9, "{sum} ≠ {total}");
    assert!(total > 0.0);
}

fn one(spans: Vec<SpanFields>, operation: &str) -> SpanFields {
    assert_eq!(spans.len(), 1, "{operation}: {spans:#?}");
    spans.into_iter().next().unwrap()
}

async fn every_operation_carries_the_conventions_attributes() {
    let table = faceteer_suite::fresh_table::<Tasks>("telemetry").await;
    let tasks: Vec<Task> = (0..6).map(|i| task("team-1", i)).collect();

    // Single-item writes and reads.
    let ((), spans) = traced(async {
        table.put(&tasks[0]).await.unwrap();
    })
    .await;
    let put = one(spans.of("PutItem"), "PutItem");
    assert_common(&put, "PutItem", &table);
    assert_capacity(&put, &table);
    assert_eq!(field(&put, "faceteer.facet"), "TASK");
    assert_eq!(field(&put, "faceteer.records"), "1");
    assert!(!put.contains_key("error.type"));

    let key = Task::key("team-1", &tasks[0].task_id).unwrap();
    let (got, spans) = traced(async { table.get(&key).consistent().await.unwrap() }).await;
    assert_eq!(got.as_ref(), Some(&tasks[0]));
    let get = one(spans.of("GetItem"), "GetItem");
    assert_common(&get, "GetItem", &table);
    assert_capacity(&get, &table);
    assert_eq!(field(&get, "aws.dynamodb.consistent_read"), "true");

    let f = Task::fields();
    let ((), spans) = traced(async {
        table
            .update(&key, f.status.set(TaskStatus::Completed))
            .await
            .unwrap();
    })
    .await;
    let update = one(spans.of("UpdateItem"), "UpdateItem");
    assert_common(&update, "UpdateItem", &table);
    assert_capacity(&update, &table);

    // A refused write: the error's kind, low in cardinality.
    let (refused, spans) = traced(async { table.put(&tasks[0]).if_not_exists().await }).await;
    let e = refused.unwrap_err();
    let put = one(spans.of("PutItem"), "PutItem");
    let kind = field(&put, "error.type");
    assert!(
        !kind.contains(' '),
        "error.type is a kind, not a message: {kind}"
    );
    assert!(format!("{e:?}").starts_with(kind), "{kind} for {e:?}");

    // Batches.
    let (report, spans) = traced(async { table.put_many(tasks[1..].to_vec()).await }).await;
    assert!(report.is_complete(), "{report:?}");
    let batch = spans.of("BatchWriteItem");
    assert!(!batch.is_empty());
    for span in &batch {
        assert_common(span, "BatchWriteItem", &table);
        assert_capacity(span, &table);
    }
    let keys: Vec<_> = tasks
        .iter()
        .map(|t| Task::key(&t.team_id, &t.task_id).unwrap())
        .collect();
    let (found, spans) = traced(async { table.get_many(keys).await }).await;
    assert_eq!(found.found.len(), 6);
    let batch = spans.of("BatchGetItem");
    assert!(!batch.is_empty());
    for span in &batch {
        assert_common(span, "BatchGetItem", &table);
        assert_capacity(span, &table);
    }

    // Queries: parameters, counts summed over pages, the index.
    let (page, spans) = traced(async {
        table
            .query(Task::query("team-1").list().limit(4).reverse())
            .await
            .unwrap()
    })
    .await;
    assert_eq!(page.records.len(), 4);
    let query = one(spans.of("Query"), "Query");
    assert_common(&query, "Query", &table);
    assert_capacity(&query, &table);
    // The request's own `Limit`: one more than the page, to know whether another follows.
    assert_eq!(field(&query, "aws.dynamodb.limit"), "5");
    assert_eq!(field(&query, "aws.dynamodb.scan_forward"), "false");
    assert_eq!(field(&query, "aws.dynamodb.count"), "5");
    assert_eq!(field(&query, "aws.dynamodb.scanned_count"), "5");
    assert!(!query.contains_key("aws.dynamodb.index_name"));

    let (page, spans) = traced(async {
        table
            .query(Task::by_gsi_team_due_date("team-1").list())
            .await
            .unwrap()
    })
    .await;
    assert_eq!(page.records.len(), 6);
    let query = one(spans.of("Query"), "Query");
    assert_eq!(field(&query, "aws.dynamodb.index_name"), "GSI1");
    assert_eq!(field(&query, "aws.dynamodb.count"), "6");

    // A parallel scan: one span, its segments.
    let (scanned, spans) = traced(async { table.scan::<Task>().segments(2).await.unwrap() }).await;
    assert_eq!(scanned.records.len(), 6);
    let scans = spans.of("Scan");
    assert!(!scans.is_empty());
    for span in &scans {
        assert_common(span, "Scan", &table);
        assert_eq!(field(span, "aws.dynamodb.total_segments"), "2");
        let segment: u32 = field(span, "aws.dynamodb.segment").parse().unwrap();
        assert!(segment < 2);
        field(span, "aws.dynamodb.scanned_count");
    }

    // Transactions.
    let ((), spans) = traced(async {
        table
            .transact_write()
            .put(table.put(&task("team-2", 1)))
            .delete(table.delete(&Task::key("team-2", &task("team-2", 9).task_id).unwrap()))
            .await
            .unwrap();
    })
    .await;
    let tx = one(spans.of("TransactWriteItems"), "TransactWriteItems");
    assert_common(&tx, "TransactWriteItems", &table);
    // moto reports no capacity for transactions: the list is left out, never empty.
    if faceteer_suite::engine() == faceteer_suite::Engine::Embedded {
        assert_capacity(&tx, &table);
    } else {
        assert!(!tx.contains_key("aws.dynamodb.consumed_capacity"));
    }
    let ((), spans) = traced(async {
        let mut tx = table.transact_get();
        let first = tx.get(&Task::key("team-2", &task("team-2", 1).task_id).unwrap());
        let mut got = tx.await.unwrap();
        assert!(got.take(first).unwrap().is_some());
    })
    .await;
    let tx = one(spans.of("TransactGetItems"), "TransactGetItems");
    assert_common(&tx, "TransactGetItems", &table);
    if faceteer_suite::engine() == faceteer_suite::Engine::Embedded {
        assert_capacity(&tx, &table);
    }

    let ((), spans) = traced(async {
        table.delete(&key).await.unwrap();
    })
    .await;
    let delete = one(spans.of("DeleteItem"), "DeleteItem");
    assert_common(&delete, "DeleteItem", &table);
    assert_capacity(&delete, &table);

    // Administration calls.
    let (v, spans) = traced(async { table.verify().await.unwrap() }).await;
    assert!(v.is_ok());
    let describe = spans.of("DescribeTable");
    assert!(!describe.is_empty());
    assert_common(&describe[0], "DescribeTable", &table);
}

async fn create_table_spans_name_its_indexes() {
    let table = faceteer_suite::patient(Table::declared::<Tasks>(
        faceteer_suite::client().await,
        faceteer_suite::unique_name("telemetry-create"),
    ));
    let ((), spans) = traced(async { table.create_table().await.unwrap() }).await;
    let create = one(spans.of("CreateTable"), "CreateTable");
    assert_common(&create, "CreateTable", &table);
    let indexes = json(&create, "aws.dynamodb.global_secondary_indexes");
    let names: Vec<String> = indexes
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let index: Value = serde_json::from_str(s.as_str().unwrap()).unwrap();
            index["IndexName"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(names, ["GSI1", "GSI2"]);
    assert!(!spans.of("UpdateTimeToLive").is_empty());
    table.delete_table().await.unwrap();
}

/// A vector search's span: the index searched, the request id.
async fn vector_searches_carry_the_conventions_attributes() {
    use crate::vector_indexes::{at, seeded, Doc};
    let table = seeded().await;
    let (found, spans) = traced(async {
        table
            .search_vectors(Doc::similar("acme", at(35.0)).top_k(2))
            .await
            .unwrap()
    })
    .await;
    assert_eq!(found.results.len(), 2);
    let search = one(spans.of("SearchVectors"), "SearchVectors");
    assert_common(&search, "SearchVectors", &table);
    assert_eq!(field(&search, "aws.dynamodb.index_name"), "DocEmbedding");
    assert_eq!(field(&search, "faceteer.records"), "2");
    assert!(!field(&search, "aws.request_id").is_empty());
    table.delete_table().await.unwrap();
}

faceteer_suite::engines!(
    every_operation_carries_the_conventions_attributes,
    create_table_spans_name_its_indexes,
);

/// Vector search runs on the embedded engine only (moto has no vector indexes).
#[test]
fn vector_searches_carry_the_conventions_attributes_embedded() {
    faceteer_suite::run(
        faceteer_suite::Engine::Embedded,
        vector_searches_carry_the_conventions_attributes(),
    );
}

async fn every_operation_records_its_metrics() {
    let samples = faceteer_suite::metrics_recorder::global();
    let table = faceteer_suite::fresh_table::<Tasks>("telemetry-metrics").await;
    let t = task("team-1", 1);
    table.put(&t).await.unwrap();
    let refused = table.put(&t).if_not_exists().await.unwrap_err();
    assert!(!matches!(refused, Error::Dynamo(_)), "{refused:?}");
    let ((), spans) = traced(async {
        table
            .get(&Task::key("team-1", &t.task_id).unwrap())
            .await
            .unwrap();
    })
    .await;
    let get_span = one(spans.of("GetItem"), "GetItem");
    let mine = samples.of_table(table.name());
    let of = |name: &str, operation: &str| -> Vec<(BTreeMap<String, String>, f64)> {
        mine.iter()
            .filter(|(n, l, _)| n == name && l["db.operation.name"] == operation)
            .map(|(_, l, v)| (l.clone(), *v))
            .collect()
    };
    // Two puts: one succeeded, one refused with its error's kind.
    let puts = of("db.client.operation.duration", "PutItem");
    assert_eq!(puts.len(), 2, "{mine:#?}");
    assert!(puts
        .iter()
        .all(|(l, v)| l["db.system.name"] == "aws.dynamodb" && *v > 0.0));
    let failed: Vec<_> = puts
        .iter()
        .filter(|(l, _)| l.contains_key("error.type"))
        .collect();
    assert_eq!(failed.len(), 1, "{puts:?}");
    assert!(format!("{refused:?}").starts_with(failed[0].0["error.type"].as_str()));
    // The capacity recorded is the span's.
    let capacity = of("faceteer.dynamodb.consumed_capacity", "GetItem");
    assert_eq!(capacity.len(), 1);
    let span_units: f64 = field(&get_span, "faceteer.capacity_units").parse().unwrap();
    assert!((capacity[0].1 - span_units).abs() < 1e-9);
    assert_eq!(of("faceteer.dynamodb.requests", "GetItem")[0].1, 1.0);
    assert!(!of("db.client.operation.duration", "CreateTable").is_empty());
}

faceteer_suite::engines!(every_operation_records_its_metrics);
