//! Writes of one record: [`Table::put`], exactly once, keeping a replaced record's
//! `#[created]`, with `.if_not_exists()`, `.when(..)` and `.returning_stored()`.

use std::future::IntoFuture;
use std::sync::Arc;

use faceteer_core::expr::Expr;
use faceteer_core::plan::PutPlan;
use faceteer_core::{Facet, Item};

use crate::error::{Error, Result};
use crate::exec::future::{traced, BoxFuture};
use crate::exec::once;
use crate::exec::sdk::Reply;
use crate::exec::trace::Op;
use crate::hook::{Hooked, WritePath};
use crate::table::Table;
use crate::transaction::put_check;
use crate::unique;
use crate::wire::keys::key_pair;
use crate::write::condition::{and, condition_failed};
use crate::write::refusal::{self, Refusable, Refusal, StoredOnFailure, Written};
use faceteer_core::plan::put::put_plan;
use faceteer_core::plan::stamp::write_clock_now;
use faceteer_core::plan::stamp::Created;

impl Table {
    /// Write one record, replacing any item with the same key. A record replaced keeps its
    /// `#[created]` time (see [`Put::created_now`]); `#[updated]` is the time of the write.
    ///
    /// Exactly once: `Ok` when it was applied, a "not applied" error only when it certainly
    /// was not, else [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown) (a lost answer that no later try could
    /// settle; see [`guide::exactly_once`](crate::guide::exactly_once)).
    ///
    /// Options: [`Put::if_not_exists`], [`Put::when`].
    pub fn put<'a, F: Facet>(&'a self, record: &'a F) -> Put<'a, F> {
        Put {
            table: self,
            record,
            item_exists: None,
            when: None,
            conflict_expected: false,
            created_now: false,
            created_as_is: false,
            hook_when: None,
            hooked: false,
        }
    }
}

/// A write of one record: [`Table::put`]. Await it.
#[must_use = "a put does nothing until it is awaited"]
pub struct Put<'a, F> {
    table: &'a Table,
    record: &'a F,
    item_exists: Option<bool>,
    when: Option<Expr<F>>,
    /// The caller handles a version conflict (a `modify` reads again).
    conflict_expected: bool,
    /// Set `#[created]` to the time of the write even when a record is replaced.
    created_now: bool,
    /// Write the record's own `#[created]` value (a record read and written back).
    created_as_is: bool,
    /// What the hooks require of the stored record (not a condition of the caller's: a
    /// failed version check is still a version conflict).
    hook_when: Option<Expr<F>>,
    /// The hooks ran: this is the put of the record they left.
    hooked: bool,
}

impl<'a, F: Facet> Put<'a, F> {
    /// The same put, for a caller that handles a version conflict itself (no WARN event).
    pub(crate) fn expecting_conflicts(mut self) -> Self {
        self.conflict_expected = true;
        self
    }

    /// Set the `#[created]` field to the time of the write even when the put replaces a
    /// stored record: one request, whatever is stored.
    ///
    /// Without it, a put keeps the `#[created]` time of the record it replaces (a OneTable-
    /// style `save` of a record read and changed keeps its creation time). That costs a
    /// second request when a record is stored: the put is sent first on condition that none
    /// is (it then creates, with the time of the write), and when one is, again with the
    /// stored `#[created]`, on condition that it is still stored. A versioned put past
    /// version 0 is sent first with the record's own `#[created]` (it was read at that
    /// version). A facet with `#[unique]` fields reads the stored record first anyway.
    pub fn created_now(mut self) -> Self {
        self.created_now = true;
        self
    }

    /// Write only when no item has the record's key yet; otherwise fail with
    /// [`Error::ConditionFailed`](crate::Error::ConditionFailed) and write nothing.
    pub fn if_not_exists(mut self) -> Self {
        self.item_exists = Some(false);
        self
    }

    /// Write only when `cond` holds for the item stored under the key (a missing item has no
    /// attributes: `not_exists()` holds, comparisons do not); otherwise fail with
    /// [`Error::ConditionFailed`](crate::Error::ConditionFailed) and write nothing. Several conditions join with `AND`.
    pub fn when(mut self, cond: Expr<F>) -> Self {
        self.when = and(self.when, cond);
        self
    }

