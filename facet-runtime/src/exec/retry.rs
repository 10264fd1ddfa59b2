//! What a failed request tells: whether to try again, whether it may have been applied; and
//! the deadline that bounds a call's tries.

use crate::error::{CancelReason, Canceled, Error};
use crate::exec::trace::Op;

/// Whether a batch's requests change the table (writes) or only read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// A failed request may still have been applied unless the server said it was not.
    Writes,
    /// A failed request changed nothing.
    Reads,
}

/// What a failed request tells about its inputs.
pub(crate) struct Verdict {
    /// Another try may succeed.
    pub(crate) transient: bool,
    /// The request may have been applied.
    pub(crate) maybe_applied: bool,
    /// The server refused the request as invalid: one of its inputs is bad.
    pub(crate) invalid: bool,
}

/// What `error`, the failure of one request with `effect`, tells about it.
pub(crate) fn verdict(error: &Error, effect: Effect) -> Verdict {
    match error {
        Error::Dynamo(e) => Verdict {
            transient: e.is_transient(),
            maybe_applied: effect == Effect::Writes && !e.was_rejected() && !e.was_not_sent(),
            invalid: e.is_validation(),
        },
        // The call's deadline passed: no more tries; one under way may have been applied.
        Error::DeadlineExceeded { sent, .. } => Verdict {
            transient: false,
            maybe_applied: effect == Effect::Writes && *sent,
            invalid: false,
        },
        // Canceled only by other transactions or throttling: nothing was applied, and
        // another try may go through.
        Error::TransactionCanceled { canceled } => Verdict {
            transient: may_pass_again(canceled),
            maybe_applied: false,
            invalid: false,
        },
        _ => Verdict {
            transient: false,
            maybe_applied: false,
            invalid: false,
        },
    }
}

/// Whether a transaction DynamoDB canceled for `canceled` changed nothing and may pass
/// another time: every step that caused it met another transaction or throttling.
pub(crate) fn may_pass_again(canceled: &[Canceled]) -> bool {
    !canceled.is_empty()
        && canceled
            .iter()
            .all(|c| matches!(c.reason, CancelReason::Conflict | CancelReason::Throttled))
}

/// A call's deadline, and the call it bounds: its error, for an input left unsent by it,
/// is made only then (batches make one deadline per request).
#[derive(Clone, Copy)]
pub(crate) struct Deadline<'a> {
    /// When the call must be over.
    pub(crate) at: tokio::time::Instant,
    /// The call (none in unit tests).
    pub(crate) op: Option<&'a Op>,
}

impl<'a> Deadline<'a> {
    /// The deadline of the call `op`.
    pub(crate) fn of(op: &'a Op) -> Self {
        Deadline {
            at: op.deadline(),
            op: Some(op),
        }
    }

    pub(crate) fn exceeded(&self) -> Error {
        match self.op {
            Some(op) => op.deadline_exceeded(false),
            None => Error::InvalidRequest("the call's deadline passed".into()),
        }
    }
}
