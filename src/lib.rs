//! Test kit for faceteer-rs's examples and integration tests: reach a DynamoDB-compatible
//! server without any setup.
//!
//! * `FACETEER_DYNAMODB_ENDPOINT=http://host:port`: use that server (moto, dynalite,
//!   DynamoDB Local) with dummy credentials;
//! * `FACETEER_REAL_AWS=1`: use real AWS with the default credential chain and region;
//! * otherwise: install moto's server into `target/ddb-venv` when missing
//!   (`scripts/ensure-moto.sh`) and start it on a free 127.0.0.1 port.
#![warn(missing_docs)]

pub mod fault;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use aws_sdk_dynamodb::config::{Credentials, Region};
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

impl LocalServer {
    /// Install moto when needed and start it on a free port.
    pub fn start() -> Result<Self, LocalError> {
        let status = Command::new("bash")
            .arg(root().join("scripts/ensure-moto.sh"))
            .status()
            .map_err(|e| LocalError::Install(e.to_string()))?;
        if !status.success() {
            return Err(LocalError::Install(format!("exit status {status}")));
        }
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

/// An SDK client for a local endpoint, with dummy credentials.
pub async fn local_client(endpoint: &str) -> Client {
    local_client_with_retries(endpoint, true).await
}

/// An SDK client for a local endpoint; `sdk_retries: false` turns off the SDK's own retries
/// (so that tests see every throttling error and exercise faceteer's retries).
pub async fn local_client_with_retries(endpoint: &str, sdk_retries: bool) -> Client {
    let retry = if sdk_retries {
        aws_config::retry::RetryConfig::standard()
    } else {
        aws_config::retry::RetryConfig::disabled()
    };
    let credentials = Credentials::new("test", "test", None, None, "faceteer-local");
    let config = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(credentials)
        .endpoint_url(endpoint)
        .retry_config(retry)
        .load()
        .await;
    Client::new(&config)
}

/// The endpoint of [`target`], when it is not real AWS.
pub fn endpoint() -> Option<&'static str> {
    match target().unwrap_or_else(|e| panic!("no DynamoDB server for the tests: {e}")) {
        Target::Endpoint(e) => Some(e),
        Target::Aws => None,
    }
}

/// Where the server is, for this process: the configured endpoint, real AWS, or a moto
/// server started once and shared by every test of the process.
pub enum Target {
    /// A DynamoDB-compatible endpoint.
    Endpoint(String),
    /// Real AWS.
    Aws,
}

static SHARED: OnceLock<Result<Target, String>> = OnceLock::new();

/// The server every test of this process uses (started on first use).
pub fn target() -> Result<&'static Target, String> {
    SHARED
        .get_or_init(|| {
            if std::env::var_os("FACETEER_REAL_AWS").is_some() {
                return Ok(Target::Aws);
            }
            if let Ok(endpoint) = std::env::var("FACETEER_DYNAMODB_ENDPOINT") {
                return Ok(Target::Endpoint(endpoint));
            }
            let server = LocalServer::start().map_err(|e| e.to_string())?;
            let endpoint = server.endpoint().to_owned();
            // Lives for the rest of the process; the launcher exits with its parent.
            std::mem::forget(server);
            Ok(Target::Endpoint(endpoint))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// A client for [`target`].
pub async fn client() -> Client {
    match target().unwrap_or_else(|e| panic!("no DynamoDB server for the tests: {e}")) {
        Target::Endpoint(endpoint) => local_client(endpoint).await,
        Target::Aws => {
            let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
            Client::new(&config)
        }
    }
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A new, uniquely named table holding the facets of `S`, for one test.
pub async fn fresh_table<S: TableSchema>(label: &str) -> Table {
    fresh_table_with::<S>(client().await, label).await
}

/// A new, uniquely named table holding the facets of `S`, reached through `client`.
pub async fn fresh_table_with<S: TableSchema>(client: Client, label: &str) -> Table {
    create(Table::declared::<S>(client, unique_name(label))).await
}

/// A new, uniquely named table holding the one facet `F`, for one test.
pub async fn fresh_facet_table<F: Facet>(label: &str) -> Table {
    let table = Table::with_facets(client().await, unique_name(label), [F::SCHEMA])
        .expect("one facet always fits a table");
    create(table).await
}

fn unique_name(label: &str) -> String {
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

async fn create(table: Table) -> Table {
    table
        .create_table()
        .await
        .unwrap_or_else(|e| panic!("creating test table {}: {e}", table.name()));
    table
}

/// The README's code, compiled and checked as a doc test.
#[doc = include_str!("../README.md")]
#[allow(dead_code)]
mod readme {}
