//! Transactions: [`Table::transact_write`] (`TransactWriteItems`: puts, updates, deletes and
//! condition checks across facets, all or nothing) and [`Table::transact_get`]
//! (`TransactGetItems`: a consistent snapshot of several records, typed).
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Order { #[pk(prefix = "#CUSTOMER")] customer: String, #[sk(prefix = "#ORDER")] id: String, sku: String }
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Stock { #[pk(prefix = "#SKU")] #[sk(prefix = "#SKU")] sku: String, on_hand: u32 }
//! # async fn demo(table: &Table, order: Order) -> faceteer::Result<()> {
//! let s = Stock::fields();
//! // Each step is the single-operation builder, with its options.
//! table
//!     .transact_write()
//!     .put(table.put(&order).if_not_exists())
//!     .update(table.update(&Stock::key(&order.sku)?, s.on_hand.subtract(1)).when(s.on_hand.ge(1)))
//!     .await?; // both, or neither: `Error::TransactionCanceled` says which step failed
//! # Ok(()) }
//! ```

use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;

use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete as TxDelete, Get as TxGet, Put as TxPut, TransactGetItem,
    TransactWriteItem, Update as TxUpdate,
};
use faceteer_core::expr::Update;
use faceteer_core::expr::{Expr, ExprError};
use faceteer_core::plan::{split_condition, PutPlan, RenderedCondition, Returning};
use faceteer_core::{Facet, Item, Key};

use crate::error::{CancelReason, Canceled, Error, OnlyCheck, Result, TxAction, TxStep};
use crate::exec::future::{records, traced, BoxFuture};
use crate::exec::once;
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::table::Table;
use crate::wire::keys::key_pair;
use crate::wire::stored::Stored;
use faceteer_core::plan::put::put_plan;
use faceteer_core::plan::stamp::write_clock_now;
use faceteer_core::plan::stamp::Created;
use faceteer_core::plan::update::{first_differing, from_stored, update_plan, FromStored, Planned};

/// Most actions in one transaction (DynamoDB's limit).
pub const MAX_TRANSACTION_ITEMS: usize = 100;

/// The stored values each step checks: `(attribute, value)` (`None`: no attribute).
pub(crate) type Checks = Vec<(
    &'static str,
    Option<aws_sdk_dynamodb::types::AttributeValue>,
)>;

/// The canceled steps of a transaction, for [`Error::TransactionCanceled`]; `checks` holds
/// the values each step (by index) checks, when it names some.
pub(crate) fn canceled(
    steps: &[TxStep],
    checks: &[Checks],
    reasons: crate::exec::sdk::Cancellation,
) -> Vec<Canceled> {
    steps
        .iter()
        .zip(reasons)
        .filter(|(_, (code, _, _))| code != "None" && !code.is_empty())
        .map(|(step, (code, message, stored))| Canceled {
            stored_item: stored.clone().filter(|_| code == "ConditionalCheckFailed"),
            reason: match code.as_str() {
                "ConditionalCheckFailed" if step.check == OnlyCheck::Version => {
                    CancelReason::VersionConflict
                }
                "ConditionalCheckFailed" if step.check == OnlyCheck::Absent => {
                    CancelReason::AlreadyExists
                }
                "ConditionalCheckFailed" => {
                    let differs = stored
                        .as_ref()
                        .and_then(|stored| first_differing(checks.get(step.index)?, stored));
                    match differs {
                        Some(field) => CancelReason::StoredValueDiffers { field },
                        None => CancelReason::ConditionFailed,
                    }
                }
                _ => CancelReason::of_code(code, message),
            },
            step: step.clone(),
        })
        .collect()
}

/// The transaction step of a planned update on `table`, with the values it checks.
fn update_write(table: &str, planned: Planned) -> Result<(TransactWriteItem, Checks)> {
    let plan = planned.plan;
    let (names, values) = plan.placeholders.into_parts();
    let update = TxUpdate::builder()
        .table_name(table)
        .set_key(Some(plan.key))
        .return_values_on_condition_check_failure(
            aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure::AllOld,
        )
        .update_expression(plan.update)
        .set_condition_expression(plan.condition)
        .set_expression_attribute_names(names)
        .set_expression_attribute_values(values)
        .build()
        .map_err(build_error)?;
    Ok((
        TransactWriteItem::builder().update(update).build(),
        planned.checked,
    ))
}

fn build_error(e: aws_sdk_dynamodb::error::BuildError) -> Error {
    Error::InvalidRequest(e.to_string())
}

/// Build a keyed, conditioned step (`Delete`, `ConditionCheck`) on `$table` and `$key`
/// from `$condition` (`Option<RenderedCondition>`).
macro_rules! keyed_step {
    ($builder:expr, $table:expr, $key:expr, $condition:expr) => {{
        let (expr, names, values) = split_condition($condition);
        $builder
            .table_name($table)
            .set_key(Some($key))
            .return_values_on_condition_check_failure(
                aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure::AllOld,
            )
            .set_condition_expression(expr)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map_err(build_error)
    }};
}

/// A transaction put of `plan` on `table`, asking for the stored item when its condition
/// fails.
pub(crate) fn put_write(table: &str, plan: PutPlan) -> Result<TransactWriteItem> {
    let (expr, names, values) = split_condition(plan.condition);
    let put = TxPut::builder()
        .table_name(table)
        .return_values_on_condition_check_failure(
            aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure::AllOld,
        )
        .set_item(Some(plan.item))
        .set_condition_expression(expr)
        .set_expression_attribute_names(names)
        .set_expression_attribute_values(values)
        .build()
        .map_err(build_error)?;
    Ok(TransactWriteItem::builder().put(put).build())
}

/// A transaction delete of `key` on `table` on `condition`, asking for the stored item when
/// it fails.
pub(crate) fn delete_write(
    table: &str,
    key: Item,
    condition: Option<RenderedCondition>,
) -> Result<TransactWriteItem> {
    let delete = keyed_step!(TxDelete::builder(), table, key, condition)?;
    Ok(TransactWriteItem::builder().delete(delete).build())
}

/// `when` and `extra`, joined with `AND`.
/// What a failed condition of a put step of `F` means: the caller's condition when one is
/// given (`when_given`), else the absence or the version the put checks.
pub(crate) fn put_check<F: Facet>(when_given: bool, item_exists: Option<bool>) -> OnlyCheck {
    match (when_given, item_exists) {
        (true, _) => OnlyCheck::Condition,
        (false, Some(false)) => OnlyCheck::Absent,
        (false, _) if F::VERSION.is_some() => OnlyCheck::Version,
        (false, _) => OnlyCheck::Condition,
    }
}

fn joined<F>(when: Option<&Expr<F>>, extra: Option<Expr<F>>) -> Option<Expr<F>> {
    match (when.cloned(), extra) {
        (Some(a), Some(b)) => Some(a.and(b)),
        (a, b) => a.or(b),
    }
}

/// A write transaction: [`Table::transact_write`]. Add steps, then await it.
#[must_use = "a transaction does nothing until it is awaited"]
pub struct TransactWrite<'t> {
    /// The table that sends it.
    table: &'t Table,
    /// The table the next steps act on ([`TransactWrite::on`]).
    current: Table,
    /// The table of each step, by step index.
    tables: Vec<Table>,
    items: Vec<TransactWriteItem>,
    steps: Vec<TxStep>,
    /// The stored values each step checks, by step index (empty for most steps).
    checks: Vec<Checks>,
    error: Option<Error>,
    /// The caller's idempotency token, sent as the `ClientRequestToken` instead of
    /// `fresh_token`.
    token: Option<String>,
    /// The `ClientRequestToken` without one of the caller's.
    fresh_token: String,
    /// Built by a write of a facet with unique fields, which adds the guard steps.
    guards: bool,
    /// The update steps planned from the record stored under their keys, read when the
    /// transaction is sent.
    deferred: Vec<Deferred>,
    /// The steps of facets with hooks: the hooks run when the transaction is sent, then the
    /// step is built from what they leave.
    hooked: Vec<HookedStep<'t>>,
}

