//! What running a query returns: a [`Page`], or the first record.

/// A page of records and the cursor to the next one.
#[derive(Debug, Clone)]
#[must_use = "a page holds records and the cursor to the next page"]
pub struct Page<T> {
    /// The records, in sort-key order (descending with `.reverse()`).
    pub records: Vec<T>,
    /// Where the next page starts: `None` exactly when the query is exhausted. Pass it to
    /// [`Query::cursor`](super::Query::cursor).
    pub cursor: Option<String>,
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
    fn output<T: Send>(page: Page<T>) -> Self::Output<T>;
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
    fn output<T: Send>(page: Page<T>) -> Page<T> {
        page
    }
}

impl Mode for First {
    const FIRST: bool = true;
    type Output<T: Send> = Option<T>;
    fn output<T: Send>(page: Page<T>) -> Option<T> {
        page.records.into_iter().next()
    }
}
