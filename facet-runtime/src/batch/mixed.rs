//! Batch writes that mix facets: [`Table::write_batch`].
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Team { #[pk(prefix = "#TEAM")] #[sk(prefix = "#TEAM")] id: String }
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct User { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#USER")] id: String }
//! # async fn demo(table: &Table, team: Team, users: Vec<User>) -> faceteer::Result<()> {
//! let mut batch = table.write_batch().put(&team);
//! for user in &users {
//!     batch = batch.put(user);
//! }
//! let report = batch.delete(&User::key("t1", "gone")?).await;
//! assert!(report.is_complete(), "{:?}", report.failed);
//! # Ok(()) }
//! ```

use std::future::IntoFuture;
use std::sync::Arc;

use faceteer_core::facet::{BatchDeletable, BatchWritable};
use faceteer_core::Key;

use crate::batch::pump::{gather, write_stream};
use crate::batch::write::{delete_write, put_write, Write};
use crate::error::Error;
use crate::error::FailureReason;
use crate::exec::future::{traced, BoxFuture};
use crate::exec::trace::Op;
use crate::table::Table;
use aws_sdk_dynamodb::types::WriteRequest;

/// What a step of a mixed batch does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchAction {
    /// A put.
    Put,
    /// A delete.
    Delete,
}

/// One write of a mixed batch: its position, what it does, and to which record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchEntry {
    /// Its position in the batch (0-based, in the order added).
    pub index: usize,
    /// The table it writes to.
    pub table: String,
    /// What it does.
    pub action: BatchAction,
    /// The facet.
    pub facet: &'static str,
    /// The record's partition key (empty when the record could not be turned into an item).
    pub pk: faceteer_core::redact::KeyText,
    /// The record's sort key.
    pub sk: faceteer_core::redact::KeyText,
}

/// The report of a mixed batch: every entry is in exactly one of `done`, `failed` and
/// `unknown`.
#[derive(Debug)]
#[must_use = "entries in `failed` were not written; check `is_complete()` or handle them"]
pub struct BatchReport {
    /// Entries written (DynamoDB confirmed them).
    pub done: Vec<BatchEntry>,
    /// Entries certainly not written, with the reason.
    pub failed: Vec<(BatchEntry, FailureReason)>,
    /// Entries that may or may not have been written, with the last error.
    pub unknown: Vec<(BatchEntry, Arc<Error>)>,
}

impl BatchReport {
    /// `true` when every entry was written.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty() && self.unknown.is_empty()
    }
}

/// A batch write of records and deletes of any declared facets: [`Table::write_batch`].
#[must_use = "a batch write does nothing until it is awaited"]
pub struct WriteBatch<'t> {
    /// Every table written to, in order of first use, with its entries.
    groups: Vec<(&'t Table, Vec<Entry>)>,
    /// The group the next entries join ([`WriteBatch::on`]).
    current: usize,
    /// Entries added so far.
    count: usize,
}

/// One entry of a mixed batch and its write.
type Entry = (BatchEntry, Result<Write, FailureReason>);

impl Table {
    /// A batch write mixing facets: puts and deletes of any declared facets, sent as
    /// `BatchWriteItem` requests of 25 with the same retries and exact outcomes as
    /// [`Table::put_many`]. Facets with a `#[version]` field or `#[unique]` fields are
    /// refused at compile time (a batch cannot check versions or unique values).
    pub fn write_batch(&self) -> WriteBatch<'_> {
        WriteBatch {
            groups: vec![(self, Vec::new())],
            current: 0,
            count: 0,
        }
    }
}

