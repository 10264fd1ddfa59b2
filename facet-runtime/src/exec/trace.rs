//! `tracing` spans, events and metrics for every operation, following OpenTelemetry's
//! semantic conventions for databases and for DynamoDB: inside its span, each request sent
//! is a DEBUG event, and a failed operation (or a batch that left inputs failed or unknown)
//! is one WARN event with the error.
//!
//! Each public operation (a get, a put, a query page, a batch, a table administration call)
//! runs inside one `INFO` span named `dynamodb`, its `otel.name` `{operation} {table}`, with
//! every attribute of the conventions that applies to the operation:
//!
//! | field | meaning |
//! |---|---|
//! | `db.system.name` | `aws.dynamodb` |
//! | `db.operation.name`, `rpc.method` | the DynamoDB operation (`GetItem`, `Query`, …) |
//! | `db.collection.name` | the table |
//! | `rpc.system`, `rpc.service` | `aws-api`, `DynamoDB` |
//! | `cloud.region` | the client's region |
//! | `server.address`, `server.port` | the endpoint's host and port, when faceteer set it |
//! | `aws.dynamodb.table_names` | the tables of the requests, a JSON list (`["app"]`) |
//! | `aws.dynamodb.index_name` | the index queried or scanned |
//! | `aws.dynamodb.consistent_read` | `ConsistentRead` (GetItem, Query, Scan) |
//! | `aws.dynamodb.projection` | `ProjectionExpression` (GetItem, Query, Scan) |
//! | `aws.dynamodb.limit` | `Limit` (Query, Scan) |
//! | `aws.dynamodb.select` | `Select` (Query, Scan) |
//! | `aws.dynamodb.scan_forward` | `ScanIndexForward` (Query) |
//! | `aws.dynamodb.segment`, `aws.dynamodb.total_segments` | a parallel scan's segment (Scan) |
//! | `aws.dynamodb.count`, `aws.dynamodb.scanned_count` | `Count` and `ScannedCount`, summed over the pages (Query, Scan) |
//! | `aws.dynamodb.consumed_capacity` | each request's `ConsumedCapacity` objects, a JSON list |
//! | `aws.dynamodb.item_collection_metrics` | `ItemCollectionMetrics` as JSON (single-item writes to a table with a local index, which faceteer then asks for) |
//! | `aws.request_id` | the request id of the last answer (or of the error) |
//! | `error.type` | when the operation failed: DynamoDB's error code (`ConditionalCheckFailedException`, …), or faceteer's error kind (`VersionConflict`, `DeadlineExceeded`, …) |
//! | `faceteer.facet` | the facet |
//! | `faceteer.records` | records returned or written |
//! | `faceteer.requests` | DynamoDB requests sent (retries and extra pages included) |
//! | `faceteer.capacity_units` | capacity units consumed, summed over the requests |
//! | `faceteer.duration_ms` | wall time of the operation |
//!
//! Administration calls add what the conventions name for them: CreateTable its
//! `aws.dynamodb.global_secondary_indexes`, `aws.dynamodb.local_secondary_indexes` and
//! provisioned capacity, UpdateTable its `aws.dynamodb.attribute_definitions` and
//! `aws.dynamodb.global_secondary_index_updates` (each a JSON list).
//!
//! `tracing` fields hold no lists: the conventions' `string[]` attributes are JSON arrays of
//! strings in one text.
//!
//! Metrics go through the [`metrics`](https://docs.rs/metrics) facade: install any recorder
//! (Prometheus, OpenTelemetry, StatsD, …) in the application, and each operation records
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `db.client.operation.duration` | histogram, seconds | `db.system.name`, `db.operation.name`, `db.collection.name`, `error.type` when it failed |
//! | `faceteer.dynamodb.consumed_capacity` | histogram, capacity units per operation (its sum is the capacity consumed) | the same, without `error.type` |
//! | `faceteer.dynamodb.requests` | counter, requests sent | the same |
//!
//! With no recorder installed, the facade's calls do nothing but build their labels; with no
//! subscriber recording the span, no attribute is built. At most 16 `ConsumedCapacity`
//! objects are kept on a span (then `{"faceteer.left_out": n}`); `faceteer.capacity_units`
//! sums them all. The conventions' bucket boundaries for the duration (0.005 s to 10 s)
//! are the recorder's to set.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Instant;