/// Adds one step to a transaction (built after a step's hooks ran).
pub(crate) type Applier<'t> = Box<dyn FnOnce(TransactWrite<'t>) -> TransactWrite<'t> + Send + 't>;

/// A step whose hooks run when the transaction is sent: a placeholder holds its place.
struct HookedStep<'t> {
    /// The step's index.
    index: usize,
    /// Runs the hooks; then what adds the step.
    resolve: BoxFuture<'t, Result<Applier<'t>>>,
}

/// An update step whose derived keys need stored values the change does not give: the
/// record is read when the transaction is sent, and the step planned from it (again from
/// the item a cancellation returns, when another writer changed those values).
struct Deferred {
    /// The step's index.
    index: usize,
    /// The key updated.
    key: Item,
    /// The facet.
    facet: &'static str,
    /// The step, planned from the stored item.
    plan: FromStored,
}

impl Table {
    /// A write transaction on this table: up to 100 puts, updates, deletes and condition
    /// checks, of any declared facets, applied all together or not at all. Await it; when
    /// DynamoDB cancels it, [`Error::TransactionCanceled`] lists each step that caused it
    /// and why.
    ///
    /// It is applied exactly once, whatever other writers do meanwhile: a try whose answer
    /// was lost is not sent again, and the transaction fails with
    /// [`Error::OutcomeUnknown`], unless the table chose
    /// [`LostAnswers::Resend`](crate::LostAnswers::Resend): then it is sent again with the same
    /// `ClientRequestToken`, which DynamoDB applies once within 10 minutes.
    pub fn transact_write(&self) -> TransactWrite<'_> {
        TransactWrite {
            table: self,
            current: self.clone(),
            tables: Vec::new(),
            items: Vec::new(),
            steps: Vec::new(),
            checks: Vec::new(),
            error: None,
            token: None,
            fresh_token: crate::exec::once::fresh_token(),
            guards: false,
            deferred: Vec::new(),
            hooked: Vec::new(),
        }
    }

    /// A write transaction that the write of a facet with unique fields builds: its guard
    /// steps are added to it.
    pub(crate) fn guarded_transaction(&self) -> TransactWrite<'_> {
        TransactWrite {
            guards: true,
            ..self.transact_write()
        }
    }

    /// A read transaction on this table: up to 100 records of any facets, read as one
    /// consistent snapshot. Add reads with [`TransactGet::get`], then await it.
    pub fn transact_get(&self) -> TransactGet<'_> {
        TransactGet {
            table: self,
            items: Vec::new(),
            steps: Vec::new(),
            error: None,
            hooked: Vec::new(),
        }
    }
}

