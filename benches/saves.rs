//! Saves of what changed, on the README's `Task` (2,048 distinct records): a change of one
//! field written three ways, each a group of its own:
//!
//! * `put`: a put of the changed record (what `Table::modify` sent before it sent only what
//!   changed);
//! * `save`: `table.save(&before, &after)`, one `UpdateItem` of the attributes that differ;
//! * `hand`: the `aws-sdk-dynamodb` `update_item` a careful user writes for the same change:
//!   `SET` (or `REMOVE`) of the field and of the index key or TTL it moves, conditioned as
//!   the save conditions it.
//!
//! The changes: `status` (moves `GSI2PK`), `expires_at` (the TTL: set on the records that
//! lack it, removed from those that hold it) and `date_due` (moves `GSI1SK`).
//!
//! Before anything is timed, every arm is checked on the embedded engine (dynoxide) to leave
//! the same stored item (the item a put of the changed record writes) for a sample of the
//! records, and the hand-written update to name the same key, change and conditions as the
//! save's (their placeholders resolved). Then:
//!
//! * `save bytes`: request body bytes per write, at the stub server
//!   ([`faceteer::testing::StubServer::bytes_received`]);
//! * `save capacity`: the capacity each arm consumes on the embedded engine, as it reports
//!   it (`ReturnConsumedCapacity::Total`; faceteer's span field `faceteer.capacity_units`),
//!   beside what DynamoDB's rules charge: 1 WCU per started KB of the larger of the item
//!   before and after, and per global index 0 (not in it, or its entry unchanged), 1 (its
//!   entry changed in place) or 2 (its key moved). And one case where a save consumes less
//!   for real: a change of `name` on `Member`, whose `email` is `#[unique]`; its put reads
//!   the stored record and writes it in a transaction (2× the units);
//! * client CPU per write (criterion groups `save status`, `save expires_at`,
//!   `save date_due`, arms `put`, `save`, `hand`), against the stub server on a thread of
//!   its own, each measured pass following an unmeasured pass of another arm.
//!
//! `cargo bench --bench saves`; the README's figures: `scripts/measure.sh`.

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use aws_sdk_dynamodb::Client;
use chrono::{DateTime, SecondsFormat, Utc};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use faceteer::testing::StubConfig;
use faceteer::write::Saved;
use faceteer::{Item, Table};
use faceteer_suite::bench_task::{hand_key, task, Task, TaskStatus};
use faceteer_suite::catalogue::{member, Member};
use serde_json::Value;
use support::{boxed, Run, StubThread};

const N: usize = 2_048;
/// Records checked (and measured) on the embedded engine.
const SAMPLE: usize = 64;
const TEAM: &str = "team-1";
const TABLE: &str = "bench";

faceteer::table! {
    /// The README's tasks.
    struct Tasks { Task }
}

faceteer::table! {
    /// Team members, their emails unique.
    struct Members { Member }
}

/// A change of one field.
#[derive(Debug, Clone, Copy)]
enum Change {
    /// `status` flipped: moves `GSI2PK`.
    Status,
    /// `expires_at` set (30 days after creation) where it is not, removed where it is: the TTL.
    Expiry,
    /// `date_due` a day later: moves `GSI1SK`.
    Due,
}

impl Change {
    const ALL: [Change; 3] = [Change::Status, Change::Expiry, Change::Due];

    fn name(self) -> &'static str {
        match self {
            Change::Status => "status",
            Change::Expiry => "expires_at",
            Change::Due => "date_due",
        }
    }

    fn apply(self, before: &Task) -> Task {
        let mut after = before.clone();
        match self {
            Change::Status => {
                after.status = match before.status {
                    TaskStatus::Open => TaskStatus::Completed,
                    TaskStatus::Completed => TaskStatus::Open,
                }
            }
            Change::Expiry => {
                after.expires_at = match before.expires_at {
                    Some(_) => None,
                    None => Some(before.date_created + chrono::Duration::days(30)),
                }
            }
            Change::Due => after.date_due = before.date_due + chrono::Duration::days(1),
        }
        after
    }
}

