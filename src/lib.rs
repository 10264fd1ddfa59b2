//! Test kit for faceteer-rs's examples and integration tests: reach a DynamoDB-compatible
//! server without any setup.
//!
//! Every integration test runs twice, once per engine ([`engines!`]):
//!
//! * `…::embedded`: the in-process engine of `faceteer`'s `embedded` feature (dynoxide), one
//!   per test;
//! * `…::moto`: moto's server, a second, independent implementation, installed into
//!   `target/ddb-venv` when missing (`scripts/ensure-moto.sh`) and started once per test
//!   process on a free 127.0.0.1 port. `FACETEER_DYNAMODB_ENDPOINT=http://host:port` sends this
//!   arm to that server instead (the suite is checked on the embedded engine and moto only),
//!   and `FACETEER_REAL_AWS=1` to real AWS with the default credential chain and region.
//!
//! Each test prints the engine it ran on, so a failure names it (also in the test's name).
//! Outside a test arm (examples, benchmarks) the kit uses the configured server when one is
//! set, else the embedded engine.
#![warn(missing_docs)]

pub mod bench_task;
pub mod catalogue;
pub mod metrics_recorder;

use std::future::Future;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::Client;
use faceteer::{Facet, Table, TableSchema};

/// Why the local server could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// Installing moto failed.
    #[error("could not install moto's DynamoDB server (scripts/ensure-moto.sh): {0}")]
    Install(String),
    /// Starting it failed.
    #[error("could not start moto's DynamoDB server: {0}")]
    Start(String),
}

/// A moto server process, stopped when dropped (and when this process exits).
#[derive(Debug)]
pub struct LocalServer {
    child: Child,
    endpoint: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Install moto once per process (servers started at once share one install).
fn install_moto() -> Result<(), LocalError> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let status = Command::new("bash")
                .arg(root().join("scripts/ensure-moto.sh"))
                .status()
                .map_err(|e| e.to_string())?;
            if status.success() {
                return Ok(());
            }
            Err(match status.code() {
                Some(127) => "python3 was not found; moto needs Python 3.9 or later with venv \
                              (see the message above), or skip its arm with \
                              `cargo test -- --skip ::moto`"
                    .into(),
                Some(code) => format!("the script exited with code {code} (see its message above)"),
                None => "the script was killed by a signal".into(),
            })
        })
        .clone()
        .map_err(LocalError::Install)
}

impl LocalServer {
    /// Install moto when needed and start it on a free port.
    pub fn start() -> Result<Self, LocalError> {
        install_moto()?;
        Self::spawn()
    }