impl<'t> TransactWrite<'t> {
    fn step<F: Facet>(
        self,
        action: TxAction,
        key: (String, String),
        check: OnlyCheck,
        item: Result<TransactWriteItem>,
    ) -> Self {
        self.checked_step::<F>(action, key, check, item.map(|item| (item, Vec::new())))
    }

    /// [`Self::step`] of a step that checks stored values (an update naming values
    /// unchanged), kept by step index for its cancellation reason.
    fn checked_step<F: Facet>(
        self,
        action: TxAction,
        key: (String, String),
        check: OnlyCheck,
        item: Result<(TransactWriteItem, Checks)>,
    ) -> Self {
        let declared = self.current.check_declared::<F>().and_then(|()| {
            if action == TxAction::Check || F::SCHEMA.unique.is_empty() || self.guards {
                return item;
            }
            Err(Error::InvalidRequest(format!(
                "`{}` has `#[unique]` fields, whose guards a write changes in a transaction of \
                 its own: write it with `put`, `update`, `upsert`, `delete` or `move_to`, not \
                 inside `transact_write`",
                F::SCHEMA.name
            )))
        });
        self.push(F::SCHEMA.name, action, key, check, declared)
    }

    /// Add a step acting on the current table.
    pub(crate) fn push(
        mut self,
        facet: &'static str,
        action: TxAction,
        (pk, sk): (String, String),
        check: OnlyCheck,
        item: Result<(TransactWriteItem, Checks)>,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        match item {
            Ok((item, checks)) => {
                self.checks.push(checks);
                self.steps.push(TxStep {
                    index: self.steps.len(),
                    table: self.current.name().to_owned(),
                    action,
                    facet,
                    pk: pk.into(),
                    sk: sk.into(),
                    check,
                });
                self.tables.push(self.current.clone());
                self.items.push(item);
            }
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// The condition checks added after this ([`TransactWrite::check`]) act on `table`
    /// (puts, updates and deletes act on their builder's table): one transaction can write
    /// to several tables of one account and region. Each table checks its own declared
    /// facets and uses its own attribute names; the transaction is sent by the table it
    /// started from, and its cancellation reasons name each step's table.
    pub fn on(mut self, table: &Table) -> Self {
        self.current = table.clone();
        self
    }

    /// A put step; `extra` is a condition of the library's own, `AND`-ed to `when`, that
    /// does not change what a failed condition means.
    pub(crate) fn put_step<F: Facet>(
        self,
        record: &F,
        item_exists: Option<bool>,
        when: Option<&Expr<F>>,
        extra: Option<Expr<F>>,
    ) -> Self {
        let all = joined(when, extra);
        let plan = put_plan(
            record,
            item_exists,
            all.as_ref(),
            Created::Now,
            &write_clock_now(),
        );
        let check = put_check::<F>(when.is_some(), item_exists);
        self.planned_put_step::<F>(plan.map_err(Error::from_plan), check)
    }

    /// A put step from its plan; `check` says what a failed condition means.
    pub(crate) fn planned_put_step<F: Facet>(
        self,
        plan: Result<PutPlan>,
        check: OnlyCheck,
    ) -> Self {
        let table = self.current.name().to_owned();
        let key = plan.as_ref().map(|p| key_pair(&p.item)).unwrap_or_default();
        let item = plan.and_then(|plan| put_write(&table, plan));
        self.step::<F>(TxAction::Put, key, check, item)
    }

    /// `add` applied with `table` as the current table, then the current table as before.
    pub(crate) fn on_table(mut self, table: &Table, add: impl FnOnce(Self) -> Self) -> Self {
        let before = std::mem::replace(&mut self.current, table.clone());
        let mut tx = add(self);
        tx.current = before;
        tx
    }

    /// The transaction, failing with `error` when sent (the first error is kept).
    pub(crate) fn fail(mut self, error: Error) -> Self {
        self.error.get_or_insert(error);
        self
    }

    /// An update step of the record under `key` (its `#[updated]` already stamped).
    pub(crate) fn update_step<F: Facet>(
        self,
        key: Item,
        change: Update<F>,
        when: Option<&Expr<F>>,
    ) -> Self {
        let planned =
            update_plan(&key, &change, when, Returning::Nothing, None).map_err(Error::from_plan);
        let Err(Error::Expr(ExprError::KeyFieldNeeded { .. })) = planned else {
            return self.planned_update_step::<F>(key, planned);
        };
        // A value the change does not give: the step is planned from the stored record,
        // read when the transaction is sent (a placeholder holds its place until then).
        let index = self.steps.len();
        let plan = from_stored(&key, &change, when, Returning::Nothing);
        let placeholder = Ok((TransactWriteItem::builder().build(), Vec::new()));
        let pair = key_pair(&key);
        let mut tx =
            self.checked_step::<F>(TxAction::Update, pair, OnlyCheck::Condition, placeholder);
        if tx.error.is_none() {
            tx.deferred.push(Deferred {
                index,
                key,
                facet: F::SCHEMA.name,
                plan,
            });
        }
        tx
    }

    /// An update step from its plan (for the record under `key`).
    pub(crate) fn planned_update_step<F: Facet>(
        self,
        key: Item,
        planned: Result<faceteer_core::plan::update::Planned>,
    ) -> Self {
        let table = self.current.name().to_owned();
        let item = planned.and_then(|planned| update_write(&table, planned));
        self.checked_step::<F>(TxAction::Update, key_pair(&key), OnlyCheck::Condition, item)
    }

    /// A delete step; `extra` as for [`Self::put_step`].
    pub(crate) fn delete_step<F: Facet>(
        self,
        key: &Key<F>,
        item_exists: Option<bool>,
        when: Option<&Expr<F>>,
        extra: Option<Expr<F>>,
    ) -> Self {
        let all = joined(when, extra);
        self.delete_with::<F>(key, item_exists, all.as_ref(), OnlyCheck::Condition)
    }

    /// A delete step on condition `cond` (of the library's own), whose failure means
    /// `check`.
    pub(crate) fn delete_step_checked<F: Facet>(
        self,
        key: &Key<F>,
        item_exists: Option<bool>,
        cond: Expr<F>,
        check: OnlyCheck,
    ) -> Self {
        self.delete_with::<F>(key, item_exists, Some(&cond), check)
    }

    fn delete_with<F: Facet>(
        self,
        key: &Key<F>,
        item_exists: Option<bool>,
        cond: Option<&Expr<F>>,
        check: OnlyCheck,
    ) -> Self {
        let table = self.current.name().to_owned();
        let key = key.to_item();
        let item = RenderedCondition::all(item_exists, cond)
            .map_err(Error::from)
            .and_then(|condition| delete_write(&table, key.clone(), condition));
        self.step::<F>(TxAction::Delete, key_pair(&key), check, item)
    }

    /// Apply the transaction only when `cond` holds for the record under `key`, which the
    /// transaction does not change otherwise.
    pub fn check<F: Facet>(self, key: &Key<F>, cond: Expr<F>) -> Self {
        let table = self.current.name().to_owned();
        let key = key.to_item();
        let item = RenderedCondition::all(None, Some(&cond))
            .map_err(Error::from)
            .and_then(|condition| {
                let check = keyed_step!(ConditionCheck::builder(), table, key.clone(), condition)?;
                Ok(TransactWriteItem::builder().condition_check(check).build())
            });
        self.step::<F>(TxAction::Check, key_pair(&key), OnlyCheck::Condition, item)
    }

    /// The idempotency token (at most 36 characters): a transaction sent again with the
    /// same token within 10 minutes is applied once. Without one, faceteer makes a fresh
    /// one per transaction (its own retries reuse it).
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The steps added so far.
    pub fn steps(&self) -> &[TxStep] {
        &self.steps
    }

    /// Refuse what DynamoDB would refuse, before sending.
    fn check_request(&self) -> Result<()> {
        if self.items.is_empty() {
            return Err(Error::InvalidRequest("the transaction has no steps".into()));
        }
        if self.items.len() > MAX_TRANSACTION_ITEMS {
            return Err(Error::InvalidRequest(format!(
                "the transaction has {} steps; DynamoDB allows at most {MAX_TRANSACTION_ITEMS}",
                self.items.len()
            )));
        }
        for (i, a) in self.steps.iter().enumerate() {
            if let Some(b) = self.steps[..i]
                .iter()
                .find(|b| (&b.table, &b.pk, &b.sk) == (&a.table, &a.pk, &a.sk))
            {
                return Err(Error::InvalidRequest(format!(
                    "steps {} and {} both act on the record (PK {:?}, SK {:?}) of table `{}`; \
                     a transaction acts on each record once",
                    b.index, a.index, a.pk, a.sk, a.table
                )));
            }
        }
        if let Some(token) = &self.token {
            if token.is_empty() || token.len() > 36 {
                return Err(Error::InvalidRequest(
                    "an idempotency token has 1 to 36 characters".into(),
                ));
            }
        }
        Ok(())
    }
}

impl<'t> IntoFuture for TransactWrite<'t> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'t, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        let table = self.table;
        let op = Op::new("TransactWriteItems", table, "(transaction)", None);
        // The records it writes: every step but the condition checks.
        let steps = self
            .steps
            .iter()
            .filter(|s| s.action != TxAction::Check)
            .count();
        let work = move |op: Arc<Op>| async move { self.run(&op).await };
        traced(op, records(move |_| steps), work)
    }
}

