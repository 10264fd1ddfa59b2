//! Updates of one record: [`Table::update`] sends `UpdateItem` with a typed [`Update`], and
//! returns nothing, or the record before or after; [`UpdateItem::or_create`] makes it create
//! a missing record, and [`Table::upsert`] writes a whole record, creating or merging.
//!
//! Every derived attribute (index keys, `ttl`) built from a field the update changes is
//! rebuilt in the same request, exactly as a put of the changed record writes it. An update
//! names only the change: a value such a key needs that the update does not give is read
//! from the stored record (one consistent `GetItem`), and the update is conditioned on it;
//! when another writer changes it in between, the update is planned again from the item the
//! refused request returns, within the call's deadline. Naming the value with
//! [`Field::unchanged`](faceteer_core::expr::Field::unchanged) skips the read; it is checked
//! against the stored record instead ([`Error::StoredValueDiffers`] names the field that
//! differs).
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
use faceteer_core::expr::ExprError;
use faceteer_core::expr::Update;
use faceteer_core::expr::{Expr, Field};
use faceteer_core::plan::{Returning, UpdatePlan};
use faceteer_core::schema::{PK, SCHEMA_VERSION_ATTRIBUTE, SK, TTL_ATTRIBUTE};
use faceteer_core::{from_item, to_item, Facet, Item, Key};

use crate::error::CancelReason;
use crate::error::{Error, Result};
use crate::exec::future::{traced, BoxFuture};
use crate::exec::once;
use crate::exec::sdk::Reply;
use crate::exec::trace::Op;
use crate::item::refusal::{self, Refusable, Refusal, StoredOnFailure, Written};
use crate::item::{and, condition_failed};
use crate::plans::stamp::{keys_built_from, stamp_item, stamp_update, Created};
use crate::plans::update::{
    derived_inputs, first_differing, from_stored, update_plan, version_check, with_derived,
    FromStored, Planned,
};
use crate::table::Table;
use crate::unique;
use crate::wire::keys::key_pair;

impl Table {
    /// Change the record under `key` with `change` (field operations combined with `&`),
    /// atomically on the server. Only an existing record is updated: without one, the update
    /// fails with [`Error::ConditionFailed`] and creates nothing (use
    /// [`UpdateItem::or_create`] to create it, or `put`).
    ///
    /// Exactly once, `add` and `append` included, whatever other writers do meanwhile: a
    /// try whose answer is lost is never sent again, and the update fails with
    /// [`Error::OutcomeUnknown`], unless the table sends it under a `ClientRequestToken`
    /// ([`LostAnswers::Resend`](crate::LostAnswers::Resend)). The record holds only what a
    /// put of it holds: no token of the library's.
    ///
    /// Options: [`UpdateItem::when`], [`UpdateItem::or_create`],
    /// [`UpdateItem::returning_new`], [`UpdateItem::returning_old`].
    pub fn update<F: Facet>(&self, key: &Key<F>, change: Update<F>) -> UpdateItem<'_, F> {
        UpdateItem {
            table: self,
            key: key.to_item(),
            change: stamp_update(change),
            when: None,
            template: None,
            _returns: PhantomData,
        }
    }

    /// Write `record` whether or not it exists: create it, or merge it into the stored one
    /// (`UpdateItem`). Every attribute a put of `record` writes is set — index keys, `facet`
    /// and `ttl` included — and the attributes of its absent optional fields are removed, so
    /// the stored item is what a put writes, except that attributes other writers added are
    /// kept, and so are the fields named with [`Upsert::keep`] when the record exists (then
    /// a first request changes an existing record, and a second creates a missing one). The
    /// `#[version]` counter moves by one, unchecked.
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
        self.when = and(self.when, cond);
        self
    }

    fn plans(&self) -> Result<Plans> {
        // A key built by hand (`Key::from_parts`) must not reach a unique value's guard.
        let (pk, _) = key_pair(&self.key);
        faceteer_core::unique::check_table_partition(&pk)?;
        update_plans(
            &self.key,
            &self.change,
            self.when.as_ref(),
            R::RETURNING,
            self.template,
            None,
        )
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

    /// The request this update sends (inspectable without a server). With
    /// [`UpdateItem::or_create`], the one sent first, for an existing record; when it finds
    /// none, a second request creates the record.
    ///
    /// An update whose derived keys need a value the change does not give reads the stored
    /// record first, and its request depends on it: `plan()` is then the
    /// [`ExprError::KeyFieldNeeded`] error naming the value (name it with
    /// [`Field::unchanged`] to see, and send, the request without the read).
    pub fn plan(&self) -> Result<UpdatePlan> {
        let plans = self.plans()?;
        match (plans.existing, plans.needs_read) {
            (Some(p), _) => Ok(p.plan),
            (None, Some(why)) => Err(why),
            (None, None) => Err(Error::InvalidRequest("an update without a request".into())),
        }
    }
}

