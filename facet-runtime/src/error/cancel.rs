//! Why a transaction was canceled: its steps and their reasons.

use faceteer_core::redact::KeyText;

/// What one step of a transaction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxAction {
    /// A put.
    Put,
    /// An update.
    Update,
    /// A delete.
    Delete,
    /// A condition check.
    Check,
    /// A read (`TransactGetItems`).
    Get,
}

/// One step of a transaction: what it does and to which record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxStep {
    /// Its position in the transaction (0-based, in the order the steps were added).
    pub index: usize,
    /// The table it acts on.
    pub table: String,
    /// What it does.
    pub action: TxAction,
    /// The facet.
    pub facet: &'static str,
    /// The record's partition key.
    pub pk: KeyText,
    /// The record's sort key.
    pub sk: KeyText,
    /// What a failed condition of the step means when it is the step's only check.
    pub(crate) check: OnlyCheck,
}

/// A step whose condition is only one of the library's own checks: what its failure means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnlyCheck {
    /// The caller's condition (or several): [`CancelReason::ConditionFailed`].
    Condition,
    /// A versioned put's version check: [`CancelReason::VersionConflict`].
    Version,
    /// `create`'s "no record yet": [`CancelReason::AlreadyExists`].
    Absent,
}

/// Why DynamoDB canceled a transaction because of one step.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CancelReason {
    /// The step's condition did not hold.
    ConditionFailed,
    /// The step was a versioned put and the stored record was at another version (or
    /// existed, for a new record).
    VersionConflict,
    /// The step was a `create` and a record with its key already exists.
    AlreadyExists,
    /// Another transaction or write was changing the same record.
    Conflict,
    /// The step was throttled.
    Throttled,
    /// The step was an update naming a field unchanged (or rebuilding a key from it), and
    /// the stored record holds another value of it.
    StoredValueDiffers {
        /// The attribute whose stored value differs.
        field: &'static str,
    },
    /// DynamoDB found the step invalid.
    Invalid(String),
    /// Another reason, with DynamoDB's code and message.
    Other {
        /// The code.
        code: String,
        /// The message.
        message: String,
    },
}

impl std::fmt::Display for CancelReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CancelReason::ConditionFailed => f.write_str("its condition did not hold"),
            CancelReason::VersionConflict => {
                f.write_str("the record was changed by another writer (version check)")
            }
            CancelReason::AlreadyExists => f.write_str("a record with its key already exists"),
            CancelReason::Conflict => f.write_str("another write to the record was in progress"),
            CancelReason::Throttled => f.write_str("it was throttled"),
            CancelReason::StoredValueDiffers { field } => write!(
                f,
                "the stored record's `{field}` is not the value the update named unchanged"
            ),
            CancelReason::Invalid(m) => write!(f, "it is invalid: {m}"),
            CancelReason::Other { code, message } => write!(f, "{code}: {message}"),
        }
    }
}

/// A step that made DynamoDB cancel a transaction, and why. Its `Debug` prints the stored
/// item with the attributes of `#[sensitive]` fields masked.
#[derive(Clone, PartialEq)]
pub struct Canceled {
    /// The step.
    pub step: TxStep,
    /// Why.
    pub reason: CancelReason,
    /// The item stored under the step's key when its condition failed (DynamoDB returns it:
    /// `ReturnValuesOnConditionCheckFailure = ALL_OLD`); `None` when there was none, or the
    /// step failed for another reason. Read it typed with [`Canceled::stored`].
    pub stored_item: Option<faceteer_core::Item>,
}

impl std::fmt::Debug for Canceled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Canceled")
            .field("step", &self.step)
            .field("reason", &self.reason)
            .field(
                "stored_item",
                &self
                    .stored_item
                    .as_ref()
                    .map(faceteer_core::redact::ShownItem),
            )
            .finish()
    }
}

impl Canceled {
    /// The record stored under the step's key when its condition failed, read as a `F`
    /// (its validator runs): `Ok(None)` when no item was stored, the step failed for another
    /// reason, or the item belongs to another facet. No second read is needed to see what
    /// made a condition fail.
    pub fn stored<F: faceteer_core::Facet>(&self) -> Result<Option<F>, faceteer_core::ItemError> {
        match &self.stored_item {
            Some(item) if !faceteer_core::convert::is_foreign(item, F::SCHEMA.name) => {
                Ok(Some(faceteer_core::from_item(item.clone())?))
            }
            _ => Ok(None),
        }
    }
}

impl CancelReason {
    /// The reason of a step DynamoDB canceled with `code` and `message`, other than a failed
    /// condition (whose meaning depends on the step).
    pub(crate) fn of_code(code: String, message: String) -> CancelReason {
        match code.as_str() {
            "TransactionConflict" => CancelReason::Conflict,
            "ThrottlingError" | "ProvisionedThroughputExceeded" | "RequestLimitExceeded" => {
                CancelReason::Throttled
            }
            "ValidationError" => CancelReason::Invalid(message),
            _ => CancelReason::Other { code, message },
        }
    }
}

impl std::fmt::Display for Canceled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.step;
        write!(
            f,
            "step {} ({:?} of `{}` in table `{}`, PK {:?}, SK {:?}): {}",
            s.index, s.action, s.facet, s.table, s.pk, s.sk, self.reason
        )
    }
}