    fn spawn() -> Result<Self, LocalError> {
        let venv = std::env::var_os("FACETEER_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join("target/ddb-venv"));
        let mut child = Command::new(venv.join("bin/python"))
            .arg(root().join("scripts/moto_server.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| LocalError::Start(e.to_string()))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|e| LocalError::Start(e.to_string()))?;
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse::<u16>().ok())
            .ok_or_else(|| {
                let _ = child.kill();
                LocalError::Start(format!("unexpected output {line:?}"))
            })?;
        Ok(LocalServer {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client for a local endpoint ([`faceteer::local_client`]) without the SDK's own
/// retries, so that tests see every throttling error and exercise faceteer's retries.
pub fn client_without_sdk_retries(endpoint: &str) -> Client {
    let config = faceteer::local_client(endpoint)
        .expect("a local endpoint")
        .config()
        .to_builder()
        .retry_config(RetryConfig::disabled())
        .build();
    Client::from_conf(config)
}

/// The two engines every integration test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The in-process engine (dynoxide), one per test.
    Embedded,
    /// moto's server, or the server `FACETEER_DYNAMODB_ENDPOINT` / `FACETEER_REAL_AWS` selects.
    Moto,
}

/// What a test actually reaches, for tests that pin engine differences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Server {
    /// The embedded engine (dynoxide).
    Embedded(String),
    /// moto, started by the kit.
    Moto(String),
    /// The server `FACETEER_DYNAMODB_ENDPOINT` names.
    Endpoint(String),
    /// Real AWS.
    Aws,
}

impl Server {
    /// The endpoint, when it is not real AWS.
    pub fn endpoint(&self) -> Option<&str> {
        match self {
            Server::Embedded(e) | Server::Moto(e) | Server::Endpoint(e) => Some(e),
            Server::Aws => None,
        }
    }
}

impl std::fmt::Display for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Server::Embedded(e) => write!(f, "embedded engine (dynoxide) at {e}"),
            Server::Moto(e) => write!(f, "moto at {e}"),
            Server::Endpoint(e) => write!(f, "FACETEER_DYNAMODB_ENDPOINT={e}"),
            Server::Aws => f.write_str("real AWS (FACETEER_REAL_AWS=1)"),
        }
    }
}

/// The engine arm a test runs in, with its embedded engine (started on first use).
struct Arm {
    engine: Engine,
    embedded: OnceLock<faceteer::embedded::Engine>,
    /// The moto server this test uses (an index into the pool).
    moto: OnceLock<usize>,
}

tokio::task_local! {
    static ARM: Arm;
}

/// Run one test body on `engine`: a fresh runtime (two worker threads), the engine reported
/// on stdout (shown when the test fails), on the calling thread.
pub fn run<F: Future<Output = ()>>(engine: Engine, test: F) {
    run_here(engine, test)
}

/// [`run`] the future `test` makes, on a thread of its own with an 8 MiB stack: what
/// [`engines!`] runs. Unoptimised builds poll deep futures in large frames, and a clean CI
/// build (`CARGO_INCREMENTAL=0`) overflowed a test thread's 2 MiB in a backfill on moto. The
/// panic of a failing test is passed on.
pub fn run_on_own_thread<T, F>(engine: Engine, test: T)
where
    T: FnOnce() -> F + Send + 'static,
    F: Future<Output = ()>,
{
    let thread = std::thread::Builder::new()
        .name(std::thread::current().name().unwrap_or("test").to_owned())
        .stack_size(8 << 20)
        .spawn(move || run_here(engine, test()))
        .expect("a thread for the test");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

fn run_here<F: Future<Output = ()>>(engine: Engine, test: F) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(8 << 20)
        .enable_all()
        .build()
        .expect("a tokio runtime for the test");
    let arm = Arm {
        engine,
        embedded: OnceLock::new(),
        moto: OnceLock::new(),
    };
    // Boxed: the test's whole future lives on the heap, not on the test thread's stack
    // (debug builds' futures are large).
    runtime.block_on(Box::pin(ARM.scope(arm, async move {
        println!("engine: {}", server());
        test.await
    })));
}

/// Declare async test functions that run on both engines: for each `name`, the tests
/// `name::embedded` and `name::moto`. A function left out of the list is dead code, which
/// the lints refuse, so no test is silently skipped.
///
/// ```no_run
/// async fn tables_are_listed() {
///     let client = faceteer_suite::client().await;
///     client.list_tables().send().await.unwrap();
/// }
/// faceteer_suite::engines!(tables_are_listed);
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! engines {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn embedded() {
                $crate::run_on_own_thread($crate::Engine::Embedded, super::$name)
            }
            #[test]
            fn moto() {
                $crate::run_on_own_thread($crate::Engine::Moto, super::$name)
            }
        }
    )*};
}

/// The engine of the running test arm; outside one, [`Engine::Moto`] when a server is
/// configured and [`Engine::Embedded`] otherwise.
pub fn engine() -> Engine {
    ARM.try_with(|arm| arm.engine).unwrap_or_else(|_| {
        if configured().is_some() {
            Engine::Moto
        } else {
            Engine::Embedded
        }
    })
}

/// The server `FACETEER_REAL_AWS` or `FACETEER_DYNAMODB_ENDPOINT` selects, if any.
pub fn configured() -> Option<Server> {
    if std::env::var_os("FACETEER_REAL_AWS").is_some() {
        return Some(Server::Aws);
    }
    std::env::var("FACETEER_DYNAMODB_ENDPOINT")
        .ok()
        .map(Server::Endpoint)
}

