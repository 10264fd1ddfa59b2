//! Updates of one record: [`Table::update`] sends `UpdateItem` with a typed [`Update`], and
//! returns nothing, or the record before or after; [`UpdateItem::or_create`] makes it create
//! a missing record, and [`Table::upsert`] writes a whole record, creating or merging.
//!
//! Every derived attribute (index keys, `ttl`) built from a field the update changes is
//! rebuilt in the same request, exactly as a put of the changed record writes it; a value
//! such a key needs that the update does not change is named with
//! [`Field::unchanged`](faceteer_core::expr::Field::unchanged) and checked against the stored
//! record ([`Error::StoredValueDiffers`] names the field that differs).
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

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::expr::{Expr, Field};
use faceteer_core::plan::{Returning, UpdatePlan};
use faceteer_core::schema::{KeySchema, FACET_ATTRIBUTE, PK, SK, TTL_ATTRIBUTE};
use faceteer_core::update::{KeyedValues, Update};
use faceteer_core::{from_item, to_item, Facet, Item, Key};

use crate::error::{Error, Result};
use crate::item::{condition_failed, records, traced, BoxFuture};
use crate::sdk::{self, Updated};
use crate::table::Table;
use crate::trace::Op;

impl Table {
    /// Change the record under `key` with `change` (field operations combined with `&`),
    /// atomically on the server. Only an existing record is updated: without one, the update
    /// fails with [`Error::ConditionFailed`] and creates nothing (use
    /// [`UpdateItem::or_create`] to create it, or `put`).
    ///
    /// Options: [`UpdateItem::when`], [`UpdateItem::or_create`],
    /// [`UpdateItem::returning_new`], [`UpdateItem::returning_old`].
    pub fn update<F: Facet>(&self, key: &Key<F>, change: Update<F>) -> UpdateItem<'_, F> {
        UpdateItem {
            table: self,
            key: key.to_item(),
            change,
            when: None,
            template: None,
            _returns: PhantomData,
        }
    }

    /// Write `record` whether or not it exists: create it, or merge it into the stored one
    /// (one `UpdateItem`). Every attribute a put of `record` writes is set — index keys,
    /// `facet` and `ttl` included — and the attributes of its absent optional fields are
    /// removed, so the stored item is what a put writes, except that attributes other writers
    /// added are kept, and so are the fields named with [`Upsert::keep`] when the record
    /// exists. The `#[version]` counter moves by one.
    pub fn upsert<'a, F: Facet>(&'a self, record: &'a F) -> Upsert<'a, F> {
        Upsert {
            table: self,
            record,
            keep: Vec::new(),
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
    let item = attributes.ok_or(Error::MissingKeyAttribute(PK.to_owned()))?;
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
    /// The record to create when none exists ([`UpdateItem::or_create`]).
    template: Option<&'a F>,
    _returns: PhantomData<fn() -> R>,
}

impl<'a, F: Facet, R: Returns> UpdateItem<'a, F, R> {
    /// Update only when `cond` holds for the stored record; otherwise fail with
    /// [`Error::ConditionFailed`] and change nothing. Several conditions join with `AND`.
    /// With [`UpdateItem::or_create`], a missing record is created whatever `cond` says.
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
            template: self.template,
            _returns: PhantomData,
        }
    }

    /// Return the record as it is after the update (the facet's validator runs on it).
    pub fn returning_new(self) -> UpdateItem<'a, F, New> {
        self.returning()
    }

    /// The request this update sends (inspectable without a server).
    pub fn plan(&self) -> Result<UpdatePlan> {
        Ok(update_plan(
            &self.key,
            &self.change,
            self.when.as_ref(),
            R::RETURNING,
            self.template,
        )?
        .plan)
    }
}

impl<'a, F: Facet> UpdateItem<'a, F, Nothing> {
    /// Return the record as it was before the update (not with [`UpdateItem::or_create`],
    /// where there may be none).
    pub fn returning_old(self) -> UpdateItem<'a, F, Old> {
        self.returning()
    }
}

impl<'a, F: Facet, R: Returns> UpdateItem<'a, F, R>
where
    R: CanCreate,
{
    /// Create the record when none exists: the update then applies to `template` (a record
    /// with the same key) instead of the stored record, in the same request. Every attribute
    /// of `template` the update does not change is written only where the item has none
    /// (`if_not_exists`), so an existing record keeps its values: `c.total.add(1)` on a
    /// counter created from `total: 0` gives 1, then 2. A derived key the update rebuilds
    /// from a field it does not change takes the field's value from `template`, checked
    /// against an existing record like [`Field::unchanged`].
    pub fn or_create(mut self, template: &'a F) -> Self {
        self.template = Some(template);
        self
    }
}

/// Updates whose result makes sense when the update created the record: [`Nothing`] and
/// [`New`] ([`Old`] would have no record to return).
pub trait CanCreate: Returns {}
impl CanCreate for Nothing {}
impl CanCreate for New {}

