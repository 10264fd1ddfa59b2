//! A fault-injecting HTTP proxy in front of a DynamoDB-API server, for tests.
//!
//! Point an SDK client at [`FaultProxy::endpoint`]. For `BatchWriteItem` and `BatchGetItem`
//! requests the proxy, at random (seeded, so runs repeat):
//!
//! * before forwarding: answers `ProvisionedThroughputExceededException` (`throttle`);
//!   withholds part of the items or keys (`withhold_request` picks the request, each item is
//!   withheld with `withhold_item`), forwards the rest, and returns the withheld ones as
//!   `UnprocessedItems` / `UnprocessedKeys`, as DynamoDB does under load;
//! * after forwarding (the server has applied the request): answers 500
//!   `InternalServerError` (`fail_after`), closes the connection without an answer
//!   (`reset_after`), or never answers (`stall_after`), so the client cannot know the outcome;
//! * stops like a crashed server after `stop_after` batch requests: that request is
//!   forwarded, then every connection is closed and new ones are refused.
//!
//! With `single_writes`, the faults after forwarding also hit `PutItem`, `UpdateItem`,
//! `DeleteItem` and `TransactWriteItems`, whatever the server answered (a failed condition
//! included): the write was applied, or refused, and the client cannot know which.
//!
//! `late_share` of the write requests (batch, and single with `single_writes`) are held
//! back: not forwarded, never answered (the client's try times out), and forwarded `late_by`
//! later, when the server applies them, as a request delayed in a network would be.
//!
//! `stall_all` makes it a server that accepts connections and never answers anything.
//! Other requests pass through unchanged.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::Value;

/// How often faults happen (all shares 0 by default: a plain proxy).
#[derive(Debug, Clone, Copy, Default)]
pub struct FaultConfig {
    /// Share of batch requests answered with a throttling error.
    pub throttle: f64,
    /// Share of the other batch requests that have items withheld.
    pub withhold_request: f64,
    /// Share of a chosen request's items withheld.
    pub withhold_item: f64,
    /// Share of batch requests answered 500 after the server applied them.
    pub fail_after: f64,
    /// Share of batch requests whose connection is closed, unanswered, after the server
    /// applied them.
    pub reset_after: f64,
    /// Share of batch requests never answered after the server applied them.
    pub stall_after: f64,
    /// Stop, as a crashed server, once this many batch requests were seen.
    pub stop_after: Option<u64>,
    /// Also lose the answers of single-item writes and transactions (`fail_after`,
    /// `reset_after`, `stall_after`), whatever the server answered.
    pub single_writes: bool,
    /// Share of write requests held back, never answered, and applied `late_by` later.
    pub late_share: f64,
    /// How long a held-back request waits before the proxy forwards it.
    pub late_by: std::time::Duration,
    /// Never answer any request.
    pub stall_all: bool,
    /// RNG seed.
    pub seed: u64,
}

/// What the proxy did.
#[derive(Debug, Default)]
pub struct FaultStats {
    /// Batch requests seen.
    pub batch_requests: AtomicU64,
    /// Batch requests answered with a throttling error.
    pub throttled: AtomicU64,
    /// Items or keys withheld and returned as unprocessed.
    pub withheld: AtomicU64,
    /// Batch requests applied by the server, then answered 500, reset or stalled.
    pub lost_answers: AtomicU64,
    /// Single-item writes and transactions seen (with `single_writes`).
    pub single_requests: AtomicU64,
    /// Write requests held back and forwarded late.
    pub held_back: AtomicU64,
    /// Held-back requests forwarded so far.
    pub forwarded_late: AtomicU64,
}

struct State {
    upstream: String,
    config: FaultConfig,
    rng: Mutex<fastrand::Rng>,
    stats: Arc<FaultStats>,
    client: HttpClient<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>,
    stop: tokio::sync::watch::Sender<bool>,
}

/// The error a connection handler returns to make hyper close the connection unanswered.
#[derive(Debug)]
struct Reset;

impl std::fmt::Display for Reset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection reset by the fault proxy")
    }
}

impl std::error::Error for Reset {}

/// A running proxy; stops when dropped.
pub struct FaultProxy {
    addr: SocketAddr,
    stats: Arc<FaultStats>,
    task: tokio::task::JoinHandle<()>,
}