use aws_sdk_dynamodb::types::ConsumedCapacity;
use tracing::field::Empty;
use tracing::Span;

use crate::error::Context;
use crate::error::{Error, Result};
use crate::table::Table;

/// Where an operation's requests go: the client's region and, once known, the server
/// (borrowed from the table: nothing is copied for a span that no subscriber records).
struct Origin<'t> {
    region: Option<&'t str>,
    server: Option<&'t (String, Option<i64>)>,
    /// Where the server will be noted, when it is not known yet.
    handle: Option<crate::wire::tap::Server>,
}

impl<'t> Origin<'t> {
    fn of(table: &'t Table) -> Origin<'t> {
        let server = table.server().get();
        Origin {
            region: table.client().config().region().map(|r| r.as_ref()),
            handle: server.is_none().then(|| table.server().clone()),
            server,
        }
    }
}

/// The `dynamodb` span of `$operation` on table `$name` from `$origin`, with the
/// attributes every operation has, then `$fields`.
macro_rules! op_span {
    ($operation:expr, $name:expr, $origin:expr; $($fields:tt)*) => {
        tracing::info_span!(
            "dynamodb",
            otel.name = %format_args!("{} {}", $operation, $name),
            otel.kind = "client",
            db.system.name = "aws.dynamodb",
            db.operation.name = $operation,
            db.collection.name = $name,
            rpc.system = "aws-api",
            rpc.service = "DynamoDB",
            rpc.method = $operation,
            cloud.region = $origin.region,
            server.address = $origin.server.as_ref().map(|s| s.0.as_str()),
            server.port = $origin.server.as_ref().and_then(|s| s.1),
            aws.dynamodb.table_names = %json_list(&[$name]),
            faceteer.tags = tracing::field::Empty,
            $($fields)*
        )
    };
}

/// One operation's span and its running totals.
pub(crate) struct Op {
    operation: &'static str,
    context: Context,
    span: Span,
    start: Instant,
    requests: AtomicU32,
    /// What the answers reported, summed or collected.
    answers: Mutex<Answers>,
    /// When the whole call must be over ([`Timeouts::call`](crate::Timeouts::call)).
    deadline: tokio::time::Instant,
    /// A version conflict is expected (a `modify` reads again): no WARN event for it.
    conflict_expected: bool,
    /// The server, when the span does not name it yet.
    server: Option<crate::wire::tap::Server>,
    /// The table's request hooks, when it has any (boxed: an operation without them
    /// carries one pointer).
    calls: Option<Box<Calls>>,
}

/// An operation's request hooks, its context, and what they asked, once they ran (at its
/// first request).
struct Calls {
    hooks: Arc<crate::hook::Hooks>,
    context: crate::hook::Context,
    amendment: tokio::sync::OnceCell<Arc<crate::hook::Amendment>>,
}

impl Op {
    /// Open the span of `operation` on `table` for `facet` (and `index`); the call's
    /// deadline starts now (or is the one `table` shares).
    pub(crate) fn new(
        operation: &'static str,
        table: &Table,
        facet: &'static str,
        index: Option<&'static str>,
    ) -> Op {
        let origin = Origin::of(table);
        let name = table.name();
        let span = op_span!(operation, name, origin;
            aws.dynamodb.index_name = index,
            aws.dynamodb.consistent_read = Empty,
            aws.dynamodb.projection = Empty,
            aws.dynamodb.limit = Empty,
            aws.dynamodb.select = Empty,
            aws.dynamodb.scan_forward = Empty,
            aws.dynamodb.segment = Empty,
            aws.dynamodb.total_segments = Empty,
            aws.dynamodb.count = Empty,
            aws.dynamodb.scanned_count = Empty,
            aws.dynamodb.consumed_capacity = Empty,
            aws.dynamodb.item_collection_metrics = Empty,
            aws.request_id = Empty,
            faceteer.facet = facet,
            faceteer.records = Empty,
            faceteer.requests = Empty,
            faceteer.capacity_units = Empty,
            faceteer.duration_ms = Empty,
            error.type = Empty,
        );
        Op::with_span(operation, table, Some(facet), index, span, origin)
    }

