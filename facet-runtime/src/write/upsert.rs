//! Upserts: [`Table::upsert`] writes a whole record, creating it or merging it into the
//! stored one, keeping the fields named with [`Upsert::keep`] when the record exists.

use std::future::IntoFuture;
use std::marker::PhantomData;

use faceteer_core::expr::{Expr, Field, Update};
use faceteer_core::plan::UpdatePlan;
use faceteer_core::schema::TTL_ATTRIBUTE;
use faceteer_core::{Facet, Item};

use crate::error::{Error, Result};
use crate::exec::future::BoxFuture;
use crate::table::Table;
use crate::write::condition::and;
use crate::write::refusal::{self, Refusable, StoredOnFailure, Written};
use crate::write::returns::{New, Nothing, Returns};
use crate::write::send::{checked_item, item_attributes, item_for, send, Guarded, Plans};
use faceteer_core::plan::stamp::write_clock_now;
use faceteer_core::plan::stamp::{keys_built_from, stamped_item, Created};
use faceteer_core::plan::update::{version_check, Planned};

impl Table {
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
            hooked: false,
            _returns: PhantomData,
        }
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
    /// The hooks ran: this is the upsert of the record they left.
    hooked: bool,
    _returns: PhantomData<fn() -> R>,
}

impl<'a, F: Facet, R: Returns> Upsert<'a, F, R> {
    /// When the record exists, leave `field` as it is stored (present or absent): a creation
    /// time, a counter. An index key or the TTL built from kept fields is kept with
    /// them; one built from a kept field and a field that is written is refused before
    /// sending (it could not be right both when the record exists and when it does not).
    pub fn keep<T, S, K: faceteer_core::expr::TopLevel>(
        mut self,
        field: Field<F, T, S, K>,
    ) -> Self {
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
            hooked: self.hooked,
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
        let item = checked_item::<F>(
            &key,
            stamped_item(record, created, &write_clock_now())?,
            "record",
        )?;
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
            let all: Vec<&'static str> = index.written_keys().flat_map(|k| k.inputs()).collect();
            for key in index.written_keys() {
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
    /// ([`Conditional::Failed`](crate::write::Conditional::Failed)), instead of failing with the
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
        if F::CRYPTO.is_some() {
            return Box::pin(async {
                Err(super::refusal::encrypted_whole::<F>("an upsert").into())
            });
        }
        if !self.hooked {
            if let Some(hooked) = self.table.hooks_for::<F>() {
                return Box::pin(async move {
                    let key = self.record.primary_key().ok();
                    let (record, requires) = hooked
                        .record("UpdateItem", self.record, crate::hook::WritePath::Upsert)
                        .await?;
                    let when = match requires.condition(true) {
                        Some(required) => and(self.when, required),
                        None => self.when,
                    };
                    let upsert = Upsert::<F, R> {
                        table: self.table,
                        record: &record,
                        keep: self.keep,
                        when,
                        hooked: true,
                        _returns: PhantomData,
                    };
                    let mut out = Refusable::send(upsert).await.map_err(|r| {
                        crate::write::refusal::named::<F>(&requires, "UpdateItem", key.as_ref(), r)
                    })?;
                    if let Some(record) = R::record_mut::<F>(&mut out) {
                        hooked.returned(record).await;
                    }
                    Ok(out)
                });
            }
        }
        let guarded = self.guarded();
        // A guarded upsert plans its requests from the record it reads.
        let plans = match guarded {
            Some(_) => Ok(Plans::fixed(Item::new(), None, None)),
            None => self.plans(),
        };
        send::<F, R>(self.table, plans, guarded, false)
    }
}
