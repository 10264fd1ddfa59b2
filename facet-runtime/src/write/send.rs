//! Sending a planned update or upsert: the request for an existing record and the one for a
//! missing record, read-filled and replanned when stored values change, or one transaction
//! with the guards of unique values.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;

use faceteer_core::expr::Expr;
use faceteer_core::plan::Returning;
use faceteer_core::schema::{PK, SCHEMA_VERSION_ATTRIBUTE, SK};
use faceteer_core::{to_item, Facet, Item};

use crate::error::CancelReason;
use crate::error::{Error, Result};
use crate::exec::future::{traced, BoxFuture};
use crate::exec::once;
use crate::exec::sdk::Reply;
use crate::exec::trace::Op;
use crate::table::Table;
use crate::unique;
use crate::wire::keys::key_pair;
use crate::write::condition::condition_failed;
use crate::write::refusal::{self, Refusal, Written};
use crate::write::returns::Returns;
use faceteer_core::plan::update::{first_differing, FromStored, Planned};

/// The requests of one write: the one for an existing record, the one for a missing record,
/// or both (the record is created, or changed, whichever it needs; each request is
/// conditioned on the record's presence, so exactly one of them can apply).
pub(crate) struct Plans {
    /// The key written.
    pub(crate) key: Item,
    pub(crate) existing: Option<Planned>,
    pub(crate) missing: Option<Planned>,
    /// Plans the request for an existing record from the item stored under the key, when
    /// the change does not give every value a derived key needs: the record is read first
    /// (when `existing` is `None`), and planned again from what a refused request returns.
    pub(crate) from_stored: Option<FromStored>,
    /// Why the request for an existing record needs the stored record (what `plan()` says).
    pub(crate) needs_read: Option<Error>,
}

impl Plans {
    /// The first request sent.
    pub(crate) fn first(&self) -> Option<&Planned> {
        self.existing.as_ref().or(self.missing.as_ref())
    }

    /// Only `existing` and `missing`, planned in advance.
    pub(crate) fn fixed(key: Item, existing: Option<Planned>, missing: Option<Planned>) -> Self {
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
pub(crate) fn item_attributes<F: Facet>() -> impl Iterator<Item = &'static str> {
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
pub(crate) fn item_for<F: Facet>(key: &Item, record: &F, what: &str) -> Result<Item> {
    checked_item::<F>(key, to_item(record)?, what)
}

/// [`item_for`] of an item already made from the record.
pub(crate) fn checked_item<F: Facet>(key: &Item, item: Item, what: &str) -> Result<Item> {
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
            shown_key(item.get(PK)),
            shown_key(item.get(SK)),
            shown_key(key.get(PK)),
            shown_key(key.get(SK))
        )));
    }
    Ok(item)
}

/// A key attribute as errors print it (the values of `#[sensitive]` fields masked).
fn shown_key(v: Option<&AttributeValue>) -> String {
    match v {
        Some(AttributeValue::S(s)) => faceteer_core::redact::key(s).into_owned(),
        other => format!("{other:?}"),
    }
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
                pk: pk.into(),
                sk: sk.into(),
            }
        }
        Some(field) => {
            let (pk, sk) = key_pair(&planned.plan.key);
            Error::StoredValueDiffers {
                facet: F::SCHEMA.name,
                field,
                pk: pk.into(),
                sk: sk.into(),
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
pub(crate) async fn run_plans<F: Facet>(
    table: &Table,
    op: &Op,
    plans: &Plans,
) -> Written<Option<Item>> {
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
                (Some(s), Some(plan)) if plans.existing.is_none() => {
                    Some(plan(s).map_err(Error::from_plan)?)
                }
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
                    Some(stored) => plan(&stored).map_err(Error::from_plan)?,
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
                existing = Some(plan(s).map_err(Error::from_plan)?);
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
pub(crate) struct Guarded<'a, F> {
    pub(crate) key: Item,
    /// Attributes besides the guarded ones the write must find as read.
    pub(crate) watch: Vec<&'static str>,
    pub(crate) plans: PlansFor<'a, F>,
    pub(crate) after: After<'a>,
}

/// The requests of a write, given the item stored and a condition of the library's own.
pub(crate) type PlansFor<'a, F> =
    Box<dyn Fn(Option<&Item>, Expr<F>) -> Result<Plans> + Send + Sync + 'a>;

/// The item a write leaves, given the one stored (`None`: no record).
pub(crate) type After<'a> = Box<dyn Fn(Option<&Item>) -> Result<Option<Item>> + Send + Sync + 'a>;

/// Send a planned write and read its result; a write that can change a unique value's
/// guard ([`Guarded`]) goes as one transaction with its guards ([`crate::unique`]).
pub(crate) fn send<'a, F: Facet, R: Returns>(
    table: &'a Table,
    plans: Result<Plans>,
    guarded: Option<Guarded<'a, F>>,
    conflicts_expected: bool,
) -> BoxFuture<'a, Written<R::Output<F>>> {
    let mut op = Op::new("UpdateItem", table, F::SCHEMA.name, None);
    if conflicts_expected {
        op = op.expecting_conflicts();
    }
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
                            pk: pk.into(),
                            sk: sk.into(),
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