/// How many times a transaction with update steps planned from stored records is sent
/// while other writers change the values those steps read.
const REPLAN_ATTEMPTS: usize = 8;

impl<'t> TransactWrite<'t> {
    /// Plan the deferred step `d` from `stored`, in its table's names; the plan.
    fn plan_deferred(&mut self, d: usize, stored: &Item) -> Result<Planned> {
        let deferred = &self.deferred[d];
        let planned = (deferred.plan)(stored).map_err(Error::from_plan)?;
        let table = &self.tables[deferred.index];
        let (item, checks) = update_write(table.name(), planned.clone())?;
        self.items[deferred.index] = item;
        self.checks[deferred.index] = checks;
        Ok(planned)
    }

    /// Read the records of the deferred steps, plan them, and send the transaction; again,
    /// under a new token, while a cancellation shows that another writer changed a value a
    /// deferred step read (without a caller's token, which names one request).
    async fn run(mut self, op: &Op) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.resolve_hooked().await?;
        self.check_request()?;
        let mut planned = Vec::with_capacity(self.deferred.len());
        for d in 0..self.deferred.len() {
            let (index, facet) = (self.deferred[d].index, self.deferred[d].facet);
            let table = &self.tables[index];
            let key = self.deferred[d].key.clone();
            match crate::read::stored_item(table, op, &key, facet).await? {
                Some(stored) => planned.push(self.plan_deferred(d, &stored)?),
                // No record to update: the step's condition fails, as the server says.
                None => {
                    return Err(Error::TransactionCanceled {
                        canceled: vec![Canceled {
                            step: self.steps[index].clone(),
                            reason: CancelReason::ConditionFailed,
                            stored_item: None,
                        }],
                    })
                }
            }
        }
        let mut token = self
            .token
            .clone()
            .unwrap_or_else(|| self.fresh_token.clone());
        let first = self
            .steps
            .first()
            .map(|s| (s.pk.as_str().to_owned(), s.sk.as_str().to_owned()));
        let first = first.unwrap_or_default();
        let table = self.table;
        let mut attempt = 0;
        loop {
            attempt += 1;
            // Each step in its own table's names, and the items of the reasons back.
            let items: Vec<TransactWriteItem> = self
                .items
                .iter()
                .zip(&self.tables)
                .map(|(item, t)| match t.renamer() {
                    Some(r) => r.transact_write(item.clone()),
                    None => item.clone(),
                })
                .collect();
            let resend = once::Resend::with_token(table);
            // A cancellation only by other transactions or throttling is sent again (it
            // certainly changed nothing); any other is the answer.
            let (steps, checks, token_now) = (&self.steps, &self.checks, token.as_str());
            let answer = once::send(table, op, &first, resend, || async {
                let sent = sdk::transact_write(table, op, items.clone(), token_now).await?;
                let reasons = match sent {
                    Ok(()) => return Ok(Ok(())),
                    Err(reasons) => reasons,
                };
                let why = canceled(steps, checks, reasons.clone());
                if crate::exec::retry::may_pass_again(&why) {
                    return Err(Error::TransactionCanceled { canceled: why });
                }
                Ok(Err(reasons))
            })
            .await?;
            let mut reasons = match answer.reply {
                Ok(()) => return Ok(()),
                Err(reasons) => reasons,
            };
            // After a try that may have been applied, only success is an answer: the lost
            // try may still land.
            if let Some(cause) = answer.uncertain {
                return Err(once::unknown(op, &first, answer.tries, cause));
            }
            for ((_, _, stored), t) in reasons.iter_mut().zip(&self.tables) {
                if let Some(r) = t.renamer() {
                    *stored = stored.take().map(|item| r.item_in(item));
                }
            }
            // A deferred step refused because a value it read changed: planned again from
            // the item the cancellation returns. It certainly changed nothing.
            let mut again = false;
            let may_replan =
                self.token.is_none() && attempt < REPLAN_ATTEMPTS && !op.past_deadline();
            for (d, plan) in planned.iter_mut().enumerate() {
                let index = self.deferred[d].index;
                let stored = match reasons.get(index) {
                    Some((code, _, Some(stored))) if code == "ConditionalCheckFailed" => stored,
                    _ => continue,
                };
                if may_replan && plan.assumed_wrong(stored) {
                    *plan = self.plan_deferred(d, &stored.clone())?;
                    again = true;
                }
            }
            if !again {
                return Err(Error::TransactionCanceled {
                    canceled: canceled(&self.steps, &self.checks, reasons),
                });
            }
            token = crate::exec::once::fresh_token();
        }
    }
}