    /// The request this put sends (inspectable without a server). For a facet with a
    /// `#[version]` field, it stores the record's version plus one, on condition that the
    /// stored record is at the record's version (no record, for version 0). For a facet with
    /// a `#[created]` field, the request as [`Put::created_now`] sends it: without that
    /// option, the time stored is the one the record replaced holds, when there is one.
    pub fn plan(&self) -> Result<PutPlan> {
        let created = if self.created_as_is {
            Created::AsIs
        } else {
            Created::Now
        };
        put_plan(
            self.record,
            self.item_exists,
            self.when.as_ref(),
            created,
            &write_clock_now(),
        )
        .map_err(Error::from_plan)
    }

    /// The same put of a record the hooks already ran on, with what they `required`.
    pub(crate) fn hooks_ran(mut self, required: &crate::hook::Requires) -> Self {
        self.hooked = true;
        self.hook_when = required.condition(true);
        self
    }

    /// Its table, record, existence condition and condition: a transaction's put step.
    pub(crate) fn into_step(self) -> (&'a Table, &'a F, Option<bool>, Option<Expr<F>>) {
        (self.table, self.record, self.item_exists, self.when)
    }

    /// The same put, writing the record's own `#[created]` value (it was read from the
    /// table: `modify`).
    pub(crate) fn created_as_read(mut self) -> Self {
        self.created_as_is = true;
        self
    }
}

impl<'a, F: Facet> Put<'a, F> {
    /// On a failed condition, give back the record stored under the key, typed
    /// ([`Conditional::Failed`](crate::write::Conditional::Failed)), instead of failing with the
    /// error alone.
    pub fn stored_on_failure(self) -> StoredOnFailure<'a, Self> {
        StoredOnFailure::new(self)
    }
}

impl<'a, F: Facet> IntoFuture for Put<'a, F> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        refusal::plain(self.send())
    }
}

impl<'a, F: Facet> Refusable<'a> for Put<'a, F> {
    type Facet = F;
    type Value = ();

    fn send(self) -> BoxFuture<'a, Written<()>> {
        let sent = self.send_item();
        Box::pin(async move { sent.await.map(|_| ()) })
    }
}