/// A time as Faceteer stores it (`toISOString()`).
fn iso(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn s(text: impl Into<String>) -> AttributeValue {
    AttributeValue::S(text.into())
}

/// The user's `GSI2PK`: an absent user contributes nothing.
fn hand_gsi2pk(t: &Task) -> String {
    match &t.assigned_user_id {
        Some(user) => format!("#USER_STATUS_{user}_{}", t.status.text()),
        None => format!("#USER_STATUS_{}", t.status.text()),
    }
}

/// The `update_item` a careful user writes for `change` of `before` into `after`: the field
/// and the index key (or TTL) it moves, on condition that the record exists and still holds
/// the values read of the field and of every field that key is built from (the save's
/// conditions).
fn hand_update(
    client: &Client,
    before: &Task,
    after: &Task,
    change: Change,
) -> UpdateItemFluentBuilder {
    let request = client
        .update_item()
        .table_name(TABLE)
        .set_key(Some(hand_key(&before.team_id, &before.task_id)))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .expression_attribute_names("#pk", "PK");
    match change {
        Change::Status => {
            let request = request
                .update_expression("SET #status = :status, #gsi2pk = :gsi2pk")
                .expression_attribute_names("#status", "status")
                .expression_attribute_names("#gsi2pk", "GSI2PK")
                .expression_attribute_names("#user", "assignedUserId")
                .expression_attribute_values(":status", s(after.status.text()))
                .expression_attribute_values(":gsi2pk", s(hand_gsi2pk(after)))
                .expression_attribute_values(":was", s(before.status.text()));
            match &before.assigned_user_id {
                Some(user) => request
                    .condition_expression(
                        "attribute_exists(#pk) AND #status = :was AND #user = :user",
                    )
                    .expression_attribute_values(":user", s(user)),
                None => request
                    .condition_expression(
                        "attribute_exists(#pk) AND #status = :was \
                         AND (attribute_not_exists(#user) OR attribute_type(#user, :null))",
                    )
                    .expression_attribute_values(":null", s("NULL")),
            }
        }
        Change::Expiry => {
            let request = request
                .expression_attribute_names("#expires", "expiresAt")
                .expression_attribute_names("#ttl", "ttl");
            match (&before.expires_at, &after.expires_at) {
                (Some(was), None) => request
                    .update_expression("REMOVE #expires, #ttl")
                    .condition_expression("attribute_exists(#pk) AND #expires = :was")
                    .expression_attribute_values(":was", s(iso(was))),
                (was, Some(at)) => {
                    let request = request
                        .update_expression("SET #expires = :expires, #ttl = :ttl")
                        .expression_attribute_values(":expires", s(iso(at)))
                        .expression_attribute_values(
                            ":ttl",
                            AttributeValue::N(at.timestamp().to_string()),
                        );
                    match was {
                        Some(was) => request
                            .condition_expression("attribute_exists(#pk) AND #expires = :was")
                            .expression_attribute_values(":was", s(iso(was))),
                        None => request
                            .condition_expression(
                                "attribute_exists(#pk) AND (attribute_not_exists(#expires) \
                                 OR attribute_type(#expires, :null))",
                            )
                            .expression_attribute_values(":null", s("NULL")),
                    }
                }
                (None, None) => request,
            }
        }
        Change::Due => request
            .update_expression("SET #due = :due, #gsi1sk = :gsi1sk")
            .condition_expression("attribute_exists(#pk) AND #due = :was")
            .expression_attribute_names("#due", "dateDue")
            .expression_attribute_names("#gsi1sk", "GSI1SK")
            .expression_attribute_values(":due", s(iso(&after.date_due)))
            .expression_attribute_values(
                ":gsi1sk",
                s(format!("#TASK_DUE_{}", iso(&after.date_due))),
            )
            .expression_attribute_values(":was", s(iso(&before.date_due))),
    }
}

/// `text`, an expression of `request` (DynamoDB JSON), its `#name` and `:value` placeholders
/// replaced by what they stand for.
fn resolved(request: &Value, text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(['#', ':']) {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let token = &rest[at..at + 1 + len];
        let meaning = match token.as_bytes()[0] {
            b'#' => request["ExpressionAttributeNames"][token]
                .as_str()
                .map(str::to_owned),
            _ => request["ExpressionAttributeValues"]
                .get(token)
                .map(Value::to_string),
        };
        out.push_str(meaning.as_deref().unwrap_or(token));
        rest = &rest[at + 1 + len..];
    }
    out.push_str(rest);
    out
}

/// A condition expression in a canonical form: `AND` and `OR` chains flattened and sorted,
/// grouping parentheses dropped, each comparison's placeholders resolved. Two writers who
/// group or order the same conditions differently, or name their placeholders differently,
/// write the same condition.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Condition {
    Atom(String),
    All(Vec<Condition>),
    Any(Vec<Condition>),
}