/// A planned update, with the stored values it checks.
pub(crate) struct Planned {
    pub(crate) plan: UpdatePlan,
    /// `(attribute, value)` the stored record must hold (`None`: no attribute).
    pub(crate) checked: Vec<(&'static str, Option<AttributeValue>)>,
}

/// Every attribute a facet's item can hold besides `PK` and `SK`.
fn item_attributes<F: Facet>() -> impl Iterator<Item = &'static str> {
    F::ATTRIBUTES
        .iter()
        .copied()
        .chain(F::SCHEMA.key_attributes())
        .chain([FACET_ATTRIBUTE, TTL_ATTRIBUTE])
        .filter(|a| *a != PK && *a != SK)
}

/// `record`'s item, refused when its key is not `key`'s.
fn item_for<F: Facet>(key: &Item, record: &F, what: &str) -> Result<Item> {
    let item = to_item(record)?;
    if item.get(PK) != key.get(PK) || item.get(SK) != key.get(SK) {
        return Err(Error::InvalidRequest(format!(
            "the {what} has the key (PK {:?}, SK {:?}), not the key being updated (PK {:?}, SK \
             {:?})",
            item.get(PK),
            item.get(SK),
            key.get(PK),
            key.get(SK)
        )));
    }
    Ok(item)
}

/// The plan of an update of the record under `key` (shared with transactions): `change`
/// plus every derived attribute it makes stale, conditioned on the values named unchanged;
/// the `#[version]` counter moves with every update. With a `template`, a missing record is
/// created from it.
pub(crate) fn update_plan<F: Facet>(
    key: &Item,
    change: &Update<F>,
    when: Option<&Expr<F>>,
    returning: Returning,
    template: Option<&F>,
) -> Result<Planned> {
    let mut checked = change.unchanged()?;
    let mut values = KeyedValues::new(change, template);
    let derived = F::derived_attributes(&mut values)?;
    let mut full = change.clone();
    for (attribute, value) in derived {
        full = match value {
            Some(v) => full.set_attribute(attribute, v),
            None => full.remove_attribute(attribute),
        };
    }
    if let Some(name) = F::VERSION {
        full = full.increment_attribute(name);
    }
    let template_item = template
        .map(|t| item_for(key, t, "record to create"))
        .transpose()?;
    if let Some(item) = &template_item {
        for name in values.from_template() {
            if !checked.iter().any(|(n, _)| n == name) {
                checked.push((name, item.get(*name).cloned()));
            }
        }
        for name in item_attributes::<F>() {
            if full.touches(name) {
                continue;
            }
            if let Some(v) = item.get(name) {
                full = full.set_attribute_if_absent(name, v.clone());
            }
        }
    }
    let guard = checked
        .iter()
        .map(|(name, value)| Expr::stored_as(name, value.clone()))
        .chain(when.cloned())
        .reduce(Expr::and);
    let plan = match template_item {
        None => UpdatePlan::new(key.clone(), &full, guard.as_ref(), returning)?,
        Some(_) => UpdatePlan::creating(key.clone(), &full, guard.as_ref(), returning)?,
    };
    Ok(Planned { plan, checked })
}

/// Why an update's condition failed: a checked field the stored record holds another value
/// of ([`Error::StoredValueDiffers`]), else [`Error::ConditionFailed`].
pub(crate) fn update_refused<F: Facet>(planned: &Planned, stored: Option<&Item>) -> Error {
    let differs = stored.and_then(|stored| {
        planned
            .checked
            .iter()
            .find(|(name, value)| stored.get(*name) != value.as_ref())
    });
    match differs {
        Some((field, _)) => {
            let key = &planned.plan.key;
            let text = |name: &str| match key.get(name) {
                Some(AttributeValue::S(s)) => s.clone(),
                _ => String::new(),
            };
            Error::StoredValueDiffers {
                facet: F::SCHEMA.name,
                field,
                pk: text(PK),
                sk: text(SK),
            }
        }
        None => condition_failed::<F>("UpdateItem", &planned.plan.key),
    }
}

/// Send a planned update and read its result.
fn send<'a, F: Facet, R: Returns>(
    table: &'a Table,
    planned: Result<Planned>,
) -> BoxFuture<'a, Result<R::Output<F>>> {
    let op = Op::new("UpdateItem", table.name(), F::SCHEMA.name, None);
    let planned = table.check_declared::<F>().and(planned);
    let work = |op: Arc<Op>| async move {
        let planned = planned?;
        match sdk::update_item(table, &op, planned.plan.request(table.name())).await? {
            Updated::Applied(attributes) => R::output::<F>(attributes),
            Updated::ConditionFailed(stored) => Err(update_refused::<F>(&planned, stored.as_ref())),
        }
    };
    traced(op, records(|_| 1), work)
}