/// A record read by a [`TransactGet`]: take it from the [`TransactGot`] with this handle.
#[derive(Debug)]
pub struct Handle<F> {
    index: usize,
    _facet: PhantomData<fn() -> F>,
}

/// A read transaction: [`Table::transact_get`].
#[must_use = "a read transaction does nothing until it is sent"]
pub struct TransactGet<'t> {
    table: &'t Table,
    items: Vec<TransactGetItem>,
    steps: Vec<TxStep>,
    error: Option<Error>,
    /// The reads of facets with hooks: decoded, and through their `after_read` hooks, when
    /// the answer arrives.
    hooked: Vec<(usize, HookedDecode)>,
}

/// A read item of a facet with hooks, decoded and through its hooks (`None`: not a record of
/// the facet).
type Decoded = Result<Option<Box<dyn std::any::Any + Send>>>;

/// Decodes a read item of one facet with hooks.
type HookedDecode = for<'a> fn(&'a Table, Stored, Option<i64>) -> BoxFuture<'a, Decoded>;

/// [`HookedDecode`] of facet `F`.
fn decode_hooked<F: Facet>(
    table: &Table,
    item: Stored,
    hide_expired: Option<i64>,
) -> BoxFuture<'_, Decoded> {
    Box::pin(async move {
        let expired =
            F::SCHEMA.ttl_field.is_some() && hide_expired.is_some_and(|now| item.is_expired(now));
        if item.is_foreign(F::SCHEMA.name) || expired {
            return Ok(None);
        }
        let mut record = item.decode::<F>()?;
        if let Some(hooked) = table.hooks_for::<F>() {
            hooked
                .after_read(&mut record, crate::hook::ReadKind::Transaction)
                .await?;
        }
        let record: Box<dyn std::any::Any + Send> = Box::new(record);
        Ok(Some(record))
    })
}

