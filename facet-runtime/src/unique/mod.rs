//! Writes of facets with `#[unique]` fields: each is one transaction that writes the record
//! and the guard items of its unique values ([`faceteer_core::unique`]).
//!
//! A write reads the stored record first (a consistent read), to know which values it owns
//! now, even when the caller does not say. It then sends one transaction:
//!
//! * the write itself, on condition that the stored record still owns what was read (its
//!   unique fields and their scopes hold the values read, or there is still no record), on
//!   top of the caller's own conditions;
//! * a put of the guard of each value it takes, on condition that no record owns it yet (or
//!   one of the transaction's own records does);
//! * a delete of the guard of each value it gives up, on condition that it owns it.
//!
//! When the record changed in between, the transaction is canceled, and the write reads it
//! again and sends a new one. When a guard is owned by another record, the write fails with
//! [`Error::Unique`]. The transaction is sent exactly once as every transaction is (see
//! [`crate::exec::once`]).

use std::time::Duration;

use faceteer_core::convert::is_foreign;
use faceteer_core::expr::Expr;
use faceteer_core::plan::{PutPlan, RenderedCondition};
use faceteer_core::schema::{FacetSchema, PK};
use faceteer_core::unique::{guards, Guard, GUARD_SK, OWNER_PK, OWNER_SK};
use faceteer_core::Item;

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem};

use crate::error::{CancelReason, Canceled, Error, OnlyCheck, Result, TxAction};
use crate::exec::trace::Op;
use crate::table::Table;
use crate::transaction::{delete_write, put_write, TransactWrite};
use crate::wire::keys::key_pair;

/// How many times a write reads the record again after finding it changed.
const ATTEMPTS: u32 = 12;

/// A record a guarded transaction writes: its facet and its key.
pub(crate) struct Target {
    pub(crate) schema: &'static FacetSchema,
    pub(crate) key: Item,
    /// Other attributes the write must find as they were read.
    pub(crate) watch: Vec<&'static str>,
}

/// The transaction of one attempt, given the items read: the writes, one per target and in
/// target order, and the item each target holds after it (`None`: no record).
pub(crate) struct Built<'t> {
    pub(crate) tx: TransactWrite<'t>,
    pub(crate) after: Vec<Option<Item>>,
}

/// A write refused by its own condition (not by a unique value): which target, why, and the
/// item stored under its key.
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) target: usize,
    pub(crate) reason: CancelReason,
    pub(crate) stored: Option<Item>,
}

/// Whether facet `schema` has unique fields whose guards `attributes` can change.
pub(crate) fn guarded_by(schema: &FacetSchema, mut attributes: impl FnMut(&str) -> bool) -> bool {
    schema
        .unique
        .iter()
        .any(|u| u.inputs().any(&mut attributes))
}

