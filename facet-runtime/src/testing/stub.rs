//! An in-process DynamoDB-API stub server for benchmarks: it answers at once (or after a
//! fixed delay), from items loaded in advance, so that a benchmark measures the client's
//! work and not a database's.
//!
//! * `BatchWriteItem`: everything processed. With [`StubServer::record`] on, every put item
//!   and deleted key is kept (as sorted JSON) so that two clients' requests can be compared.
//! * `PutItem` and `UpdateItem`: answered `{}` (written, nothing returned, no capacity
//!   reported); nothing is stored. With [`StubServer::record`] on, a put's item is kept as a
//!   batch's is (`put {…}`), and an update's whole request (`UpdateItem {…}`, sorted JSON).
//! * `DeleteItem`: answered `{}`; nothing is removed. With [`StubServer::record`] on, its
//!   whole request is kept (`DeleteItem {…}`, sorted JSON).
//! * `GetItem`: the loaded item of the key asked for (`{}` for none).
//! * `BatchGetItem`: the loaded items of the keys asked for.
//! * `Query`: the loaded items of the partition named in the request's values (the first
//!   `ExpressionAttributeValues` string that is a loaded partition), in sort-key order (or
//!   reversed), `page_size` per answer (or `Limit`), from `ExclusiveStartKey` on, with a
//!   `LastEvaluatedKey` while items are left.
//!
//! With [`StubServer::record_answers`] on, every answer's body is kept as sent
//! ([`StubServer::take_answers`]): what a benchmark parses to measure the floor of reading it.
//!
//! Every request's body is counted, by operation ([`StubServer::bytes_received`]), so that a
//! benchmark can compare what two clients send.
//!
//! It is not DynamoDB: key conditions other than the partition, filters and projections are
//! not applied, and conditions are not checked. Its answers are assembled from item JSON
//! serialized once, at load time.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;

use super::fault::json_response;

/// How the stub answers.
#[derive(Debug, Clone, Copy)]
pub struct StubConfig {
    /// Items per `Query` answer when the request has no smaller `Limit`.
    pub page_size: usize,
    /// Wait this long before answering each request (answers are concurrent).
    pub latency: Duration,
}

impl Default for StubConfig {
    fn default() -> Self {
        StubConfig {
            page_size: 100,
            latency: Duration::ZERO,
        }
    }
}

/// A loaded partition: its items' sort keys and JSON, in sort-key order.
#[derive(Default)]
struct Partition {
    sort_keys: Vec<String>,
    json: Vec<String>,
}

#[derive(Default)]
struct Data {
    partitions: HashMap<String, Partition>,
    /// `(PK, SK)` to the item's JSON.
    items: HashMap<(String, String), String>,
}

struct State {
    config: StubConfig,
    data: RwLock<Data>,
    recording: std::sync::atomic::AtomicBool,
    recorded: Mutex<Vec<String>>,
    /// Whether answers' bodies are kept, and those kept.
    answering: std::sync::atomic::AtomicBool,
    answers: Mutex<Vec<String>>,
    requests: AtomicU64,
    /// Request body bytes received, by operation (`x-amz-target`'s operation name).
    bytes: Mutex<HashMap<String, u64>>,
}