impl<'a, F: Facet> UpdateItem<'a, F, Nothing> {
    /// Its table, key, change (its `#[updated]` stamped) and condition: a transaction's
    /// update step. One that may create the record is refused: a transaction step cannot
    /// branch on whether the record exists.
    pub(crate) fn into_step(self) -> Result<UpdateStep<'a, F>> {
        if self.template.is_some() {
            return Err(Error::InvalidRequest(format!(
                "an update of `{}` that may create the record (`or_create`) cannot be a \
                 transaction step: a step cannot branch on whether the record exists; put \
                 the record with `if_not_exists`, or update it alone",
                F::SCHEMA.name
            )));
        }
        Ok(UpdateStep {
            table: self.table,
            key: self.key,
            change: self.change,
            when: self.when,
        })
    }

    /// Return the record as it was before the update. Not with [`UpdateItem::or_create`],
    /// where there may be none: that is refused before sending.
    pub fn returning_old(self) -> UpdateItem<'a, F, Old> {
        self.returning()
    }
}

impl<'a, F: Facet, R: Returns> UpdateItem<'a, F, R>
where
    R: CanCreate,
{
    /// Create the record when none exists: the update then applies to `template` (a record
    /// with the same key) instead. An existing record is changed as without this option, and
    /// nothing of `template` is written to it: `c.total.add(1)` on a counter created from
    /// `total: 0` gives 1, then 2. A derived key the update rebuilds from a field it does not
    /// change takes the field's value from `template`, checked against an existing record
    /// like [`Field::unchanged`].
    ///
    /// The update is sent for an existing record first; when there is none, a second request
    /// creates it (on condition that there still is none, and back to the first while other
    /// writers create and delete the record in between). Each request applies entirely or
    /// not at all, and the second only where the first found no record.
    pub fn or_create(mut self, template: &'a F) -> Self {
        self.template = Some(template);
        self
    }
}

/// An update as a transaction's step: its table, key, change and condition.
pub(crate) struct UpdateStep<'a, F> {
    pub(crate) table: &'a Table,
    pub(crate) key: Item,
    pub(crate) change: Update<F>,
    pub(crate) when: Option<Expr<F>>,
}

/// Updates whose result makes sense when the update created the record: [`Nothing`] and
/// [`New`] ([`Old`] would have no record to return).
pub trait CanCreate: Returns {}
impl CanCreate for Nothing {}
impl CanCreate for New {}

/// The requests of one write: the one for an existing record, the one for a missing record,
/// or both (the record is created, or changed, whichever it needs; each request is
/// conditioned on the record's presence, so exactly one of them can apply).
pub(crate) struct Plans {
    /// The key written.
    key: Item,
    existing: Option<Planned>,
    missing: Option<Planned>,
    /// Plans the request for an existing record from the item stored under the key, when
    /// the change does not give every value a derived key needs: the record is read first
    /// (when `existing` is `None`), and planned again from what a refused request returns.
    from_stored: Option<FromStored>,
    /// Why the request for an existing record needs the stored record (what `plan()` says).
    needs_read: Option<Error>,
}

