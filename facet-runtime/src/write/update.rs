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
//! [`Field::unchanged`](faceteer_core::expr::Field::unchanged)(faceteer_core::expr::Field::unchanged) skips the read; it is checked
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

use faceteer_core::expr::{Expr, ExprError, Update};
use faceteer_core::plan::{Returning, UpdatePlan};
use faceteer_core::{Facet, Item, Key};

use crate::error::{Error, Result};
use crate::exec::future::BoxFuture;
use crate::table::Table;
use crate::unique;
use crate::wire::keys::key_pair;
use crate::write::condition::and;
use crate::write::refusal::{self, Refusable, StoredOnFailure, Written};
use crate::write::returns::{CanCreate, New, Nothing, Old, Returns};
use crate::write::send::{item_attributes, item_for, send, Guarded, Plans};
use faceteer_core::plan::stamp::stamp_update;
use faceteer_core::plan::stamp::write_clock_now;
use faceteer_core::plan::update::{
    derived_inputs, first_differing, from_stored, update_plan, with_derived, Planned,
};

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
            change: stamp_update(change, &write_clock_now()),
            when: None,
            template: None,
            conflicts_expected: false,
            hooked: false,
            _returns: PhantomData,
        }
    }
}

impl Table {
    /// An update whose `#[updated]` time is already in `change` (a save stamps the whole
    /// record as a put does).
    pub(crate) fn update_stamped<F: Facet>(
        &self,
        key: &Key<F>,
        change: Update<F>,
    ) -> UpdateItem<'_, F> {
        UpdateItem {
            table: self,
            key: key.to_item(),
            change,
            when: None,
            template: None,
            conflicts_expected: false,
            hooked: false,
            _returns: PhantomData,
        }
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
    /// A caller handles a refused condition (a `modify` reads again): no WARN event for one.
    conflicts_expected: bool,
    /// The hooks ran: this is the update they let through.
    hooked: bool,
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

    /// The same update of a change the hooks already ran on (a save's record).
    pub(crate) fn hooks_ran(mut self) -> Self {
        self.hooked = true;
        self
    }

    /// Expect the condition to be refused at times (a caller reads again): the refusal is
    /// not logged as a failure.
    pub(crate) fn expecting_conflicts(mut self) -> Self {
        self.conflicts_expected = true;
        self
    }

    fn returning<R2>(self) -> UpdateItem<'a, F, R2> {
        UpdateItem {
            table: self.table,
            key: self.key,
            change: self.change,
            when: self.when,
            template: self.template,
            conflicts_expected: self.conflicts_expected,
            hooked: self.hooked,
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
    /// [`Field::unchanged`](faceteer_core::expr::Field::unchanged) to see, and send, the request without the read).
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
    /// like [`Field::unchanged`](faceteer_core::expr::Field::unchanged).
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
        Some(stored) => Some(from_stored(stored).map_err(Error::from_plan)?),
        None => match update_plan(
            key,
            change,
            when,
            returning,
            known.as_ref().map(|(t, i)| (*t, i)),
        )
        .map_err(Error::from_plan)
        {
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
    let (mut full, _) =
        with_derived(&change.applied_to(&item)?, Some(template), key).map_err(Error::from_plan)?;
    for name in item_attributes::<F>() {
        if let (false, Some(v)) = (full.touches(name), item.get(name)) {
            full = full.set_attribute(name, v.clone());
        }
    }
    let missing = UpdatePlan::for_missing(key.clone(), &full, returning)?;
    plans.missing = Some(Planned::unchecked(missing));
    Ok(plans)
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
    /// ([`Conditional::Failed`](crate::write::Conditional::Failed)), instead of failing with the
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

impl<'a, F: Facet, R: Returns> UpdateItem<'a, F, R> {
    /// Run the hooks on the change (and a copy of the record it may create), then send the
    /// update they leave, on condition that the stored record holds what they require.
    fn send_hooked(
        mut self,
        hooked: crate::hook::Hooked<'a, F>,
    ) -> BoxFuture<'a, Written<R::Output<F>>> {
        Box::pin(async move {
            let (pk, sk) = key_pair(&self.key);
            let key = Key::<F>::from_parts(pk, sk);
            let mut create = match self.template {
                Some(t) => Some(crate::hook::copy_of(t).map_err(Error::from)?),
                None => None,
            };
            let requires = hooked
                .change(&key, &mut self.change, create.as_mut())
                .await?;
            let when = match requires.condition(false) {
                Some(required) => and(self.when.take(), required),
                None => self.when.take(),
            };
            let update = UpdateItem::<F, R> {
                table: self.table,
                key: self.key,
                change: self.change,
                when,
                template: create.as_ref(),
                conflicts_expected: self.conflicts_expected,
                hooked: true,
                _returns: PhantomData,
            };
            let mut out = Refusable::send(update).await.map_err(|r| {
                crate::write::refusal::named::<F>(&requires, "UpdateItem", Some(&key), r)
            })?;
            if let Some(record) = R::record_mut::<F>(&mut out) {
                hooked.returned(record).await;
            }
            Ok(out)
        })
    }
}

impl<'a, F: Facet, R: Returns> Refusable<'a> for UpdateItem<'a, F, R> {
    type Facet = F;
    type Value = R::Output<F>;

    fn send(self) -> BoxFuture<'a, Written<R::Output<F>>> {
        if F::CRYPTO.is_some() && self.template.is_some() {
            let error = super::refusal::encrypted_whole::<F>(
                "an update that creates the record (`or_create`)",
            );
            return Box::pin(async { Err(error.into()) });
        }
        if !self.hooked {
            if let Some(hooked) = self.table.hooks_for::<F>() {
                return self.send_hooked(hooked);
            }
        }
        let inside = self.change.paths_inside();
        let plans = self.plans();
        let guarded = self.guarded();
        let sent = send::<F, R>(self.table, plans, guarded, self.conflicts_expected);
        if inside.is_empty() {
            return sent;
        }
        Box::pin(async move {
            sent.await.map_err(|mut refusal| {
                refusal.error = no_such_path::<F>(refusal.error, &inside);
                refusal
            })
        })
    }
}

/// `error`, when it is DynamoDB refusing a document path of an update that changes `inside`
/// paths (a member or element of an attribute the record does not hold as a map or list), as
/// [`Error::NoSuchPath`] naming them.
fn no_such_path<F: Facet>(error: Error, inside: &[(&'static str, String)]) -> Error {
    let Error::Dynamo(d) = &error else {
        return error;
    };
    let refused = d.code() == Some("ValidationException")
        && d.message()
            .is_some_and(|m| m.to_ascii_lowercase().contains("document path"));
    let Some((root, _)) = inside.first() else {
        return error;
    };
    if !refused {
        return error;
    }
    let (pk, sk) = d.key().map_or_else(Default::default, |(pk, sk)| {
        (pk.to_owned(), sk.unwrap_or_default().to_owned())
    });
    let paths: Vec<String> = inside.iter().map(|(_, p)| format!("`{p}`")).collect();
    Error::NoSuchPath {
        facet: F::SCHEMA.name,
        pk: pk.into(),
        sk: sk.into(),
        paths: paths.join(", "),
        root,
    }
}
