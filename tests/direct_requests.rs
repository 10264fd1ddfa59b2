//! Requests faceteer sends itself ([`faceteer::ReadPath::Direct`],
//! [`faceteer::WritePath::Direct`]): sent without the SDK once the table's route is learned,
//! reading and writing what the SDK's paths do, tried again as the SDK tries (reads),
//! reported exactly (writes), failing with the SDK's own errors, and carrying the headers
//! request hooks add. Each runs through a recording proxy that can refuse or drop chosen
//! requests.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use faceteer::{Facet, ReadPath, Table, WritePath};
use faceteer_suite::catalogue::{task, Task};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::rt::{TokioExecutor, TokioIo};

faceteer::table! { pub struct Board { Task } }

/// What the proxy does to the next request of a chosen operation.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Answer with this status and error code, forwarding nothing.
    Refuse(u16, &'static str),
    /// Close the connection unanswered, forwarding nothing.
    Drop,
}

/// A request the proxy saw: its operation, user agent and one hook header.
#[derive(Debug, Clone)]
struct Seen {
    operation: String,
    agent: String,
    call_id: Option<String>,
}

#[derive(Default)]
struct State {
    /// The operation faults hit, and the faults in turn.
    faults: Mutex<(String, VecDeque<Fault>)>,
    seen: Mutex<Vec<Seen>>,
}

/// A recording proxy in front of the test's engine.
struct Proxy {
    endpoint: String,
    state: Arc<State>,
}

#[derive(Debug)]
struct Dropped;

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dropped by the test proxy")
    }
}

impl std::error::Error for Dropped {}