    /// Open the span of administration call `operation` (CreateTable, UpdateTable,
    /// DescribeTable, …) on `table`.
    pub(crate) fn admin(operation: &'static str, table: &Table) -> Op {
        let origin = Origin::of(table);
        let name = table.name();
        let span = op_span!(operation, name, origin;
            aws.dynamodb.global_secondary_indexes = Empty,
            aws.dynamodb.local_secondary_indexes = Empty,
            aws.dynamodb.provisioned_read_capacity = Empty,
            aws.dynamodb.provisioned_write_capacity = Empty,
            aws.dynamodb.attribute_definitions = Empty,
            aws.dynamodb.global_secondary_index_updates = Empty,
            aws.dynamodb.consumed_capacity = Empty,
            aws.request_id = Empty,
            faceteer.requests = Empty,
            faceteer.capacity_units = Empty,
            faceteer.duration_ms = Empty,
            faceteer.records = Empty,
            error.type = Empty,
        );
        Op::with_span(operation, table, None, None, span, origin)
    }

    /// The operation of `span` on `table`.
    fn with_span(
        operation: &'static str,
        table: &Table,
        facet: Option<&'static str>,
        index: Option<&'static str>,
        span: Span,
        origin: Origin<'_>,
    ) -> Op {
        Op {
            operation,
            context: Context {
                table: table.name().to_owned(),
                facet,
                index,
                key: None,
                endpoint: table.endpoint().cloned(),
            },
            span,
            start: Instant::now(),
            requests: AtomicU32::new(0),
            answers: Mutex::new(Answers::default()),
            deadline: table.call_deadline(),
            conflict_expected: false,
            server: origin.handle,
            calls: table.request_hooks().map(|(hooks, context)| {
                Box::new(Calls {
                    hooks,
                    context,
                    amendment: tokio::sync::OnceCell::new(),
                })
            }),
        }
    }

    /// Run the table's request hooks, once per operation, before its first request: what
    /// they ask applies to every request it sends ([`crate::hook::RequestHook`]).
    pub(crate) async fn prepare(&self) -> Result<()> {
        match &self.calls {
            Some(calls) if !calls.amendment.initialized() => {}
            _ => return Ok(()),
        }
        // Boxed: an operation without request hooks carries none of this in its future.
        Box::pin(self.run_request_hooks()).await
    }

    async fn run_request_hooks(&self) -> Result<()> {
        let Some(calls) = &self.calls else {
            return Ok(());
        };
        let (hooks, context) = (&calls.hooks, &calls.context);
        calls
            .amendment
            .get_or_try_init(|| async {
                // Request hooks run under the call's deadline too.
                let run = crate::hook::amendment(
                    hooks.request_hooks(),
                    self.operation,
                    &self.context.table,
                    self.context.facet,
                    context,
                );
                let amendment = tokio::time::timeout_at(self.deadline, run)
                    .await
                    .map_err(|_| self.deadline_exceeded(false))?
                    .map_err(|veto| Error::Refused {
                        operation: self.operation,
                        facet: self.context.facet.unwrap_or_default(),
                        pk: String::new().into(),
                        sk: String::new().into(),
                        veto,
                    })?;
                if !amendment.tags.is_empty() {
                    let tags: Vec<String> = amendment
                        .tags
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect();
                    self.span.record("faceteer.tags", tags.join(",").as_str());
                }
                Ok::<_, Error>(Arc::new(amendment))
            })
            .await?;
        Ok(())
    }

    /// The consumed capacity its requests ask for: by index when a request hook asked.
    pub(crate) fn capacity_asked(&self) -> aws_sdk_dynamodb::types::ReturnConsumedCapacity {
        match self.calls.as_ref().and_then(|c| c.amendment.get()) {
            Some(a) if a.indexes => aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes,
            _ => aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total,
        }
    }

    /// Record a field of an administration call's span (a JSON list, or a number).
    pub(crate) fn note(&self, field: &'static str, value: &dyn tracing::Value) {
        self.span.record(field, value);
    }

    /// The DynamoDB operation.
    pub(crate) fn operation(&self) -> &'static str {
        self.operation
    }

    /// When the call must be over.
    pub(crate) fn deadline(&self) -> tokio::time::Instant {
        self.deadline
    }

    /// Whether the call's deadline has passed.
    pub(crate) fn past_deadline(&self) -> bool {
        tokio::time::Instant::now() >= self.deadline
    }

