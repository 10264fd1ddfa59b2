//! Saves of what changed: [`Table::save`].

use std::future::IntoFuture;

use faceteer_core::expr::{same_value, Expr};
use faceteer_core::plan::save::{save_diff, SaveDiff, SaveError};
use faceteer_core::plan::stamp::write_clock_now;
use faceteer_core::{Facet, Key};

use crate::error::{Error, Result};
use crate::exec::future::BoxFuture;
use crate::hook::{Requires, WritePath};
use crate::table::Table;
use crate::write::refusal::Conditional;

/// What a [`Table::save`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Saved {
    /// The attributes that differed were written (index keys, the TTL and `#[updated]` they
    /// move among them).
    Written {
        /// The attributes written.
        attributes: Vec<&'static str>,
    },
    /// Nothing differed: nothing was sent.
    Unchanged,
}

impl Table {
    /// Write what changed between `before`, a record as read, and `after`, the same record
    /// changed: one `UpdateItem` that sets only the attributes whose values differ and
    /// removes those `after` leaves out, with the index keys, TTL and `#[updated]` time they
    /// move — byte for byte what a put of `after` would store, without sending the rest.
    ///
    /// Concurrent writers' work is kept where it does not clash:
    ///
    /// * a facet with a `#[version]` counter: the save is conditioned on the counter as read
    ///   (and moves it), so any concurrent write fails it with [`Error::VersionConflict`];
    /// * a facet validated on write (`#[facet(validate_on_write)]`): on every field as read,
    ///   so that no merge breaks a rule across fields ([`Error::StoredValueDiffers`] names
    ///   the first that changed);
    /// * otherwise, on the read value of each field it changes and of each field an index
    ///   key it moves is built from: another writer's change of another field is kept, one
    ///   of the same field fails the save with [`Error::StoredValueDiffers`] naming it.
    ///
    /// A missing record fails it as an update does. `after` must keep `before`'s key (move a
    /// record with [`Table::move_to`]), `#[version]` and `#[created]`; a record holding
    /// attributes no field names (a flattened field's) is refused
    /// ([`Error::InvalidRequest`]: write it with a put). Unique values
    /// it changes move their guards in the same transaction; a lost answer is reported as an
    /// update's is ([`Error::OutcomeUnknown`], or resent under
    /// [`LostAnswers::Resend`](crate::LostAnswers::Resend)).
    ///
    /// ```no_run
    /// # use faceteer::{Facet, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Clone, Facet, Serialize, Deserialize)]
    /// # struct Task { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#TASK")] id: String, status: String, title: String }
    /// # async fn demo(table: &Table) -> faceteer::Result<()> {
    /// let before = table.get(&Task::key("t1", "k1")?).consistent().await?.unwrap();
    /// let mut after = before.clone();
    /// after.status = "done".into();
    /// table.save(&before, &after).await?;   // SET status, conditioned on the status read
    /// # Ok(()) }
    /// ```
    pub fn save<'a, F: Facet>(&'a self, before: &'a F, after: &'a F) -> Save<'a, F> {
        Save {
            table: self,
            before,
            after,
            when: None,
        }
    }
}

/// A save of what changed: [`Table::save`]. Await it.
#[must_use = "a save does nothing until it is awaited"]
pub struct Save<'a, F> {
    table: &'a Table,
    before: &'a F,
    after: &'a F,
    when: Option<Expr<F>>,
}

impl<F: Facet> Save<'_, F> {
    /// Save only when `cond` also holds for the stored record; otherwise fail with
    /// [`Error::ConditionFailed`] and change nothing.
    pub fn when(mut self, cond: Expr<F>) -> Self {
        self.when = Some(match self.when.take() {
            Some(w) => w.and(cond),
            None => cond,
        });
        self
    }
}

pub(crate) fn refused(e: SaveError) -> Error {
    match e {
        SaveError::Item(e) => Error::Item(e),
        other => Error::InvalidRequest(other.to_string()),
    }
}

impl<'a, F: Facet> IntoFuture for Save<'a, F> {
    type Output = Result<Saved>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let Save {
                table,
                before,
                after,
                when,
            } = self;
            table.check_declared::<F>()?;
            // The hooks see the record as changed; what they change is saved too.
            let (hooked, requires) = match table.hooks_for::<F>() {
                Some(hooks) => {
                    let (record, requires) =
                        hooks.record("UpdateItem", after, WritePath::Update).await?;
                    (Some(record), requires)
                }
                None => (None, Requires::default()),
            };
            let after = hooked.as_ref().unwrap_or(after);
            let Some(diff) = save_diff(before, after, &write_clock_now()).map_err(refused)? else {
                return Ok(Saved::Unchanged);
            };
            let key = after.primary_key()?;
            send_diff(table, &key, diff, when, &requires, false).await
        })
    }
}

/// Send `diff`, the save of the record under `key`, also on condition `when`; a refusal is
/// named from the stored record returned with it (the expectation it breaks).
/// `conflicts_expected`: a caller reads again on a conflict (no WARN event for one).
pub(crate) async fn send_diff<F: Facet>(
    table: &Table,
    key: &Key<F>,
    diff: SaveDiff<F>,
    when: Option<Expr<F>>,
    requires: &Requires,
    conflicts_expected: bool,
) -> Result<Saved> {
    // The hooks ran on the record saved.
    let mut update = table.update_stamped(key, diff.change).hooks_ran();
    if let Some(required) = requires.condition(false) {
        update = update.when(required);
    }
    if conflicts_expected {
        update = update.expecting_conflicts();
    }
    for (name, value) in &diff.expected {
        update = update.when(Expr::stored_as(name, value.clone()));
    }
    if let Some(when) = when {
        update = update.when(when);
    }
    match update.stored_on_failure().await? {
        Conditional::Applied(()) => Ok(Saved::Written {
            attributes: diff.changed,
        }),
        // Which expectation the stored record (returned with the refusal) breaks.
        Conditional::Failed { error, stored } => {
            let stored = stored.and_then(|r| faceteer_core::to_item(&r).ok());
            if let Some(veto) = requires.broken(stored.as_ref()) {
                return Err(crate::hook::refused::<F>("UpdateItem", Some(key), veto));
            }
            let differs = stored.as_ref().and_then(|item| {
                diff.expected
                    .iter()
                    .find(|(name, value)| !same_value(item.get(*name), value.as_ref()))
                    .map(|(name, _)| *name)
            });
            let (pk, sk) = (key.pk().to_owned(), key.sk().to_owned());
            Err(match differs {
                Some(field) if Some(field) == F::VERSION => Error::VersionConflict {
                    facet: F::SCHEMA.name,
                    pk: pk.into(),
                    sk: sk.into(),
                    version: version_read(&diff.expected, field),
                },
                Some(field) => Error::StoredValueDiffers {
                    facet: F::SCHEMA.name,
                    field,
                    pk: pk.into(),
                    sk: sk.into(),
                },
                None => error,
            })
        }
    }
}

/// The `#[version]` counter `field` a save expected (as read).
fn version_read(
    expected: &[(
        &'static str,
        Option<aws_sdk_dynamodb::types::AttributeValue>,
    )],
    field: &str,
) -> u64 {
    match expected.iter().find(|(n, _)| *n == field) {
        Some((_, Some(aws_sdk_dynamodb::types::AttributeValue::N(n)))) => n.parse().unwrap_or(0),
        _ => 0,
    }
}