impl<'t> TransactGet<'t> {
    /// Read the record under `key`; the handle takes it from the result.
    pub fn get<F: Facet>(&mut self, key: &Key<F>) -> Handle<F> {
        let (pk, sk) = (key.pk().to_owned(), key.sk().to_owned());
        let get = TxGet::builder()
            .table_name(self.table.name())
            .set_key(Some(key.to_item()))
            .build()
            .map_err(build_error);
        match get {
            Ok(get) => self.items.push(TransactGetItem::builder().get(get).build()),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        if self.table.hooks_for::<F>().is_some() {
            self.hooked.push((self.steps.len(), decode_hooked::<F>));
        }
        self.steps.push(TxStep {
            index: self.steps.len(),
            table: self.table.name().to_owned(),
            action: TxAction::Get,
            facet: F::SCHEMA.name,
            pk: pk.into(),
            sk: sk.into(),
            check: OnlyCheck::Condition,
        });
        Handle {
            index: self.steps.len() - 1,
            _facet: PhantomData,
        }
    }

    /// Read every record, as one snapshot (what awaiting it does).
    async fn read(self) -> Result<TransactGot> {
        let table = self.table;
        let op = Op::new("TransactGetItems", table, "(transaction)", None);
        let steps = self.steps;
        let (items, error, hooked) = (self.items, self.error, self.hooked);
        let work = move |op: Arc<Op>| async move {
            if let Some(e) = error {
                return Err(e);
            }
            if items.is_empty() || items.len() > MAX_TRANSACTION_ITEMS {
                return Err(Error::InvalidRequest(format!(
                    "a read transaction reads 1 to {MAX_TRANSACTION_ITEMS} records, not {}",
                    items.len()
                )));
            }
            match sdk::transact_get(table, &op, items).await? {
                Ok(mut found) => {
                    let hide_expired = table
                        .hiding_expired_records()
                        .then(crate::table::now_seconds);
                    let mut decoded: Vec<Option<Decoded>> =
                        std::iter::repeat_with(|| None).take(found.len()).collect();
                    for (index, decode) in hooked {
                        if let Some(item) = found.get_mut(index).and_then(Option::take) {
                            decoded[index] = Some(decode(table, item, hide_expired).await);
                        }
                    }
                    Ok(TransactGot {
                        found,
                        decoded,
                        hide_expired,
                    })
                }
                Err(reasons) => Err(Error::TransactionCanceled {
                    canceled: canceled(&steps, &[], reasons),
                }),
            }
        };
        let found = |got: &TransactGot| got.found.iter().filter(|f| f.is_some()).count();
        traced(op, records(found), work).await
    }
}

impl<'t> IntoFuture for TransactGet<'t> {
    type Output = Result<TransactGot>;
    type IntoFuture = BoxFuture<'t, Result<TransactGot>>;