impl Plans {
    /// The first request sent.
    fn first(&self) -> Option<&Planned> {
        self.existing.as_ref().or(self.missing.as_ref())
    }

    /// Only `existing` and `missing`, planned in advance.
    fn fixed(key: Item, existing: Option<Planned>, missing: Option<Planned>) -> Self {
        Plans {
            key,
            existing,
            missing,
            from_stored: None,
            needs_read: None,
        }
    }
}

/// Every attribute a facet's item can hold besides `PK` and `SK`.
fn item_attributes<F: Facet>() -> impl Iterator<Item = &'static str> {
    F::ATTRIBUTES
        .iter()
        .copied()
        .chain(F::SCHEMA.stored_only_attributes())
        .chain(F::SCHEMA_VERSION.map(|_| SCHEMA_VERSION_ATTRIBUTE))
        .filter(|a| *a != PK && *a != SK)
}

/// `record`'s item, refused when its key is not `key`'s, or when it holds attributes the facet
/// does not name (a `#[serde(flatten)]` field's): an update cannot know which of those to
/// write or remove.
fn item_for<F: Facet>(key: &Item, record: &F, what: &str) -> Result<Item> {
    let item = to_item(record)?;
    if let Some(name) = item
        .keys()
        .find(|name| *name != PK && *name != SK && !item_attributes::<F>().any(|a| a == *name))
    {
        return Err(Error::InvalidRequest(format!(
            "the {what} holds the attribute `{name}`, which no field of `{}` names (a \
             flattened field's, or serde's `tag`); an update cannot create or merge it: use \
             `put`",
            F::SCHEMA.name
        )));
    }
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

/// The requests of an update, and of an update that creates from `template`. With `stored`
/// (the item stored under the key, read first), the request for an existing record takes the
/// values its derived keys need from it.
fn update_plans<F: Facet>(
    key: &Item,
    change: &Update<F>,
    when: Option<&Expr<F>>,
    returning: Returning,
    template: Option<&F>,
    stored: Option<&Item>,
) -> Result<Plans> {
    if template.is_some() && matches!(returning, Returning::Old) {
        return Err(Error::InvalidRequest(
            "an update that may create the record cannot return the record before it: there \
             may be none (use `returning_new()`)"
                .into(),
        ));
    }
    let from_stored = from_stored(key, change, when, returning);
    let mut plans = Plans {
        key: key.clone(),
        existing: None,
        missing: None,
        from_stored: Some(from_stored.clone()),
        needs_read: None,
    };
    let known = match template {
        Some(t) => Some((t, item_for(key, t, "record to create")?)),
        None => None,
    };
    if let Some((_, item)) = &known {
        // A value named unchanged is the template's too: the record created must hold it.
        if let Some(name) = first_differing(&change.unchanged()?, item) {
            return Err(Error::InvalidRequest(format!(
                "the update names `{name}` unchanged at another value than the record to \
                 create holds; give the template that value"
            )));
        }
    }
    plans.existing = match stored {
        Some(stored) => Some(from_stored(stored)?),
        None => match update_plan(
            key,
            change,
            when,
            returning,
            known.as_ref().map(|(t, i)| (*t, i)),
        ) {
            Ok(planned) => Some(planned),
            // A value the change does not give: read the stored record first.
            Err(e @ Error::Expr(ExprError::KeyFieldNeeded { .. })) => {
                plans.needs_read = Some(e);
                None
            }
            Err(e) => return Err(e),
        },
    };
    let Some((template, item)) = known else {
        return Ok(plans);
    };
    // The record to create: the template, changed; no stored values to check.
    let (mut full, _) = with_derived(&change.applied_to(&item)?, Some(template), key)?;
    for name in item_attributes::<F>() {
        if let (false, Some(v)) = (full.touches(name), item.get(name)) {
            full = full.set_attribute(name, v.clone());
        }
    }
    let missing = UpdatePlan::for_missing(key.clone(), &full, returning)?;
    plans.missing = Some(Planned::unchecked(missing));
    Ok(plans)
}

/// Why an update's condition failed: a checked field the stored record holds another value
/// of ([`Error::StoredValueDiffers`]), else [`Error::ConditionFailed`].
pub(crate) fn update_refused<F: Facet>(planned: &Planned, stored: Option<&Item>) -> Error {
    match stored.and_then(|stored| first_differing(&planned.checked, stored)) {
        Some(SCHEMA_VERSION_ATTRIBUTE) => {
            let (pk, sk) = key_pair(&planned.plan.key);
            let found = stored
                .and_then(|s| s.get(SCHEMA_VERSION_ATTRIBUTE))
                .map_or_else(
                    || "1".to_owned(),
                    |v| match v {
                        AttributeValue::N(n) => n.clone(),
                        other => format!("{other:?}"),
                    },
                );
            Error::OlderSchema {
                facet: F::SCHEMA.name,
                found,
                pk,
                sk,
            }
        }
        Some(field) => {
            let (pk, sk) = key_pair(&planned.plan.key);
            Error::StoredValueDiffers {
                facet: F::SCHEMA.name,
                field,
                pk,
                sk,
            }
        }
        None => condition_failed::<F>("UpdateItem", &planned.plan.key),
    }
}

/// How many times a write that changes or creates goes back and forth when other writers
/// create and delete the record between its requests.
const BRANCH_ATTEMPTS: usize = 4;

/// Which request of a write goes next.
#[derive(Clone, Copy, PartialEq)]
enum Branch {
    Existing,
    Missing,
}

/// Send the requests of a write: the one for an existing record, then — when it finds no
/// record — the one creating it, and again while other writers make the record appear and
/// disappear in between. An update whose derived keys need stored values reads the record
/// first, and is planned again from the item a refused request returns while other writers
/// change those values (under the call's deadline). Each request applies entirely or not at
/// all, and exactly once ([`once::write`]): a request whose answer is lost is
/// [`Error::OutcomeUnknown`], or sent again under a `ClientRequestToken` where the table
/// chose to ([`LostAnswers::Resend`](crate::LostAnswers::Resend)).
async fn run_plans<F: Facet>(table: &Table, op: &Op, plans: &Plans) -> Written<Option<Item>> {
    let has_existing = plans.existing.is_some() || plans.needs_read.is_some();
    let mut branch = if has_existing {
        Branch::Existing
    } else {
        Branch::Missing
    };
    let mut existing = plans.existing.clone();
    // Turns from one branch to the other; replans after a stored value changed.
    let (mut turns, mut replans) = (0, 0u32);
    let mut last: Option<&Planned> = None;
    while turns < BRANCH_ATTEMPTS {
        if branch == Branch::Missing {
            let Some(planned) = &plans.missing else {
                break;
            };
            let key = key_pair(&planned.plan.key);
            let request = once::Single::Update(planned.plan.request(table.name()));
            let stored = match once::write(table, op, &key, request).await? {
                Reply::Applied(attributes) => return Ok(attributes),
                Reply::ConditionFailed(stored) => stored,
            };
            if !has_existing {
                return Err(Refusal {
                    error: update_refused::<F>(planned, stored.as_ref()),
                    stored,
                });
            }
            // The record appeared since it was found missing: change it instead.
            last = Some(planned);
            existing = match (&stored, &plans.from_stored) {
                (Some(s), Some(plan)) if plans.existing.is_none() => Some(plan(s)?),
                _ => plans.existing.clone(),
            };
            branch = Branch::Existing;
            turns += 1;
            continue;
        }
        let planned = match existing.take() {
            Some(planned) => planned,
            None => {
                let Some(plan) = &plans.from_stored else {
                    break;
                };
                let key = &plans.key;
                match crate::read::stored_item(table, op, key, F::SCHEMA.name).await? {
                    Some(stored) => plan(&stored)?,
                    None if plans.missing.is_some() => {
                        branch = Branch::Missing;
                        turns += 1;
                        continue;
                    }
                    None => return Err(condition_failed::<F>("UpdateItem", key).into()),
                }
            }
        };
        let key = key_pair(&planned.plan.key);
        let request = once::Single::Update(planned.plan.request(table.name()));
        let stored = match once::write(table, op, &key, request).await? {
            Reply::Applied(attributes) => return Ok(attributes),
            Reply::ConditionFailed(stored) => stored,
        };
        match (&stored, &plans.from_stored) {
            // Another writer changed a value the request assumed: plan it from the record
            // stored now, and send it again.
            (Some(s), Some(plan)) if planned.assumed_wrong(s) => {
                replans += 1;
                if op.past_deadline() {
                    return Err(op.deadline_exceeded(false).into());
                }
                if replans > 2 {
                    let wait = table.batch_options().backoff(replans);
                    tokio::time::sleep(wait.min(std::time::Duration::from_millis(200))).await;
                }
                existing = Some(plan(s)?);
            }
            // No record: create it.
            (None, _) if plans.missing.is_some() => {
                branch = Branch::Missing;
                turns += 1;
            }
            _ => {
                return Err(Refusal {
                    error: update_refused::<F>(&planned, stored.as_ref()),
                    stored,
                })
            }
        }
    }
    match last.or(plans.first()) {
        Some(p) => Err(update_refused::<F>(p, None).into()),
        None => Err(Error::InvalidRequest("a write without a request".into()).into()),
    }
}

/// How a write of a facet with unique fields is planned: its requests given a condition of
/// the library's own, and the item after it given the one stored.
struct Guarded<'a, F> {
    key: Item,
    /// Attributes besides the guarded ones the write must find as read.
    watch: Vec<&'static str>,
    plans: PlansFor<'a, F>,
    after: After<'a>,
}

