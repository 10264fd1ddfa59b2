//! Exactly once: the one retry routine of single-item writes and transactions.
//!
//! A write whose answer is lost (a timeout, a dropped connection, a 5xx) may or may not have
//! been applied, and it may still be on its way to the server. Nothing a later try finds in
//! the record tells an earlier try from another writer's write (another writer may append
//! the same element, delete what the earlier try created, or write the same item), and
//! nothing is stored in the record to tell them apart (strict readers refuse attributes
//! they do not know). So a try that may have been applied is sent again only where the
//! server itself makes a second application impossible:
//!
//! * by default ([`LostAnswers::Report`]), never: the write fails with
//!   [`Error::OutcomeUnknown`];
//! * with [`LostAnswers::Resend`], single-item writes go as one-step `TransactWriteItems`
//!   ([`write`]) and transactions keep their `ClientRequestToken` across tries: DynamoDB
//!   applies a token once within 10 minutes and answers its repeats with success;
//! * a backfill's rewrite, conditioned on the record being exactly as read, cannot apply
//!   twice (once applied, the record is no longer as read), and is always sent again.
//!
//! A try that certainly was not applied and may pass another time (throttled, canceled by a
//! conflicting transaction, never sent) is sent again in every case. [`send`] makes the tries and reports whether one of them may have
//! been applied ([`Answer::uncertain`]); after such a try, only success is certain: any
//! other answer is [`Error::OutcomeUnknown`], since the lost try may still land.

use std::future::Future;
use std::sync::Arc;

use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::types::{
    Delete, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};
use faceteer_core::Item;

use crate::error::{CancelReason, Canceled, Error, Result, TxAction, TxStep};
use crate::exec::retry::{verdict, Effect};
use crate::exec::sdk::{self, Reply};
use crate::exec::trace::Op;
use crate::table::{LostAnswers, Table};

/// The answer a write ends with, and whether an earlier try may have been applied.
pub(crate) struct Answer<T> {
    /// The last try's answer.
    pub(crate) reply: T,
    /// The error of an earlier try that may have been applied (its answer was lost).
    pub(crate) uncertain: Option<Arc<Error>>,
    /// Tries sent.
    pub(crate) tries: u32,
}

impl<T> Answer<T> {
    /// [`Error::OutcomeUnknown`] when an earlier try may have been applied: the answer of a
    /// later one, unless it is success, cannot say what that try did.
    pub(crate) fn unless_uncertain(&self, op: &Op, key: &(String, String)) -> Result<()> {
        match &self.uncertain {
            Some(cause) => Err(unknown(op, key, self.tries, cause.clone())),
            None => Ok(()),
        }
    }
}

/// Whether a try that may have been applied may be sent again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resend {
    /// No: a second application could change the table again.
    Never,
    /// Yes: the server, or the write's own condition, applies it at most once.
    Safe,
}

impl Resend {
    /// What `table`'s choice ([`Table::with_lost_answers`]) allows for a write sent under
    /// a `ClientRequestToken`.
    pub(crate) fn with_token(table: &Table) -> Self {
        match table.lost_answers() {
            LostAnswers::Resend => Resend::Safe,
            _ => Resend::Never,
        }
    }
}

/// Send a write with `attempt` until a try is answered, the tries
/// ([`BatchOptions::write_attempts`](crate::BatchOptions::write_attempts)) are used, or the
/// call's deadline passes.
///
/// A try that fails with an error another try may fix (throttling, a 5xx, a timeout, a
/// broken connection) is sent again after a backoff, unless it may have been applied and
/// `resend` is [`Resend::Never`]. A final error is the error itself when no try may have
/// been applied, else [`Error::OutcomeUnknown`] about `key`.
pub(crate) async fn send<T, Fut>(
    table: &Table,
    op: &Op,
    key: &(String, String),
    resend: Resend,
    mut attempt: impl FnMut() -> Fut,
) -> Result<Answer<T>>
where
    Fut: Future<Output = Result<T>>,
{
    let options = table.batch_options();
    let mut uncertain: Option<Arc<Error>> = None;
    let mut tries = 0;
    loop {
        tries += 1;
        let error = match attempt().await {
            Ok(reply) => {
                return Ok(Answer {
                    reply,
                    uncertain,
                    tries,
                })
            }
            Err(e) => e,
        };
        let v = verdict(&error, Effect::Writes);
        let error = Arc::new(error);
        if v.maybe_applied {
            uncertain = Some(error.clone());
        }
        let may_resend = uncertain.is_none() || resend == Resend::Safe;
        if v.transient && may_resend && tries < options.write_attempts.max(1) {
            let wait = options.backoff(tries);
            if tokio::time::Instant::now() + wait < op.deadline() {
                tracing::debug!(error = %error, tries, "write failed; sending it again");
                tokio::time::sleep(wait).await;
                continue;
            }
        }
        return Err(match uncertain {
            Some(cause) => unknown(op, key, tries, cause),
            // Not shared: no try may have been applied.
            None => Arc::try_unwrap(error).unwrap_or_else(|e| Error::InvalidRequest(e.to_string())),
        });
    }
}