impl<'a, F: Facet> Put<'a, F> {
    /// Return the record as the put stored it: its `#[created]` and `#[updated]` times as
    /// stored (the time of the write, or the `#[created]` time kept), its `#[version]` moved.
    pub fn returning_stored(self) -> PutReturning<'a, F> {
        PutReturning(self)
    }

    /// Run the hooks on a copy of the record, then put the copy, on condition that the
    /// stored record holds what they require (or none is stored).
    fn send_hooked(self, hooked: Hooked<'a, F>) -> BoxFuture<'a, Written<Item>> {
        Box::pin(async move {
            let key = self.record.primary_key().ok();
            let (record, requires) = hooked
                .record("PutItem", self.record, WritePath::Put)
                .await?;
            let put = Put {
                table: self.table,
                record: &record,
                item_exists: self.item_exists,
                when: self.when,
                conflict_expected: self.conflict_expected,
                created_now: self.created_now,
                created_as_is: self.created_as_is,
                hook_when: requires.condition(true),
                hooked: true,
            };
            put.send_item().await.map_err(|r| {
                crate::write::refusal::named::<F>(&requires, "PutItem", key.as_ref(), r)
            })
        })
    }

    /// Send the put; the item stored.
    fn send_item(mut self) -> BoxFuture<'a, Written<Item>> {
        if !self.hooked {
            if let Some(hooked) = self.table.hooks_for::<F>() {
                return self.send_hooked(hooked);
            }
        }
        let table = self.table;
        let mut op = Op::new("PutItem", table, F::SCHEMA.name, None);
        if self.conflict_expected {
            op = op.expecting_conflicts();
        }
        // Without a condition of the caller's, a failed condition of a versioned put is the
        // version check.
        let version_only = self.item_exists.is_none() && self.when.is_none();
        if let Some(required) = self.hook_when.take() {
            self.when = and(self.when.take(), required);
        }
        let plan = table.check_declared::<F>().and_then(|()| self.plan());
        let version = self.record.version();
        let versioned = F::VERSION.is_some() && version_only;
        let refused = move |item: &Item, stored: Option<Item>| {
            let error = match condition_failed::<F>("PutItem", item) {
                Error::ConditionFailed { facet, pk, sk, .. } if versioned => {
                    Error::VersionConflict {
                        facet,
                        pk,
                        sk,
                        version,
                    }
                }
                other => other,
            };
            Refusal { error, stored }
        };
        // A record replaced keeps its `#[created]`: not for a put that only creates, one that
        // says so, or a versioned put at version 0 (it only creates).
        let keep_created = F::CREATED.filter(|_| {
            let only_creates =
                self.item_exists == Some(false) || (F::VERSION.is_some() && version == 0);
            !(self.created_now || self.created_as_is || only_creates)
        });
        let as_read = self.created_as_is;
        if !F::SCHEMA.unique.is_empty() {
            let work = move |op: Arc<Op>| async move {
                let plan = plan?;
                let (record, item_exists, when) = (self.record, self.item_exists, self.when);
                let targets = [unique::Target {
                    schema: F::SCHEMA,
                    key: key_item(&plan.item),
                    watch: keep_created.into_iter().collect(),
                }];
                let mut written = None;
                let answer = unique::run(table, &op, &targets, |reads| {
                    let stored = reads[0].as_ref();
                    let extra = unique::unchanged::<F>(&targets[0], stored);
                    let created = match keep_created {
                        Some(name) => Created::Keep(stored.and_then(|s| s.get(name)).cloned()),
                        None if as_read => Created::AsIs,
                        None => Created::Now,
                    };
                    // One plan for the item sent and the item returned.
                    let all = and(when.clone(), extra);
                    let plan = put_plan(
                        record,
                        item_exists,
                        all.as_ref(),
                        created,
                        &write_clock_now(),
                    )
                    .map_err(Error::from_plan)?;
                    let item = plan.item.clone();
                    written = Some(item.clone());
                    let check = put_check::<F>(when.is_some(), item_exists);
                    Ok(unique::Built {
                        tx: table
                            .guarded_transaction()
                            .planned_put_step::<F>(Ok(plan), check),
                        after: vec![Some(item)],
                    })
                })
                .await?;
                answer.map_err(|r| refused(&plan.item, r.stored))?;
                Ok(written.unwrap_or(plan.item))
            };
            return traced(op, refusal::one, work);
        }
        if let Some(name) = keep_created {
            let work = move |op: Arc<Op>| async move {
                let plan = plan?;
                let (record, when) = (self.record, self.when);
                match keeping_created(table, &op, record, when, name).await? {
                    Ok(item) => Ok(item),
                    Err(stored) => Err(refused(&plan.item, stored)),
                }
            };
            return traced(op, refusal::one, work);
        }
        let work = move |op: Arc<Op>| async move {
            let plan = plan?;
            let key = key_pair(&plan.item);
            let request = once::Single::Put(plan.request(table.name()));
            let stored = match once::write(table, &op, &key, request).await? {
                Reply::Applied(_) => return Ok(plan.item),
                Reply::ConditionFailed(stored) => stored,
            };
            Err(refused(&plan.item, stored))
        };
        traced(op, refusal::one, work)
    }
}

/// A put that returns the record as stored: [`Put::returning_stored`]. Await it.
#[must_use = "a put does nothing until it is awaited"]
pub struct PutReturning<'a, F>(Put<'a, F>);

impl<'a, F: Facet> PutReturning<'a, F> {
    /// On a failed condition, give back the record stored under the key, typed
    /// ([`Conditional::Failed`](crate::write::Conditional::Failed)), instead of failing with the
    /// error alone.
    pub fn stored_on_failure(self) -> StoredOnFailure<'a, Self> {
        StoredOnFailure::new(self)
    }
}

impl<'a, F: Facet> IntoFuture for PutReturning<'a, F> {
    type Output = Result<F>;
    type IntoFuture = BoxFuture<'a, Result<F>>;

    fn into_future(self) -> Self::IntoFuture {
        refusal::plain(self.send())
    }
}

