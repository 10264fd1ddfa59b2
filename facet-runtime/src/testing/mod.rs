//! Test your own code against what a network and a loaded DynamoDB do (feature `testing`).
//!
//! * [`FaultProxy`] stands between an SDK client and any DynamoDB-API server (the
//!   [embedded engine](crate::embedded), DynamoDB Local, moto). At random, seeded so that
//!   runs repeat, it throttles batch requests, leaves part of their items unprocessed, and
//!   loses answers after the server applied a request: a 500, a connection closed without an
//!   answer, or no answer at all. It can hold writes back and apply them later, stall every
//!   request, or stop like a crashed server. [`FaultStats`] counts what it did.
//! * [`history`] checks a concurrent history of writes and reads, in the style of Jepsen's
//!   Elle: run your own operations from many clients through the proxy, record each, and get
//!   every anomaly found — a write applied twice, a write reported failed yet applied, a lost
//!   write, a stale or impossible read, a transaction half visible.
//! * [`StubServer`] answers batch writes, batch reads and queries at once, from items loaded
//!   in advance: for benchmarks that measure the client's work and not a database's.
//!
//! No other DynamoDB library ships these; every exactly-once and deadline test of faceteer
//! itself runs through them.
//!
//! ```no_run
//! # #[cfg(feature = "embedded")]
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use faceteer::testing::{FaultConfig, FaultProxy};
//! use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Note { #[pk(prefix = "#BOOK")] book: String, #[sk(prefix = "#NOTE")] id: String }
//! faceteer::table! { struct Notes { Note } }
//!
//! let engine = faceteer::embedded::Engine::start()?;
//! engine.table::<Notes>("notes").await?; // created, indexes included
//! // A quarter of the answers lost after the server applied the request.
//! let config = FaultConfig { reset_after: 0.25, single_writes: true, seed: 7, ..Default::default() };
//! let proxy = FaultProxy::start(engine.endpoint(), config).await?;
//! let table = Table::declared::<Notes>(faceteer::local_client(&proxy.endpoint())?, "notes");
//!
//! let notes = (0..100).map(|i| Note { book: "b".into(), id: format!("n{i}") });
//! let report = table.put_many(notes).await;
//! // Every record is written, failed or unknown: never lost without a word.
//! assert_eq!(report.written.len() + report.failed.len() + report.unknown.len(), 100);
//! let lost = proxy.stats().lost_answers.load(std::sync::atomic::Ordering::Relaxed);
//! println!("{lost} answers lost; {} unknown", report.unknown.len());
//! # Ok(()) }
//! ```

mod fault;
pub mod history;
mod stub;

pub use fault::{FaultConfig, FaultProxy, FaultStats};
pub use stub::{item_json_text, StubConfig, StubServer};