impl Condition {
    /// The condition of `text` (placeholders unresolved: they hold no parentheses or
    /// spaces), resolved by `request`.
    fn of(text: &str, request: &Value) -> Condition {
        let mut text = text.trim();
        while let Some(inner) = wrapped(text) {
            text = inner.trim();
        }
        // `OR` binds loosest.
        for (op, all) in [(" OR ", false), (" AND ", true)] {
            let parts = split_top(text, op);
            if parts.len() > 1 {
                let mut flat = Vec::new();
                for part in parts {
                    match (Condition::of(part, request), all) {
                        (Condition::All(inner), true) | (Condition::Any(inner), false) => {
                            flat.extend(inner)
                        }
                        (other, _) => flat.push(other),
                    }
                }
                flat.sort();
                return if all {
                    Condition::All(flat)
                } else {
                    Condition::Any(flat)
                };
            }
        }
        Condition::Atom(resolved(request, text))
    }
}

/// The text inside parentheses that wrap the whole of `text`.
fn wrapped(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('(')?.strip_suffix(')')?;
    let mut depth = 0i32;
    for c in inner.bytes() {
        match c {
            b'(' => depth += 1,
            b')' if depth == 0 => return None,
            b')' => depth -= 1,
            _ => {}
        }
    }
    (depth == 0).then_some(inner)
}

/// `text` split at each `op` outside parentheses.
fn split_top<'t>(text: &'t str, op: &str) -> Vec<&'t str> {
    let bytes = text.as_bytes();
    let (mut parts, mut depth, mut start, mut i) = (Vec::new(), 0i32, 0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ if depth == 0 && bytes[i..].starts_with(op.as_bytes()) => {
                parts.push(&text[start..i]);
                i += op.len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&text[start..]);
    parts
}

/// What an update request does, its placeholders resolved: its table, key, change and
/// condition.
fn meaning(recorded: &str) -> (String, String, String, Condition) {
    let json = recorded
        .strip_prefix("UpdateItem ")
        .unwrap_or_else(|| panic!("not an update: {recorded}"));
    let request: Value = serde_json::from_str(json).expect("the stub records JSON");
    let text = |field: &str| request[field].as_str().unwrap_or_default().to_owned();
    (
        request["TableName"].to_string(),
        request["Key"].to_string(),
        resolved(&request, &text("UpdateExpression")),
        Condition::of(&text("ConditionExpression"), &request),
    )
}

/// The one request the stub recorded since the last call.
fn one_recorded(stub: &faceteer::testing::StubServer) -> String {
    let mut recorded = stub.take_recorded();
    assert_eq!(recorded.len(), 1, "one request: {recorded:?}");
    recorded.remove(0)
}

/// A closed span of faceteer's: its operation, requests and capacity.
#[derive(Debug, Clone, Default)]
struct OpSpan {
    operation: String,
    requests: u64,
    units: f64,
}

/// A `tracing` layer keeping faceteer's closed operation spans.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<OpSpan>>>);

struct Fields(OpSpan);

impl tracing::field::Visit for Fields {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "db.operation.name" {
            self.0.operation = value.to_owned();
        }
    }
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        if field.name() == "faceteer.requests" {
            self.0.requests = value;
        }
    }
    fn record_i64(&mut self, field: &tracing::field::Field, value: i64) {
        self.record_u64(field, value.max(0) as u64);
    }
    fn record_f64(&mut self, field: &tracing::field::Field, value: f64) {
        if field.name() == "faceteer.capacity_units" {
            self.0.units = value;
        }
    }
    fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
}

impl<S> tracing_subscriber::Layer<S> for Spans
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        id: &tracing::span::Id,
        ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        // faceteer's operation spans only (not the SDK's own).
        let meta = attrs.metadata();
        if meta.name() != "dynamodb" || !meta.target().starts_with("faceteer") {
            return;
        }
        let mut fields = Fields(OpSpan::default());
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_record(
        &self,
        id: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        if let Some(span) = ctx.span(id) {
            if let Some(fields) = span.extensions_mut().get_mut::<Fields>() {
                values.record(fields);
            }
        }
    }

    fn on_close(&self, id: tracing::span::Id, ctx: tracing_subscriber::layer::Context<'_, S>) {
        if let Some(span) = ctx.span(&id) {
            if let Some(fields) = span.extensions_mut().remove::<Fields>() {
                self.0.lock().unwrap().push(fields.0);
            }
        }
    }
}