/// The requests of a write, given the item stored and a condition of the library's own.
type PlansFor<'a, F> = Box<dyn Fn(Option<&Item>, Expr<F>) -> Result<Plans> + Send + Sync + 'a>;

/// The item a write leaves, given the one stored (`None`: no record).
type After<'a> = Box<dyn Fn(Option<&Item>) -> Result<Option<Item>> + Send + Sync + 'a>;

/// Send a planned write and read its result; a write that can change a unique value's
/// guard ([`Guarded`]) goes as one transaction with its guards ([`crate::unique`]).
fn send<'a, F: Facet, R: Returns>(
    table: &'a Table,
    plans: Result<Plans>,
    guarded: Option<Guarded<'a, F>>,
) -> BoxFuture<'a, Written<R::Output<F>>> {
    let op = Op::new("UpdateItem", table, F::SCHEMA.name, None);
    let plans = table.check_declared::<F>().and(plans);
    if let Some(guarded) = guarded {
        let work = move |op: Arc<Op>| async move {
            plans?;
            if !matches!(R::RETURNING, Returning::Nothing) {
                return Err(Error::InvalidRequest(format!(
                    "this write may create or change a `#[unique]` value of `{}`, so it is \
                     sent as a transaction with the value's guard, and a transaction returns \
                     no record: read the record after it instead",
                    F::SCHEMA.name
                ))
                .into());
            }
            let targets = [unique::Target {
                schema: F::SCHEMA,
                key: guarded.key.clone(),
                watch: guarded.watch.clone(),
            }];
            let answer = unique::run(table, &op, &targets, |reads| {
                let old = reads[0].as_ref();
                let plans = (guarded.plans)(old, unique::unchanged::<F>(&targets[0], old))?;
                let planned = match old {
                    Some(_) => plans.existing.or(plans.missing),
                    None => plans.missing.or(plans.existing),
                };
                let planned = planned.ok_or_else(|| match old {
                    // No record to update, and none to create.
                    None => condition_failed::<F>("UpdateItem", &guarded.key),
                    Some(_) => Error::InvalidRequest("a write without a request".into()),
                })?;
                Ok(unique::Built {
                    tx: table
                        .guarded_transaction()
                        .planned_update_step::<F>(guarded.key.clone(), Ok(planned)),
                    after: vec![(guarded.after)(old)?],
                })
            })
            .await?;
            match answer {
                Ok(()) => Ok(R::output::<F>(None).map_err(Refusal::from)?),
                Err(refused) => {
                    let (pk, sk) = key_pair(&guarded.key);
                    let error = match refused.reason {
                        CancelReason::StoredValueDiffers { field } => Error::StoredValueDiffers {
                            facet: F::SCHEMA.name,
                            field,
                            pk,
                            sk,
                        },
                        _ => condition_failed::<F>("UpdateItem", &guarded.key),
                    };
                    Err(Refusal {
                        error,
                        stored: refused.stored,
                    })
                }
            }
        };
        return traced(op, refusal::one, work);
    }
    let work = |op: Arc<Op>| async move {
        let plans = plans?;
        Ok(R::output::<F>(run_plans::<F>(table, &op, &plans).await?)?)
    };
    traced(op, refusal::one, work)
}

