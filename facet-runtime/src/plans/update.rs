//! The plan of an `UpdateItem` (shared by updates and transactions): the change, every
//! derived attribute it makes stale rebuilt, and the stored values it checks.

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::expr::{Expr, KeyedValues, Update};
use faceteer_core::plan::{Returning, UpdatePlan};
use faceteer_core::schema::SCHEMA_VERSION_ATTRIBUTE;
use faceteer_core::{Facet, Item};

use crate::error::Result;

/// One planned `UpdateItem`, with the stored values it checks.
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    pub(crate) plan: UpdatePlan,
    /// `(attribute, value)` the stored record must hold (`None`: no attribute).
    pub(crate) checked: Vec<(&'static str, Option<AttributeValue>)>,
    /// The attributes among `checked` whose values were taken from a record known before
    /// sending (the record to create, or the one read): when the stored record holds others,
    /// the update is planned again from it rather than refused.
    pub(crate) assumed: Vec<&'static str>,
}

impl Planned {
    /// A plan that checks no stored value.
    pub(crate) fn unchecked(plan: UpdatePlan) -> Self {
        Planned {
            plan,
            checked: Vec::new(),
            assumed: Vec::new(),
        }
    }

    /// Whether `stored` holds another value than the plan assumed for an attribute it took
    /// from a record known before sending: planned from `stored`, the update may apply.
    pub(crate) fn assumed_wrong(&self, stored: &Item) -> bool {
        let assumed: Vec<_> = self
            .checked
            .iter()
            .filter(|(name, _)| self.assumed.contains(name))
            .cloned()
            .collect();
        first_differing(&assumed, stored).is_some()
    }
}

/// `change` with every derived attribute it makes stale rebuilt (values it does not give
/// from `template`), and the `#[version]` counter moved; with the attributes whose values
/// were taken from `template`.
pub(crate) fn with_derived<F: Facet>(
    change: &Update<F>,
    template: Option<&F>,
) -> Result<(Update<F>, Vec<&'static str>)> {
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
    Ok((full, values.from_template().to_vec()))
}

/// The stored schema version an update of an existing record checks: a record stored at an
/// older version has another shape, and changing some of its attributes would mix two
/// shapes in one item. Nothing to check at version 1 (there is no older one).
pub(crate) fn version_check<F: Facet>() -> Vec<(&'static str, Option<AttributeValue>)> {
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

/// The plan of an update of the existing record under `key` (shared with transactions):
/// `change` plus every derived attribute it makes stale, conditioned on the values named
/// unchanged (and those taken from `known`: the record to create, or the stored record read
/// first) and on `when`.
pub(crate) fn update_plan<F: Facet>(
    key: &Item,
    change: &Update<F>,
    when: Option<&Expr<F>>,
    returning: Returning,
    known: Option<(&F, &Item)>,
) -> Result<Planned> {
    let mut checked = change.unchanged()?;
    checked.extend(version_check::<F>());
    let (full, from_known) = with_derived(change, known.map(|(t, _)| t))?;
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
pub(crate) fn first_differing(
    checked: &[(&'static str, Option<AttributeValue>)],
    item: &Item,
) -> Option<&'static str> {
    checked
        .iter()
        .find(|(name, value)| !faceteer_core::expr::same_value(item.get(*name), value.as_ref()))
        .map(|(name, _)| *name)
}
