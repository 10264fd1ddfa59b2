//! The error type of every faceteer operation.

use faceteer_core::cursor::CursorError;
use faceteer_core::expr::ExprError;
use faceteer_core::table::TableError;
use faceteer_core::{ItemError, KeyError};

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

use crate::dynamo_error::{Context, DynamoError};

/// Result alias for faceteer operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an operation failed. Match on the variants to react (for example to
/// [`Error::ConditionFailed`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A key could not be built (ambiguous value, missing shard, …).
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A record could not be converted to an item, or an item back to a record (including
    /// validator failures on read).
    #[error(transparent)]
    Item(#[from] ItemError),
    /// A condition or filter expression could not be rendered (for example a value that
    /// does not serialize).
    #[error(transparent)]
    Expr(#[from] ExprError),
    /// The cursor passed to a query is malformed or belongs to another query.
    #[error(transparent)]
    Cursor(#[from] CursorError),
    /// The condition of a conditional write was not met (for example `put_if_not_exists` on
    /// a key that already holds an item). Nothing was written.
    #[error("the condition of {operation} on a `{facet}` item (PK {pk:?}, SK {sk:?}) was not met; nothing was written")]
    ConditionFailed {
        /// `PutItem`, `DeleteItem` or `UpdateItem`.
        operation: &'static str,
        /// The facet name.
        facet: &'static str,
        /// The item's partition key.
        pk: String,
        /// The item's sort key.
        sk: String,
    },
    /// A put of a record of a facet with a `#[version]` field found the stored record at
    /// another version (another writer changed it since it was read), or found a record
    /// where a new one (version 0) was written. Nothing was written: read it again.
    #[error(
        "the `{facet}` record (PK {pk:?}, SK {sk:?}) was changed by another writer: it is no \
         longer at version {version}; nothing was written (read it again and retry, or use \
         `Table::modify`)"
    )]
    VersionConflict {
        /// The facet name.
        facet: &'static str,
        /// The record's partition key.
        pk: String,
        /// The record's sort key.
        sk: String,
        /// The version the write expected.
        version: u64,
    },
    /// An update named a field unchanged ([`Field::unchanged`](faceteer_core::expr::Field::unchanged),
    /// or a field an update that may create takes from the record it would create), and the
    /// stored record holds another value: the index keys it rebuilds would not match the
    /// record. Nothing was written: read the record and build the update from it.
    #[error(
        "the update of the `{facet}` record (PK {pk:?}, SK {sk:?}) expected `{field}` to be \
         unchanged at the value it was given, but the stored record holds another; nothing \
         was written (read the record again and build the update from it)"
    )]
    StoredValueDiffers {
        /// The facet name.
        facet: &'static str,
        /// The attribute whose stored value differs.
        field: &'static str,
        /// The record's partition key.
        pk: String,
        /// The record's sort key.
        sk: String,
    },
    /// DynamoDB canceled a transaction: nothing of it was applied. Each step that caused it
    /// is listed with the reason (condition failed, version conflict, a concurrent write,
    /// throttling, invalid).
    #[error("the transaction was canceled, nothing was applied: {}", canceled.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    TransactionCanceled {
        /// The steps that caused it.
        canceled: Vec<crate::transaction::Canceled>,
    },
    /// The request cannot be sent as asked (for example a query's `limit(0)`, or a
    /// consistent read of an index). Nothing was sent.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The facets given to [`Table::with_facets`](crate::Table::with_facets) cannot share a
    /// table.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A write of a facet that is not among the table's declared facets: it was not checked
    /// against the others, so it could overwrite their records. Nothing was written.
    #[error(
        "facet `{facet}` is not declared on table `{table}`; add it to the table's declaration \
         (`faceteer::table!`) so its keys are checked against the other facets'"
    )]
    UndeclaredFacet {
        /// The facet written.
        facet: &'static str,
        /// The table name.
        table: String,
    },
    /// The embedded engine could not start (feature `embedded`).
    #[cfg(feature = "embedded")]
    #[error(transparent)]
    Engine(#[from] crate::embedded::EngineError),
    /// [`Table::create_table`](crate::Table::create_table) could not set up the table as asked.
    #[error("table setup: {0}")]
    TableSetup(String),
    /// The sources of a search order one record differently
    /// ([`Table::search`](crate::Table::search)).
    #[error(transparent)]
    Search(#[from] faceteer_core::search::SearchError),
    /// A record whose key an index returned could not be read from the table
    /// ([`Query::fetch_records`](crate::Query::fetch_records)); the page is not returned.
    #[error("reading the record (PK {pk:?}, SK {sk:?}) found through the index failed: {reason}")]
    Fetch {
        /// Its partition key.
        pk: String,
        /// Its sort key.
        sk: String,
        /// Why it could not be read.
        reason: Box<crate::report::FailureReason>,
    },
    /// A stored item lacks a key attribute the library needs (for example to build a cursor).
    #[error("a returned item has no `{0}` string attribute")]
    MissingKeyAttribute(String),
    /// A request to DynamoDB failed: the server's code and message, or the transport cause
    /// (timeouts included), with the operation, table, facet and key.
    #[error(transparent)]
    Dynamo(Box<DynamoError>),
    /// A stored record could not be read as the facet (it does not deserialize, or fails the
    /// facet's validator). Query pages report these next to the good records
    /// ([`Page::failed`](crate::Page::failed)); this error is what stops a walk that was asked
    /// to stop at the first one.
    #[error("the stored item (PK {pk:?}, SK {sk:?}) is not a valid record: {source}")]
    Record {
        /// Its partition key.
        pk: String,
        /// Its sort key.
        sk: String,
        /// Why it cannot be read.
        #[source]
        source: std::sync::Arc<ItemError>,
    },
}

impl Error {
    pub(crate) fn dynamo<E>(
        operation: &'static str,
        context: Context,
        err: SdkError<E, HttpResponse>,
    ) -> Self
    where
        E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
        aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
    {
        Error::Dynamo(Box::new(DynamoError::new(operation, context, err)))
    }

    /// `true` for [`Error::ConditionFailed`].
    pub fn is_condition_failed(&self) -> bool {
        matches!(self, Error::ConditionFailed { .. })
    }

    /// `true` for [`Error::VersionConflict`].
    pub fn is_version_conflict(&self) -> bool {
        matches!(self, Error::VersionConflict { .. })
    }

    /// `true` when a request timed out ([`Timeouts`](crate::Timeouts)).
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Dynamo(e) if e.is_timeout())
    }

    /// The failed DynamoDB request, for [`Error::Dynamo`].
    pub fn dynamo_error(&self) -> Option<&DynamoError> {
        match self {
            Error::Dynamo(e) => Some(e),
            _ => None,
        }
    }
}