/// [`Error::OutcomeUnknown`] for the write of the item under `key` (`PK`, `SK`).
pub(crate) fn unknown(op: &Op, key: &(String, String), tries: u32, cause: Arc<Error>) -> Error {
    Error::OutcomeUnknown {
        operation: op.operation(),
        facet: op.context().facet.unwrap_or_default(),
        pk: key.0.clone().into(),
        sk: key.1.clone().into(),
        tries,
        cause,
    }
}

/// A fresh `ClientRequestToken`: 128 random bits, in hex (32 characters; DynamoDB takes
/// up to 36).
pub(crate) fn fresh_token() -> String {
    format!("{:032x}", fastrand::u128(..))
}

/// Whether `stored` is exactly `item`, attribute by attribute as DynamoDB compares values.
pub(crate) fn same_item(stored: &Item, item: &Item) -> bool {
    stored.len() == item.len()
        && item
            .iter()
            .all(|(name, v)| faceteer_core::expr::same_value(stored.get(name), Some(v)))
}

/// One single-item write, as its plain request.
pub(crate) enum Single {
    /// A `PutItem`.
    Put(PutItemInputBuilder),
    /// A `DeleteItem`.
    Delete(DeleteItemInputBuilder),
    /// An `UpdateItem` (one that returns no attributes, to go as a transaction).
    Update(UpdateItemInputBuilder),
}

impl Single {
    fn action(&self) -> TxAction {
        match self {
            Single::Put(_) => TxAction::Put,
            Single::Delete(_) => TxAction::Delete,
            Single::Update(_) => TxAction::Update,
        }
    }

    /// Whether the table's choice sends it as a one-step transaction: with
    /// [`LostAnswers::Resend`], unless it asks for the record's attributes back.
    fn as_transaction(&self, table: &Table) -> bool {
        let returns = match self {
            Single::Update(r) => r
                .get_return_values()
                .as_ref()
                .is_some_and(|v| *v != aws_sdk_dynamodb::types::ReturnValue::None),
            Single::Put(_) | Single::Delete(_) => false,
        };
        !returns && Resend::with_token(table) == Resend::Safe
    }

    /// The same write as a transaction's step, asking for the stored item when its
    /// condition fails.
    fn step(&self) -> Result<TransactWriteItem> {
        let all_old = ReturnValuesOnConditionCheckFailure::AllOld;
        let built = match self {
            Single::Put(r) => Put::builder()
                .set_table_name(r.get_table_name().clone())
                .set_item(r.get_item().clone())
                .set_condition_expression(r.get_condition_expression().clone())
                .set_expression_attribute_names(r.get_expression_attribute_names().clone())
                .set_expression_attribute_values(r.get_expression_attribute_values().clone())
                .return_values_on_condition_check_failure(all_old)
                .build()
                .map(|s| TransactWriteItem::builder().put(s).build()),
            Single::Delete(r) => Delete::builder()
                .set_table_name(r.get_table_name().clone())
                .set_key(r.get_key().clone())
                .set_condition_expression(r.get_condition_expression().clone())
                .set_expression_attribute_names(r.get_expression_attribute_names().clone())
                .set_expression_attribute_values(r.get_expression_attribute_values().clone())
                .return_values_on_condition_check_failure(all_old)
                .build()
                .map(|s| TransactWriteItem::builder().delete(s).build()),
            Single::Update(r) => Update::builder()
                .set_table_name(r.get_table_name().clone())
                .set_key(r.get_key().clone())
                .set_update_expression(r.get_update_expression().clone())
                .set_condition_expression(r.get_condition_expression().clone())
                .set_expression_attribute_names(r.get_expression_attribute_names().clone())
                .set_expression_attribute_values(r.get_expression_attribute_values().clone())
                .return_values_on_condition_check_failure(all_old)
                .build()
                .map(|s| TransactWriteItem::builder().update(s).build()),
        };
        built.map_err(|e| Error::InvalidRequest(e.to_string()))
    }

    /// One plain try.
    async fn plain(&self, table: &Table, op: &Op) -> Result<Reply> {
        match self {
            Single::Put(r) => sdk::put_item(table, op, r.clone()).await,
            Single::Delete(r) => sdk::delete_item(table, op, r.clone()).await,
            Single::Update(r) => sdk::update_item(table, op, r.clone()).await,
        }
    }
}

