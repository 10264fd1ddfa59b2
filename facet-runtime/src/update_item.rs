//! Updates of one record: [`Table::update`] sends `UpdateItem` with a typed
//! [`Update`], and returns nothing, or the record before or
//! after.
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Order { #[pk(prefix = "#ORDER")] #[sk(prefix = "#ORDER")] id: String, status: String, items: u32, notes: Vec<String>, coupon: Option<String> }
//! # async fn demo(table: &Table) -> faceteer::Result<()> {
//! let f = Order::fields();
//! let key = Order::key("o1")?;
//! table.update(&key, f.status.set("shipped") & f.items.add(2)).await?;
//! let order: Order = table
//!     .update(&key, f.notes.append(["left the warehouse".to_owned()]) & f.coupon.remove())
//!     .when(f.status.eq("shipped"))
//!     .returning_new()
//!     .await?;
//! # Ok(()) }
//! ```

use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;

use faceteer_core::expr::Expr;
use faceteer_core::plan::{Returning, UpdatePlan};
use faceteer_core::update::Update;
use faceteer_core::{from_item, Facet, Item, Key};

use crate::error::{Error, Result};
use crate::item::{condition_failed, records, traced, BoxFuture};
use crate::sdk;
use crate::table::Table;
use crate::trace::Op;

impl Table {
    /// Change the record under `key` with `change` (field operations combined with `&`),
    /// atomically on the server. Only an existing record is updated: without one, the update
    /// fails with [`Error::ConditionFailed`] and creates nothing (use `put` to create).
    ///
    /// Options: [`UpdateItem::when`], [`UpdateItem::returning_new`],
    /// [`UpdateItem::returning_old`].
    pub fn update<F: Facet>(&self, key: &Key<F>, change: Update<F>) -> UpdateItem<'_, F> {
        UpdateItem {
            table: self,
            key: key.to_item(),
            change,
            when: None,
            _returns: PhantomData,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// What awaiting an update gives: nothing ([`Nothing`]), or a record ([`New`], [`Old`]).
pub trait Returns: sealed::Sealed + Send + 'static {
    /// What DynamoDB is asked to return.
    const RETURNING: Returning;
    /// The result for facet `F`.
    type Output<F: Facet>: Send;
    /// The result from the attributes returned.
    fn output<F: Facet>(attributes: Option<Item>) -> Result<Self::Output<F>>;
}

/// An update that returns nothing (the default).
#[derive(Debug, Clone, Copy)]
pub enum Nothing {}
/// An update that returns the record as it is after the update.
#[derive(Debug, Clone, Copy)]
pub enum New {}
/// An update that returns the record as it was before the update.
#[derive(Debug, Clone, Copy)]
pub enum Old {}

impl sealed::Sealed for Nothing {}
impl sealed::Sealed for New {}
impl sealed::Sealed for Old {}

impl Returns for Nothing {
    const RETURNING: Returning = Returning::Nothing;
    type Output<F: Facet> = ();
    fn output<F: Facet>(_: Option<Item>) -> Result<()> {
        Ok(())
    }
}

/// The record from the attributes an update returned.
fn record<F: Facet>(attributes: Option<Item>) -> Result<F> {
    let item = attributes.ok_or(Error::MissingKeyAttribute(
        faceteer_core::schema::PK.to_owned(),
    ))?;
    Ok(from_item::<F>(item)?)
}

impl Returns for New {
    const RETURNING: Returning = Returning::New;
    type Output<F: Facet> = F;
    fn output<F: Facet>(attributes: Option<Item>) -> Result<F> {
        record(attributes)
    }
}

impl Returns for Old {
    const RETURNING: Returning = Returning::Old;
    type Output<F: Facet> = F;
    fn output<F: Facet>(attributes: Option<Item>) -> Result<F> {
        record(attributes)
    }
}

/// An update of one record: [`Table::update`]. Await it.
#[must_use = "an update does nothing until it is awaited"]
pub struct UpdateItem<'a, F, R = Nothing> {
    table: &'a Table,
    key: Item,
    change: Update<F>,
    when: Option<Expr<F>>,
    _returns: PhantomData<fn() -> R>,
}

impl<'a, F: Facet, R: Returns> UpdateItem<'a, F, R> {
    /// Update only when `cond` holds for the stored record; otherwise fail with
    /// [`Error::ConditionFailed`] and change nothing. Several conditions join with `AND`.
    pub fn when(mut self, cond: Expr<F>) -> Self {
        self.when = Some(match self.when.take() {
            Some(existing) => existing.and(cond),
            None => cond,
        });
        self
    }

    fn returning<R2>(self) -> UpdateItem<'a, F, R2> {
        UpdateItem {
            table: self.table,
            key: self.key,
            change: self.change,
            when: self.when,
            _returns: PhantomData,
        }
    }

    /// Return the record as it is after the update (the facet's validator runs on it).
    pub fn returning_new(self) -> UpdateItem<'a, F, New> {
        self.returning()
    }

    /// Return the record as it was before the update.
    pub fn returning_old(self) -> UpdateItem<'a, F, Old> {
        self.returning()
    }

    /// The request this update sends (inspectable without a server).
    pub fn plan(&self) -> Result<UpdatePlan> {
        update_plan(&self.key, &self.change, self.when.as_ref(), R::RETURNING)
    }
}

/// The plan of an update of the record under `key` (shared with transactions): refused when
/// `change` was built by a generated setter for another record; the `#[version]` counter
/// moves with every update.
pub(crate) fn update_plan<F: Facet>(
    key: &Item,
    change: &Update<F>,
    when: Option<&Expr<F>>,
    returning: Returning,
) -> Result<UpdatePlan> {
    if let Some((pk, sk)) = change.expected_key() {
        let text = |name| match key.get(name) {
            Some(aws_sdk_dynamodb::types::AttributeValue::S(s)) => s.as_str(),
            _ => "",
        };
        let (kpk, ksk) = (
            text(faceteer_core::schema::PK),
            text(faceteer_core::schema::SK),
        );
        if (pk, sk) != (kpk, ksk) {
            return Err(Error::InvalidRequest(format!(
                "the update was built (by a generated setter, from key fields) for the record \
                 (PK {pk:?}, SK {sk:?}), but it is applied to (PK {kpk:?}, SK {ksk:?}); index \
                 keys would be written from the wrong record's values"
            )));
        }
    }
    let versioned;
    let change = match F::VERSION {
        Some(name) => {
            versioned = change.clone().increment_attribute(name);
            &versioned
        }
        None => change,
    };
    Ok(UpdatePlan::new(key.clone(), change, when, returning)?)
}

impl<'a, F: Facet, R: Returns> IntoFuture for UpdateItem<'a, F, R> {
    type Output = Result<R::Output<F>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let table = self.table;
        let op = Op::new("UpdateItem", table.name(), F::SCHEMA.name, None);
        let plan = table.check_declared::<F>().and_then(|()| self.plan());
        let work = |op: Arc<Op>| async move {
            let plan = plan?;
            match sdk::update_item(table, &op, plan.request(table.name())).await? {
                Some(attributes) => R::output::<F>(attributes),
                None => Err(condition_failed::<F>("UpdateItem", &plan.key)),
            }
        };
        traced(op, records(|_| 1), work)
    }
}
