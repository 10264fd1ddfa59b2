//! The conditions every write shares: an item that must (not) exist, the caller's
//! expression, and the error a failed one gives.

use faceteer_core::expr::Expr;
use faceteer_core::plan::RenderedCondition;
use faceteer_core::{Facet, Item};

use crate::error::{Error, Result};
use crate::wire::keys::key_pair;

/// The condition of a write: whether an item must exist under the key, and an expression.
pub(crate) fn condition<F>(
    item_exists: Option<bool>,
    when: Option<&Expr<F>>,
) -> Result<Option<RenderedCondition>> {
    Ok(RenderedCondition::all(item_exists, when)?)
}

/// Add `cond` to a write's expression with `AND`.
pub(crate) fn and<F>(when: Option<Expr<F>>, cond: Expr<F>) -> Option<Expr<F>> {
    Some(match when {
        Some(existing) => existing.and(cond),
        None => cond,
    })
}

/// [`Error::ConditionFailed`](crate::Error::ConditionFailed) for `operation` on the item (or key) `item` of facet `F`.
pub(crate) fn condition_failed<F: Facet>(operation: &'static str, item: &Item) -> Error {
    let (pk, sk) = key_pair(item);
    Error::ConditionFailed {
        operation,
        facet: F::SCHEMA.name,
        pk: pk.into(),
        sk: sk.into(),
    }
}