impl FaultProxy {
    /// Start a proxy to `upstream` (`http://host:port`) on a free 127.0.0.1 port.
    pub async fn start(upstream: &str, config: FaultConfig) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let stats = Arc::new(FaultStats::default());
        let (stop, mut stopped) = tokio::sync::watch::channel(false);
        let state = Arc::new(State {
            upstream: upstream.trim_end_matches('/').to_owned(),
            config,
            rng: Mutex::new(fastrand::Rng::with_seed(config.seed)),
            stats: stats.clone(),
            client: HttpClient::builder(TokioExecutor::new()).build_http(),
            stop,
        });
        let task = tokio::spawn(async move {
            // Connections live in this set: when the loop ends (stop, or the proxy dropped),
            // the set is dropped and every connection is closed at once.
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let accepted = tokio::select! {
                    accepted = listener.accept() => accepted,
                    _ = stopped.wait_for(|s| *s) => return,
                };
                let Ok((stream, _)) = accepted else {
                    continue;
                };
                let state = state.clone();
                connections.spawn(async move {
                    let service = hyper::service::service_fn(move |req| handle(state.clone(), req));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
                while connections.try_join_next().is_some() {}
            }
        });
        Ok(FaultProxy { addr, stats, task })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// What the proxy did so far.
    pub fn stats(&self) -> &FaultStats {
        &self.stats
    }

    /// Stop as a crashed server would: close every connection, refuse new ones.
    pub fn stop(&self) {
        self.task.abort();
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A DynamoDB JSON answer with its CRC32 header (the SDK checks it).
pub(crate) fn json_response(status: StatusCode, body: Vec<u8>) -> Response<Full<Bytes>> {
    let crc = crc32fast::hash(&body);
    Response::builder()
        .status(status)
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-crc32", crc.to_string())
        .body(Full::new(Bytes::from(body)))
        .expect("valid response")
}

#[derive(Clone, Copy)]
enum Kind {
    Write,
    Get,
}

/// What the proxy does with the answer to a forwarded batch request.
enum After {
    Answer,
    Fail,
    Reset,
    Stall,
    Stop,
}

async fn handle(state: Arc<State>, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Reset> {
    if state.config.stall_all {
        return futures::future::pending().await;
    }
    let (parts, body) = req.into_parts();
    let bytes = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let target = parts
        .headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_owned();
    let single = state.config.single_writes
        && matches!(
            target.as_str(),
            "PutItem" | "UpdateItem" | "DeleteItem" | "TransactWriteItems"
        );
    let write = single || target == "BatchWriteItem";
    if write && state.config.late_share > 0.0 {
        let late = state.rng.lock().expect("rng lock").f64() < state.config.late_share;
        if late {
            state.stats.held_back.fetch_add(1, Ordering::Relaxed);
            let (held, delay) = (state.clone(), state.config.late_by);
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                let _ = forward(&held, parts, bytes.to_vec()).await;
                held.stats.forwarded_late.fetch_add(1, Ordering::Relaxed);
            });
            return futures::future::pending().await;
        }
    }
    let (response, after) = if single {
        let seen = state.stats.single_requests.fetch_add(1, Ordering::Relaxed) + 1;
        let after = draw_after(&state, &mut state.rng.lock().expect("rng lock"), seen);
        (forward(&state, parts, bytes.to_vec()).await, after)
    } else {
        handle_batch(&state, parts, bytes).await
    };
    if !matches!(after, After::Answer) {
        state.stats.lost_answers.fetch_add(1, Ordering::Relaxed);
    }
    match after {
        After::Answer => Ok(response),
        After::Fail => Ok(error_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalServerError",
            "injected by faceteer's fault proxy after the request was applied",
        )),
        After::Reset => Err(Reset),
        After::Stall => futures::future::pending().await,
        After::Stop => {
            let _ = state.stop.send(true);
            futures::future::pending().await
        }
    }
}

/// A DynamoDB error answer: `status`, error type `kind` (`ThrottlingException`, …).
fn error_response(status: StatusCode, kind: &str, message: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({
        "__type": format!("com.amazonaws.dynamodb.v20120810#{kind}"),
        "message": message,
    });
    json_response(status, serde_json::to_vec(&body).expect("json"))
}

/// Draw what happens to the answer of a forwarded batch request.
fn draw_after(state: &State, rng: &mut fastrand::Rng, seen: u64) -> After {
    let c = &state.config;
    if c.stop_after.is_some_and(|n| seen >= n) {
        return After::Stop;
    }
    let x = rng.f64();
    if x < c.fail_after {
        After::Fail
    } else if x < c.fail_after + c.reset_after {
        After::Reset
    } else if x < c.fail_after + c.reset_after + c.stall_after {
        After::Stall
    } else {
        After::Answer
    }
}

/// Forward a request, with the faults drawn for it: the answer, and what to do with it.
async fn handle_batch(
    state: &State,
    parts: hyper::http::request::Parts,
    bytes: Bytes,
) -> (Response<Full<Bytes>>, After) {
    let target = parts
        .headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let kind = if target.ends_with(".BatchWriteItem") {
        Some(Kind::Write)
    } else if target.ends_with(".BatchGetItem") {
        Some(Kind::Get)
    } else {
        None
    };
    let Some(kind) = kind else {
        return (forward(state, parts, bytes.to_vec()).await, After::Answer);
    };
    let seen = state.stats.batch_requests.fetch_add(1, Ordering::Relaxed) + 1;
    let (throttle, withhold, seed, after) = {
        let mut rng = state.rng.lock().expect("rng lock");
        (
            rng.f64() < state.config.throttle,
            rng.f64() < state.config.withhold_request,
            rng.u64(..),
            draw_after(state, &mut rng, seen),
        )
    };
    // Faults after forwarding apply to answers the server gave (it applied the request).
    let after = |response: Response<Full<Bytes>>| {
        let after = if response.status() == StatusCode::OK {
            after
        } else {
            After::Answer
        };
        (response, after)
    };
    if throttle {
        state.stats.throttled.fetch_add(1, Ordering::Relaxed);
        let response = error_response(
            StatusCode::BAD_REQUEST,
            "ProvisionedThroughputExceededException",
            "injected by faceteer's fault proxy",
        );
        return (response, After::Answer);
    }
    if !withhold {
        return after(forward(state, parts, bytes.to_vec()).await);
    }
    let Ok(mut request) = serde_json::from_slice::<Value>(&bytes) else {
        return after(forward(state, parts, bytes.to_vec()).await);
    };
    let mut rng = fastrand::Rng::with_seed(seed);
    // Split each table's entries into forwarded and withheld.
    let mut withheld: serde_json::Map<String, Value> = serde_json::Map::new();
    if let Some(tables) = request
        .get_mut("RequestItems")
        .and_then(Value::as_object_mut)
    {
        for (table, entries) in tables.iter_mut() {
            let list = match kind {
                Kind::Write => entries.as_array_mut(),
                Kind::Get => entries.get_mut("Keys").and_then(Value::as_array_mut),
            };
            let Some(list) = list else { continue };
            let all = std::mem::take(list);
            let mut held = Vec::new();
            for entry in all {
                if rng.f64() < state.config.withhold_item {
                    held.push(entry);
                } else {
                    list.push(entry);
                }
            }
            if !held.is_empty() {
                state
                    .stats
                    .withheld
                    .fetch_add(held.len() as u64, Ordering::Relaxed);
                let value = match kind {
                    Kind::Write => Value::Array(held),
                    Kind::Get => {
                        let mut v = entries.clone();
                        v["Keys"] = Value::Array(held);
                        v
                    }
                };
                withheld.insert(table.clone(), value);
            }
        }
        tables.retain(|_, entries| match kind {
            Kind::Write => entries.as_array().is_some_and(|a| !a.is_empty()),
            Kind::Get => entries["Keys"].as_array().is_some_and(|a| !a.is_empty()),
        });
    }
    let unprocessed_field = match kind {
        Kind::Write => "UnprocessedItems",
        Kind::Get => "UnprocessedKeys",
    };
    let nothing_left = request["RequestItems"]
        .as_object()
        .is_none_or(|t| t.is_empty());
    let mut response_json = if nothing_left {
        match kind {
            Kind::Write => serde_json::json!({}),
            Kind::Get => serde_json::json!({ "Responses": {} }),
        }
    } else {
        let upstream = forward(state, parts, serde_json::to_vec(&request).expect("json")).await;
        if upstream.status() != StatusCode::OK {
            return (upstream, After::Answer);
        }
        let body = upstream
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) => v,
            Err(_) => return (json_response(StatusCode::OK, body.to_vec()), After::Answer),
        }
    };
    let merged = response_json
        .as_object_mut()
        .expect("object response")
        .entry(unprocessed_field)
        .or_insert_with(|| Value::Object(Default::default()));
    for (table, held) in withheld {
        match (kind, merged.get_mut(&table)) {
            (Kind::Write, Some(Value::Array(existing))) => {
                existing.extend(held.as_array().cloned().unwrap_or_default())
            }
            (Kind::Get, Some(existing)) => {
                if let (Some(keys), Some(more)) =
                    (existing["Keys"].as_array_mut(), held["Keys"].as_array())
                {
                    keys.extend(more.iter().cloned());
                }
            }
            _ => {
                merged[&table] = held;
            }
        }
    }
    let response = json_response(
        StatusCode::OK,
        serde_json::to_vec(&response_json).expect("json"),
    );
    if nothing_left {
        (response, After::Answer)
    } else {
        after(response)
    }
}

async fn forward(
    state: &State,
    mut parts: hyper::http::request::Parts,
    body: Vec<u8>,
) -> Response<Full<Bytes>> {
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let uri: hyper::Uri = match format!("{}{}", state.upstream, path).parse() {
        Ok(u) => u,
        Err(_) => return json_response(StatusCode::BAD_GATEWAY, b"{}".to_vec()),
    };
    parts.uri = uri;
    parts.headers.remove("content-length");
    parts.headers.remove("host");
    let len = body.len();
    let mut request = Request::from_parts(parts, Full::new(Bytes::from(body)));
    request.headers_mut().insert("content-length", len.into());
    match state.client.request(request).await {
        Ok(response) => {
            let (parts, body) = response.into_parts();
            let bytes = body
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            let mut response = Response::from_parts(parts, Full::new(bytes));
            response.headers_mut().remove("transfer-encoding");
            response
        }
        Err(e) => json_response(
            StatusCode::BAD_GATEWAY,
            format!("{{\"message\":\"proxy: {e}\"}}").into_bytes(),
        ),
    }
}
