//! Deletes of one record: [`Table::delete`], with `.if_exists()` and `.when(..)`.

use std::future::IntoFuture;
use std::sync::Arc;

use faceteer_core::expr::Expr;
use faceteer_core::plan::DeletePlan;
use faceteer_core::{Facet, Item, Key};

use crate::error::Result;
use crate::exec::future::{traced, BoxFuture};
use crate::exec::once;
use crate::exec::sdk::Reply;
use crate::exec::trace::Op;
use crate::table::Table;
use crate::unique;
use crate::wire::keys::key_pair;
use crate::write::condition::{and, condition, condition_failed};
use crate::write::refusal::{self, Refusable, Refusal, StoredOnFailure, Written};

impl Table {
    /// Delete one record by key (nothing happens when there is none).
    ///
    /// Exactly once, as [`Table::put`]: a conditional delete whose answer was lost and whose
    /// next try fails its condition is [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown).
    ///
    /// Options: [`Delete::if_exists`], [`Delete::when`].
    pub fn delete<F: Facet>(&self, key: &Key<F>) -> Delete<'_, F> {
        Delete {
            table: self,
            key: key.clone(),
            item_exists: None,
            when: None,
            hooked: false,
        }
    }
}

/// A delete of one record: [`Table::delete`]. Await it.
#[must_use = "a delete does nothing until it is awaited"]
pub struct Delete<'a, F> {
    table: &'a Table,
    key: Key<F>,
    item_exists: Option<bool>,
    when: Option<Expr<F>>,
    /// The hooks ran: this is the delete they let through.
    hooked: bool,
}

impl<'a, F: Facet> Delete<'a, F> {
    /// Delete only when an item has the key; otherwise fail with [`Error::ConditionFailed`](crate::Error::ConditionFailed).
    pub fn if_exists(mut self) -> Self {
        self.item_exists = Some(true);
        self
    }

    /// Delete only when `cond` holds for the stored item; otherwise fail with
    /// [`Error::ConditionFailed`](crate::Error::ConditionFailed) and delete nothing. Several conditions join with `AND`.
    pub fn when(mut self, cond: Expr<F>) -> Self {
        self.when = and(self.when, cond);
        self
    }

    /// Its table, key, existence condition and condition: a transaction's delete step.
    pub(crate) fn into_step(self) -> (&'a Table, Key<F>, Option<bool>, Option<Expr<F>>) {
        (self.table, self.key, self.item_exists, self.when)
    }

    /// The request this delete sends (inspectable without a server).
    pub fn plan(&self) -> Result<DeletePlan> {
        // A key built by hand (`Key::from_parts`) must not reach a unique value's guard.
        faceteer_core::unique::check_table_partition(self.key.pk())?;
        Ok(DeletePlan {
            key: self.key.to_item(),
            condition: condition(self.item_exists, self.when.as_ref())?,
        })
    }
}

impl<'a, F: Facet> Delete<'a, F> {
    /// On a failed condition, give back the record stored under the key, typed
    /// ([`Conditional::Failed`](crate::write::Conditional::Failed)), instead of failing with the
    /// error alone.
    pub fn stored_on_failure(self) -> StoredOnFailure<'a, Self> {
        StoredOnFailure::new(self)
    }
}

impl<'a, F: Facet> IntoFuture for Delete<'a, F> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        refusal::plain(self.send())
    }
}

impl<'a, F: Facet> Refusable<'a> for Delete<'a, F> {
    type Facet = F;
    type Value = ();

    fn send(mut self) -> BoxFuture<'a, Written<()>> {
        if !self.hooked {
            if let Some(hooked) = self.table.hooks_for::<F>() {
                return Box::pin(async move {
                    let requires = hooked
                        .delete(&self.key, crate::hook::WritePath::Delete)
                        .await?;
                    let key = self.key.clone();
                    self.hooked = true;
                    if let Some(required) = requires.condition(false) {
                        self.when = and(self.when.take(), required);
                    }
                    self.send().await.map_err(|r| {
                        crate::write::refusal::named::<F>(&requires, "DeleteItem", Some(&key), r)
                    })
                });
            }
        }
        let table = self.table;
        let op = Op::new("DeleteItem", table, F::SCHEMA.name, None);
        let plan = table.check_declared::<F>().and_then(|()| self.plan());
        let refused = |key: &Item, stored| Refusal {
            error: condition_failed::<F>("DeleteItem", key),
            stored,
        };
        if !F::SCHEMA.unique.is_empty() {
            let work = move |op: Arc<Op>| async move {
                let plan = plan?;
                let (key, item_exists, when) = (self.key, self.item_exists, self.when);
                let targets = [unique::Target {
                    schema: F::SCHEMA,
                    key: plan.key.clone(),
                    watch: Vec::new(),
                }];
                let answer = unique::run(table, &op, &targets, |reads| {
                    let extra = unique::unchanged::<F>(&targets[0], reads[0].as_ref());
                    Ok(unique::Built {
                        tx: table.guarded_transaction().delete_step(
                            &key,
                            item_exists,
                            when.as_ref(),
                            Some(extra),
                        ),
                        after: vec![None],
                    })
                })
                .await?;
                answer.map_err(|r| refused(&plan.key, r.stored))
            };
            return traced(op, refusal::one, work);
        }
        let work = move |op: Arc<Op>| async move {
            let plan = plan?;
            let key = key_pair(&plan.key);
            let request = once::Single::Delete(plan.request(table.name()));
            match once::write(table, &op, &key, request).await? {
                Reply::Applied(_) => Ok(()),
                Reply::ConditionFailed(stored) => Err(refused(&plan.key, stored)),
            }
        };
        traced(op, refusal::one, work)
    }
}