impl<'t> WriteBatch<'t> {
    /// The table the next entries write to.
    fn table(&self) -> &'t Table {
        self.groups[self.current].0
    }

    fn push(
        mut self,
        action: BatchAction,
        facet: &'static str,
        write: Result<Write, FailureReason>,
    ) -> Self {
        let (pk, sk) = match &write {
            Ok(w) => (w.key.0.clone(), w.key.1.clone()),
            Err(_) => (String::new(), String::new()),
        };
        let entry = BatchEntry {
            index: self.count,
            table: self.table().name().to_owned(),
            action,
            facet,
            pk: pk.into(),
            sk: sk.into(),
        };
        self.count += 1;
        self.groups[self.current].1.push((entry, write));
        self
    }

    /// The entries added after this write to `table` (until the next `on`): one batch can
    /// write to several tables. Each table checks its own declared facets; the writes to
    /// each go in requests of their own, all at once, and every entry names its table.
    pub fn on(mut self, table: &'t Table) -> Self {
        self.current = match self
            .groups
            .iter()
            .position(|(t, _)| std::ptr::eq(*t, table))
        {
            Some(i) => i,
            None => {
                self.groups.push((table, Vec::new()));
                self.groups.len() - 1
            }
        };
        self
    }

    /// Put `record` (of a facet without a `#[version]` field or `#[unique]` fields:
    /// [`BatchWritable`]).
    ///
    /// A facet with hooks ([`crate::hook`]) is refused here (the entry fails with
    /// `ItemError::Refused`): a mixed batch builds its requests as entries are added and
    /// cannot run them; write such records with `put_many` or single writes.
    pub fn put<F: BatchWritable>(self, record: &F) -> Self {
        let write = self
            .table()
            .check_declared::<F>()
            .map_err(|e| FailureReason::Request(Arc::new(e)))
            .and_then(|()| unhooked::<F>(self.table()))
            .and_then(|()| put_write(record));
        self.push(BatchAction::Put, F::SCHEMA.name, write)
    }

    /// Delete the record under `key` (of a facet without `#[unique]` fields:
    /// [`BatchDeletable`]).
    ///
    /// A facet with hooks is refused, as for [`WriteBatch::put`].
    pub fn delete<F: BatchDeletable>(self, key: &Key<F>) -> Self {
        let write = self
            .table()
            .check_declared::<F>()
            .map_err(|e| FailureReason::Request(Arc::new(e)))
            .and_then(|()| unhooked::<F>(self.table()))
            .and_then(|()| delete_write(key));
        self.push(BatchAction::Delete, F::SCHEMA.name, write)
    }
}

impl<'t> IntoFuture for WriteBatch<'t> {
    type Output = BatchReport;
    type IntoFuture = BoxFuture<'t, BatchReport>;

    fn into_future(self) -> Self::IntoFuture {
        let groups = self.groups;
        let op = Op::new("BatchWriteItem", groups[0].0, "(mixed)", None);
        let work = |op: Arc<Op>| async move {
            // The entries of each table, written by a stream of their own.
            let streams = groups.into_iter().map(|(table, entries)| {
                // Each input keeps a copy of its request: a mixed batch holds no records to
                // rebuild it from after a failed attempt.
                let inputs = entries.into_iter().map(|(entry, write)| {
                    let copy = write.as_ref().ok().and_then(|w| w.request().cloned());
                    ((entry, copy), write)
                });
                let rebuild = |(_, copy): &(BatchEntry, Option<WriteRequest>)| copy.clone();
                gather(write_stream(table, op.clone(), inputs, rebuild))
            });
            let mut report = BatchReport {
                done: Vec::new(),
                failed: Vec::new(),
                unknown: Vec::new(),
            };
            for (done, failed, unknown) in futures::future::join_all(streams).await {
                report.done.extend(done.into_iter().map(|(entry, _)| entry));
                report
                    .failed
                    .extend(failed.into_iter().map(|f| (f.item.0, f.reason)));
                report
                    .unknown
                    .extend(unknown.into_iter().map(|u| (u.item.0, u.cause)));
            }
            report.done.sort_by_key(|e| e.index);
            report.failed.sort_by_key(|(e, _)| e.index);
            report.unknown.sort_by_key(|(e, _)| e.index);
            report
        };
        traced(
            op,
            |op, r: &BatchReport| {
                op.finish_batch(
                    r.done.len(),
                    r.done.len() + r.failed.len() + r.unknown.len(),
                    r.failed.len(),
                    r.unknown.len(),
                )
            },
            work,
        )
    }
}

/// Refuses an entry of facet `F` when `table` has hooks on it: a mixed batch cannot run them,
/// and must not pass them by.
fn unhooked<F: faceteer_core::Facet>(table: &Table) -> Result<(), FailureReason> {
    match table.hooks_for::<F>() {
        None => Ok(()),
        Some(_) => Err(FailureReason::Item(faceteer_core::ItemError::Refused {
            facet: F::SCHEMA.name,
            veto: faceteer_core::facet::Veto::because(
                "",
                "the facet has hooks, which `write_batch` cannot run: write its records with \
                 `put_many`, `delete_many` or single writes",
            ),
        })),
    }
}