/// The stub server; stops when dropped.
pub struct StubServer {
    addr: SocketAddr,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl StubServer {
    /// Start on a free 127.0.0.1 port.
    pub async fn start(config: StubConfig) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            config,
            data: RwLock::new(Data::default()),
            recording: false.into(),
            recorded: Mutex::new(Vec::new()),
            answering: false.into(),
            answers: Mutex::new(Vec::new()),
            requests: AtomicU64::new(0),
            bytes: Mutex::new(HashMap::new()),
        });
        let shared = state.clone();
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let state = shared.clone();
                connections.spawn(async move {
                    let service = hyper::service::service_fn(move |req| answer(state.clone(), req));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
                while connections.try_join_next().is_some() {}
            }
        });
        Ok(StubServer { addr, state, task })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Load items (DynamoDB items, as the SDK's attribute values); each needs `PK` and `SK`
    /// strings. Replaces an item with the same key.
    pub fn load(&self, items: impl IntoIterator<Item = faceteer_core::Item>) {
        let mut data = self.state.data.write().expect("stub data");
        for item in items {
            let json = item_json(&item);
            let text = |name: &str| match item.get(name) {
                Some(aws_sdk_dynamodb::types::AttributeValue::S(s)) => s.clone(),
                _ => panic!("a stub item needs string `PK` and `SK` attributes"),
            };
            let (pk, sk) = (text("PK"), text("SK"));
            let text = json.to_string();
            let partition = data.partitions.entry(pk.clone()).or_default();
            match partition.sort_keys.binary_search(&sk) {
                Ok(at) => partition.json[at] = text.clone(),
                Err(at) => {
                    partition.sort_keys.insert(at, sk.clone());
                    partition.json.insert(at, text.clone());
                }
            }
            data.items.insert((pk, sk), text);
        }
    }

    /// Keep (or stop keeping) every written item and deleted key.
    pub fn record(&self, on: bool) {
        self.state.recording.store(on, Ordering::SeqCst);
    }

    /// The written items and deleted keys kept so far (sorted JSON, sorted), emptied.
    pub fn take_recorded(&self) -> Vec<String> {
        let mut out = std::mem::take(&mut *self.state.recorded.lock().expect("recorded"));
        out.sort_unstable();
        out
    }

    /// Keep (or stop keeping) the body of every answer, in the order they are sent.
    pub fn record_answers(&self, on: bool) {
        self.state.answering.store(on, Ordering::SeqCst);
    }

    /// The answers' bodies kept so far, in the order they were sent, emptied.
    pub fn take_answers(&self) -> Vec<String> {
        std::mem::take(
            &mut *self
                .state
                .answers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }

    /// Requests answered so far.
    pub fn requests(&self) -> u64 {
        self.state.requests.load(Ordering::SeqCst)
    }

    /// Request body bytes received so far for operation `target` (the operation name of the
    /// `x-amz-target` header: `PutItem`, `UpdateItem`, `BatchWriteItem`, …), answered or
    /// not; 0 for an operation never asked. HTTP headers are not counted.
    pub fn bytes_received(&self, target: &str) -> u64 {
        let bytes = self
            .state
            .bytes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        bytes.get(target).copied().unwrap_or(0)
    }
}

impl Drop for StubServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// An item as DynamoDB's JSON text (`{"name":{"S":"…"}}`), members sorted: what the stub
/// answers for it.
pub fn item_json_text(item: &faceteer_core::Item) -> String {
    item_json(item).to_string()
}

/// An item in DynamoDB JSON (`{"name": {"S": "…"}}`), members sorted.
pub(crate) fn item_json(item: &faceteer_core::Item) -> Value {
    Value::Object(
        item.iter()
            .map(|(k, v)| (k.clone(), value_json(v)))
            .collect::<serde_json::Map<_, _>>(),
    )
}

fn value_json(v: &aws_sdk_dynamodb::types::AttributeValue) -> Value {
    use aws_sdk_dynamodb::types::AttributeValue as A;
    use base64::Engine as _;
    let b64 = |b: &[u8]| Value::String(base64::engine::general_purpose::STANDARD.encode(b));
    let (kind, value) = match v {
        A::S(s) => ("S", Value::String(s.clone())),
        A::N(n) => ("N", Value::String(n.clone())),
        A::Bool(b) => ("BOOL", Value::Bool(*b)),
        A::Null(b) => ("NULL", Value::Bool(*b)),
        A::B(b) => ("B", b64(b.as_ref())),
        A::Ss(v) => ("SS", v.iter().cloned().map(Value::String).collect()),
        A::Ns(v) => ("NS", v.iter().cloned().map(Value::String).collect()),
        A::Bs(v) => ("BS", v.iter().map(|b| b64(b.as_ref())).collect()),
        A::L(l) => ("L", l.iter().map(value_json).collect()),
        A::M(m) => ("M", item_json(m)),
        other => panic!("the stub does not know {other:?}"),
    };
    Value::Object(serde_json::Map::from_iter([(kind.to_owned(), value)]))
}

async fn answer(
    state: Arc<State>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, hyper::Error> {
    let target = req
        .headers()
        .get("x-amz-target")
        .and_then(|t| t.to_str().ok())
        .unwrap_or_default()
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_owned();
    let body = req.into_body().collect().await?.to_bytes();
    *state
        .bytes
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .entry(target.clone())
        .or_insert(0) += body.len() as u64;
    if !state.config.latency.is_zero() {
        tokio::time::sleep(state.config.latency).await;
    }
    state.requests.fetch_add(1, Ordering::Relaxed);
    let text = match target.as_str() {
        "BatchWriteItem" => batch_write(&state, &body),
        "BatchGetItem" => batch_get(&state, &body),
        "GetItem" => get(&state, &body),
        "Query" => query(&state, &body),
        "PutItem" | "UpdateItem" | "DeleteItem" => single_write(&state, &target, &body),
        other => format!(
            r#"{{"__type":"com.amazon.coral.validate#ValidationException","message":"the stub does not answer {other}"}}"#
        ),
    };
    if state.answering.load(Ordering::Relaxed) {
        state
            .answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(text.clone());
    }
    Ok(json_response(StatusCode::OK, text.into_bytes()))
}

fn batch_write(state: &State, body: &[u8]) -> String {
    if state.recording.load(Ordering::Relaxed) {
        let request: Value = serde_json::from_slice(body).unwrap_or_default();
        let mut recorded = state.recorded.lock().expect("recorded");
        for table in request["RequestItems"].as_object().into_iter().flatten() {
            for write in table.1.as_array().into_iter().flatten() {
                if let Some(item) = write.pointer("/PutRequest/Item") {
                    recorded.push(format!("put {item}"));
                }
                if let Some(key) = write.pointer("/DeleteRequest/Key") {
                    recorded.push(format!("delete {key}"));
                }
            }
        }
    }
    r#"{"UnprocessedItems":{}}"#.to_owned()
}

/// A `PutItem`, `UpdateItem` or `DeleteItem`: written (nothing is stored), recorded when recording.
fn single_write(state: &State, target: &str, body: &[u8]) -> String {
    if state.recording.load(Ordering::Relaxed) {
        let request: Value = serde_json::from_slice(body).unwrap_or_default();
        let mut recorded = state
            .recorded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match (target, request.get("Item")) {
            ("PutItem", Some(item)) => recorded.push(format!("put {item}")),
            _ => recorded.push(format!("{target} {request}")),
        }
    }
    "{}".to_owned()
}

fn string_at<'v>(value: &'v Value, name: &str) -> Option<&'v str> {
    value.get(name)?.get("S")?.as_str()
}