/// Run `future` (an async block: faceteer opens its span when the call is made) with a
/// subscriber keeping faceteer's spans: its output and the operation spans it closed, in
/// the order they closed.
async fn traced<F: std::future::Future>(future: F) -> (F::Output, Vec<OpSpan>) {
    use tracing::instrument::WithSubscriber;
    use tracing_subscriber::layer::SubscriberExt;
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let out = future.with_subscriber(subscriber).await;
    let closed = std::mem::take(&mut *spans.0.lock().unwrap());
    (out, closed)
}

/// The one operation span of `spans`.
fn only(mut spans: Vec<OpSpan>) -> OpSpan {
    assert_eq!(spans.len(), 1, "one operation: {spans:?}");
    spans.remove(0)
}

/// The stored item under `key`, read consistently.
async fn stored(client: &Client, table: &str, key: Item) -> Option<Item> {
    client
        .get_item()
        .table_name(table)
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await
        .expect("a get")
        .item
}

/// Write units per started KB of `item`.
fn kb(item: &Item) -> f64 {
    faceteer_core::limits::item_size(item)
        .expect("a valid item")
        .div_ceil(1024)
        .max(1) as f64
}

/// The write units DynamoDB charges for a write that turns `before` into `after` (both
/// stored, whatever the request): the table's, and each global index's (every index of
/// the README's `Task` projects whole items).
fn charged(before: &Item, after: &Item) -> f64 {
    let mut units = kb(before).max(kb(after));
    for (pk, sk) in [("GSI1PK", "GSI1SK"), ("GSI2PK", "GSI2SK")] {
        let entry = |item: &Item| Some((item.get(pk)?.clone(), item.get(sk)?.clone()));
        units += match (entry(before), entry(after)) {
            (None, None) => 0.0,
            (Some(_), None) => kb(before),
            (None, Some(_)) => kb(after),
            (Some(a), Some(b)) if a != b => kb(before) + kb(after),
            (Some(_), Some(_)) if before == after => 0.0,
            (Some(_), Some(_)) => kb(before).max(kb(after)),
        };
    }
    units
}

/// Capacity on the embedded engine, summed over the sample: each arm's, and DynamoDB's rule.
#[derive(Default)]
struct Capacity {
    put: f64,
    save: f64,
    hand: f64,
    rule: f64,
}

/// Check every arm of `change` on the embedded engine, on the sample: the same stored item
/// (a put's of the changed record), and the capacity each consumes.
async fn check_on_engine(
    table: &Table,
    client: &Client,
    tasks: &[Task],
    change: Change,
) -> Capacity {
    let mut capacity = Capacity::default();
    for before in &tasks[..SAMPLE] {
        let after = change.apply(before);
        let key = || hand_key(&before.team_id, &before.task_id);
        let read = faceteer::to_item(before).unwrap();
        let expected = faceteer::to_item(&after).unwrap();
        let reset = || async {
            table
                .put(before)
                .await
                .expect("a put of the record as read");
            assert_eq!(
                stored(client, table.name(), key()).await.as_ref(),
                Some(&read)
            );
        };
        let leaves = |arm: &str, item: Option<Item>| {
            assert_eq!(
                item.as_ref(),
                Some(&expected),
                "the {arm} arm of the {} change of {} leaves another item",
                change.name(),
                before.task_id
            );
        };

        reset().await;
        let (put, spans) = traced(async { table.put(&after).await }).await;
        put.expect("a put");
        let span = only(spans);
        assert_eq!((span.operation.as_str(), span.requests), ("PutItem", 1));
        capacity.put += span.units;
        leaves("put", stored(client, table.name(), key()).await);

        reset().await;
        let (saved, spans) = traced(async { table.save(before, &after).await }).await;
        assert!(matches!(saved.expect("a save"), Saved::Written { .. }));
        let span = only(spans);
        assert_eq!((span.operation.as_str(), span.requests), ("UpdateItem", 1));
        capacity.save += span.units;
        leaves("save", stored(client, table.name(), key()).await);

        reset().await;
        let out = hand_update(client, before, &after, change)
            .table_name(table.name())
            .send()
            .await
            .expect("the hand-written update");
        capacity.hand += out
            .consumed_capacity()
            .and_then(|c| c.capacity_units())
            .expect("the engine reports capacity");
        leaves("hand", stored(client, table.name(), key()).await);

        capacity.rule += charged(&read, &expected);
    }
    capacity
}