impl<'a, F: Facet, R: Returns> IntoFuture for UpdateItem<'a, F, R> {
    type Output = Result<R::Output<F>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let planned = update_plan(
            &self.key,
            &self.change,
            self.when.as_ref(),
            R::RETURNING,
            self.template,
        );
        send::<F, R>(self.table, planned)
    }
}

/// A write of a whole record that creates it or merges it into the stored one:
/// [`Table::upsert`]. Await it.
#[must_use = "an upsert does nothing until it is awaited"]
pub struct Upsert<'a, F, R = Nothing> {
    table: &'a Table,
    record: &'a F,
    keep: Vec<&'static str>,
    when: Option<Expr<F>>,
    _returns: PhantomData<fn() -> R>,
}

impl<'a, F: Facet, R: Returns> Upsert<'a, F, R> {
    /// When the record exists, keep its stored value of `field` (`if_not_exists`): a
    /// creation time, a counter. An index key or the TTL built from kept fields is kept with
    /// them; one built from a kept field and a field that is written is refused before
    /// sending (it could not be right both when the record exists and when it does not).
    pub fn keep<T, S, K>(mut self, field: Field<F, T, S, K>) -> Self {
        self.keep.push(field.name());
        self
    }

    /// Write only when no record exists or `cond` holds for the stored one; otherwise fail
    /// with [`Error::ConditionFailed`]. Several conditions join with `AND`.
    pub fn when(mut self, cond: Expr<F>) -> Self {
        self.when = Some(match self.when.take() {
            Some(existing) => existing.and(cond),
            None => cond,
        });
        self
    }

    /// Return the record as it is after the write.
    pub fn returning_new(self) -> Upsert<'a, F, New> {
        Upsert {
            table: self.table,
            record: self.record,
            keep: self.keep,
            when: self.when,
            _returns: PhantomData,
        }
    }

    /// The request this upsert sends (inspectable without a server).
    pub fn plan(&self) -> Result<UpdatePlan> {
        Ok(self.planned()?.plan)
    }

    fn planned(&self) -> Result<Planned> {
        let item = to_item(self.record)?;
        let key: Item = [PK, SK]
            .into_iter()
            .filter_map(|k| Some((k.to_owned(), item.get(k)?.clone())))
            .collect();
        let schema = F::SCHEMA;
        let base: Vec<&str> = key_inputs(&schema.pk)
            .chain(key_inputs(&schema.sk))
            .collect();
        // The derived attributes and the fields each is built from.
        let mut derived: Vec<(&'static str, Vec<&'static str>)> = schema
            .indexes
            .iter()
            .flat_map(|i| [&i.pk, &i.sk])
            .map(|k| (k.attribute, key_inputs(k).collect()))
            .collect();
        if let Some(ttl) = schema.ttl_field {
            derived.push((TTL_ATTRIBUTE, vec![ttl]));
        }
        let mut kept: Vec<&'static str> = self.keep.clone();
        for (attribute, inputs) in &derived {
            let (keeps, writes): (Vec<&str>, Vec<&str>) = inputs
                .iter()
                .filter(|f| !base.contains(f))
                .partition(|f| self.keep.contains(f));
            match (keeps.first(), writes.first()) {
                (Some(_), None) => kept.push(attribute),
                (Some(k), Some(w)) => {
                    return Err(Error::InvalidRequest(format!(
                        "`{attribute}` is built from `{k}`, which the upsert keeps, and from \
                         `{w}`, which it writes: it would be wrong either when the record \
                         exists or when it does not; keep `{w}` too, or do not keep `{k}`"
                    )))
                }
                _ => {}
            }
        }
        let mut change = Update::<F>::empty();
        for name in item_attributes::<F>() {
            if Some(name) == F::VERSION {
                continue;
            }
            change = match (item.get(name), kept.contains(&name)) {
                (Some(v), true) => change.set_attribute_if_absent(name, v.clone()),
                (Some(v), false) => change.set_attribute(name, v.clone()),
                (None, true) => change,
                (None, false) => change.remove_attribute(name),
            };
        }
        if let Some(name) = F::VERSION {
            change = change.increment_attribute(name);
        }
        let plan = UpdatePlan::creating(key, &change, self.when.as_ref(), R::RETURNING)?;
        Ok(Planned {
            plan,
            checked: Vec::new(),
        })
    }
}

/// The fields a key is built from: its fields, its shard fields and its period's time field.
fn key_inputs(key: &KeySchema) -> impl Iterator<Item = &'static str> + '_ {
    key.fields.iter().copied().chain(
        key.shard
            .iter()
            .flat_map(|s| s.fields.iter().copied().chain(s.time_field)),
    )
}

impl<'a, F: Facet, R: Returns> IntoFuture for Upsert<'a, F, R> {
    type Output = Result<R::Output<F>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let planned = self.planned();
        send::<F, R>(self.table, planned)
    }
}