/// The attributes a write of `target` must find as they were read: those its guards are
/// built from, and those it watches; each once.
fn inputs(target: &Target) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let guarded = target.schema.unique.iter().flat_map(|u| u.inputs());
    for name in guarded.chain(target.watch.iter().copied()) {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The condition that the record under a key is still as it was read (`stored`), as far as
/// its guards go: no record, or one whose unique fields and scopes hold the values read.
pub(crate) fn unchanged<F>(target: &Target, stored: Option<&Item>) -> Expr<F> {
    match stored {
        None => Expr::absent(PK),
        Some(item) => inputs(target)
            .into_iter()
            .map(|name| Expr::stored_as(name, item.get(name).cloned()))
            .reduce(Expr::and)
            .unwrap_or_else(|| Expr::absent(PK).not()),
    }
}

/// Whether the item stored now is not the one read, as far as its guards go.
fn changed(target: &Target, read: Option<&Item>, now: Option<&Item>) -> bool {
    match (read, now) {
        (None, None) => false,
        (Some(read), Some(now)) => inputs(target)
            .into_iter()
            .any(|name| !faceteer_core::expr::same_value(read.get(name), now.get(name))),
        _ => true,
    }
}

/// The guards the item `item` of facet `schema` owns (none for no item, or another facet's).
fn owned(schema: &FacetSchema, item: Option<&Item>) -> Result<Vec<Guard>> {
    match item {
        Some(item) if !is_foreign(item, schema.name) => Ok(guards(schema, item)?),
        _ => Ok(Vec::new()),
    }
}

/// No guard yet, or one owned by one of `owners` (`PK`, `SK`).
fn owned_by_any(owners: &[(String, String)]) -> Expr<()> {
    let s = |v: &str| Some(AttributeValue::S(v.to_owned()));
    owners.iter().fold(Expr::absent(PK), |cond, (pk, sk)| {
        cond.or(Expr::stored_as(OWNER_PK, s(pk)).and(Expr::stored_as(OWNER_SK, s(sk))))
    })
}

/// A guard step: a put of `guard` owned by `owner` (with the facet name), or a delete, each
/// on condition [`owned_by_any`]`(owners)`.
fn guard_step(
    table: &str,
    guard: &Guard,
    put: Option<(&str, (&str, &str))>,
    owners: &[(String, String)],
) -> Result<TransactWriteItem> {
    let condition = RenderedCondition::all(None, Some(&owned_by_any(owners)))?;
    Ok(match put {
        Some((facet, owner)) => {
            let item = guard.item(facet, owner);
            let plan = PutPlan {
                item: item.clone(),
                condition,
            };
            put_write(table, plan)?
        }
        None => delete_write(table, guard.key(), condition)?,
    })
}

/// What a guard step of one attempt is for: a put or a delete of `guard`, for the target at
/// `target`.
struct GuardStep {
    guard: Guard,
    target: usize,
    put: bool,
}

/// Read every target, build the attempt's transaction with `build`, add the guard steps,
/// and send it; again while a target changed in between. `Ok(Err(..))` is a write refused
/// by its own condition.
pub(crate) async fn run<'t>(
    table: &'t Table,
    op: &Op,
    targets: &[Target],
    mut build: impl FnMut(&[Option<Item>]) -> Result<Built<'t>>,
) -> Result<std::result::Result<(), Refused>> {
    let owners: Vec<(String, String)> = targets.iter().map(|t| key_pair(&t.key)).collect();
    // Guards another record owns that a write gives up: left alone.
    let mut not_ours: Vec<String> = Vec::new();
    let mut last = None;
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            let wait = table.batch_options().backoff(attempt);
            tokio::time::sleep(wait.min(Duration::from_millis(200))).await;
        }
        let mut reads = Vec::with_capacity(targets.len());
        for target in targets {
            let stored = crate::read::stored_item(table, op, &target.key, target.schema.name);
            reads.push(stored.await?);
        }
        let Built { mut tx, after } = build(&reads)?;
        // The guards each target owns before and after.
        let mut before = Vec::new();
        let mut next = Vec::new();
        for (i, target) in targets.iter().enumerate() {
            before.push(owned(target.schema, reads[i].as_ref())?);
            next.push(owned(target.schema, after.get(i).and_then(Option::as_ref))?);
        }
        // A put of each guard taken; the guards every target owns after, each once.
        let mut steps: Vec<GuardStep> = Vec::new();
        let mut owned_after: Vec<&str> = Vec::new();
        for (i, target) in targets.iter().enumerate() {
            for guard in &next[i] {
                if owned_after.contains(&guard.pk.as_str()) {
                    // Two records of this transaction would own one value.
                    return Err(Error::Unique {
                        facet: target.schema.name,
                        field: guard.field,
                        value: faceteer_core::redact::value(
                            target.schema.name,
                            guard.field,
                            &guard.value,
                        ),
                    });
                }
                owned_after.push(&guard.pk);
                if !before[i].contains(guard) {
                    steps.push(GuardStep {
                        guard: guard.clone(),
                        target: i,
                        put: true,
                    });
                }
            }
        }
        // A delete of each guard given up (one moving to another target is kept).
        for (i, owned) in before.iter().enumerate() {
            for guard in owned {
                let pk = guard.pk.as_str();
                if !owned_after.contains(&pk) && !not_ours.iter().any(|n| n == pk) {
                    steps.push(GuardStep {
                        guard: guard.clone(),
                        target: i,
                        put: false,
                    });
                }
            }
        }
        for step in &steps {
            let (pk, sk) = &owners[step.target];
            let facet = targets[step.target].schema.name;
            let put = step.put.then_some((facet, (pk.as_str(), sk.as_str())));
            let item = guard_step(table.name(), &step.guard, put, &owners);
            let action = if step.put {
                TxAction::Put
            } else {
                TxAction::Delete
            };
            let key = (step.guard.pk.clone(), GUARD_SK.to_owned());
            tx = tx.push(
                GUARD_SK,
                action,
                key,
                OnlyCheck::Condition,
                item.map(|item| (item, Vec::new())),
            );
        }
        let canceled = match tx.await {
            Ok(()) => return Ok(Ok(())),
            Err(Error::TransactionCanceled { canceled }) => canceled,
            Err(other) => return Err(other),
        };
        match settle(targets, &reads, &steps, &canceled, &mut not_ours) {
            Next::Retry => last = Some(Error::TransactionCanceled { canceled }),
            Next::Done(result) => return result,
        }
    }
    Err(last.unwrap_or_else(|| Error::InvalidRequest("a write without an attempt".into())))
}

