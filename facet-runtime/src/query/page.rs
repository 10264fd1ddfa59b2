//! The options every paged read shares (queries, scans, collections, searches): how many
//! records a page holds, in which order, where it resumes, and whether reads are
//! strongly consistent. One type holds them, and one macro writes their setters.

use faceteer_core::schema::{IndexKind, IndexSchema};

use crate::error::{Error, Result};

/// A cursor given to `cursor(..)` (of a query, scan, collection or search): a cursor string (`String`, `&str`), or a page's
/// `Option<String>` (`None`: from the start).
pub trait IntoCursor {
    /// The cursor, if any.
    fn into_cursor(self) -> Option<String>;
}

impl IntoCursor for String {
    fn into_cursor(self) -> Option<String> {
        Some(self)
    }
}

impl IntoCursor for &str {
    fn into_cursor(self) -> Option<String> {
        Some(self.to_owned())
    }
}

impl IntoCursor for &String {
    fn into_cursor(self) -> Option<String> {
        Some(self.clone())
    }
}

impl IntoCursor for Option<String> {
    fn into_cursor(self) -> Option<String> {
        self
    }
}

impl IntoCursor for Option<&str> {
    fn into_cursor(self) -> Option<String> {
        self.map(str::to_owned)
    }
}

/// Page size, order, resume point and consistency of a paged read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PageOptions {
    /// At most this many records per page (`None`: as many as a request returns).
    pub(crate) limit: Option<u32>,
    /// Walk the sort key (or merge) in descending order.
    pub(crate) reverse: bool,
    /// Resume after the page whose cursor this is.
    pub(crate) cursor: Option<String>,
    /// Strongly consistent reads.
    pub(crate) consistent: bool,
}

impl PageOptions {
    /// Refuse what DynamoDB would: a limit of 0, and consistent reads of an index (`on_index`).
    pub(crate) fn check(&self, index: Option<&IndexSchema>) -> Result<()> {
        if self.limit == Some(0) {
            return Err(Error::InvalidRequest("limit must be at least 1".into()));
        }
        let global = index.is_some_and(|i| i.kind == IndexKind::Global);
        if self.consistent && global {
            return Err(Error::InvalidRequest(
                "global secondary indexes do not support consistent reads".into(),
            ));
        }
        Ok(())
    }
}

/// The setters of the page options a builder with a `page: PageOptions` field offers, in
/// order: `page_setters!(limit, reverse, cursor, consistent)`. Each may be preceded by doc
/// lines of the builder's own, appended to the shared ones.
macro_rules! page_setters {
    ($($(#[doc = $doc:expr])* $name:ident),+ $(,)?) => {
        $( $crate::query::page::page_setter!($(#[doc = $doc])* $name); )+
    };
}

/// One setter of [`page_setters!`].
macro_rules! page_setter {
    ($(#[doc = $doc:expr])* limit) => {
        /// Return at most `n` records per page (`n` ≥ 1; any `u32`, `u32::MAX` included).
        $(#[doc = $doc])*
        pub fn limit(mut self, n: u32) -> Self {
            self.page.limit = Some(n);
            self
        }
    };
    ($(#[doc = $doc:expr])* reverse) => {
        /// Walk the sort key in descending order.
        $(#[doc = $doc])*
        pub fn reverse(mut self) -> Self {
            self.page.reverse = true;
            self
        }
    };
    ($(#[doc = $doc:expr])* cursor) => {
        /// Continue after the page whose cursor this is: a cursor string, or the
        /// `Option<String>` of a page (`None` starts at the beginning).
        $(#[doc = $doc])*
        pub fn cursor(mut self, cursor: impl $crate::query::page::IntoCursor) -> Self {
            self.page.cursor = $crate::query::page::IntoCursor::into_cursor(cursor);
            self
        }
    };
    ($(#[doc = $doc:expr])* consistent) => {
        /// Use strongly consistent reads.
        $(#[doc = $doc])*
        pub fn consistent(mut self) -> Self {
            self.page.consistent = true;
            self
        }
    };
}

pub(crate) use {page_setter, page_setters};