    /// [`Error::DeadlineExceeded`] for this call; `sent` when a request was under way.
    pub(crate) fn deadline_exceeded(&self, sent: bool) -> Error {
        Error::DeadlineExceeded {
            operation: self.operation,
            table: self.context.table.clone(),
            after: self.deadline.saturating_duration_since(self.start.into()),
            sent,
        }
    }

    /// Run one request, refused before it starts when the deadline has passed and abandoned
    /// when it passes while the request is under way.
    pub(crate) async fn within<T>(
        &self,
        request: impl std::future::Future<Output = Result<T>>,
    ) -> Result<T> {
        if self.past_deadline() {
            return Err(self.deadline_exceeded(false));
        }
        tracing::debug!(
            parent: &self.span,
            operation = self.operation,
            table = %self.context.table,
            "faceteer: sending {} to table `{}`",
            self.operation,
            self.context.table
        );
        // The headers request hooks asked for go on every request sent in it.
        let headers = self
            .calls
            .as_ref()
            .and_then(|c| c.amendment.get())
            .filter(|a| !a.headers.is_empty())
            .map(|a| a.headers.clone());
        let bounded = tokio::time::timeout_at(self.deadline, request);
        let sent = match headers {
            Some(headers) => Box::pin(crate::wire::sent::with_headers(headers, bounded)).await,
            None => bounded.await,
        };
        match sent {
            Ok(result) => result,
            Err(_) => Err(self.deadline_exceeded(true)),
        }
    }

    /// What the operation is about, for its errors.
    pub(crate) fn context(&self) -> Context {
        self.context.clone()
    }

    /// The span, to instrument the operation's future with.
    pub(crate) fn span(&self) -> Span {
        self.span.clone()
    }

