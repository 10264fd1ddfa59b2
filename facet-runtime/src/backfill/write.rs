//! Sending one rewrite, conditioned on the item being as it was read: an `UpdateItem` for an
//! item that keeps its key, a transaction (delete the old item, create the new one) for a
//! record whose key changes.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, TransactWriteItem};
use faceteer_core::backfill::{applied, Edits};
use faceteer_core::schema::{PK, SK};
use faceteer_core::Item;

use faceteer_core::expr::Expr;
use faceteer_core::plan::{PutPlan, RenderedCondition};
use faceteer_core::unique::{Guard, OWNER_PK, OWNER_SK};

use crate::error::{Error, Result};
use crate::exec::once;
use crate::exec::sdk::{self, Reply};
use crate::exec::trace::Op;
use crate::table::Table;
use crate::transaction::{delete_write, put_write};
use crate::wire::keys::key_pair;

/// What became of one rewrite.
pub(crate) enum Outcome {
    /// It was applied.
    Rewritten,
    /// The item is not as read any more: this is how it is now (`None`: deleted).
    Changed(Option<Item>),
    /// Another writer got in the way in a way that gives no stored item (a transaction
    /// conflict): read it again.
    ReadAgain,
    /// The new key of a moving record already holds an item.
    KeyTaken,
}

/// Placeholders of one expression's names and values.
#[derive(Default)]
struct Placeholders {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Placeholders {
    fn name(&mut self, attribute: &str) -> String {
        let placeholder = format!("#n{}", self.names.len());
        self.names.insert(placeholder.clone(), attribute.to_owned());
        placeholder
    }

    fn value(&mut self, value: AttributeValue) -> String {
        let placeholder = format!(":v{}", self.values.len());
        self.values.insert(placeholder.clone(), value);
        placeholder
    }