/// `item` with the unique fields and scopes of `F` as `change` leaves them; a change of
/// another kind than set or remove is refused (a guard needs the value).
fn with_assigned<F: Facet>(mut item: Item, change: &Update<F>) -> Result<Item> {
    for u in F::SCHEMA.unique {
        for name in u.inputs() {
            match change.assigned(name) {
                Ok(None) => {}
                Ok(Some(Some(v))) => {
                    item.insert(name.to_owned(), v);
                }
                Ok(Some(None)) => {
                    item.remove(name);
                }
                Err(what) => {
                    return Err(Error::InvalidRequest(format!(
                        "`{name}` of `{}` guards a `#[unique]` value: an update sets or removes \
                         it as a whole, not {what}",
                        F::SCHEMA.name
                    )))
                }
            }
        }
    }
    Ok(item)
}

impl<'a, F: Facet, R: Returns> UpdateItem<'a, F, R> {
    /// On a failed condition, give back the record stored under the key, typed
    /// ([`Conditional::Failed`](crate::Conditional::Failed)), instead of failing with the
    /// error alone.
    pub fn stored_on_failure(self) -> StoredOnFailure<'a, Self> {
        StoredOnFailure::new(self)
    }

    /// The guarded plan of this update, when it changes a unique field or scope, or may
    /// create a record with unique fields ([`UpdateItem::or_create`]): the guards of the
    /// record it creates are taken in the same transaction.
    fn guarded(&self) -> Option<Guarded<'a, F>> {
        let creates = self.template.is_some() && !F::SCHEMA.unique.is_empty();
        if !creates && !unique::guarded_by(F::SCHEMA, |name| self.change.touches(name)) {
            return None;
        }
        let (key, change, when, template) = (
            self.key.clone(),
            self.change.clone(),
            self.when.clone(),
            self.template,
        );
        let (key2, change2) = (key.clone(), change.clone());
        Some(Guarded {
            key: key.clone(),
            // The values derived keys may be rebuilt from, read with the record.
            watch: derived_inputs(F::SCHEMA),
            plans: Box::new(move |old, extra| {
                let when = and(when.clone(), extra);
                update_plans(
                    &key,
                    &change,
                    when.as_ref(),
                    Returning::Nothing,
                    template,
                    old,
                )
            }),
            after: Box::new(move |old| {
                let base = match (old, template) {
                    (Some(old), _) => old.clone(),
                    (None, Some(t)) => item_for(&key2, t, "record to create")?,
                    (None, None) => return Ok(None),
                };
                Ok(Some(with_assigned(base, &change2)?))
            }),
        })
    }
}