/// A put and a save of a change of `name` on members whose email is unique, on the embedded
/// engine: both leave the same item and the guards as they were; the put reads the stored
/// record (a consistent `GetItem`, in the put's span) and sends a `TransactWriteItems` (a span
/// of its own); the save sends one `UpdateItem`.
async fn unique_case(engine: &faceteer::embedded::Engine) {
    let table = engine
        .table::<Members>("saves-members")
        .await
        .expect("the members' table");
    let client = engine.client();
    // Units summed over the sample: the put's read, the put's transaction, the save; and
    // DynamoDB's rule for each.
    let (mut read, mut transaction, mut save) = (0.0, 0.0, 0.0);
    let (mut rule_read, mut rule_transaction, mut rule_save) = (0.0, 0.0, 0.0);
    let requests = |spans: &[OpSpan]| -> Vec<(String, u64)> {
        spans
            .iter()
            .map(|s| (s.operation.clone(), s.requests))
            .collect()
    };
    let owned = |spans: &[(&str, u64)]| -> Vec<(String, u64)> {
        spans.iter().map(|(o, n)| (o.to_string(), *n)).collect()
    };
    for i in 0..SAMPLE {
        let before = member(TEAM, i);
        let mut after = before.clone();
        after.name = format!("{} (renamed)", before.name);
        let key = || Member::key(&before.team, &before.id).unwrap().to_item();
        let (as_read, expected) = (
            faceteer::to_item(&before).unwrap(),
            faceteer::to_item(&after).unwrap(),
        );

        table.put(&before).await.expect("a member");
        let (done, spans) = traced(async { table.put(&after).await }).await;
        done.expect("a put");
        assert_eq!(
            requests(&spans),
            owned(&[("TransactWriteItems", 1), ("PutItem", 1)]),
            "a put of a unique facet: its read, and its transaction"
        );
        transaction += spans[0].units;
        read += spans[1].units;
        assert_eq!(
            stored(&client, table.name(), key()).await.as_ref(),
            Some(&expected)
        );

        table.put(&before).await.expect("the member as read");
        let (saved, spans) = traced(async { table.save(&before, &after).await }).await;
        assert!(matches!(saved.expect("a save"), Saved::Written { .. }));
        assert_eq!(requests(&spans), owned(&[("UpdateItem", 1)]));
        save += spans[0].units;
        assert_eq!(
            stored(&client, table.name(), key()).await.as_ref(),
            Some(&expected)
        );

        // A consistent read: 1 RCU per started 4 KB; a transaction's write: 2 WCU per started
        // KB of the larger item; a write: 1.
        let larger = kb(&as_read).max(kb(&expected));
        let size = faceteer_core::limits::item_size(&as_read).expect("a valid item");
        rule_read += size.div_ceil(4096).max(1) as f64;
        rule_transaction += 2.0 * larger;
        rule_save += larger;
    }
    // Each member's email guard is still its own: one per member.
    let items = client
        .scan()
        .table_name(table.name())
        .consistent_read(true)
        .send()
        .await
        .expect("a scan")
        .count;
    assert_eq!(
        items as usize,
        2 * SAMPLE,
        "the members and their email guards"
    );
    let n = SAMPLE as f64;
    println!(
        "save capacity, Member name (email #[unique]): put 2 requests, {:.2} units (GetItem {:.2} RCU + TransactWriteItems {:.2} WCU), save 1 request, {:.2} units (UpdateItem {:.2} WCU) (embedded engine, mean of {SAMPLE} writes); DynamoDB's rule: put {:.2} RCU + {:.2} WCU, save {:.2} WCU",
        (read + transaction) / n,
        read / n,
        transaction / n,
        save / n,
        save / n,
        rule_read / n,
        rule_transaction / n,
        rule_save / n
    );
}

