//! Requests faceteer sends itself ([`faceteer::ReadPath::Direct`],
//! [`faceteer::WritePath::Direct`]): sent without the SDK once the table's route is learned,
//! reading and writing what the SDK's paths do, tried again as the SDK tries (reads),
//! reported exactly (writes), failing with the SDK's own errors, and carrying the headers
//! request hooks add. Each runs through a recording proxy that can refuse or drop chosen
//! requests.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use faceteer::{error::FailureReason, Facet, Key, ReadPath, Table, WritePath};
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
    /// How far the proxy's clock is ahead of the machine's, in seconds: its answers' `Date`,
    /// and the time it checks signatures against, as DynamoDB does.
    skew: std::sync::atomic::AtomicI64,
    /// Requests refused for their signature.
    bad_signatures: std::sync::atomic::AtomicU64,
}

/// The keys every client of these tests signs with (a session token included): the proxy
/// checks each request's SigV4 signature with them, as DynamoDB does.
const KEY_ID: &str = "AKIDFACETEERTEST";
const SECRET: &str = "faceteer/secret+key=";
const TOKEN: &str = "session-token/with+odd=chars";

/// A client of the proxy at `endpoint`, signing with [`KEY_ID`].
fn client_of(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let credentials = aws_sdk_dynamodb::config::Credentials::new(
        KEY_ID,
        SECRET,
        Some(TOKEN.into()),
        None,
        "test",
    );
    let config = faceteer::local_client(endpoint)
        .unwrap()
        .config()
        .to_builder()
        .credentials_provider(credentials)
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

/// Why a request's SigV4 signature does not hold, checked from scratch (the canonical
/// request of the request as received, the key derived from [`SECRET`]), at `now`.
fn signature_problem(
    parts: &hyper::http::request::Parts,
    body: &[u8],
    now: std::time::SystemTime,
) -> Option<String> {
    use hmac::{KeyInit, Mac};
    use sha2::{Digest, Sha256};
    type HmacSha256 = hmac::Hmac<Sha256>;
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let mac = |key: &[u8], data: &str| {
        let mut m = HmacSha256::new_from_slice(key).unwrap();
        m.update(data.as_bytes());
        m.finalize().into_bytes().to_vec()
    };
    let header = |name: &str| -> Vec<String> {
        parts
            .headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap_or("").to_owned())
            .collect()
    };
    let authorization = header("authorization").pop()?;
    let rest = authorization.strip_prefix("AWS4-HMAC-SHA256 Credential=")?;
    let (scope, rest) = rest.split_once(", SignedHeaders=")?;
    let (signed, signature) = rest.split_once(", Signature=")?;
    let (key_id, scope) = scope.split_once('/')?;
    if key_id != KEY_ID {
        return Some(format!("signed by {key_id}"));
    }
    let date = header("x-amz-date").pop()?;
    let when = chrono::NaiveDateTime::parse_from_str(&date, "%Y%m%dT%H%M%SZ").ok()?;
    let now = chrono::DateTime::<chrono::Utc>::from(now).naive_utc();
    if (now - when).num_seconds().abs() > 5 * 60 {
        return Some(format!("signed at {date}, {now} by the server's clock"));
    }
    if header("x-amz-security-token") != [TOKEN]
        || !signed.split(';').any(|h| h == "x-amz-security-token")
    {
        return Some("no session token signed".into());
    }
    let mut canonical = format!("{}\n{}\n\n", parts.method, parts.uri.path());
    for name in signed.split(';') {
        let values = header(name);
        if values.is_empty() {
            return Some(format!("signed header {name} not sent"));
        }
        let joined = values
            .iter()
            .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join(",");
        canonical.push_str(&format!("{name}:{joined}\n"));
    }
    canonical.push_str(&format!("\n{signed}\n{}", hex(&Sha256::digest(body))));
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{date}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let mut key = format!("AWS4{SECRET}").into_bytes();
    for part in scope.split('/') {
        key = mac(&key, part);
    }
    if hex(&mac(&key, &to_sign)) != signature {
        return Some(format!("the signature does not match:\n{canonical}"));
    }
    None
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

    /// Requests refused for their signature since last asked.
    fn refused_signatures(&self) -> u64 {
        self.state
            .bad_signatures
            .swap(0, std::sync::atomic::Ordering::SeqCst)
    }

    /// The requests seen since last asked. None may have been badly signed.
    fn seen(&self) -> Vec<Seen> {
        let bad = self
            .state
            .bad_signatures
            .load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(bad, 0, "requests refused for their signature");
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
    let skew = state.skew.load(std::sync::atomic::Ordering::SeqCst);
    let now = if skew >= 0 {
        std::time::SystemTime::now() + std::time::Duration::from_secs(skew as u64)
    } else {
        std::time::SystemTime::now() - std::time::Duration::from_secs(skew.unsigned_abs())
    };
    let date = httpdate(now);
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
    let refuse = |status: u16, code: &str, message: String| {
        let body = serde_json::json!({
            "__type": format!("com.amazonaws.dynamodb.v20120810#{code}"),
            "message": message,
        });
        Response::builder()
            .status(status)
            .header("content-type", "application/x-amz-json-1.0")
            .header("x-amzn-requestid", "proxy-request-id")
            .header("date", date.clone())
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap()
    };
    if let Some(problem) = signature_problem(&parts, &body, now) {
        state
            .bad_signatures
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        return Ok(refuse(400, "InvalidSignatureException", problem));
    }
    match fault {
        Some(Fault::Drop) => return Err(Dropped),
        Some(Fault::Refuse(status, code)) => {
            return Ok(refuse(
                status,
                code,
                format!("refused by the test proxy ({code})"),
            ));
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
    let (mut parts, body) = answer.into_parts();
    let body = body.collect().await.map_err(|_| Dropped)?.to_bytes();
    parts.headers.insert("date", date.parse().unwrap());
    Ok(Response::from_parts(parts, Full::new(body)))
}

/// `time` as HTTP writes dates.
fn httpdate(time: std::time::SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(time)
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}

/// A fresh table of tasks reached through a new proxy, with `n` tasks written (the write,
/// sent by the SDK, teaches the table its route).
async fn board(label: &str, n: usize) -> (Proxy, Table, Vec<Task>) {
    let proxy = Proxy::start().await;
    let table = faceteer_suite::fresh_table_with::<Board>(client_of(&proxy.endpoint), label).await;
    let tasks: Vec<Task> = (0..n).map(|i| task("team-direct", i)).collect();
    assert!(table.put_many(tasks.clone()).await.is_complete());
    proxy.seen();
    (proxy, table, tasks)
}

/// What a failed request says: its kind, code, message and status.
fn said(e: &faceteer::Error) -> String {
    let d = e.dynamo_error().expect("a failed request");
    format!(
        "{:?} {:?} {:?} {:?}",
        d.kind(),
        d.code(),
        d.message(),
        d.status()
    )
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
    let quick = quick(&table);
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
    let direct = errors[0].dynamo_error().unwrap();
    assert_eq!(direct.code(), Some("InternalServerError"));
    assert_eq!(
        (said(&errors[0]), direct.request_id()),
        (
            said(&errors[1]),
            errors[1].dynamo_error().unwrap().request_id()
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
    assert_eq!(
        errors[1].dynamo_error().unwrap().code(),
        Some("ResourceNotFoundException")
    );
    assert_eq!(said(&errors[0]), said(&errors[1]));
    let source = |e: &faceteer::Error| {
        let source = std::error::Error::source(e.dynamo_error().unwrap()).unwrap();
        let sdk = source.downcast_ref::<aws_sdk_dynamodb::Error>().unwrap();
        matches!(sdk, aws_sdk_dynamodb::Error::ResourceNotFoundException(_))
    };
    assert!(source(&errors[0]) && source(&errors[1]));

    // A batch read refused: every key comes back failed (its keys were written into the
    // request without a copy and taken back), with the error the SDK's path gives.
    let keys: Vec<Key<Task>> = (0..3)
        .map(|i| Task::key("team", format!("task-{i}")).unwrap())
        .collect();
    let mut reasons = Vec::new();
    for path in [ReadPath::SdkSent, ReadPath::Direct] {
        let got = missing
            .clone()
            .with_read_path(path)
            .get_many(keys.clone())
            .await;
        let seen = proxy.seen();
        assert!(!seen.is_empty());
        assert!(
            seen.iter()
                .all(|s| by_faceteer(s) == (path == ReadPath::Direct)),
            "{path:?}: {seen:?}"
        );
        assert!(got.found.is_empty() && got.missing.is_empty(), "{path:?}");
        let mut failed: Vec<(String, String)> = got
            .failed
            .iter()
            .map(|f| (f.item.pk().to_owned(), f.item.sk().to_owned()))
            .collect();
        failed.sort();
        let given: Vec<(String, String)> = keys
            .iter()
            .map(|k| (k.pk().to_owned(), k.sk().to_owned()))
            .collect();
        assert_eq!(failed, given, "{path:?}: every key is reported, once");
        let said_by = |r: &FailureReason| match r {
            FailureReason::Request(e) | FailureReason::Refused(e) => said(e),
            other => panic!("{path:?}: {other}"),
        };
        let all: Vec<String> = got.failed.iter().map(|f| said_by(&f.reason)).collect();
        assert!(all.iter().all(|r| r == &all[0]), "{all:?}");
        assert!(all[0].contains("ResourceNotFoundException"), "{all:?}");
        reasons.push(all[0].clone());
    }
    assert_eq!(reasons[0], reasons[1]);
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
        // Set twice: the last value is sent, and signed, once.
        call.header("X-Call-Id", "c-6")?;
        call.header("x-call-id", "c-7")
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

/// `table` on a client pausing 5 ms between tries.
fn quick(table: &Table) -> Table {
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
    Table::declared::<Board>(client, table.name())
}

/// A clock the server's `Date` shows to be ten minutes behind is corrected, as the SDK
/// corrects it: a read refused for its signature's time is signed again at the server's
/// time, and later requests are signed at it from the start.
async fn a_skewed_clock_is_corrected() {
    let (proxy, table, tasks) = board("direct-skew", 3).await;
    let key = tasks[0].primary_key().unwrap();
    for path in [ReadPath::Direct, ReadPath::SdkSent] {
        let t = quick(&table).with_read_path(path);
        assert_eq!(
            t.get(&key).await.unwrap().as_ref(),
            Some(&tasks[0]),
            "teaches the route"
        );
        proxy.seen();
        proxy
            .state
            .skew
            .store(600, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(
            t.get(&key).await.unwrap().as_ref(),
            Some(&tasks[0]),
            "{path:?}"
        );
        assert_eq!(
            proxy.refused_signatures(),
            1,
            "{path:?}: refused once, then corrected"
        );
        let seen = proxy.seen();
        assert_eq!(seen.len(), 2, "{path:?}: {seen:?}");
        assert!(seen
            .iter()
            .all(|s| by_faceteer(s) == (path == ReadPath::Direct)));
        if path == ReadPath::Direct {
            // Writes and reads after it are signed at the server's time at once.
            t.put(&task("team-skew", 1)).await.unwrap();
            assert!(t.get(&key).await.unwrap().is_some());
            assert!(proxy.seen().iter().all(by_faceteer));
        }
        proxy
            .state
            .skew
            .store(0, std::sync::atomic::Ordering::SeqCst);
    }
}

faceteer_suite::engines!(a_skewed_clock_is_corrected);

/// The route is learned from the requests the SDK sends for faceteer about the table, not
/// from other requests on the table's client.
async fn the_route_is_learned_from_faceteers_own_requests() {
    let (proxy, table, tasks) = board("direct-learn", 1).await;
    // A fresh handle on the table: its route is not learned yet.
    let fresh = Table::declared::<Board>(table.client().clone(), table.name());
    let key = tasks[0].primary_key().unwrap();
    let stray = fresh
        .client()
        .get_item()
        .table_name("some-other-table")
        .key("PK", aws_sdk_dynamodb::types::AttributeValue::S("x".into()))
        .key("SK", aws_sdk_dynamodb::types::AttributeValue::S("y".into()))
        .send()
        .await;
    assert!(stray.is_err(), "no such table");
    for _ in 0..3 {
        assert_eq!(fresh.get(&key).await.unwrap().as_ref(), Some(&tasks[0]));
    }
    let agents: Vec<bool> = proxy.seen().iter().map(by_faceteer).collect();
    assert_eq!(
        agents,
        [false, false, true, true],
        "the stray request taught nothing"
    );
}

faceteer_suite::engines!(the_route_is_learned_from_faceteers_own_requests);