impl<'a, F: Facet, R: Returns> IntoFuture for UpdateItem<'a, F, R> {
    type Output = Result<R::Output<F>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        refusal::plain(Refusable::send(self))
    }
}

impl<'a, F: Facet, R: Returns> Refusable<'a> for UpdateItem<'a, F, R> {
    type Facet = F;
    type Value = R::Output<F>;

    fn send(self) -> BoxFuture<'a, Written<R::Output<F>>> {
        let plans = self.plans();
        let guarded = self.guarded();
        send::<F, R>(self.table, plans, guarded)
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
    /// When the record exists, leave `field` as it is stored (present or absent): a creation
    /// time, a counter. An index key or the TTL built from kept fields is kept with
    /// them; one built from a kept field and a field that is written is refused before
    /// sending (it could not be right both when the record exists and when it does not).
    pub fn keep<T, S, K>(mut self, field: Field<F, T, S, K>) -> Self {
        self.keep.push(field.name());
        self
    }

    /// Write only when no record exists or `cond` holds for the stored one; otherwise fail
    /// with [`Error::ConditionFailed`]. Several conditions join with `AND`.
    pub fn when(mut self, cond: Expr<F>) -> Self {
        self.when = and(self.when, cond);
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

    /// The request this upsert sends first (inspectable without a server): with fields
    /// kept, the one for an existing record (a second creates a missing one); without, the
    /// only one.
    pub fn plan(&self) -> Result<UpdatePlan> {
        let plans = self.plans()?;
        plans
            .existing
            .or(plans.missing)
            .map(|p| p.plan)
            .ok_or_else(|| Error::InvalidRequest("an upsert without a request".into()))
    }

    fn plans(&self) -> Result<Plans> {
        upsert_plans::<F, R>(self.record, &self.keep, self.when.as_ref())
    }
}