    /// The condition that the item is still `stored`: each attribute holds its value, and
    /// each of `absent` is still missing.
    fn unchanged(&mut self, stored: &Item, absent: &[String]) -> String {
        let mut parts = Vec::with_capacity(stored.len() + absent.len());
        let mut names: Vec<&String> = stored.keys().collect();
        names.sort();
        for name in names {
            let n = self.name(name);
            let v = self.value(stored[name].clone());
            parts.push(format!("{n} = {v}"));
        }
        for name in absent {
            let n = self.name(name);
            parts.push(format!("attribute_not_exists({n})"));
        }
        parts.join(" AND ")
    }
}

/// The key attributes of `item`.
fn key_of(item: &Item) -> Item {
    [PK, SK]
        .iter()
        .filter_map(|k| Some(((*k).to_owned(), item.get(*k)?.clone())))
        .collect()
}

/// The update expression of `edits` to `stored`, and its condition that `stored` is
/// unchanged, with their placeholders.
fn rewrite_expression(stored: &Item, edits: &Edits) -> (String, String, Placeholders) {
    let mut p = Placeholders::default();
    let condition = p.unchanged(stored, &edits.absent);
    let mut sets = Vec::with_capacity(edits.set.len());
    for (name, value) in &edits.set {
        let n = p.name(name);
        let v = p.value(value.clone());
        sets.push(format!("{n} = {v}"));
    }
    let mut expression = String::new();
    if !sets.is_empty() {
        expression.push_str(&format!("SET {}", sets.join(", ")));
    }
    if !edits.remove.is_empty() {
        let removes: Vec<String> = edits.remove.iter().map(|r| p.name(r)).collect();
        expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
    }
    (expression.trim().to_owned(), condition, p)
}

/// Rewrite `stored` in place with `edits`, on condition that it is unchanged: it cannot
/// apply twice, and is sent again after a lost answer. After one, a failed condition
/// meeting an item exactly as the rewrite leaves it is taken as the rewrite's own (or a
/// writer's who wrote the same: either way the item is right).
pub(crate) async fn update(
    table: &Table,
    op: &Op,
    stored: &Item,
    edits: &Edits,
) -> Result<Outcome> {
    let (expression, condition, p) = rewrite_expression(stored, edits);
    let key = key_of(stored);
    let request = aws_sdk_dynamodb::operation::update_item::UpdateItemInput::builder()
        .table_name(table.name())
        .set_key(Some(key))
        .update_expression(expression)
        .condition_expression(condition)
        .set_expression_attribute_names(Some(p.names))
        .set_expression_attribute_values(Some(p.values));
    let pair = key_pair(stored);
    // Conditioned on the record being exactly as read, a rewrite cannot apply twice: once
    // applied, the record is no longer as read.
    let answer = once::send(table, op, &pair, once::Resend::Safe, || {
        sdk::update_item(table, op, request.clone())
    })
    .await?;
    Ok(match answer.reply {
        Reply::Applied(_) => Outcome::Rewritten,
        // After a lost answer, an item exactly as this rewrite leaves it is its own earlier
        // try's doing (or a writer's who wrote the same: either way it is right).
        Reply::ConditionFailed(Some(now))
            if answer.uncertain.is_some() && once::same_item(&now, &applied(stored, edits)) =>
        {
            Outcome::Rewritten
        }
        Reply::ConditionFailed(now) => Outcome::Changed(now),
    })
}

/// Move `stored` to `target` (another key) in one transaction: delete `stored` if it is
/// unchanged, create `target` if its key holds nothing.
pub(crate) async fn move_item(
    table: &Table,
    op: &Op,
    stored: &Item,
    target: &Item,
    absent: &[String],
) -> Result<Outcome> {
    let mut p = Placeholders::default();
    let condition = p.unchanged(stored, absent);
    let key = key_of(stored);
    let on_failure = aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure::AllOld;
    let delete = Delete::builder()
        .table_name(table.name())
        .set_key(Some(key))
        .condition_expression(condition)
        .set_expression_attribute_names(Some(p.names))
        .set_expression_attribute_values(Some(p.values))
        .return_values_on_condition_check_failure(on_failure.clone())
        .build()
        .map_err(|e| Error::InvalidRequest(e.to_string()))?;
    let put = Put::builder()
        .table_name(table.name())
        .set_item(Some(target.clone()))
        .condition_expression("attribute_not_exists(#pk)")
        .expression_attribute_names("#pk", PK)
        .return_values_on_condition_check_failure(on_failure)
        .build()
        .map_err(|e| Error::InvalidRequest(e.to_string()))?;
    let steps: Vec<TransactWriteItem> = [
        TransactWriteItem::builder().delete(delete).build(),
        TransactWriteItem::builder().put(put).build(),
    ]
    .into_iter()
    .map(|step| match table.renamer() {
        Some(r) => r.transact_write(step),
        None => step,
    })
    .collect();
    let token = once::fresh_token();
    let pair = key_pair(stored);
    // Conditioned on the old record being exactly as read, a move cannot apply twice.
    let answer = once::send(table, op, &pair, once::Resend::Safe, || {
        sdk::transact_write(table, op, steps.clone(), &token)
    })
    .await?;
    let reasons = match answer.reply {
        Ok(()) => return Ok(Outcome::Rewritten),
        Err(reasons) => reasons,
    };
    // Each step's failed condition, with the item it found (renamed back).
    let failed = |i: usize| {
        reasons
            .get(i)
            .filter(|(code, _, _)| code == "ConditionalCheckFailed")
            .map(|(_, _, item)| match (table.renamer(), item.clone()) {
                (Some(r), Some(item)) => Some(r.item_in(item)),
                (_, item) => item,
            })
    };
    Ok(match (failed(0), failed(1)) {
        // The old item is not as read: plan again from how it is.
        (Some(Some(now)), _) => Outcome::Changed(Some(now)),
        // The old item is gone. After a lost answer, with the new item exactly this move's,
        // the move was applied (DynamoDB answers a repeated token with success, unless the
        // first try is over ten minutes old); otherwise another writer deleted it.
        (Some(None), Some(Some(there)))
            if answer.uncertain.is_some() && once::same_item(&there, target) =>
        {
            Outcome::Rewritten
        }
        (Some(None), _) => Outcome::Changed(None),
        // The old item is as read, but the new key holds an item.
        (None, Some(_)) => Outcome::KeyTaken,
        // Canceled otherwise (a conflicting transaction): read again.
        (None, None) => Outcome::ReadAgain,
    })
}

/// The guards a backfill takes and gives up for one record of facet `facet`.
pub(crate) struct GuardChanges {
    /// The record's facet (each guard it takes names it).
    pub(crate) facet: &'static str,
    /// Guards to take (each absent when read).
    pub(crate) put: Vec<Guard>,
    /// Guards the record owns for values it no longer holds.
    pub(crate) delete: Vec<Guard>,
}

impl GuardChanges {
    /// No change, for a record of `facet`.
    pub(crate) fn none(facet: &'static str) -> Self {
        GuardChanges {
            facet,
            put: Vec::new(),
            delete: Vec::new(),
        }
    }

    /// Whether no guard changes.
    pub(crate) fn is_empty(&self) -> bool {
        self.put.is_empty() && self.delete.is_empty()
    }