/// How many moto servers the tests spread over (`FACETEER_MOTO_SERVERS`, default 3). moto
/// serves one request at a time (see `scripts/moto_server.py`) on one core: several servers
/// keep the machine's cores busy while many tests wait on it.
fn moto_servers() -> usize {
    static COUNT: OnceLock<usize> = OnceLock::new();
    *COUNT.get_or_init(|| {
        std::env::var("FACETEER_MOTO_SERVERS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(3)
            .clamp(1, 16)
    })
}

static MOTO: [OnceLock<Result<String, String>>; 16] = [const { OnceLock::new() }; 16];
static NEXT_MOTO: AtomicU32 = AtomicU32::new(0);

/// The moto server of the running test arm (each test keeps one, chosen in turn), started
/// once for this process; outside an arm, the first.
fn moto() -> Server {
    let slot = ARM
        .try_with(|arm| {
            *arm.moto
                .get_or_init(|| NEXT_MOTO.fetch_add(1, Ordering::Relaxed) as usize % moto_servers())
        })
        .unwrap_or(0);
    let endpoint = MOTO[slot].get_or_init(|| {
        let server = LocalServer::start().map_err(|e| e.to_string())?;
        let endpoint = server.endpoint().to_owned();
        // Lives for the rest of the process; the launcher exits with its parent.
        std::mem::forget(server);
        Ok(endpoint)
    });
    match endpoint {
        Ok(endpoint) => Server::Moto(endpoint.clone()),
        Err(e) => panic!("no moto server for the `moto` arm of the tests: {e}"),
    }
}

static EMBEDDED: OnceLock<faceteer::embedded::Engine> = OnceLock::new();

/// The embedded engine of the running arm (one per test), or outside an arm one shared by
/// the process.
fn embedded() -> faceteer::embedded::Engine {
    let start = || {
        faceteer::embedded::Engine::start()
            .unwrap_or_else(|e| panic!("the embedded engine did not start: {e}"))
    };
    ARM.try_with(|arm| arm.embedded.get_or_init(start).clone())
        .unwrap_or_else(|_| EMBEDDED.get_or_init(start).clone())
}

/// The server the running test reaches (see the [crate documentation](crate)).
pub fn server() -> Server {
    match engine() {
        Engine::Embedded => Server::Embedded(embedded().endpoint().to_owned()),
        Engine::Moto => configured().unwrap_or_else(moto),
    }
}

/// The embedded engine of the running test arm, when it runs on the embedded engine (to
/// drive what DynamoDB does in the background, such as deleting expired items).
pub fn embedded_engine() -> Option<faceteer::embedded::Engine> {
    (engine() == Engine::Embedded).then(embedded)
}

/// A reader of `table`'s stream on [`server`].
pub async fn stream_reader(table: &Table) -> faceteer::stream::StreamReader {
    let client = match endpoint() {
        Some(endpoint) => faceteer::stream::local_client(&endpoint).expect("a local endpoint"),
        None => faceteer::stream::streams_client(table)
            .await
            .expect("a streams client"),
    };
    faceteer::stream::StreamReader::new(client, table)
        .await
        .unwrap_or_else(|e| panic!("the stream of {}: {e}", table.name()))
}

/// The endpoint of [`server`], when it is not real AWS.
pub fn endpoint() -> Option<String> {
    server().endpoint().map(str::to_owned)
}

/// A client for [`server`].
pub async fn client() -> Client {
    match server() {
        Server::Aws => {
            let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
            Client::new(&config)
        }
        other => faceteer::local_client(other.endpoint().expect("a local server"))
            .expect("a local endpoint"),
    }
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A new, uniquely named table holding the facets of `S`, for one test.
pub async fn fresh_table<S: TableSchema>(label: &str) -> Table {
    fresh_table_with::<S>(client().await, label).await
}

/// A new, uniquely named table holding the facets of `S`, reached through `client`.
pub async fn fresh_table_with<S: TableSchema>(client: Client, label: &str) -> Table {
    check_layouts::<S>();
    create(Table::declared::<S>(client, unique_name(label))).await
}

/// Panic unless the key data the derive generated for each facet of `S` describes its
/// schema (`faceteer::__private_0_1_0::check_layout`): every test table checks its facets.
pub fn check_layouts<S: TableSchema>() {
    struct Check;
    impl faceteer::__private_0_1_0::FacetVisitor for Check {
        fn visit<F: Facet>(&mut self) {
            check_layout::<F>();
        }
    }
    S::visit_facets(&mut Check);
}

/// Panic unless the key data the derive generated for facet `F` describes its schema.
pub fn check_layout<F: Facet>() {
    if let Err(e) = faceteer::__private_0_1_0::check_layout::<F>() {
        panic!(
            "the key layout of facet {} is not its schema's: {e}",
            F::SCHEMA.name
        );
    }
}

/// A new, uniquely named table holding the facets of `S`, its stream recording `view`.
pub async fn fresh_streamed_table<S: TableSchema>(
    label: &str,
    view: faceteer::stream::StreamView,
) -> Table {
    check_layouts::<S>();
    let table = patient(Table::declared::<S>(client().await, unique_name(label)));
    table
        .create_table_with_stream(view)
        .await
        .unwrap_or_else(|e| panic!("creating test table {}: {e}", table.name()));
    table
}

/// A new, uniquely named table holding the one facet `F`, for one test.
pub async fn fresh_facet_table<F: Facet>(label: &str) -> Table {
    check_layout::<F>();
    let table = Table::with_facets(client().await, unique_name(label), [F::SCHEMA])
        .expect("one facet always fits a table");
    create(table).await
}

/// A table name no other test uses, from `label`.
pub fn unique_name(label: &str) -> String {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "faceteer-{}-{}-{}-{n}",
        label.replace(|c: char| !c.is_ascii_alphanumeric(), "-"),
        std::process::id(),
        nanos
    )
}

/// Create `table`. Its requests and calls get generous deadlines (2 minutes a try, 10 a
/// call): on a loaded machine moto can take more than the default 10 s to answer, and a
/// try abandoned while the server still works on it leaves a write's outcome unknown. The
/// tests of deadlines and lost answers set their own.
async fn create(table: Table) -> Table {
    // Patient from the start: a CreateTable try abandoned after 10 s and sent again finds
    // the table it created.
    let table = patient(table);
    table
        .create_table()
        .await
        .unwrap_or_else(|e| panic!("creating test table {}: {e}", table.name()));
    table
}

/// The test kit's generous deadlines, for a loaded machine and a slow engine: the helpers
/// that read or write the truth behind the library must not fail where the library under
/// test is allowed to be slow.
fn patient_timeouts() -> faceteer::Timeouts {
    faceteer::Timeouts {
        connect: std::time::Duration::from_secs(30),
        attempt: std::time::Duration::from_secs(120),
        operation: std::time::Duration::from_secs(300),
        call: std::time::Duration::from_secs(600),
    }
}

/// `table` with the test kit's generous deadlines (see [`fresh_table_with`]).
pub fn patient(table: Table) -> Table {
    let timeouts = patient_timeouts();
    table.with_timeouts(timeouts)
}

/// `table`'s SDK client with the test kit's generous deadlines ([`patient`]'s), for raw
/// calls beside the library.
pub fn patient_client(table: &Table) -> Client {
    use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
    let t = patient_timeouts();
    let config = table
        .client()
        .config()
        .to_builder()
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(t.connect)
                .operation_attempt_timeout(t.attempt)
                .operation_timeout(t.call)
                .build(),
        )
        .build();
    Client::from_conf(config)
}

/// The README's code, compiled and checked as a doc test.
#[doc = include_str!("../README.md")]
#[allow(dead_code)]
mod readme {}