/// The requests of an upsert of `record`, keeping the fields `keep` of an existing record,
/// conditioned on `when`.
fn upsert_plans<F: Facet, R: Returns>(
    record: &F,
    keep: &[&'static str],
    when: Option<&Expr<F>>,
) -> Result<Plans> {
    upsert_plans_with::<F, R>(record, keep, when, Created::Now)
}

/// [`upsert_plans`], writing `created` in the `#[created]` field: with `Created::Now`, an
/// existing record keeps its own (a second request creates a missing one); with the stored
/// value read first, every request writes it.
fn upsert_plans_with<F: Facet, R: Returns>(
    record: &F,
    keep: &[&'static str],
    when: Option<&Expr<F>>,
    created: Created,
) -> Result<Plans> {
    {
        let key = record.primary_key()?.to_item();
        let keeps_stored = matches!(created, Created::Now);
        let item = stamp_item::<F>(item_for(&key, record, "record")?, created)?;
        // An existing record keeps its `#[created]` time.
        let mut keeping = keep.to_vec();
        if let Some(created) = F::CREATED.filter(|c| keeps_stored && !keep.contains(c)) {
            keeping.push(created);
        }
        let keep = &keeping[..];
        let schema = F::SCHEMA;
        let base: Vec<&str> = schema.pk.inputs().chain(schema.sk.inputs()).collect();
        // The derived attributes and the fields each is built from.
        // A sparse index's keys are written or left out together: each is built, as far as
        // membership goes, from every field of both.
        let mut derived: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
        for index in schema.indexes {
            let all: Vec<&'static str> = index.keys().flat_map(|k| k.inputs()).collect();
            for key in index.keys() {
                let inputs = if index.sparse {
                    all.clone()
                } else {
                    key.inputs().collect()
                };
                derived.push((key.attribute, inputs));
            }
        }
        if let Some(ttl) = schema.ttl_field {
            derived.push((TTL_ATTRIBUTE, vec![ttl]));
        }
        let mut kept: Vec<&'static str> = keep.to_vec();
        for (attribute, inputs) in &derived {
            let (keeps, writes): (Vec<&str>, Vec<&str>) = inputs
                .iter()
                .filter(|f| !base.contains(f))
                .partition(|f| keep.contains(f));
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
        // Every attribute written (or removed), but those kept: for an existing record.
        let write = |kept: &[&str]| {
            let mut change = Update::<F>::empty();
            for name in item_attributes::<F>() {
                if Some(name) == F::VERSION || kept.contains(&name) {
                    continue;
                }
                change = match item.get(name) {
                    Some(v) => change.set_attribute(name, v.clone()),
                    None => change.remove_attribute(name),
                };
            }
            match F::VERSION {
                Some(name) => change.increment_attribute(name),
                None => change,
            }
        };
        if kept.is_empty() {
            // One request: the whole record, whether or not one exists.
            let plan = UpdatePlan::creating(key.clone(), &write(&[]), when, R::RETURNING)?;
            return Ok(Plans::fixed(key, None, Some(Planned::unchecked(plan))));
        }
        // What is kept of a record stored at an older schema version has another shape.
        let checked = version_check::<F>();
        let guard = checked
            .iter()
            .map(|(name, value)| Expr::stored_as(name, value.clone()))
            .chain(when.cloned())
            .reduce(Expr::and);
        let existing = UpdatePlan::new(key.clone(), &write(&kept), guard.as_ref(), R::RETURNING)?;
        let missing = UpdatePlan::for_missing(key.clone(), &write(&[]), R::RETURNING)?;
        let existing = Planned {
            plan: existing,
            checked,
            assumed: Vec::new(),
        };
        Ok(Plans::fixed(
            key,
            Some(existing),
            Some(Planned::unchecked(missing)),
        ))
    }
}

impl<'a, F: Facet, R: Returns> Upsert<'a, F, R> {
    /// On a failed condition, give back the record stored under the key, typed
    /// ([`Conditional::Failed`](crate::Conditional::Failed)), instead of failing with the
    /// error alone.
    pub fn stored_on_failure(self) -> StoredOnFailure<'a, Self> {
        StoredOnFailure::new(self)
    }

    /// The guarded plan of this upsert, for a facet with unique fields, or whose
    /// `#[created]` time an index key is built from (its stored value is read first).
    fn guarded(&self) -> Option<Guarded<'a, F>> {
        let created = F::CREATED.filter(|c| keys_built_from(F::SCHEMA, c));
        if F::SCHEMA.unique.is_empty() && created.is_none() {
            return None;
        }
        let key = self.record.primary_key().ok()?.to_item();
        let (record, keep, when) = (self.record, self.keep.clone(), self.when.clone());
        let keep2 = keep.clone();
        let key2 = key.clone();
        Some(Guarded {
            key,
            watch: created.into_iter().collect(),
            plans: Box::new(move |old, extra| {
                let when = and(when.clone(), extra);
                let created = match created {
                    Some(c) => Created::Keep(old.and_then(|old| old.get(c)).cloned()),
                    None => Created::Now,
                };
                upsert_plans_with::<F, R>(record, &keep, when.as_ref(), created)
            }),
            after: Box::new(move |old| {
                let mut item = item_for(&key2, record, "record")?;
                if let Some(old) = old {
                    for name in &keep2 {
                        match old.get(*name) {
                            Some(v) => item.insert((*name).to_owned(), v.clone()),
                            None => item.remove(*name),
                        };
                    }
                }
                Ok(Some(item))
            }),
        })
    }
}

impl<'a, F: Facet, R: Returns> IntoFuture for Upsert<'a, F, R> {
    type Output = Result<R::Output<F>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        refusal::plain(Refusable::send(self))
    }
}

impl<'a, F: Facet, R: Returns> Refusable<'a> for Upsert<'a, F, R> {
    type Facet = F;
    type Value = R::Output<F>;

    fn send(self) -> BoxFuture<'a, Written<R::Output<F>>> {
        let guarded = self.guarded();
        // A guarded upsert plans its requests from the record it reads.
        let plans = match guarded {
            Some(_) => Ok(Plans::fixed(Item::new(), None, None)),
            None => self.plans(),
        };
        send::<F, R>(self.table, plans, guarded)
    }
}
