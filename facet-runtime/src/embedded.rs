//! An in-process DynamoDB engine for tests and examples (feature `embedded`).
//!
//! [`table`] gives a ready [`Table`] in a few milliseconds, with nothing to install: it starts
//! [dynoxide](https://crates.io/crates/dynoxide-rs), a SQLite-backed DynamoDB engine, on a
//! thread of its own, listening on a free `127.0.0.1` port, and points the real
//! `aws-sdk-dynamodb` client at it. Every request goes through the same SDK, HTTP and wire
//! format as against DynamoDB, so what works here works there (within the engine's documented
//! differences: reads are always strongly consistent, there is no throttling and no
//! transaction contention).
//!
//! Each call to [`table`] starts its own engine with an empty in-memory database, so tests
//! share nothing and run in parallel. The engine stops when the last clone of its tables (and
//! of the [`Engine`]) is dropped.
//!
//! ```
//! use faceteer::Facet;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Facet, Serialize, Deserialize, Clone, Debug, PartialEq)]
//! struct Task {
//!     #[pk(prefix = "#TEAM")]
//!     team: String,
//!     #[sk(prefix = "#TASK")]
//!     id: String,
//!     title: String,
//! }
//!
//! faceteer::table! {
//!     /// The application's table.
//!     pub struct AppTable { Task }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> faceteer::Result<()> {
//! let table = faceteer::embedded::table::<AppTable>().await?;
//! let task = Task { team: "core".into(), id: "t1".into(), title: "Ship it".into() };
//! table.put(&task).await?;
//! assert_eq!(table.get(&Task::key("core", "t1")?).await?, Some(task));
//! # Ok(()) }
//! ```
//!
//! [`Engine`] hosts several tables on one engine, and hands out its endpoint and a client for
//! code that builds its own.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use faceteer_core::table::TableSchema;

use crate::error::Result;
use crate::table::Table;

/// The name [`table`] gives its table.
pub const TABLE_NAME: &str = "faceteer";

pub use crate::error::EngineError;

/// A running in-process DynamoDB engine. Cheap to clone; the engine stops when the last
/// clone, and the last [`Table`] made by [`Engine::table`], is dropped.
#[derive(Clone)]
pub struct Engine {
    running: Arc<Running>,
}

/// The engine's thread, told to stop when dropped.
struct Running {
    address: SocketAddr,
    endpoint: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    database: dynoxide::Database,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            // The engine may already be gone (its thread ends with the process).
            let _ = stop.send(());
        }
    }
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("endpoint", &self.running.endpoint)
            .finish()
    }
}

impl Engine {
    /// Start an engine with an empty in-memory database on a free `127.0.0.1` port, on a
    /// thread of its own (so it outlives any one async runtime). Needs no runtime; returns once
    /// the engine accepts connections.
    pub fn start() -> std::result::Result<Engine, EngineError> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let database =
            dynoxide::Database::memory().map_err(|e| EngineError::Database(e.to_string()))?;
        let served = database.clone();
        std::thread::Builder::new()
            .name("faceteer-embedded-dynamodb".into())
            .spawn(move || serve(served, ready_tx, stop_rx))
            .map_err(EngineError::Thread)?;
        let address = ready_rx.recv().map_err(|_| EngineError::Stopped)??;
        Ok(Engine {
            running: Arc::new(Running {
                address,
                endpoint: format!("http://{address}"),
                stop: Some(stop_tx),
                database,
            }),
        })
    }

    /// Delete every item whose time to live has passed now, as DynamoDB's background
    /// process does some time after it passes, and return how many. Each deletion appears
    /// on the table's stream as a removal by DynamoDB's time-to-live service
    /// (`Remove { expired: true, .. }` in [`crate::stream`]).
    pub fn delete_expired(&self) -> std::result::Result<usize, EngineError> {
        self.running
            .database
            .sweep_ttl()
            .map_err(|e| EngineError::Database(e.to_string()))
    }

    /// `http://127.0.0.1:<port>`: point any DynamoDB client here.
    pub fn endpoint(&self) -> &str {
        &self.running.endpoint
    }

    /// The address the engine listens on.
    pub fn address(&self) -> SocketAddr {
        self.running.address
    }

    /// A client for this engine: region `us-east-1`, dummy credentials (the engine checks no
    /// signature), the SDK's standard retries.
    pub fn client(&self) -> Client {
        crate::setup::engine_client(self.endpoint())
    }

    /// Open table `name`, already on this engine, as holding the facets of `S` (another
    /// version of the code reading the same table), without creating anything.
    pub fn open<S: TableSchema>(&self, name: impl Into<String>) -> Table {
        Table::declared::<S>(self.client(), name)
            .keeping(self.running.clone())
            .at_endpoint(Some(self.endpoint()))
    }

    /// Create table `name` holding the facets of `S` (as [`Table::create_table`] does) and
    /// hand back its [`Table`], which keeps this engine running.
    pub async fn table<S: TableSchema>(&self, name: impl Into<String>) -> Result<Table> {
        let table = self.open::<S>(name);
        table.create_table().await?;
        Ok(table)
    }
}

/// A new engine holding one table, named [`TABLE_NAME`], created for the facets of `S`.
/// The engine stops when the last clone of the table is dropped. See the
/// [module documentation](self).
pub async fn table<S: TableSchema>() -> Result<Table> {
    Engine::start()?.table::<S>(TABLE_NAME).await
}

type Ready = std::sync::mpsc::Sender<std::result::Result<SocketAddr, EngineError>>;

/// The engine's thread: listen, report the address, serve until stopped.
fn serve(database: dynoxide::Database, ready: Ready, stop: tokio::sync::oneshot::Receiver<()>) {
    // The engine's own logs stay out of the application's: it reports every failed
    // condition (an expected answer) at WARN. Its failures reach callers as responses.
    let _quiet = tracing::dispatcher::set_default(&tracing::Dispatch::none());
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            let _ = ready.send(Err(EngineError::Runtime(e)));
            return;
        }
    };
    runtime.block_on(async move {
        let started = async {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .map_err(EngineError::Listen)?;
            let address = listener.local_addr().map_err(EngineError::Listen)?;
            Ok::<_, EngineError>((database, listener, address))
        };
        match started.await {
            Ok((database, listener, address)) => {
                if ready.send(Ok(address)).is_err() {
                    return;
                }
                // Ends when `stop` fires or its sender is dropped; the error, if any, has no
                // one left to report to.
                let _ = dynoxide::server::serve_with_shutdown(listener, database, async move {
                    let _ = stop.await;
                })
                .await;
            }
            Err(e) => {
                let _ = ready.send(Err(e));
            }
        }
    });
}