    /// Count one request and the capacity it consumed, as the SDK decoded it.
    pub(crate) fn request(&self, consumed: &[ConsumedCapacity]) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let recorded = !self.span.is_disabled();
        if let Ok(mut answers) = self.answers.lock() {
            for c in consumed {
                answers.units += c.capacity_units.unwrap_or(0.0);
                if recorded {
                    answers.keep(|| capacity_json(c));
                }
            }
        }
    }

    /// Count one request whose answer faceteer read directly, and the capacity it reports.
    pub(crate) fn request_read(&self, consumed: faceteer_core::wire::answer::Consumed) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let recorded = !self.span.is_disabled();
        if let Ok(mut answers) = self.answers.lock() {
            answers.units += consumed.units;
            if recorded {
                for json in consumed.json {
                    answers.keep(|| json);
                }
            }
        }
    }

    /// Record a request's parameters, as the conventions name them.
    pub(crate) fn note_request(&self, params: &Params<'_>) {
        let span = &self.span;
        if let Some(v) = params.consistent_read {
            span.record("aws.dynamodb.consistent_read", v);
        }
        if let Some(v) = params.projection {
            span.record("aws.dynamodb.projection", v);
        }
        if let Some(v) = params.limit {
            span.record("aws.dynamodb.limit", v);
        }
        if let Some(v) = params.select {
            span.record("aws.dynamodb.select", v);
        }
        if let Some(v) = params.scan_forward {
            span.record("aws.dynamodb.scan_forward", v);
        }
        if let Some(v) = params.segment {
            span.record("aws.dynamodb.segment", v);
        }
        if let Some(v) = params.total_segments {
            span.record("aws.dynamodb.total_segments", v);
        }
        if let Some(v) = params.index {
            span.record("aws.dynamodb.index_name", v);
        }
    }

    /// Add a page's `Count` and `ScannedCount` to the operation's.
    pub(crate) fn note_counts(&self, count: u64, scanned: u64) {
        if let Ok(mut answers) = self.answers.lock() {
            answers.count = Some(answers.count.unwrap_or(0) + count);
            answers.scanned = Some(answers.scanned.unwrap_or(0) + scanned);
        }
    }

    /// Record the id of an answer's request.
    pub(crate) fn note_request_id(&self, id: Option<&str>) {
        if let Some(id) = id {
            self.span.record("aws.request_id", id);
        }
    }

    /// Record an answer's `ItemCollectionMetrics`.
    pub(crate) fn note_item_collection(
        &self,
        metrics: Option<&aws_sdk_dynamodb::types::ItemCollectionMetrics>,
    ) {
        if let Some(m) = metrics {
            self.span.record(
                "aws.dynamodb.item_collection_metrics",
                item_collection_json(m).as_str(),
            );
        }
    }

    /// The capacity units the operation's requests consumed so far, as DynamoDB reported.
    pub(crate) fn capacity(&self) -> f64 {
        self.answers.lock().map_or(0.0, |a| a.units)
    }

    /// The same operation, expecting version conflicts (or refused conditions): a caller
    /// that handles them (a `modify` reads again) gets no WARN event for one.
    pub(crate) fn expecting_conflicts(mut self) -> Op {
        self.conflict_expected = true;
        self
    }

    /// Record a batch call's totals: `records` read or written, and a WARN event when some
    /// of its `inputs` `failed` or ended `unknown` (the report says which and why).
    pub(crate) fn finish_batch(
        &self,
        records: usize,
        inputs: usize,
        failed: usize,
        unknown: usize,
    ) {
        if failed + unknown > 0 {
            tracing::warn!(
                parent: &self.span,
                operation = self.operation,
                table = %self.context.table,
                inputs,
                failed,
                unknown,
                "faceteer: {} left {failed} inputs failed and {unknown} unknown (of {inputs})",
                self.operation,
            );
        }
        self.finish(Ok(records));
    }

    /// Record the totals: `records` returned or written, or the error; and the
    /// operation's metrics.
    pub(crate) fn finish(&self, outcome: Result<usize, &Error>) {
        let mut error_type = None;
        match outcome {
            Ok(records) => {
                self.span.record("faceteer.records", records);
            }
            Err(e) => {
                let kind = error_type_of(e);
                self.span.record("error.type", kind.as_str());
                if let Error::Dynamo(d) = e {
                    self.note_request_id(d.request_id());
                }
                // A version conflict a `modify` handles, or a table a `Describe*` finds
                // absent (`verify`, `create --if-missing`), is an answer, not a failure.
                let absent =
                    self.operation.starts_with("Describe") && kind == "ResourceNotFoundException";
                let expected = absent
                    || (self.conflict_expected
                        && matches!(
                            e,
                            Error::VersionConflict { .. } | Error::ConditionFailed { .. }
                        ));
                if !expected {
                    tracing::warn!(
                    parent: &self.span,
                    operation = self.operation,
                    table = %self.context.table,
                    error = %e,
                    "faceteer: {} failed",
                    self.operation
                    );
                }
                error_type = Some(kind);
            }
        }
        if let Some((host, port)) = self.server.as_ref().and_then(|s| s.get()) {
            self.span.record("server.address", host.as_str());
            if let Some(port) = port {
                self.span.record("server.port", port);
            }
        }
        let requests = self.requests.load(Ordering::Relaxed);
        self.span.record("faceteer.requests", requests);
        let units = match self.answers.lock() {
            Ok(answers) => {
                self.span.record("faceteer.capacity_units", answers.units);
                if !answers.capacity.is_empty() {
                    let left_out = (answers.left_out > 0)
                        .then(|| format!("{{\"faceteer.left_out\":{}}}", answers.left_out));
                    let list: Vec<&str> = answers
                        .capacity
                        .iter()
                        .map(String::as_str)
                        .chain(left_out.as_deref())
                        .collect();
                    self.span.record(
                        "aws.dynamodb.consumed_capacity",
                        serde_json::to_string(&list).unwrap_or_default().as_str(),
                    );
                }
                if let (Some(count), Some(scanned)) = (answers.count, answers.scanned) {
                    self.span.record("aws.dynamodb.count", count);
                    self.span.record("aws.dynamodb.scanned_count", scanned);
                }
                answers.units
            }
            Err(_) => 0.0,
        };
        let elapsed = self.start.elapsed();
        self.span
            .record("faceteer.duration_ms", elapsed.as_secs_f64() * 1000.0);
        super::metrics::record(
            self.operation,
            &self.context.table,
            elapsed,
            units,
            requests,
            error_type,
        );
    }
}

/// The parameters of a request the conventions name.
#[derive(Debug, Default)]
pub(crate) struct Params<'a> {
    pub consistent_read: Option<bool>,
    pub projection: Option<&'a str>,
    pub limit: Option<i32>,
    pub select: Option<&'a str>,
    pub scan_forward: Option<bool>,
    pub segment: Option<i32>,
    pub total_segments: Option<i32>,
    pub index: Option<&'a str>,
}

/// At most this many `ConsumedCapacity` objects are kept on a span: an operation of many
/// pages (a count of a whole table) records the first, and how many more it left out.
const KEPT_CAPACITY: usize = 16;