    /// The unique fields whose guards change.
    pub(crate) fn fields(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.put.iter().chain(&self.delete).map(|g| g.field)
    }
}

/// Change the guards of the record `stored` as `guards` says, in one transaction with the
/// record's rewrite (`edits`) or, without one, a check that the record is still as read: the
/// guards exist exactly when the record holds their values. A guard another writer took or
/// gave up meanwhile, or a conflicting transaction, is [`Outcome::ReadAgain`]; a step
/// DynamoDB refuses otherwise is the error.
pub(crate) async fn with_guards(
    table: &Table,
    op: &Op,
    stored: &Item,
    edits: Option<&Edits>,
    guards: &GuardChanges,
) -> Result<Outcome> {
    let built = |e: aws_sdk_dynamodb::error::BuildError| Error::InvalidRequest(e.to_string());
    let on_failure = aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure::AllOld;
    let record = match edits {
        Some(edits) => {
            let (expression, condition, p) = rewrite_expression(stored, edits);
            let update = aws_sdk_dynamodb::types::Update::builder()
                .table_name(table.name())
                .set_key(Some(key_of(stored)))
                .update_expression(expression)
                .condition_expression(condition)
                .set_expression_attribute_names(Some(p.names))
                .set_expression_attribute_values(Some(p.values))
                .return_values_on_condition_check_failure(on_failure.clone())
                .build()
                .map_err(built)?;
            TransactWriteItem::builder().update(update).build()
        }
        None => {
            let mut p = Placeholders::default();
            let condition = p.unchanged(stored, &[]);
            let check = aws_sdk_dynamodb::types::ConditionCheck::builder()
                .table_name(table.name())
                .set_key(Some(key_of(stored)))
                .condition_expression(condition)
                .set_expression_attribute_names(Some(p.names))
                .set_expression_attribute_values(Some(p.values))
                .return_values_on_condition_check_failure(on_failure.clone())
                .build()
                .map_err(built)?;
            TransactWriteItem::builder().condition_check(check).build()
        }
    };
    let mut steps = vec![record];
    let (owner_pk, owner_sk) = key_pair(stored);
    // Each guard taken only where none is stored yet, and each given up only where this
    // record still owns it.
    let absent = RenderedCondition::all(None, Some(&Expr::<()>::absent(PK)))?;
    for guard in &guards.put {
        let item = guard.item(guards.facet, (&owner_pk, &owner_sk));
        let plan = PutPlan {
            item,
            condition: absent.clone(),
        };
        steps.push(put_write(table.name(), plan)?);
    }
    let s = |v: &str| Some(AttributeValue::S(v.to_owned()));
    let ours =
        Expr::<()>::stored_as(OWNER_PK, s(&owner_pk)).and(Expr::stored_as(OWNER_SK, s(&owner_sk)));
    let ours = RenderedCondition::all(None, Some(&ours))?;
    for guard in &guards.delete {
        steps.push(delete_write(table.name(), guard.key(), ours.clone())?);
    }
    let steps: Vec<TransactWriteItem> = steps
        .into_iter()
        .map(|step| match table.renamer() {
            Some(r) => r.transact_write(step),
            None => step,
        })
        .collect();
    let token = once::fresh_token();
    // Conditioned on the record as read and on each guard as read, it cannot apply twice.
    let answer = once::send(table, op, &(owner_pk, owner_sk), once::Resend::Safe, || {
        sdk::transact_write(table, op, steps.clone(), &token)
    })
    .await?;
    let reasons = match answer.reply {
        Ok(()) => return Ok(Outcome::Rewritten),
        Err(reasons) => reasons,
    };
    let failed = |code: &str| code == "ConditionalCheckFailed";
    if let Some((_, _, item)) = reasons.first().filter(|(code, _, _)| failed(code)) {
        return Ok(Outcome::Changed(match (table.renamer(), item.clone()) {
            (Some(r), Some(item)) => Some(r.item_in(item)),
            (_, item) => item,
        }));
    }
    let passing = |code: &str| {
        code.is_empty() || code == "None" || failed(code) || code == "TransactionConflict"
    };
    if let Some((code, message, _)) = reasons.iter().find(|(code, _, _)| !passing(code)) {
        return Err(Error::InvalidRequest(format!(
            "DynamoDB canceled the rewrite with its unique guards: {code}: {message}"
        )));
    }
    // A guard taken or given up meanwhile (or by an earlier try), or a conflict.
    Ok(Outcome::ReadAgain)
}

/// Read the item under `stored`'s key again, consistently.
pub(crate) async fn read_again(table: &Table, op: &Op, stored: &Item) -> Result<Option<Item>> {
    let key = key_of(stored);
    let request = aws_sdk_dynamodb::operation::get_item::GetItemInput::builder()
        .table_name(table.name())
        .set_key(Some(key))
        .consistent_read(true);
    let label = op.context().facet.unwrap_or("backfill");
    match sdk::get_item(table, op, request).await? {
        Some(stored) => Ok(Some(stored.into_item(label)?)),
        None => Ok(None),
    }
}