fn bench(c: &mut Criterion) {
    let tasks: Vec<Task> = (0..N).map(|i| task(TEAM, i)).collect();

    // The checks and the capacity, on the embedded engine.
    let engine = faceteer::embedded::Engine::start().expect("the embedded engine");
    let check = support::client_runtime();
    let mut capacity = BTreeMap::new();
    check.block_on(async {
        let table = engine
            .table::<Tasks>("saves-tasks")
            .await
            .expect("the tasks' table");
        let client = engine.client();
        for change in Change::ALL {
            let found = check_on_engine(&table, &client, &tasks, change).await;
            capacity.insert(change.name(), found);
        }
        unique_case(&engine).await;
    });
    let n = SAMPLE as f64;
    for change in Change::ALL {
        let c = &capacity[change.name()];
        println!(
            "save capacity, {}: put {:.2} WCU, save {:.2} WCU, hand {:.2} WCU (embedded engine, mean of {SAMPLE} writes); DynamoDB's rule: {:.2} WCU",
            change.name(),
            c.put / n,
            c.save / n,
            c.hand / n,
            c.rule / n
        );
    }

    // Bytes, and the hand-written update checked to say what the save says.
    let stub = StubThread::start(StubConfig::default());
    let stub = &stub.server;
    let rt = support::client_runtime();
    let (client, table) = support::task_table(stub, TABLE);
    let (table, client) = (&table, &client);
    let changes: Vec<(Change, Vec<(Task, Task)>)> = Change::ALL
        .iter()
        .map(|&change| {
            let pairs = tasks.iter().map(|t| (t.clone(), change.apply(t))).collect();
            (change, pairs)
        })
        .collect();
    rt.block_on(async {
        for (change, pairs) in &changes {
            stub.record(true);
            for (before, after) in &pairs[..SAMPLE] {
                table.save(before, after).await.expect("a save");
                let save = one_recorded(stub);
                hand_update(client, before, after, *change)
                    .send()
                    .await
                    .expect("the hand-written update");
                let hand = one_recorded(stub);
                assert_eq!(
                    meaning(&hand),
                    meaning(&save),
                    "the hand-written update of {} does what the save does:\nsave: {save}\nhand: {hand}",
                    change.name()
                );
            }
            stub.record(false);
            let bytes = |target: &str| stub.bytes_received(target);
            let requests = stub.requests();
            let (put0, update0) = (bytes("PutItem"), bytes("UpdateItem"));
            for (_, after) in pairs {
                table.put(after).await.expect("a put");
            }
            let put = bytes("PutItem") - put0;
            let update1 = bytes("UpdateItem");
            for (before, after) in pairs {
                table.save(before, after).await.expect("a save");
            }
            let save = bytes("UpdateItem") - update1;
            let update2 = bytes("UpdateItem");
            for (before, after) in pairs {
                hand_update(client, before, after, *change)
                    .send()
                    .await
                    .expect("the hand-written update");
            }
            let hand = bytes("UpdateItem") - update2;
            assert_eq!(stub.requests() - requests, 3 * N as u64, "one request a write");
            assert_eq!(bytes("PutItem") - put0 + bytes("UpdateItem") - update0, put + save + hand);
            let per = |b: u64| b as f64 / N as f64;
            println!(
                "save bytes, {}: put {:.0} B, save {:.0} B ({:.2}×), hand {:.0} B ({:.2}×)",
                change.name(),
                per(put),
                per(save),
                save as f64 / put as f64,
                per(hand),
                hand as f64 / put as f64
            );
        }
    });

    for (change, pairs) in &changes {
        let mut g = c.benchmark_group(format!("save {}", change.name()));
        g.sampling_mode(SamplingMode::Flat);
        g.sample_size(20);
        g.warm_up_time(Duration::from_secs(1));
        g.measurement_time(Duration::from_secs(10));
        let change = *change;
        let put = || {
            boxed(async move {
                for (_, after) in pairs {
                    table.put(after).await.expect("a put");
                }
            })
        };
        let save = || {
            boxed(async move {
                for (before, after) in pairs {
                    table.save(before, after).await.expect("a save");
                }
            })
        };
        let hand = || {
            boxed(async move {
                for (before, after) in pairs {
                    hand_update(client, before, after, change)
                        .send()
                        .await
                        .expect("the hand-written update");
                }
            })
        };
        let arms: [(&str, Run<'_>); 3] = [("put", &put), ("save", &save), ("hand", &hand)];
        support::cpu_arms_per(&mut g, &rt, &arms, str::to_owned, N as u32);
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