    /// Read every record, as one snapshot.
    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.read())
    }
}

/// The records a [`TransactGet`] read.
#[derive(Debug)]
pub struct TransactGot {
    found: Vec<Option<Stored>>,
    /// The records of facets with hooks, decoded and through their hooks.
    decoded: Vec<Option<Decoded>>,
    /// The time records expired before are passed over, when the table hides them.
    hide_expired: Option<i64>,
}

impl TransactGot {
    /// The record read with `handle`: `None` when no record of its facet has the key. The
    /// facet's validator runs on it.
    pub fn take<F: Facet>(&mut self, handle: Handle<F>) -> Result<Option<F>> {
        if let Some(decoded) = self.decoded.get_mut(handle.index).and_then(Option::take) {
            return Ok(decoded?.and_then(|r| r.downcast::<F>().ok()).map(|r| *r));
        }
        let item = self.found.get_mut(handle.index).and_then(Option::take);
        let expired = |item: &Stored| {
            F::SCHEMA.ttl_field.is_some()
                && self.hide_expired.is_some_and(|now| item.is_expired(now))
        };
        match item {
            Some(item) if !item.is_foreign(F::SCHEMA.name) && !expired(&item) => {
                Ok(Some(item.decode::<F>()?))
            }
            _ => Ok(None),
        }
    }
}