/// What a canceled attempt leads to.
enum Next {
    /// Read again and send a new transaction.
    Retry,
    /// The write's answer.
    Done(Result<std::result::Result<(), Refused>>),
}

/// Read a canceled attempt: a value another record owns, a write refused by its own
/// condition, or a reason to try again (a record changed since it was read, a guard to
/// leave alone, a conflicting transaction).
fn settle(
    targets: &[Target],
    reads: &[Option<Item>],
    steps: &[GuardStep],
    canceled: &[Canceled],
    not_ours: &mut Vec<String>,
) -> Next {
    let mut retry = false;
    let mut refused = None;
    for c in canceled {
        let i = c.step.index;
        let failed = matches!(
            c.reason,
            CancelReason::ConditionFailed
                | CancelReason::VersionConflict
                | CancelReason::AlreadyExists
                | CancelReason::StoredValueDiffers { .. }
        );
        match (
            i.checked_sub(targets.len()).and_then(|g| steps.get(g)),
            failed,
        ) {
            (Some(step), true) if step.put => {
                let facet = targets[step.target].schema.name;
                return Next::Done(Err(Error::Unique {
                    facet,
                    field: step.guard.field,
                    value: faceteer_core::redact::value(facet, step.guard.field, &step.guard.value),
                }));
            }
            (Some(step), true) => {
                not_ours.push(step.guard.pk.clone());
                retry = true;
            }
            (None, true) => {
                let target = &targets[i];
                let stored = c.stored_item.clone();
                if changed(target, reads[i].as_ref(), stored.as_ref()) {
                    retry = true;
                } else {
                    refused.get_or_insert(Refused {
                        target: i,
                        reason: c.reason.clone(),
                        stored,
                    });
                }
            }
            (_, false) if c.reason == CancelReason::Conflict => retry = true,
            (_, false) => {
                return Next::Done(Err(Error::TransactionCanceled {
                    canceled: canceled.to_vec(),
                }))
            }
        }
    }
    if retry {
        return Next::Retry;
    }
    match refused {
        Some(r) => Next::Done(Ok(Err(r))),
        None => Next::Done(Err(Error::TransactionCanceled {
            canceled: canceled.to_vec(),
        })),
    }
}
