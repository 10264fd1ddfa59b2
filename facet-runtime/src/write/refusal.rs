//! The stored record when a write's condition fails: [`Conditional`], asked for per call with
//! `stored_on_failure()` on a put, a delete, an update or an upsert.
//!
//! DynamoDB returns the item a failed condition saw
//! (`ReturnValuesOnConditionCheckFailure = ALL_OLD`, which faceteer always asks for to send
//! writes exactly once): with `stored_on_failure()`, the write hands it back typed, so no
//! second read is needed to see what made it fail.
//!
//! ```no_run
//! # use faceteer::{write::Conditional, Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Order { #[pk(prefix = "#ORDER")] #[sk(prefix = "#ORDER")] id: String, status: String }
//! # async fn demo(table: &Table, order: Order) -> faceteer::Result<()> {
//! let f = Order::fields();
//! match table.put(&order).when(f.status.eq("open")).stored_on_failure().await? {
//!     Conditional::Applied(()) => println!("written"),
//!     Conditional::Failed { stored: Some(now), .. } => println!("it is {} now", now.status),
//!     Conditional::Failed { stored: None, .. } => println!("there is no order"),
//! }
//! # Ok(()) }
//! ```

use std::future::IntoFuture;
use std::marker::PhantomData;

use faceteer_core::convert::is_foreign;
use faceteer_core::{from_item, Facet, Item};

use crate::error::{Error, Result};
use crate::exec::future::BoxFuture;
use crate::exec::trace::Op;

/// A write's failure, with the item stored under its key when its condition failed.
#[doc(hidden)]
pub struct Refusal {
    pub(crate) error: Error,
    pub(crate) stored: Option<Item>,
}

impl From<Error> for Refusal {
    fn from(error: Error) -> Self {
        Refusal {
            error,
            stored: None,
        }
    }
}

/// The answer of a write, with the stored item when its condition failed.
pub(crate) type Written<T> = std::result::Result<T, Refusal>;

/// Record a write's outcome: one record, or the error.
pub(crate) fn one<T>(op: &Op, result: &Written<T>) {
    op.finish(result.as_ref().map(|_| 1).map_err(|r| &r.error));
}

/// What a write asked for the stored record on failure gives
/// ([`StoredOnFailure`]): applied, or refused by its condition with the record the failed
/// condition saw.
#[derive(Debug)]
#[must_use = "a `Failed` write wrote nothing"]
pub enum Conditional<T, F> {
    /// The write was applied; what it returns.
    Applied(T),
    /// The write's condition failed: nothing was written.
    Failed {
        /// What the write without `stored_on_failure()` fails with:
        /// [`Error::ConditionFailed`], [`Error::VersionConflict`] or
        /// [`Error::StoredValueDiffers`].
        error: Error,
        /// The record stored under the key when the condition failed (its validator ran):
        /// `None` when there was none, or an item of another facet.
        stored: Option<F>,
    },
}

impl<T, F> Conditional<T, F> {
    /// `true` when the write was applied.
    pub fn is_applied(&self) -> bool {
        matches!(self, Conditional::Applied(_))
    }

    /// What the write returned, or its error (dropping the stored record).
    pub fn into_result(self) -> Result<T> {
        match self {
            Conditional::Applied(t) => Ok(t),
            Conditional::Failed { error, .. } => Err(error),
        }
    }
}

/// A write that can hand back the stored item when its condition fails. Implemented by the
/// write builders; not to be implemented elsewhere.
#[doc(hidden)]
pub trait Refusable<'a>: Sized {
    /// The facet written.
    type Facet: Facet;
    /// What the write returns when applied.
    type Value: Send + 'a;
    /// Send the write.
    #[doc(hidden)]
    fn send(self) -> BoxFuture<'a, Written<Self::Value>>;
}

/// A write whose failed condition gives back the stored record: made by
/// `stored_on_failure()` on [`Put`](crate::write::Put), [`Delete`](crate::write::Delete),
/// [`UpdateItem`](crate::write::UpdateItem) and [`Upsert`](crate::write::Upsert). Await it.
#[must_use = "a write does nothing until it is awaited"]
pub struct StoredOnFailure<'a, W>(W, PhantomData<&'a ()>);

impl<'a, W: Refusable<'a>> StoredOnFailure<'a, W> {
    /// `write`, giving back the stored record on a failed condition.
    pub(crate) fn new(write: W) -> Self {
        StoredOnFailure(write, PhantomData)
    }
}

/// Whether `error` is a write refused by its condition.
fn refused_by_condition(error: &Error) -> bool {
    matches!(
        error,
        Error::ConditionFailed { .. }
            | Error::VersionConflict { .. }
            | Error::StoredValueDiffers { .. }
    )
}

impl<'a, W: Refusable<'a>> IntoFuture for StoredOnFailure<'a, W> {
    type Output = Result<Conditional<W::Value, W::Facet>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let sent = self.0.send();
        Box::pin(async move {
            match sent.await {
                Ok(value) => Ok(Conditional::Applied(value)),
                Err(Refusal { error, stored }) if refused_by_condition(&error) => {
                    let stored = match stored {
                        Some(item) if !is_foreign(&item, W::Facet::SCHEMA.name) => {
                            Some(from_item::<W::Facet>(item)?)
                        }
                        _ => None,
                    };
                    Ok(Conditional::Failed { error, stored })
                }
                Err(refusal) => Err(refusal.error),
            }
        })
    }
}

/// A plain write's answer: its error, without the stored item.
pub(crate) fn plain<'a, T: Send + 'a>(sent: BoxFuture<'a, Written<T>>) -> BoxFuture<'a, Result<T>> {
    Box::pin(async move { sent.await.map_err(|r| r.error) })
}

/// `refusal`, a refused write of `F` under `key`, as the refusal of the hook whose
/// requirement the stored record it returned breaks (when it was refused by its condition).
pub(crate) fn named<F: faceteer_core::Facet>(
    requires: &crate::hook::Requires,
    operation: &'static str,
    key: Option<&faceteer_core::Key<F>>,
    refusal: Refusal,
) -> Refusal {
    let by_condition = matches!(
        refusal.error,
        Error::ConditionFailed { .. } | Error::VersionConflict { .. }
    );
    match requires.broken(refusal.stored.as_ref()) {
        Some(veto) if by_condition => Refusal {
            error: crate::hook::refused::<F>(operation, key, veto),
            stored: refusal.stored,
        },
        _ => refusal,
    }
}

/// The refusal of a write that would store some attributes of an encrypted facet's item by
/// an `UpdateItem` (an upsert, an update that creates the record): the item is signed whole,
/// so it is written whole (nothing is sent).
pub(crate) fn encrypted_whole<F: faceteer_core::Facet>(what: &str) -> crate::Error {
    crate::Error::InvalidRequest(format!(
        "`{}` has encrypted or signed fields, whose item is encrypted and signed whole on the \
         client: {what} would store its attributes through an UpdateItem. Put the record \
         (`table.put`, `put().if_absent()`), or change it with `table.modify(..)`",
        F::SCHEMA.name
    ))
}
