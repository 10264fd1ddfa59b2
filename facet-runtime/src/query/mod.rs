//! Every paged read: typed queries, scans, collections and searches, their shared page
//! options, and the page walks.
//!
//! The generated entry points (`Facet::query(..)`, `Facet::gsiN(..)`,
//! `Facet::by_<alias>(..)`) give a [`PartitionQuery`]; a sort-key operator turns it into the
//! one query builder, [`Query`], whose options work in any order and in every mode;
//! [`Table::query`](crate::Table::query) runs it.
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct User { #[pk(prefix = "#TEAM")] team_id: String, #[sk(prefix = "#USER")] user_id: String }
//! # async fn demo(table: &Table) -> faceteer::Result<()> {
//! let page = table.query(User::query("team-1").greater_than("u-100").limit(10)).await?;
//! for user in &page.records { /* … */ }
//! let next = table
//!     .query(User::query("team-1").greater_than("u-100").limit(10).cursor(page.cursor))
//!     .await?;
//! let first = table.query(User::query("team-1").list().reverse().first()).await?;
//! # Ok(()) }
//! ```
//!
//! * `partition`: the partition and its sort-key operators;
//! * `builder`: the options of a query; `mode`: what running it returns; `page`: the options
//!   every paged read shares (one type, one macro for their setters);
//! * `run`: execution: pages, read-ahead, the all-shard merge, streams;
//! * `scan`, `collection`, `search`: the other paged reads; `walk`: page streams.

mod beacons;
pub(crate) mod budget;
mod builder;
pub(crate) mod collection;
mod count;
pub(crate) mod hooks;
mod mode;
mod native;
mod page;
mod partition;
pub(crate) mod run;
pub(crate) mod scan;
pub(crate) mod search;
pub(crate) mod walk;

pub use builder::Query;
pub use collection::{CollectionPage, CollectionPartition, CollectionRun};
pub use mode::{Collected, FailedRecord, First, Mode, Page, Paged};
pub use native::{KeyConditionOpen, NativeQuery, SortFieldsLeft};
pub use page::IntoCursor;
pub use partition::PartitionQuery;
pub use run::{QueryRun, DEFAULT_SHARD_CONCURRENCY};
pub use scan::{OfCollection, OfFacet, ScanRun, ScanTarget};
pub use search::Search;
