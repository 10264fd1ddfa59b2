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

use faceteer_core::expr::Expr;
use faceteer_core::facet::is_foreign;
use faceteer_core::plan::GetPlan;
use faceteer_core::schema::{FacetSchema, PK};
use faceteer_core::unique::{guards, Guard, OWNER_PK, OWNER_SK};
use faceteer_core::Item;

use aws_sdk_dynamodb::types::{
    AttributeValue, Delete as TxDelete, Put as TxPut, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem,
};

use crate::error::{CancelReason, Canceled, Error, OnlyCheck, Result, TxAction};
use crate::exec::keys::key_pair;
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::table::Table;
use crate::transaction::{Own, TransactWrite};

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

/// `attribute_not_exists(PK) OR` the guard is owned by one of `owners`.
fn owned_by_any(
    owners: &[(String, String)],
) -> (String, Item, std::collections::HashMap<String, String>) {
    let names = std::collections::HashMap::from([
        ("#pk".to_owned(), PK.to_owned()),
        ("#opk".to_owned(), OWNER_PK.to_owned()),
        ("#osk".to_owned(), OWNER_SK.to_owned()),
    ]);
    let mut values = Item::new();
    let mut expr = "attribute_not_exists(#pk)".to_owned();
    for (i, (pk, sk)) in owners.iter().enumerate() {
        values.insert(format!(":opk{i}"), AttributeValue::S(pk.clone()));
        values.insert(format!(":osk{i}"), AttributeValue::S(sk.clone()));
        expr.push_str(&format!(" OR (#opk = :opk{i} AND #osk = :osk{i})"));
    }
    (expr, values, names)
}

/// `$builder` (a transaction put or delete) on `table`, conditioned on
/// [`owned_by_any`]`(owners)`, asking for the stored guard when the condition fails.
macro_rules! owned_step {
    ($builder:expr, $table:expr, $owners:expr) => {{
        let (expr, values, names) = owned_by_any($owners);
        $builder
            .table_name($table)
            .condition_expression(expr)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(|e| Error::InvalidRequest(e.to_string()))?
    }};
}

/// A guard step: a put of `guard` owned by `owner`, or a delete.
fn guard_step(
    table: &str,
    guard: &Guard,
    put: Option<(&str, (&str, &str))>,
    owners: &[(String, String)],
) -> Result<(TransactWriteItem, Own)> {
    Ok(match put {
        Some((facet, owner)) => {
            let item = guard.item(facet, owner);
            let put = owned_step!(TxPut::builder().set_item(Some(item.clone())), table, owners);
            (
                TransactWriteItem::builder().put(put).build(),
                Own::Item(item),
            )
        }
        None => {
            let delete = owned_step!(
                TxDelete::builder().set_key(Some(guard.key())),
                table,
                owners
            );
            (
                TransactWriteItem::builder().delete(delete).build(),
                Own::Unseen,
            )
        }
    })
}

/// What a guard step of one attempt is for.
struct GuardStep {
    guard: Guard,
    facet: &'static str,
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
            let plan = GetPlan {
                key: target.key.clone(),
                consistent_read: true,
                projection: None,
            };
            reads.push(sdk::get_item(table, op, plan.request(table.name())).await?);
        }
        let Built { mut tx, after } = build(&reads)?;
        let writes = targets.len();
        // The guards each target owns before and after.
        let mut before = Vec::new();
        let mut next = Vec::new();
        for (i, target) in targets.iter().enumerate() {
            before.push(owned(target.schema, reads[i].as_ref())?);
            next.push(owned(target.schema, after.get(i).and_then(Option::as_ref))?);
        }
        let mut steps: Vec<GuardStep> = Vec::new();
        for (i, target) in targets.iter().enumerate() {
            for guard in &next[i] {
                if steps.iter().any(|s| s.guard.pk == guard.pk) {
                    // Two records of this transaction would own one value.
                    return Err(Error::Unique {
                        facet: target.schema.name,
                        field: guard.field,
                        value: guard.value.clone(),
                    });
                }
                if !before[i].contains(guard) {
                    steps.push(GuardStep {
                        guard: guard.clone(),
                        facet: target.schema.name,
                        put: true,
                    });
                }
            }
        }
        for (i, target) in targets.iter().enumerate() {
            for guard in &before[i] {
                let kept = next.iter().flatten().any(|g| g.pk == guard.pk);
                if !kept && !not_ours.contains(&guard.pk) {
                    steps.push(GuardStep {
                        guard: guard.clone(),
                        facet: target.schema.name,
                        put: false,
                    });
                }
            }
        }
        for step in &steps {
            let owner_of = targets
                .iter()
                .zip(&next)
                .position(|(_, n)| n.contains(&step.guard))
                .map(|i| (owners[i].0.as_str(), owners[i].1.as_str()));
            let put = step.put.then(|| (step.facet, owner_of.unwrap_or(("", ""))));
            let item = guard_step(table.name(), &step.guard, put, &owners);
            let action = if step.put {
                TxAction::Put
            } else {
                TxAction::Delete
            };
            let key = (
                step.guard.pk.clone(),
                faceteer_core::unique::GUARD_SK.to_owned(),
            );
            tx = tx.push(
                faceteer_core::unique::GUARD_SK,
                action,
                key,
                OnlyCheck::Condition,
                item.map(|(item, own)| (item, Vec::new(), own)),
            );
        }
        let canceled = match tx.await {
            Ok(()) => return Ok(Ok(())),
            Err(Error::TransactionCanceled { canceled }) => canceled,
            Err(other) => return Err(other),
        };
        match settle(targets, &reads, &steps, writes, &canceled, &mut not_ours) {
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
    writes: usize,
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
        match (i.checked_sub(writes).and_then(|g| steps.get(g)), failed) {
            (Some(step), true) if step.put => {
                return Next::Done(Err(Error::Unique {
                    facet: step.facet,
                    field: step.guard.field,
                    value: step.guard.value.clone(),
                }))
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
