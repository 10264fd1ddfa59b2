//! What batch operations report: every input ends in exactly one list of the report.

use std::sync::Arc;

use faceteer_core::Key;

use crate::error::{Error, FailureReason};

/// An input of a batch write whose outcome is unknown: a request carrying it may have been
/// applied (the server answered 5xx, the request timed out, or the connection broke after it
/// was sent) and no later try confirmed it. Read the key to find out.
#[derive(Debug)]
#[must_use = "an input whose outcome is unknown may or may not have been written; check it"]
pub struct Unknown<T> {
    /// The record or key, as given.
    pub item: T,
    /// The last error after which it may have been applied.
    pub cause: Arc<Error>,
}

/// An input of a batch call that did not succeed, with the reason.
#[derive(Debug)]
#[must_use = "a failed input was not written or read; handle it"]
pub struct Failed<T> {
    /// The record or key, as given.
    pub item: T,
    /// Why it failed.
    pub reason: FailureReason,
}

/// The report of [`Table::put_many`](crate::Table::put_many): every record is in exactly
/// one of `written`, `failed` and `unknown`.
#[derive(Debug)]
#[must_use = "records in `failed` were not written; check `is_complete()` or handle them"]
pub struct PutReport<F> {
    /// Records written (DynamoDB confirmed them).
    pub written: Vec<F>,
    /// Records certainly not written, with the reason.
    pub failed: Vec<Failed<F>>,
    /// Records that may or may not have been written.
    pub unknown: Vec<Unknown<F>>,
}

/// The report of [`Table::delete_many`](crate::Table::delete_many): every key is in exactly
/// one of `deleted`, `failed` and `unknown`.
#[derive(Debug)]
#[must_use = "keys in `failed` were not deleted; check `is_complete()` or handle them"]
pub struct DeleteReport<F> {
    /// Keys deleted (including keys that held no item).
    pub deleted: Vec<Key<F>>,
    /// Keys certainly not deleted, with the reason.
    pub failed: Vec<Failed<Key<F>>>,
    /// Keys that may or may not have been deleted.
    pub unknown: Vec<Unknown<Key<F>>>,
}

/// The report of [`Table::get_many`](crate::Table::get_many): every distinct key is in
/// `found` (as its record `R`: the facet, or a projection after `.select::<P>()`),
/// `missing` or `failed`.
#[derive(Debug)]
#[must_use = "keys in `failed` were not read; check `is_complete()` or handle them"]
pub struct GetReport<F, R = F> {
    /// Records found, in the order their keys were first given.
    pub found: Vec<R>,
    /// Keys that hold no item of the facet.
    pub missing: Vec<Key<F>>,
    /// Keys that could not be read, or whose item is not a valid record.
    pub failed: Vec<Failed<Key<F>>>,
}

impl<F> PutReport<F> {
    /// `true` when every record was written.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty() && self.unknown.is_empty()
    }
}

impl<F> DeleteReport<F> {
    /// `true` when every key was deleted.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty() && self.unknown.is_empty()
    }
}

impl<F, R> GetReport<F, R> {
    /// `true` when every key was read (found or missing).
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }
}