/// A `GetItem`: the loaded item of the key asked for, `{}` for none.
fn get(state: &State, body: &[u8]) -> String {
    let request: Value = serde_json::from_slice(body).unwrap_or_default();
    let data = state.data.read().expect("stub data");
    let key = &request["Key"];
    match (string_at(key, "PK"), string_at(key, "SK")) {
        (Some(pk), Some(sk)) => match data.items.get(&(pk.to_owned(), sk.to_owned())) {
            Some(json) => format!(r#"{{"Item":{json}}}"#),
            None => "{}".to_owned(),
        },
        _ => "{}".to_owned(),
    }
}

fn batch_get(state: &State, body: &[u8]) -> String {
    let request: Value = serde_json::from_slice(body).unwrap_or_default();
    let data = state.data.read().expect("stub data");
    let mut responses = BTreeMap::new();
    for (table, asked) in request["RequestItems"].as_object().into_iter().flatten() {
        let mut found = Vec::new();
        for key in asked["Keys"].as_array().into_iter().flatten() {
            let (Some(pk), Some(sk)) = (string_at(key, "PK"), string_at(key, "SK")) else {
                continue;
            };
            if let Some(json) = data.items.get(&(pk.to_owned(), sk.to_owned())) {
                found.push(json.as_str());
            }
        }
        responses.insert(table.clone(), format!("[{}]", found.join(",")));
    }
    let tables: Vec<String> = responses
        .iter()
        .map(|(t, items)| format!("{}:{items}", Value::String(t.clone())))
        .collect();
    format!(
        r#"{{"Responses":{{{}}},"UnprocessedKeys":{{}}}}"#,
        tables.join(",")
    )
}

fn query(state: &State, body: &[u8]) -> String {
    let request: Value = serde_json::from_slice(body).unwrap_or_default();
    let data = state.data.read().expect("stub data");
    let partition = request["ExpressionAttributeValues"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, v)| v.get("S")?.as_str())
        .find_map(|pk| data.partitions.get(pk).map(|p| (pk, p)));
    let Some((pk, partition)) = partition else {
        return r#"{"Items":[],"Count":0,"ScannedCount":0}"#.to_owned();
    };
    let forward = request["ScanIndexForward"].as_bool().unwrap_or(true);
    let len = partition.sort_keys.len();
    // Positions in reading order: `i`-th read is `at(i)`.
    let at = |i: usize| if forward { i } else { len - 1 - i };
    let start = match request
        .get("ExclusiveStartKey")
        .and_then(|k| string_at(k, "SK"))
    {
        None => 0,
        Some(sk) => match partition.sort_keys.binary_search_by(|s| s.as_str().cmp(sk)) {
            Ok(p) if forward => p + 1,
            Ok(p) => len - p,
            Err(p) if forward => p,
            Err(p) => len - p,
        },
    };
    let limit = request["Limit"].as_u64().map_or(usize::MAX, |l| l as usize);
    let n = state.config.page_size.min(limit).min(len - start.min(len));
    let items: Vec<&str> = (start..start + n)
        .map(|i| partition.json[at(i)].as_str())
        .collect();
    let last = if start + n < len && n > 0 {
        let sk = &partition.sort_keys[at(start + n - 1)];
        format!(
            r#","LastEvaluatedKey":{{"PK":{{"S":{}}},"SK":{{"S":{}}}}}"#,
            Value::String(pk.to_owned()),
            Value::String(sk.clone())
        )
    } else {
        String::new()
    };
    format!(
        r#"{{"Items":[{}],"Count":{n},"ScannedCount":{n}{last}}}"#,
        items.join(",")
    )
}