/// Send the single-item write `single` about the record under `key` as the table's
/// [`LostAnswers`] choice says: a plain request never sent again after a try that may have
/// been applied, or a one-step transaction under one `ClientRequestToken`, sent again.
///
/// After a try that may have been applied, only success is an answer: anything else is
/// [`Error::OutcomeUnknown`].
pub(crate) async fn write(
    table: &Table,
    op: &Op,
    key: &(String, String),
    single: Single,
) -> Result<Reply> {
    let answer = if single.as_transaction(table) {
        let step = match table.renamer() {
            Some(r) => r.transact_write(single.step()?),
            None => single.step()?,
        };
        let (token, action) = (fresh_token(), single.action());
        // A cancellation by another transaction or throttling is an error `send` tries
        // again; a failed condition is the reply.
        send(table, op, key, Resend::Safe, || async {
            match sdk::transact_write(table, op, vec![step.clone()], &token).await? {
                Ok(()) => Ok(Reply::Applied(None)),
                Err(reasons) => one_step_reply(table, op, key, action, reasons),
            }
        })
        .await?
    } else {
        send(table, op, key, Resend::Never, || single.plain(table, op)).await?
    };
    if !matches!(answer.reply, Reply::Applied(_)) {
        answer.unless_uncertain(op, key)?;
    }
    Ok(answer.reply)
}

/// The reply of a one-step transaction DynamoDB canceled: its failed condition with the
/// item stored, or the cancellation (a conflict with another transaction, throttling).
fn one_step_reply(
    table: &Table,
    op: &Op,
    key: &(String, String),
    action: TxAction,
    reasons: sdk::Cancellation,
) -> Result<Reply> {
    let Some((code, message, stored)) = reasons.into_iter().next() else {
        return Err(Error::InvalidRequest(
            "DynamoDB canceled a one-step transaction without a reason".into(),
        ));
    };
    if code == "ConditionalCheckFailed" {
        let stored = match (table.renamer(), stored) {
            (Some(r), Some(item)) => Some(r.item_in(item)),
            (_, item) => item,
        };
        return Ok(Reply::ConditionFailed(stored));
    }
    let step = TxStep {
        index: 0,
        table: table.name().to_owned(),
        action,
        facet: op.context().facet.unwrap_or_default(),
        pk: key.0.clone().into(),
        sk: key.1.clone().into(),
        check: crate::error::OnlyCheck::Condition,
    };
    Err(Error::TransactionCanceled {
        canceled: vec![Canceled {
            step,
            reason: CancelReason::of_code(code, message),
            stored_item: None,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn items_compare_as_dynamodb_compares_values() {
        let n = |s: &str| AttributeValue::N(s.into());
        let ours = item(&[("PK", AttributeValue::S("a".into())), ("v", n("3"))]);
        // Numbers compare as numbers.
        let same = item(&[("PK", AttributeValue::S("a".into())), ("v", n("3.0"))]);
        assert!(same_item(&same, &ours));
        let other = item(&[("PK", AttributeValue::S("b".into())), ("v", n("3"))]);
        assert!(!same_item(&other, &ours));
        let more = item(&[
            ("PK", AttributeValue::S("a".into())),
            ("v", n("3")),
            ("w", n("1")),
        ]);
        assert!(!same_item(&more, &ours));
    }

    #[test]
    fn tokens_are_fresh_and_fit_dynamodb() {
        let t = fresh_token();
        assert_eq!(t.len(), 32);
        assert_ne!(t, fresh_token());
    }

    #[test]
    fn a_single_write_becomes_a_step_with_its_condition() {
        let request = aws_sdk_dynamodb::operation::update_item::UpdateItemInput::builder()
            .table_name("t")
            .key("PK", AttributeValue::S("a".into()))
            .key("SK", AttributeValue::S("b".into()))
            .update_expression("ADD #n :one")
            .condition_expression("attribute_exists(#p)")
            .expression_attribute_names("#n", "n")
            .expression_attribute_names("#p", "PK")
            .expression_attribute_values(":one", AttributeValue::N("1".into()));
        let step = Single::Update(request).step().unwrap();
        let update = step.update().unwrap();
        assert_eq!(update.table_name(), "t");
        assert_eq!(update.update_expression(), "ADD #n :one");
        assert_eq!(update.condition_expression(), Some("attribute_exists(#p)"));
        assert_eq!(update.key().len(), 2);
        assert_eq!(
            update.return_values_on_condition_check_failure(),
            Some(&ReturnValuesOnConditionCheckFailure::AllOld)
        );
    }
}
