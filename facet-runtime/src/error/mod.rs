//! The error type of every faceteer operation, [`Error`], and the errors it wraps.
//!
//! Match on [`Error`]'s variants to react; the sub-errors here ([`KeyError`], [`ItemError`],
//! [`ExprError`], [`CancelReason`], …) say what went wrong in one part.

use faceteer_core::redact::KeyText;
use std::sync::Arc;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

mod cancel;
mod dynamo;
#[cfg(feature = "embedded")]
mod engine;
mod stream;
mod vector;

pub(crate) use cancel::OnlyCheck;
pub use cancel::{CancelReason, Canceled, TxAction, TxStep};
pub(crate) use dynamo::Context;
pub use dynamo::{DynamoError, FailureKind};
#[cfg(feature = "embedded")]
pub use engine::EngineError;
pub use stream::StreamError;
pub use vector::VectorError;

// The errors of the parts an `Error` wraps: keys, items, expressions, cursors, limits.
pub use faceteer_core::cursor::CursorError;
pub use faceteer_core::expr::ExprError;
pub use faceteer_core::layout::NamesError;
pub use faceteer_core::limits::LimitError;
pub use faceteer_core::merge::search::SearchError;
pub use faceteer_core::table::TableError;
pub use faceteer_core::unique::GuardError;
pub use faceteer_core::{ItemError, KeyError};

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
        pk: KeyText,
        /// The item's sort key.
        sk: KeyText,
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
        pk: KeyText,
        /// The record's sort key.
        sk: KeyText,
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
        pk: KeyText,
        /// The record's sort key.
        sk: KeyText,
    },
    /// An update (or upsert) found the record stored at an older schema version than the
    /// facet declares (`#[facet(schema_version = N)]`): changing some of its attributes would mix two
    /// shapes in one item, so nothing was written. Rewrite it first (`table.backfill`, or
    /// `table.modify`, which reads it upgraded and puts it whole).
    #[error(
        "the `{facet}` record (PK {pk:?}, SK {sk:?}) is stored at schema version {found}, older \
         than the facet's; nothing was written (backfill the table, or use `modify`, which \
         upgrades it)"
    )]
    OlderSchema {
        /// The facet name.
        facet: &'static str,
        /// The stored version, as text.
        found: String,
        /// The record's partition key.
        pk: KeyText,
        /// The record's sort key.
        sk: KeyText,
    },
    /// A write was sent, its answer was lost (a timeout, a dropped connection, a 5xx), and
    /// no later try could tell whether it was applied: it may or may not have been. Read the
    /// record to find out. faceteer never retries a write blindly, so it was applied at most
    /// once.
    #[error(
        "the outcome of {operation} on a `{facet}` item (PK {pk:?}, SK {sk:?}) is unknown: \
         an answer was lost after {tries} tries and it may or may not have been applied \
         (read the record to find out); last error: {cause}"
    )]
    OutcomeUnknown {
        /// `PutItem`, `DeleteItem`, `UpdateItem` or `TransactWriteItems`.
        operation: &'static str,
        /// The facet name (`(transaction)` for a transaction).
        facet: &'static str,
        /// The item's partition key (the first step's, for a transaction).
        pk: KeyText,
        /// The item's sort key.
        sk: KeyText,
        /// Tries sent.
        tries: u32,
        /// The last error.
        #[source]
        cause: std::sync::Arc<Error>,
    },
    /// A batch write was applied, but an earlier write of the same call to the same key had
    /// a try that was never answered: that try may still be applied after it, undoing it.
    /// Read the record to find out which one it holds.
    #[error(
        "written, but an earlier try of this call writing the same key (PK {pk:?}, SK {sk:?}) \
         was never answered and may still be applied after it"
    )]
    EarlierTryPending {
        /// The partition key.
        pk: KeyText,
        /// The sort key.
        sk: KeyText,
    },
    /// The call's deadline ([`Timeouts::call`](crate::Timeouts::call)) passed before it
    /// finished. A write reports this only when no try of it may have been applied (else
    /// [`Error::OutcomeUnknown`]).
    #[error(
        "{operation} on table `{table}` did not finish within its deadline of {after:?} \
         (`Timeouts::call`){}",
        if *sent { "; a request was under way" } else { "" }
    )]
    DeadlineExceeded {
        /// The operation.
        operation: &'static str,
        /// The table.
        table: String,
        /// The call's bound.
        after: std::time::Duration,
        /// Whether a request was under way when it passed.
        sent: bool,
    },
    /// DynamoDB canceled a transaction: nothing of it was applied. Each step that caused it
    /// is listed with the reason (condition failed, version conflict, a concurrent write,
    /// throttling, invalid).
    #[error("the transaction was canceled, nothing was applied: {}", canceled.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    TransactionCanceled {
        /// The steps that caused it.
        canceled: Vec<Canceled>,
    },
    /// A write would give a `#[unique]` field a value another record already holds (within
    /// the same scope, for a scoped field). Nothing was written.
    #[error(
        "another `{facet}` record already holds `{field}` = {value:?}; nothing was written \
         (the field is `#[unique]`)"
    )]
    Unique {
        /// The facet.
        facet: &'static str,
        /// The unique field's attribute.
        field: &'static str,
        /// The value, as text.
        value: String,
    },
    /// A unique field holds a value its guard cannot be built from.
    #[error(transparent)]
    Guard(#[from] faceteer_core::unique::GuardError),
    /// The request cannot be sent as asked (for example a query's `limit(0)`, or a
    /// consistent read of an index). Nothing was sent.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// A hook refused the write before anything was sent, or the stored record did not hold
    /// what a hook required ([`Write::require`](crate::hook::Write::require)); nothing was
    /// written. The hook's own error is in the [`Veto`](crate::hook::Veto).
    #[error("`{operation}` of the `{facet}` record ({pk}, {sk}) was refused: {veto}")]
    Refused {
        /// The operation (`PutItem`, `UpdateItem`, …).
        operation: &'static str,
        /// The facet.
        facet: &'static str,
        /// The record's partition key (empty when the record's key could not be built).
        pk: KeyText,
        /// The record's sort key.
        sk: KeyText,
        /// The hook's refusal.
        veto: faceteer_core::facet::Veto,
    },
    /// An update changes a member or an element inside an attribute the stored record does
    /// not hold as a map or a list (absent, or of another type): DynamoDB refused the whole
    /// update, and nothing was written.
    #[error(
        "the update of `{facet}` record ({pk}, {sk}) changes {paths}, inside an attribute the \
         stored record does not hold as a map or list (absent?); nothing was written: set the \
         whole attribute first (`f.{root}.set(..)`), or condition the update on \
         `f.{root}.exists()`"
    )]
    NoSuchPath {
        /// The facet.
        facet: &'static str,
        /// The record's partition key.
        pk: KeyText,
        /// The record's sort key.
        sk: KeyText,
        /// The paths the update changes inside attributes (`billing.city`), joined.
        paths: String,
        /// The first of their attributes.
        root: &'static str,
    },
    /// A vector search refused before sending.
    #[error(transparent)]
    Vector(#[from] VectorError),
    /// The facets given to [`Table::with_facets`](crate::Table::with_facets) cannot share a
    /// table.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The names given to [`Table::with_names`](crate::Table::with_names) do not fit the
    /// table.
    #[error("the table's names: {0}")]
    Names(#[from] faceteer_core::layout::NamesError),
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
    Engine(#[from] EngineError),
    /// Reading the table's stream failed ([`crate::stream`]).
    #[error(transparent)]
    Stream(#[from] StreamError),
    /// [`Table::create_table`](crate::Table::create_table) could not set up the table as asked.
    #[error("table setup: {0}")]
    TableSetup(String),
    /// The declared settings break one of DynamoDB's rules ([`crate::settings`]); nothing
    /// was sent.
    #[error("table settings: {0}")]
    Settings(#[from] faceteer_core::settings::SettingsError),
    /// [`Table::create_table`](crate::Table::create_table) created the table, but settings
    /// it declares did not take (the engine refused them, or accepted them without putting
    /// them in effect); [`Table::apply_settings`](crate::Table::apply_settings) tries them
    /// again.
    #[error(
        "table {table} was created, but {} of its settings did not take: {}",
        refused.len(),
        refused.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    SettingsRefused {
        /// The table.
        table: String,
        /// Each setting that did not take, and why.
        refused: Vec<faceteer_core::settings::Refused>,
    },
    /// The client could not be set up from the environment
    /// ([`connect`](crate::connect), [`Table::from_env`](crate::Table::from_env)).
    #[error("setup from the environment: {0}")]
    Setup(String),
    /// The sources of a search order one record differently
    /// ([`Table::search`](crate::Table::search)).
    #[error(transparent)]
    Search(#[from] faceteer_core::merge::search::SearchError),
    /// A record whose key an index returned could not be read from the table
    /// ([`Query::fetch_records`](crate::query::Query::fetch_records)); the page is not returned.
    #[error("reading the record (PK {pk:?}, SK {sk:?}) found through the index failed: {reason}")]
    Fetch {
        /// Its partition key.
        pk: KeyText,
        /// Its sort key.
        sk: KeyText,
        /// Why it could not be read.
        reason: Box<FailureReason>,
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
        pk: KeyText,
        /// Its sort key.
        sk: KeyText,
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

    /// A hook's refusal: of a write ([`Error::Refused`]) or of a record
    /// ([`ItemError::Refused`]).
    pub fn refusal(&self) -> Option<&faceteer_core::facet::Veto> {
        match self {
            Error::Refused { veto, .. } => Some(veto),
            Error::Item(faceteer_core::facet::ItemError::Refused { veto, .. }) => Some(veto),
            _ => None,
        }
    }

    /// `true` for [`Error::VersionConflict`].
    pub fn is_version_conflict(&self) -> bool {
        matches!(self, Error::VersionConflict { .. })
    }

    /// `true` for [`Error::Unique`]: a unique value another record holds.
    pub fn is_unique(&self) -> bool {
        matches!(self, Error::Unique { .. })
    }

    /// `true` when a request timed out ([`Timeouts`](crate::Timeouts)).
    pub fn is_timeout(&self) -> bool {
        match self {
            Error::Dynamo(e) => e.is_timeout(),
            Error::DeadlineExceeded { .. } => true,
            Error::OutcomeUnknown { cause, .. } => cause.is_timeout(),
            _ => false,
        }
    }

    /// `true` when a write's outcome is unknown ([`Error::OutcomeUnknown`]).
    pub fn is_outcome_unknown(&self) -> bool {
        matches!(self, Error::OutcomeUnknown { .. })
    }

    /// The failed DynamoDB request, for [`Error::Dynamo`].
    pub fn dynamo_error(&self) -> Option<&DynamoError> {
        match self {
            Error::Dynamo(e) => Some(e),
            _ => None,
        }
    }
}

/// Why one input of a batch was not written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FailureReason {
    /// The record could not be turned into an item (or a read item into a record, including
    /// validator failures). Nothing was sent for it.
    #[error(transparent)]
    Item(ItemError),
    /// DynamoDB still returned it as unprocessed after every try.
    #[error("still unprocessed after {attempts} attempts")]
    Unprocessed {
        /// Tries made.
        attempts: u32,
    },
    /// The request carrying it failed and was certainly not applied (shared by every input
    /// of that request), or could not be sent (for example a facet not declared on the table:
    /// nothing was sent).
    #[error("the batch request failed: {0}")]
    Request(Arc<Error>),
    /// DynamoDB refused this input as invalid. The request that carried it was split until
    /// it was alone, so its neighbours were written or read without it.
    #[error("DynamoDB refused it: {0}")]
    Refused(Arc<Error>),
}

impl FailureReason {
    /// The same reason for another input that shared the request (an item error, which is
    /// one input's own, is described by its text).
    pub(crate) fn shared(&self) -> FailureReason {
        match self {
            FailureReason::Item(e) => {
                FailureReason::Request(Arc::new(Error::InvalidRequest(e.to_string())))
            }
            FailureReason::Unprocessed { attempts } => FailureReason::Unprocessed {
                attempts: *attempts,
            },
            FailureReason::Request(e) => FailureReason::Request(e.clone()),
            FailureReason::Refused(e) => FailureReason::Refused(e.clone()),
        }
    }
}

impl Error {
    /// What planning a write refused, as the error of the write.
    pub(crate) fn from_plan(e: faceteer_core::plan::update::PlanError) -> Self {
        use faceteer_core::plan::update::PlanError;
        match e {
            PlanError::Expr(e) => e.into(),
            PlanError::Item(e) => e.into(),
            PlanError::Foreign { facet, pk, sk } => Error::ConditionFailed {
                operation: "UpdateItem",
                facet,
                pk: pk.into(),
                sk: sk.into(),
            },
            PlanError::OlderSchema {
                facet,
                found,
                pk,
                sk,
            } => Error::OlderSchema {
                facet,
                found,
                pk: pk.into(),
                sk: sk.into(),
            },
        }
    }
}
