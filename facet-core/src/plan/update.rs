//! The plan of an `UpdateItem` (shared by updates and transactions): the change, every
//! derived attribute it makes stale rebuilt, and the stored values it checks.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;

use super::write::{Returning, UpdatePlan};
use crate::convert::{from_item, key_pair, key_refs};
use crate::expr::{Expr, ExprError, KeyedValues, Update};
use crate::facet::{Facet, ItemError};
use crate::item::Item;
use crate::schema::{FacetSchema, SCHEMA_VERSION_ATTRIBUTE};

/// Why a write could not be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// An expression of the write is invalid.
    #[error(transparent)]
    Expr(#[from] ExprError),
    /// The record (or the stored item it is planned from) cannot be converted.
    #[error(transparent)]
    Item(#[from] ItemError),
    /// The item stored under the key is another facet's: there is no record to update.
    #[error("the item under ({pk}, {sk}) is not a `{facet}` record")]
    Foreign {
        /// The facet of the write.
        facet: &'static str,
        /// The key's partition key.
        pk: String,
        /// The key's sort key.
        sk: String,
    },
    /// The record stored under the key is at an older schema version, with another shape.
    #[error("the `{facet}` record ({pk}, {sk}) is stored at the older schema version {found}")]
    OlderSchema {
        /// The facet of the write.
        facet: &'static str,
        /// The stored version, as text.
        found: String,
        /// The key's partition key.
        pk: String,
        /// The key's sort key.
        sk: String,
    },
}

/// One planned `UpdateItem`, with the stored values it checks.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The request.
    pub plan: UpdatePlan,
    /// `(attribute, value)` the stored record must hold (`None`: no attribute).
    pub checked: Vec<(&'static str, Option<AttributeValue>)>,
    /// The attributes among `checked` whose values were taken from a record known before
    /// sending (the record to create, or the one read): when the stored record holds others,
    /// the update is planned again from it rather than refused.
    pub assumed: Vec<&'static str>,
}

impl Planned {
    /// A plan that checks no stored value.
    pub fn unchecked(plan: UpdatePlan) -> Self {
        Planned {
            plan,
            checked: Vec::new(),
            assumed: Vec::new(),
        }
    }

    /// Whether `stored` holds another value than the plan assumed for an attribute it took
    /// from a record known before sending: planned from `stored`, the update may apply.
    pub fn assumed_wrong(&self, stored: &Item) -> bool {
        self.checked
            .iter()
            .filter(|(name, _)| self.assumed.contains(name))
            .any(|(name, value)| !crate::expr::same_value(stored.get(*name), value.as_ref()))
    }
}

/// `change` with every derived attribute it makes stale rebuilt (values it does not give
/// from `template`), and the `#[version]` counter moved; with the attributes whose values
/// were taken from `template`.
pub fn with_derived<F: Facet>(
    change: &Update<F>,
    template: Option<&F>,
    key: &Item,
) -> Result<(Update<F>, Vec<&'static str>), PlanError> {
    // The values of the table key's fields, read back from the key (no read, no condition).
    let key_values = match key_refs(key) {
        // Only a change of a field keys are built from rebuilds any.
        Some((pk, sk)) if change.changes_keyed() => F::key_values(pk, sk),
        _ => Vec::new(),
    };
    let mut values = KeyedValues::new(change, template).with_key(&key_values);
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
    Ok((full, values.from_template().to_vec()))
}

/// The stored schema version an update of an existing record checks: a record stored at an
/// older version has another shape, and changing some of its attributes would mix two
/// shapes in one item. Nothing to check at version 1 (there is no older one).
pub fn version_check<F: Facet>() -> Vec<(&'static str, Option<AttributeValue>)> {
    F::SCHEMA_VERSION
        .filter(|v| *v > 1)
        .map(|v| {
            (
                SCHEMA_VERSION_ATTRIBUTE,
                Some(AttributeValue::N(v.to_string())),
            )
        })
        .into_iter()
        .collect()
}

/// The values `update` sets on native index keys and vector index attributes, checked as a
/// put checks them: DynamoDB refuses an empty key value, one of another type than the index
/// declares, or a vector of another dimension count.
fn check_native_sets<F: Facet>(update: &Update<F>) -> Result<(), PlanError> {
    let schema = F::SCHEMA;
    if schema.vectors.is_empty() && schema.indexes.iter().all(|i| i.native.is_none()) {
        return Ok(());
    }
    let native = schema
        .indexes
        .iter()
        .filter_map(|i| i.native)
        .flat_map(|n| n.pk.iter().chain(n.sk).map(|k| k.name));
    let vectors = schema
        .vectors
        .iter()
        .flat_map(|v| std::iter::once(v.attribute).chain(v.search_attributes().map(|k| k.name)));
    let set: Vec<(&'static str, AttributeValue)> = native
        .chain(vectors)
        .filter_map(|name| match update.assigned(name) {
            Ok(Some(Some(v))) => Some((name, v)),
            _ => None,
        })
        .collect();
    let value_of = |name: &str| set.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
    crate::limits::check_native_values(schema, value_of)
        .and_then(|()| crate::limits::check_vector_values(schema, value_of))
        .map_err(|source| {
            PlanError::Item(ItemError::Limit {
                facet: F::SCHEMA.name,
                source,
            })
        })
}

/// The plan of an update of the existing record under `key` (shared with transactions):
/// `change` plus every derived attribute it makes stale, conditioned on the values named
/// unchanged (and those taken from `known`: the record to create, or the stored record read
/// first) and on `when`.
pub fn update_plan<F: Facet>(
    key: &Item,
    change: &Update<F>,
    when: Option<&Expr<F>>,
    returning: Returning,
    known: Option<(&F, &Item)>,
) -> Result<Planned, PlanError> {
    let mut checked = change.unchanged()?;
    checked.extend(version_check::<F>());
    let (full, from_known) = with_derived(change, known.map(|(t, _)| t), key)?;
    check_native_sets::<F>(&full)?;
    let mut assumed = Vec::new();
    if let Some((_, item)) = known {
        for name in from_known {
            if !checked.iter().any(|(n, _)| *n == name) {
                checked.push((name, item.get(name).cloned()));
                assumed.push(name);
            }
        }
    }
    let guard = checked
        .iter()
        .map(|(name, value)| Expr::stored_as(name, value.clone()))
        .chain(when.cloned())
        .reduce(Expr::and);
    let plan = UpdatePlan::new(key.clone(), &full, guard.as_ref(), returning)?;
    Ok(Planned {
        plan,
        checked,
        assumed,
    })
}

/// The first of `checked`'s attributes that `item` does not hold as expected (compared as
/// DynamoDB compares them).
pub fn first_differing(
    checked: &[(&'static str, Option<AttributeValue>)],
    item: &Item,
) -> Option<&'static str> {
    checked
        .iter()
        .find(|(name, value)| !crate::expr::same_value(item.get(*name), value.as_ref()))
        .map(|(name, _)| *name)
}

/// The request for an existing record, planned from the item stored under its key.
pub type FromStored = Arc<dyn Fn(&Item) -> Result<Planned, PlanError> + Send + Sync>;

/// The request of an update of an existing record, planned from the item stored under its
/// key: the values a derived key needs and the change does not give are the stored ones, and
/// the request is conditioned on them.
pub fn from_stored<F: Facet>(
    key: &Item,
    change: &Update<F>,
    when: Option<&Expr<F>>,
    returning: Returning,
) -> FromStored {
    let (key, change, when) = (key.clone(), change.clone(), when.cloned());
    Arc::new(move |stored: &Item| {
        let record = stored_record::<F>(&key, stored)?;
        update_plan(
            &key,
            &change,
            when.as_ref(),
            returning,
            Some((&record, stored)),
        )
    })
}

/// The fields a derived attribute (an index key, the TTL) of `schema` is built from.
pub fn derived_inputs(schema: &FacetSchema) -> Vec<&'static str> {
    let keys = schema.indexes.iter().flat_map(|i| i.written_keys());
    let mut out: Vec<&'static str> = Vec::new();
    for name in keys.flat_map(|k| k.inputs()).chain(schema.ttl_field) {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The record of `F` stored as `stored` under `key`, for the values an update needs from it.
fn stored_record<F: Facet>(key: &Item, stored: &Item) -> Result<F, PlanError> {
    if crate::convert::is_foreign(stored, F::SCHEMA.name) {
        // Another facet's item: no record of `F` to update.
        let (pk, sk) = key_pair(key);
        return Err(PlanError::Foreign {
            facet: F::SCHEMA.name,
            pk,
            sk,
        });
    }
    if let Some(current) = F::SCHEMA_VERSION {
        // A newer or unreadable version is the read's own error.
        let found = crate::convert::stored_version::<F>(stored, current)?;
        if found < current {
            // Its shape is another version's: the update is refused as for any older record.
            let (pk, sk) = key_pair(key);
            return Err(PlanError::OlderSchema {
                facet: F::SCHEMA.name,
                found: found.to_string(),
                pk,
                sk,
            });
        }
    }
    Ok(from_item::<F>(stored.clone())?)
}