/// What an operation's answers reported.
#[derive(Default)]
struct Answers {
    units: f64,
    capacity: Vec<String>,
    /// Capacity objects left out past [`KEPT_CAPACITY`].
    left_out: u64,
    count: Option<u64>,
    scanned: Option<u64>,
}

impl Answers {
    /// Keep one capacity object's JSON, within the bound.
    fn keep(&mut self, json: impl FnOnce() -> String) {
        if self.capacity.len() < KEPT_CAPACITY {
            self.capacity.push(json());
        } else {
            self.left_out += 1;
        }
    }
}

/// `error.type`: DynamoDB's error code, or faceteer's error kind (the variant's name).
pub(crate) fn error_type_of(e: &Error) -> String {
    if let Error::Dynamo(d) = e {
        if let Some(code) = d.code() {
            return code.to_owned();
        }
    }
    let debug = format!("{e:?}");
    let kind: String = debug
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if kind.is_empty() {
        "_OTHER".to_owned()
    } else {
        kind
    }
}

/// A JSON list of strings.
pub(crate) fn json_list(items: &[&str]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".to_owned())
}

fn capacity_object(
    units: Option<f64>,
    read: Option<f64>,
    write: Option<f64>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut o = serde_json::Map::new();
    let mut put = |k: &str, v: Option<f64>| {
        if let Some(v) = v {
            o.insert(k.to_owned(), serde_json::json!(v));
        }
    };
    put("CapacityUnits", units);
    put("ReadCapacityUnits", read);
    put("WriteCapacityUnits", write);
    o
}

/// A `ConsumedCapacity` as DynamoDB writes it in JSON.
fn capacity_json(c: &ConsumedCapacity) -> String {
    let mut o = serde_json::Map::new();
    if let Some(t) = c.table_name() {
        o.insert("TableName".into(), t.into());
    }
    o.extend(capacity_object(
        c.capacity_units(),
        c.read_capacity_units(),
        c.write_capacity_units(),
    ));
    if let Some(t) = c.table() {
        o.insert(
            "Table".into(),
            capacity_object(
                t.capacity_units(),
                t.read_capacity_units(),
                t.write_capacity_units(),
            )
            .into(),
        );
    }
    for (key, indexes) in [
        ("GlobalSecondaryIndexes", c.global_secondary_indexes()),
        ("LocalSecondaryIndexes", c.local_secondary_indexes()),
    ] {
        if let Some(indexes) = indexes {
            let map: serde_json::Map<String, serde_json::Value> = indexes
                .iter()
                .map(|(name, t)| {
                    (
                        name.clone(),
                        capacity_object(
                            t.capacity_units(),
                            t.read_capacity_units(),
                            t.write_capacity_units(),
                        )
                        .into(),
                    )
                })
                .collect();
            o.insert(key.into(), map.into());
        }
    }
    serde_json::Value::Object(o).to_string()
}

/// `ItemCollectionMetrics` as DynamoDB writes it in JSON (the key's values in their
/// DynamoDB JSON).
fn item_collection_json(m: &aws_sdk_dynamodb::types::ItemCollectionMetrics) -> String {
    let key: serde_json::Map<String, serde_json::Value> = m
        .item_collection_key()
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            let value = match v {
                // The partition key, with the values of `#[sensitive]` fields masked.
                aws_sdk_dynamodb::types::AttributeValue::S(s) => {
                    serde_json::json!({ "S": faceteer_core::redact::key(s) })
                }
                aws_sdk_dynamodb::types::AttributeValue::N(n) => serde_json::json!({ "N": n }),
                other => serde_json::json!({ "?": format!("{other:?}") }),
            };
            (k.clone(), value)
        })
        .collect();
    serde_json::json!({
        "ItemCollectionKey": key,
        "SizeEstimateRangeGB": m.size_estimate_range_gb(),
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_json() {
        assert_eq!(json_list(&["a\"b"]), r#"["a\"b"]"#);
    }

    #[test]
    fn capacity_is_dynamodb_json() {
        let c = ConsumedCapacity::builder()
            .table_name("app")
            .capacity_units(1.5)
            .build();
        assert_eq!(
            capacity_json(&c),
            r#"{"CapacityUnits":1.5,"TableName":"app"}"#
        );
    }
}