impl<'a, F: Facet> Refusable<'a> for PutReturning<'a, F> {
    type Facet = F;
    type Value = F;

    fn send(self) -> BoxFuture<'a, Written<F>> {
        let table = self.0.table;
        let sent = self.0.send_item();
        Box::pin(async move {
            let mut record = faceteer_core::from_item::<F>(sent.await?).map_err(Error::from)?;
            if let Some(hooked) = table.hooks_for::<F>() {
                hooked.returned(&mut record).await;
            }
            Ok(record)
        })
    }
}

/// How many requests a put keeping `#[created]` sends while other writers create, delete
/// and recreate the record between them.
const KEEP_CREATED_ATTEMPTS: usize = 6;

/// A put of `record` that keeps the `#[created]` value (`name`) of the record it replaces:
/// sent on condition that no record is stored (it then creates), else with the stored value
/// on condition that it is still stored. `Ok(Ok(item))`: the item stored; `Ok(Err(stored))`:
/// the put refused by its own condition (`when`, the version), with the item stored.
async fn keeping_created<F: Facet>(
    table: &Table,
    op: &Op,
    record: &F,
    when: Option<Expr<F>>,
    name: &'static str,
) -> Written<std::result::Result<Item, Option<Item>>> {
    /// The next request: a create, or a replace keeping this stored value.
    enum Step {
        Create,
        Replace(Option<aws_sdk_dynamodb::types::AttributeValue>),
    }
    // The record's own time, as stored (not validated: the validator sees the times written).
    let own = match faceteer_core::convert::record_attributes(record) {
        Ok(item) => item.get(name).cloned(),
        Err(e) => return Err(Error::from(e).into()),
    };
    // A versioned record past version 0 was read at that version: its own time is stored.
    let version = F::VERSION.map(|v| (v, record.version()));
    let mut step = match version {
        Some(_) => Step::Replace(own),
        None => Step::Create,
    };
    let mut last = None;
    for _ in 0..KEEP_CREATED_ATTEMPTS {
        let (plan, replacing) = match &step {
            Step::Create => (
                put_plan(
                    record,
                    Some(false),
                    when.as_ref(),
                    Created::Now,
                    &write_clock_now(),
                ),
                None,
            ),
            Step::Replace(created) => {
                let kept = Expr::stored_as(name, created.clone());
                let cond = and(when.clone(), kept);
                let exists = version.is_none().then_some(true);
                let plan = put_plan(
                    record,
                    exists,
                    cond.as_ref(),
                    Created::Keep(created.clone()),
                    &write_clock_now(),
                );
                (plan, Some(created.clone()))
            }
        };
        let plan = match plan {
            Ok(plan) => plan,
            Err(e) => return Err(Error::from_plan(e).into()),
        };
        let key = key_pair(&plan.item);
        let request = once::Single::Put(plan.request(table.name()));
        let stored = match once::write(table, op, &key, request).await {
            Ok(Reply::Applied(_)) => return Ok(Ok(plan.item)),
            Ok(Reply::ConditionFailed(stored)) => stored,
            Err(e) => return Err(e.into()),
        };
        step = match (&stored, replacing) {
            // Stored: replace it, keeping its time.
            (Some(s), None) => Step::Replace(s.get(name).cloned()),
            // Deleted since: create (not for a versioned put, which needs its version).
            (None, Some(_)) if version.is_none() => Step::Create,
            // Another time stored since (recreated): keep that one, unless the version
            // moved too (then it is the put's own conflict).
            (Some(s), Some(kept))
                if !faceteer_core::expr::same_value(s.get(name), kept.as_ref())
                    && version.is_none_or(|(v, at)| {
                        faceteer_core::expr::same_value(
                            s.get(v),
                            Some(&aws_sdk_dynamodb::types::AttributeValue::N(at.to_string())),
                        )
                    }) =>
            {
                Step::Replace(s.get(name).cloned())
            }
            // Refused by the put's own condition.
            _ => return Ok(Err(stored)),
        };
        last = stored;
    }
    Ok(Err(last))
}

/// The key (`PK`, `SK`) of `item`.
fn key_item(item: &Item) -> Item {
    [faceteer_core::schema::PK, faceteer_core::schema::SK]
        .into_iter()
        .filter_map(|name| Some((name.to_owned(), item.get(name)?.clone())))
        .collect()
}
