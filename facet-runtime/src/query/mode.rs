//! What running a query returns: a [`Page`], or the first record.

use std::sync::Arc;

use faceteer_core::redact::KeyText;
use faceteer_core::ItemError;

use crate::error::Error;

/// A page of records and the cursor to the next one.
#[derive(Debug, Clone)]
#[must_use = "a page holds records and the cursor to the next page"]
pub struct Page<T> {
    /// The records, in sort-key order (descending with `.reverse()`).
    pub records: Vec<T>,
    /// The stored items of this page that are not valid records (they do not deserialize or
    /// fail the facet's validator), each with its key and the error. They do not stop the
    /// page: `records` holds the others and `cursor` continues after all of them.
    pub failed: Vec<FailedRecord>,
    /// Where the next page starts: `None` exactly when the query is exhausted. Pass it to
    /// [`Query::cursor`](super::Query::cursor).
    pub cursor: Option<String>,
}

/// Every record of a query, and every stored item that is not a valid record:
/// [`QueryRun::all_with_failures`](super::QueryRun::all_with_failures).
#[derive(Debug, Clone)]
pub struct Collected<T> {
    /// The valid records, in query order.
    pub records: Vec<T>,
    /// The stored items that are not valid records.
    pub failed: Vec<FailedRecord>,
}

/// A stored item a query returned that is not a valid record.
#[derive(Debug, Clone)]
pub struct FailedRecord {
    /// Its partition key (`PK`).
    pub pk: KeyText,
    /// Its sort key (`SK`).
    pub sk: KeyText,
    /// Why it cannot be read.
    pub error: Arc<ItemError>,
}

impl FailedRecord {
    /// As an [`Error::Record`].
    pub fn into_error(self) -> Error {
        Error::Record {
            pk: self.pk,
            sk: self.sk,
            source: self.error,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// What running a query returns: a page ([`Paged`]) or the first record ([`First`]).
pub trait Mode: sealed::Sealed + Send + Sync + 'static {
    /// Only the first record is read.
    const FIRST: bool;
    /// The result for records `T`.
    type Output<T: Send>: Send;
    /// The result from one page.
    #[doc(hidden)]
    fn output<T: Send>(page: Page<T>) -> Result<Self::Output<T>, Error>;
}

/// Running the query returns a [`Page`] (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct Paged;

/// Running the query returns its first record (`Option`): set by [`Query::first`](super::Query::first).
#[derive(Debug, Clone, Copy, Default)]
pub struct First;

impl sealed::Sealed for Paged {}
impl sealed::Sealed for First {}

impl Mode for Paged {
    const FIRST: bool = false;
    type Output<T: Send> = Page<T>;
    fn output<T: Send>(page: Page<T>) -> Result<Page<T>, Error> {
        Ok(page)
    }
}

impl Mode for First {
    const FIRST: bool = true;
    type Output<T: Send> = Option<T>;
    /// The first item read is the answer: an error when it is not a valid record.
    fn output<T: Send>(page: Page<T>) -> Result<Option<T>, Error> {
        match page.failed.into_iter().next() {
            Some(failed) => Err(failed.into_error()),
            None => Ok(page.records.into_iter().next()),
        }
    }
}