impl Proxy {
    async fn start() -> Proxy {
        let upstream = faceteer_suite::endpoint().expect("a local endpoint");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(State::default());
        let shared = state.clone();
        let client = HttpClient::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (state, client, upstream) = (shared.clone(), client.clone(), upstream.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        handle(state.clone(), client.clone(), upstream.clone(), req)
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Proxy { endpoint, state }
    }

    /// Hit the next requests of `operation` with `faults`, in turn.
    fn fail(&self, operation: &str, faults: &[Fault]) {
        *self.state.faults.lock().unwrap() =
            (operation.to_owned(), faults.iter().copied().collect());
    }

    /// The requests seen since last asked.
    fn seen(&self) -> Vec<Seen> {
        std::mem::take(&mut *self.state.seen.lock().unwrap())
    }
}

async fn handle(
    state: Arc<State>,
    client: HttpClient<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>,
    upstream: String,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Dropped> {
    let (parts, body) = req.into_parts();
    let body = body.collect().await.map_err(|_| Dropped)?.to_bytes();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let operation = header("x-amz-target")
        .and_then(|t| t.split('.').nth(1).map(str::to_owned))
        .unwrap_or_default();
    state.seen.lock().unwrap().push(Seen {
        operation: operation.clone(),
        agent: header("user-agent").unwrap_or_default(),
        call_id: header("x-call-id"),
    });
    let fault = {
        let mut faults = state.faults.lock().unwrap();
        if faults.0 == operation {
            faults.1.pop_front()
        } else {
            None
        }
    };
    match fault {
        Some(Fault::Drop) => return Err(Dropped),
        Some(Fault::Refuse(status, code)) => {
            let body = serde_json::json!({
                "__type": format!("com.amazonaws.dynamodb.v20120810#{code}"),
                "message": format!("refused by the test proxy ({code})"),
            });
            return Ok(Response::builder()
                .status(status)
                .header("content-type", "application/x-amz-json-1.0")
                .header("x-amzn-requestid", "proxy-request-id")
                .body(Full::new(Bytes::from(body.to_string())))
                .unwrap());
        }
        None => {}
    }
    let mut forward = Request::builder()
        .method(parts.method)
        .uri(format!("{upstream}{}", parts.uri.path()));
    for (name, value) in &parts.headers {
        forward = forward.header(name, value);
    }
    let answer = client
        .request(forward.body(Full::new(body)).unwrap())
        .await
        .map_err(|_| Dropped)?;
    let (parts, body) = answer.into_parts();
    let body = body.collect().await.map_err(|_| Dropped)?.to_bytes();
    Ok(Response::from_parts(parts, Full::new(body)))
}

/// A fresh table of tasks reached through a new proxy, with `n` tasks written (the write,
/// sent by the SDK, teaches the table its route).
async fn board(label: &str, n: usize) -> (Proxy, Table, Vec<Task>) {
    let proxy = Proxy::start().await;
    let client = faceteer::local_client(&proxy.endpoint).unwrap();
    let table = faceteer_suite::fresh_table_with::<Board>(client, label).await;
    let tasks: Vec<Task> = (0..n).map(|i| task("team-direct", i)).collect();
    assert!(table.put_many(tasks.clone()).await.is_complete());
    proxy.seen();
    (proxy, table, tasks)
}

/// Whether a request was sent by faceteer itself rather than by the SDK.
fn by_faceteer(seen: &Seen) -> bool {
    seen.agent.starts_with("faceteer-rs/")
}

/// Every read path reads the same records; only the direct one sends them itself.
async fn direct_reads_skip_the_sdk_and_read_what_it_reads() {
    let (proxy, table, tasks) = board("direct-paths", 130).await;
    let keys: Vec<_> = tasks.iter().map(|t| t.primary_key().unwrap()).collect();
    let mut results = Vec::new();
    for path in [ReadPath::Direct, ReadPath::SdkSent, ReadPath::Sdk] {
        let t = table.clone().with_read_path(path);
        let one = t.get(&keys[7]).await.unwrap();
        let many = t.get_many(keys.clone()).await;
        assert!(
            many.failed.is_empty() && many.missing.is_empty(),
            "{many:?}"
        );
        let mut found = many.found;
        found.sort_by(|a, b| a.task_id.cmp(&b.task_id));
        let listed = t
            .query(Task::query("team-direct").list())
            .all()
            .await
            .unwrap();
        let scanned = t.scan::<Task>().all().await.unwrap().len();
        let seen = proxy.seen();
        let reads: Vec<&Seen> = seen
            .iter()
            .filter(|s| {
                ["GetItem", "BatchGetItem", "Query", "Scan"].contains(&s.operation.as_str())
            })
            .collect();
        assert!(reads.len() >= 4, "{seen:?}");
        let direct = path == ReadPath::Direct;
        assert!(
            reads.iter().all(|s| by_faceteer(s) == direct),
            "{path:?}: {seen:?}"
        );
        results.push((one, found, listed, scanned));
    }
    assert_eq!(results[0].0.as_ref(), Some(&tasks[7]));
    assert_eq!(results[0].1, tasks);
    assert_eq!(results[0].2, tasks);
    assert_eq!(results[0].3, 130);
    assert!(results.iter().all(|r| *r == results[0]));
}

faceteer_suite::engines!(direct_reads_skip_the_sdk_and_read_what_it_reads);

/// A read refused by a 5xx or throttling answer, or whose connection drops, is tried again
/// up to the client's attempts, as the SDK tries it; past them it fails as the SDK's does.
async fn direct_reads_are_tried_again_as_the_sdk_tries_them() {
    let (proxy, table, tasks) = board("direct-retries", 3).await;
    let key = tasks[1].primary_key().unwrap();
    let retries = aws_sdk_dynamodb::config::retry::RetryConfig::standard()
        .with_initial_backoff(std::time::Duration::from_millis(5));
    let client = aws_sdk_dynamodb::Client::from_conf(
        table
            .client()
            .config()
            .to_builder()
            .retry_config(retries)
            .build(),
    );
    let quick = Table::declared::<Board>(client, table.name());
    assert!(
        quick.get(&key).await.unwrap().is_some(),
        "a first read teaches the route"
    );
    proxy.seen();

    let flaky = [
        Fault::Refuse(500, "InternalServerError"),
        Fault::Refuse(400, "ProvisionedThroughputExceededException"),
    ];
    proxy.fail("GetItem", &flaky);
    assert_eq!(quick.get(&key).await.unwrap().as_ref(), Some(&tasks[1]));
    let seen = proxy.seen();
    assert_eq!(seen.len(), 3, "two refusals, then the answer: {seen:?}");
    assert!(seen.iter().all(by_faceteer), "{seen:?}");

    proxy.fail(
        "Query",
        &[Fault::Drop, Fault::Refuse(503, "ServiceUnavailable")],
    );
    let listed = quick
        .query(Task::query("team-direct").list())
        .all()
        .await
        .unwrap();
    assert_eq!(listed, tasks);
    assert_eq!(proxy.seen().len(), 3);

    // Past the attempts (three), the error is the one the SDK's path gives.
    let mut errors = Vec::new();
    for path in [ReadPath::Direct, ReadPath::SdkSent] {
        proxy.fail("GetItem", &[Fault::Refuse(500, "InternalServerError"); 3]);
        let err = quick
            .clone()
            .with_read_path(path)
            .get(&key)
            .await
            .unwrap_err();
        let seen = proxy.seen();
        assert_eq!(seen.len(), 3, "{path:?}: {seen:?}");
        assert!(seen
            .iter()
            .all(|s| by_faceteer(s) == (path == ReadPath::Direct)));
        errors.push(err);
    }
    let (direct, sdk) = (
        errors[0].dynamo_error().unwrap(),
        errors[1].dynamo_error().unwrap(),
    );
    assert_eq!(direct.code(), Some("InternalServerError"));
    assert_eq!(
        (
            direct.kind(),
            direct.code(),
            direct.message(),
            direct.status(),
            direct.request_id()
        ),
        (
            sdk.kind(),
            sdk.code(),
            sdk.message(),
            sdk.status(),
            sdk.request_id()
        )
    );
    assert_eq!(errors[0].to_string(), errors[1].to_string());

    // An error not worth another try is not tried again.
    proxy.fail("GetItem", &[Fault::Refuse(400, "ValidationException")]);
    let err = quick.get(&key).await.unwrap_err();
    assert_eq!(
        err.dynamo_error().unwrap().code(),
        Some("ValidationException")
    );
    assert_eq!(proxy.seen().len(), 1);
}

faceteer_suite::engines!(direct_reads_are_tried_again_as_the_sdk_tries_them);

/// The server's own refusals read as the SDK reads them: the same error, down to its
/// modelled type.
async fn direct_read_errors_are_the_sdks() {
    let (proxy, table, _) = board("direct-errors", 1).await;
    let missing = Table::declared::<Board>(table.client().clone(), "no-such-table-direct");
    let mut errors = Vec::new();
    for path in [ReadPath::SdkSent, ReadPath::Direct] {
        let t = missing.clone().with_read_path(path);
        let err = t
            .get(&Task::key("team", "task").unwrap())
            .await
            .unwrap_err();
        let seen = proxy.seen();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(by_faceteer(&seen[0]), path == ReadPath::Direct, "{seen:?}");
        errors.push(err);
    }
    let (sdk, direct) = (
        errors[0].dynamo_error().unwrap(),
        errors[1].dynamo_error().unwrap(),
    );
    assert_eq!(direct.code(), Some("ResourceNotFoundException"));
    assert_eq!(
        (
            direct.kind(),
            direct.code(),
            direct.message(),
            direct.status()
        ),
        (sdk.kind(), sdk.code(), sdk.message(), sdk.status())
    );
    let source = |e: &faceteer::Error| {
        let source = std::error::Error::source(e.dynamo_error().unwrap()).unwrap();
        let sdk = source.downcast_ref::<aws_sdk_dynamodb::Error>().unwrap();
        matches!(sdk, aws_sdk_dynamodb::Error::ResourceNotFoundException(_))
    };
    assert!(source(&errors[0]) && source(&errors[1]));
}

faceteer_suite::engines!(direct_read_errors_are_the_sdks);

/// Sends a call id with every request.
struct CallIds;

impl faceteer::hook::RequestHook for CallIds {
    fn name(&self) -> &'static str {
        "call-ids"
    }

    async fn before_call(
        &self,
        call: &mut faceteer::hook::Call<'_>,
    ) -> Result<(), faceteer::hook::Veto> {
        call.header("X-Call-Id", "c-7")
    }
}

/// Headers request hooks add are sent, and signed, with the reads faceteer sends itself.
async fn direct_reads_carry_the_hooks_headers() {
    let (proxy, table, tasks) = board("direct-hooks", 120).await;
    let hooked = table
        .with_hooks(faceteer::hook::Hooks::new().requests(CallIds))
        .unwrap();
    let keys: Vec<_> = tasks.iter().map(|t| t.primary_key().unwrap()).collect();
    assert_eq!(
        hooked.get(&keys[0]).await.unwrap().as_ref(),
        Some(&tasks[0])
    );
    assert_eq!(hooked.get_many(keys).await.found.len(), 120);
    let seen = proxy.seen();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(
        seen.iter()
            .all(|s| by_faceteer(s) && s.call_id.as_deref() == Some("c-7")),
        "{seen:?}"
    );
}

faceteer_suite::engines!(direct_reads_carry_the_hooks_headers);

/// Single-item writes sent by faceteer store what the SDK's writes store, fail their
/// conditions with the same errors and the stored item, and report a lost answer as unknown.
async fn direct_writes_do_what_the_sdks_do() {
    let (proxy, table, _) = board("direct-writes", 1).await;
    let f = Task::fields();
    let mut stored = Vec::new();
    let mut refusals = Vec::new();
    for (n, path) in [WritePath::Direct, WritePath::Sdk].into_iter().enumerate() {
        let t = table.clone().with_write_path(path);
        let mut record = task("team-writes", 100);
        record.task_id = format!("written-{n}");
        let key = record.primary_key().unwrap();
        t.put(&record).if_not_exists().await.unwrap();
        let again = t.put(&record).if_not_exists().await.unwrap_err();
        assert!(again.is_condition_failed(), "{again}");
        let mut changed = record.clone();
        changed.assigned_user_id = Some("user-direct".into());
        t.save(&record, &changed).await.unwrap();
        let before = t
            .update(
                &key,
                f.status
                    .set(faceteer_suite::catalogue::TaskStatus::Completed),
            )
            .returning_old()
            .await
            .unwrap();
        assert_eq!(before.assigned_user_id.as_deref(), Some("user-direct"));
        record = t.get(&key).await.unwrap().unwrap();
        let refused = t
            .delete(&key)
            .when(f.assigned_user_id.eq("someone else"))
            .await
            .unwrap_err();
        assert!(refused.is_condition_failed(), "{refused}");
        refusals.push((again.to_string(), refused.to_string()));
        stored.push(record.clone());
        t.delete(&key).await.unwrap();
        assert_eq!(t.get(&key).await.unwrap(), None);

        let seen = proxy.seen();
        let writes: Vec<&Seen> = seen
            .iter()
            .filter(|s| ["PutItem", "UpdateItem", "DeleteItem"].contains(&s.operation.as_str()))
            .collect();
        assert_eq!(writes.len(), 6, "{seen:?}");
        let direct = path == WritePath::Direct;
        assert!(
            writes.iter().all(|s| by_faceteer(s) == direct),
            "{path:?}: {seen:?}"
        );
    }
    // The same records, but for their ids; the same refusals, but for their keys.
    let strip = |t: &Task| Task {
        task_id: String::new(),
        ..t.clone()
    };
    assert_eq!(strip(&stored[0]), strip(&stored[1]));
    let unkeyed = |s: &str| s.replace("written-0", "#").replace("written-1", "#");
    assert_eq!(unkeyed(&refusals[0].0), unkeyed(&refusals[1].0));
    assert_eq!(unkeyed(&refusals[0].1), unkeyed(&refusals[1].1));

    // An answer lost: the write may have been applied; faceteer says it does not know.
    for path in [WritePath::Direct, WritePath::Sdk] {
        let t = table.clone().with_write_path(path);
        proxy.fail("PutItem", &[Fault::Drop]);
        let err = t.put(&task("team-writes", 200)).await.unwrap_err();
        assert!(err.is_outcome_unknown(), "{path:?}: {err}");
        proxy.fail("PutItem", &[Fault::Refuse(400, "ValidationException")]);
        let err = t.put(&task("team-writes", 201)).await.unwrap_err();
        assert_eq!(
            err.dynamo_error().unwrap().code(),
            Some("ValidationException"),
            "{err}"
        );
        assert!(!err.is_outcome_unknown());
        proxy.seen();
    }
}

faceteer_suite::engines!(direct_writes_do_what_the_sdks_do);

/// Batch writes sent by faceteer write what the SDK's do, and requests refused by
/// throttling are sent again by faceteer's own batch tries.
async fn direct_batch_writes_do_what_the_sdks_do() {
    let (proxy, table, _) = board("direct-batches", 1).await;
    for (n, path) in [WritePath::Direct, WritePath::Sdk].into_iter().enumerate() {
        let t = table.clone().with_write_path(path);
        let team = format!("team-batch-{n}");
        let tasks: Vec<Task> = (0..60).map(|i| task(&team, i)).collect();
        proxy.fail(
            "BatchWriteItem",
            &[Fault::Refuse(400, "ProvisionedThroughputExceededException")],
        );
        let written = t.put_many(tasks.clone()).await;
        assert!(written.is_complete(), "{path:?}: {written:?}");
        let listed = t.query(Task::query(&team).list()).all().await.unwrap();
        assert_eq!(listed, tasks);
        let keys: Vec<_> = tasks.iter().map(|t| t.primary_key().unwrap()).collect();
        assert!(t.delete_many(keys).await.is_complete());
        assert!(t
            .query(Task::query(&team).list())
            .all()
            .await
            .unwrap()
            .is_empty());
        let seen = proxy.seen();
        let batches: Vec<&Seen> = seen
            .iter()
            .filter(|s| s.operation == "BatchWriteItem")
            .collect();
        // 3 puts of 25 or fewer, one of them sent again, and 3 deletes.
        assert_eq!(batches.len(), 7, "{path:?}: {seen:?}");
        let direct = path == WritePath::Direct;
        assert!(
            batches.iter().all(|s| by_faceteer(s) == direct),
            "{path:?}: {seen:?}"
        );
    }
}

faceteer_suite::engines!(direct_batch_writes_do_what_the_sdks_do);