impl<'t> TransactWrite<'t> {
    /// A step of facet `F` (on `table`, under `key`) whose hooks run when the transaction is
    /// sent: `resolve` runs them and gives what adds the step, built from what they leave.
    pub(crate) fn hooked_step<F: Facet>(
        self,
        table: &Table,
        action: TxAction,
        key: (String, String),
        resolve: BoxFuture<'t, Result<Applier<'t>>>,
    ) -> Self {
        let index = self.steps.len();
        let placeholder = Ok((TransactWriteItem::builder().build(), Vec::new()));
        let mut tx = self.on_table(table, |tx| {
            tx.checked_step::<F>(action, key, OnlyCheck::Condition, placeholder)
        });
        if tx.error.is_none() {
            tx.hooked.push(HookedStep { index, resolve });
        }
        tx
    }

    /// Run the hooks of the hooked steps, and put each step built from what they leave in
    /// its place.
    async fn resolve_hooked(&mut self) -> Result<()> {
        for hooked in std::mem::take(&mut self.hooked) {
            let index = hooked.index;
            let apply = hooked.resolve.await?;
            let alone = TransactWrite {
                current: self.tables[index].clone(),
                guards: self.guards,
                ..self.table.transact_write()
            };
            let mut built = apply(alone);
            if let Some(e) = built.error.take() {
                return Err(e);
            }
            let (Some(item), Some(mut step), Some(checks)) =
                (built.items.pop(), built.steps.pop(), built.checks.pop())
            else {
                return Err(Error::InvalidRequest("a hooked step built no step".into()));
            };
            step.index = index;
            self.items[index] = item;
            self.steps[index] = step;
            self.checks[index] = checks;
            for mut d in built.deferred {
                d.index = index;
                self.deferred.push(d);
            }
        }
        Ok(())
    }
}
