//! Writes: awaitable builders made by [`Table::put`], [`Table::delete`], [`Table::update`],
//! [`Table::upsert`], [`Table::modify`] and [`Table::move_to`], with the same options
//! everywhere, exactly once. Reads of one record are in [`crate::read`].
//!
//! ```no_run
//! # use faceteer::{Facet, Pick, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # #[facet(pick_validator = trust)]
//! # struct Doc { #[pk(prefix = "#DOC")] #[sk(prefix = "#DOC")] id: String, version: u64, title: String }
//! # #[derive(Pick)] #[pick(facet = Doc)] struct Title { title: String }
//! # async fn demo(table: &Table, doc: Doc) -> faceteer::Result<()> {
//! let f = Doc::fields();
//! table.put(&doc).if_not_exists().await?;
//! table.put(&doc).when(f.version.eq(3)).await?;
//! let title = table.get(&Doc::key("d1")?).consistent().select::<Title>().await?;
//! table.delete(&Doc::key("d1")?).if_exists().await?;
//! # Ok(()) }
//! ```

pub(crate) mod delete;
pub(crate) mod modify;
pub(crate) mod move_to;
pub(crate) mod put;
pub(crate) mod refusal;
pub(crate) mod returns;
mod send;
mod transact;
pub(crate) mod update;
pub(crate) mod upsert;

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
        pk,
        sk,
    }
}
