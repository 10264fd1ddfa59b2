//! Moving a record to a new key: [`Table::move_to`].
//!
//! A key field cannot be updated in place (DynamoDB keys are fixed): the record must be
//! written under its new key and deleted under its old one, both or neither. `move_to` is
//! that transaction, with the guards of the record's unique values moved along.
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Task { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#TASK")] id: String, title: String }
//! # async fn demo(table: &Table, mut task: Task) -> faceteer::Result<()> {
//! let old = Task::key(&task.team, &task.id)?;
//! task.team = "platform".into();
//! table.move_to(&old, &task).await?; // gone from the old team, in the new one
//! # Ok(()) }
//! ```

use std::future::IntoFuture;
use std::sync::Arc;

use faceteer_core::expr::Expr;
use faceteer_core::plan::RenderedCondition;
use faceteer_core::{Facet, Key};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{CancelReason, Error, OnlyCheck, Result};
use crate::exec::future::{records, traced, BoxFuture};
use crate::exec::trace::Op;
use crate::hook::WritePath;
use crate::table::Table;
use crate::unique;
use crate::wire::keys::key_pair;
use crate::write::condition::condition_failed;
use faceteer_core::plan::put::put_plan;
use faceteer_core::plan::stamp::write_clock_now;
use faceteer_core::plan::stamp::Created;

impl Table {
    /// Move a record to a new key: one transaction deletes the record under `old` (on
    /// condition that it exists, and, for a facet with a `#[version]` field, that it is at
    /// `record`'s version) and creates `record` under its own key (on condition that no
    /// record has it). The guards of its `#[unique]` values move with it. Both or neither.
    ///
    /// Fails with [`Error::ConditionFailed`] when there is no record under `old`, or one
    /// under the new key already; [`Error::VersionConflict`] when the old record is at
    /// another version; [`Error::Unique`] when a unique value of `record` is another
    /// record's. Exactly once, as every transaction.
    pub fn move_to<'a, F: Facet>(&'a self, old: &Key<F>, record: &'a F) -> MoveTo<'a, F> {
        MoveTo {
            table: self,
            old: old.clone(),
            record,
        }
    }
}

/// A move of a record to a new key: [`Table::move_to`]. Await it.
#[must_use = "a move does nothing until it is awaited"]
pub struct MoveTo<'a, F> {
    table: &'a Table,
    old: Key<F>,
    record: &'a F,
}

impl<'a, F: Facet> IntoFuture for MoveTo<'a, F> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        let MoveTo {
            table,
            old: old_key,
            record,
        } = self;
        let old = old_key.to_item();
        let op = Op::new("TransactWriteItems", table, F::SCHEMA.name, None);
        let work = move |op: Arc<Op>| async move {
            table.check_declared::<F>()?;
            // The hooks see the record at its new key, and the delete of the old one.
            let (owned, required) = match table.hooks_for::<F>() {
                Some(hooks) => {
                    let (record, _) = hooks
                        .record("TransactWriteItems", record, WritePath::Move)
                        .await?;
                    let required = hooks.delete(&old_key, WritePath::Move).await?;
                    (Some(record), Some(required))
                }
                None => (None, None),
            };
            let record = owned.as_ref().unwrap_or(record);
            let new_key = record.primary_key()?.to_item();
            if key_pair(&new_key) == key_pair(&old) {
                return Err(Error::InvalidRequest(
                    "the record's key is the old key: nothing to move (use `put` or `update`)"
                        .into(),
                ));
            }
            let version = F::VERSION.map(|name| (name, record.version()));
            let targets = [
                unique::Target {
                    schema: F::SCHEMA,
                    key: old.clone(),
                    watch: F::CREATED.into_iter().collect(),
                },
                unique::Target {
                    schema: F::SCHEMA,
                    key: new_key.clone(),
                    watch: Vec::new(),
                },
            ];
            let answer = unique::run(table, &op, &targets, |reads| {
                // The old record: it exists, at the version, and still owns what was read.
                let mut cond: Expr<F> = unique::unchanged(&targets[0], reads[0].as_ref());
                if let Some(required) = required.as_ref().and_then(|r| r.condition(false)) {
                    cond = cond.and(required);
                }
                if let Some((name, v)) = version {
                    let v = AttributeValue::N(v.to_string());
                    cond = cond.and(Expr::stored_as(name, Some(v)));
                }
                let check = if version.is_some() {
                    OnlyCheck::Version
                } else {
                    OnlyCheck::Condition
                };
                // The new one: created, whatever version the record is at, and created when
                // the old one was.
                let created = F::CREATED.and_then(|c| reads[0].as_ref()?.get(c).cloned());
                let mut create = put_plan(
                    record,
                    None,
                    None,
                    Created::Keep(created),
                    &write_clock_now(),
                )
                .map_err(Error::from_plan)?;
                create.condition = RenderedCondition::all::<F>(Some(false), None)?;
                let after = vec![None, Some(create.item.clone())];
                let tx = table
                    .guarded_transaction()
                    .delete_step_checked(&old_key, Some(true), cond, check)
                    .planned_put_step::<F>(Ok(create), OnlyCheck::Absent);
                Ok(unique::Built { tx, after })
            })
            .await?;
            match answer {
                Ok(()) => Ok(()),
                Err(refused) if refused.target == 0 => Err(match (refused.reason, version) {
                    (CancelReason::VersionConflict, Some((_, version)))
                        if refused.stored.is_some() =>
                    {
                        let (pk, sk) = key_pair(&old);
                        Error::VersionConflict {
                            facet: F::SCHEMA.name,
                            pk: pk.into(),
                            sk: sk.into(),
                            version,
                        }
                    }
                    _ => condition_failed::<F>("DeleteItem", &old),
                }),
                Err(_) => Err(condition_failed::<F>("PutItem", &new_key)),
            }
        };
        traced(op, records(|_| 2), work)
    }
}
