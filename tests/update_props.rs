//! Property: no sequence of puts, updates, updates that create, upserts and deletes leaves
//! a stored item other than what a put of the record it holds writes — index keys (three
//! indexes sharing fields, one sharded), the membership of a sparse index (a record enters
//! it when its fields become present and leaves it when one becomes absent) and the TTL
//! included.
//!
//! Each sequence works on its own record, with operations drawn from a seeded generator;
//! after every step the item is read raw and compared with a model of the record and with
//! `to_item` of the record read back. A failure names the seed and the step. The number of
//! sequences is `FACETEER_UPDATE_SEQUENCES` (default: 2,000 on the embedded engine, 200 on
//! other servers).

use crate::common;

use chrono::{DateTime, Duration, TimeZone, Utc};
use common::get_record_item;
use faceteer::{Error, Facet, KeyPart, Table, Update};
use futures::StreamExt;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Stage {
    New,
    Active,
    Closed,
}

/// GSI1: by assignee, sorted by stage then update time. GSI2: by stage, sharded over 4 by
/// id, sorted by update time. GSI3: by organisation, sorted by update time then priority.
/// GSI4 (declared on the struct, sparse): one constant partition of the tickets that expire
/// and are assigned, sorted by expiry then assignee. GSI5 (native, multi-attribute keys):
/// by organisation and stage, sorted by priority then assignee; nothing is derived for it,
/// so no update needs another field's value for it, and a ticket without an assignee is not
/// in it.
// Two `gsi(..)` declarations in one `#[facet(..)]` are two indexes, not a repeat.
#[allow(clippy::duplicated_attributes)]
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "TICKET",
    gsi(
        n = 4,
        alias = "Expiring",
        sparse,
        pk(prefix = "#EXPIRING", fields()),
        sk(prefix = "#AT", fields(expires, assignee))
    ),
    gsi(
        n = 5,
        native,
        alias = "OrgQueue",
        pk(fields(org, stage)),
        sk(fields(priority, assignee))
    )
)]
#[serde(rename_all = "camelCase")]
struct Ticket {
    #[pk(prefix = "#ORG")]
    #[gsi(n = 3, alias = "OrgUpdated", pk, prefix = "#ORG")]
    org: String,
    #[sk(prefix = "#TICKET")]
    #[shard(count = 4, gsi = 2)]
    id: String,
    #[gsi(n = 1, alias = "Assignee", pk, prefix = "#ASSIGNEE")]
    assignee: Option<String>,
    #[gsi(n = 1, sk, prefix = "#STAGE")]
    #[gsi(n = 2, alias = "Stage", pk, prefix = "#STAGE")]
    stage: Stage,
    #[gsi(n = 1, sk)]
    #[gsi(n = 2, sk, prefix = "#UPDATED")]
    #[gsi(n = 3, sk, prefix = "#UPDATED")]
    updated: DateTime<Utc>,
    #[gsi(n = 3, sk, sortable)]
    priority: u8,
    #[ttl]
    expires: Option<DateTime<Utc>>,
    title: String,
}

faceteer::table! {
    struct TicketTable { Ticket }
}

/// The fields an update can change or name unchanged (all but the key), and the fields each
/// derived attribute is built from.
const SETTABLE: [&str; 6] = [
    "assignee", "stage", "updated", "priority", "expires", "title",
];
const DERIVED: [(&str, &[&str]); 8] = [
    ("GSI1PK", &["assignee"]),
    ("GSI1SK", &["stage", "updated"]),
    ("GSI2PK", &["stage", "id"]),
    ("GSI2SK", &["updated"]),
    ("GSI3SK", &["updated", "priority"]),
    // Sparse: both keys are written or removed together, from both fields.
    ("GSI4PK", &["expires", "assignee"]),
    ("GSI4SK", &["expires", "assignee"]),
    ("ttl", &["expires"]),
];

fn random_ticket(rng: &mut fastrand::Rng, org: &str) -> Ticket {
    let base = Utc.with_ymd_and_hms(2026, 11, 23, 0, 0, 0).unwrap();
    // Whole seconds, milliseconds and sub-millisecond digits (dropped when stored: the
    // model keeps milliseconds).
    let time = |rng: &mut fastrand::Rng| {
        base + Duration::milliseconds(rng.i64(-3_000..3_000) * [1, 1000][rng.usize(..2)])
    };
    Ticket {
        org: org.to_owned(),
        id: "t".to_owned(),
        assignee: rng
            .bool()
            .then(|| ["ann", "bob", "a_b"][rng.usize(..3)].to_owned()),
        stage: [Stage::New, Stage::Active, Stage::Closed][rng.usize(..3)],
        updated: time(rng),
        priority: rng.u8(..),
        expires: rng.bool().then(|| time(rng)),
        title: ["x", "report", ""][rng.usize(..3)].to_owned(),
    }
}

/// An update: each field of `changed` set to `to`'s value, each of `given` named unchanged at
/// `at`'s value.
fn update_of(to: &Ticket, changed: &[&str], at: &Ticket, given: &[&str]) -> Update<Ticket> {
    let f = Ticket::fields();
    let mut u = Update::empty();
    for name in changed {
        u = u & match *name {
            "assignee" => match &to.assignee {
                Some(a) => f.assignee.set(a),
                None => f.assignee.remove(),
            },
            "stage" => f.stage.set(to.stage),
            "updated" => f.updated.set(to.updated),
            "priority" => f.priority.set(to.priority),
            "expires" => match to.expires {
                Some(e) => f.expires.set(e),
                None => f.expires.remove(),
            },
            _ => f.title.set(&to.title),
        };
    }
    for name in given {
        u = u & match *name {
            "assignee" => match &at.assignee {
                Some(a) => f.assignee.unchanged(a),
                None => f.assignee.unchanged_absent(),
            },
            "stage" => f.stage.unchanged(at.stage),
            "updated" => f.updated.unchanged(at.updated),
            "priority" => f.priority.unchanged(at.priority),
            "expires" => match at.expires {
                Some(e) => f.expires.unchanged(e),
                None => f.expires.unchanged_absent(),
            },
            "id" => f.id.unchanged(&at.id),
            _ => f.title.unchanged(&at.title),
        };
    }
    u
}

/// `record` with the fields of `changed` taken from `to`.
fn apply(record: &Ticket, to: &Ticket, changed: &[&str]) -> Ticket {
    let mut r = record.clone();
    for name in changed {
        match *name {
            "assignee" => r.assignee = to.assignee.clone(),
            "stage" => r.stage = to.stage,
            "updated" => r.updated = to.updated,
            "priority" => r.priority = to.priority,
            "expires" => r.expires = to.expires,
            "title" => r.title = to.title.clone(),
            _ => {} // the key: never changed
        }
    }
    r
}

fn same_field(a: &Ticket, b: &Ticket, name: &str) -> bool {
    match name {
        "id" => a.id == b.id,
        _ => apply(a, b, &[name]) == *a,
    }
}

/// The fields the derived attributes a change (to `to`'s values) rebuilds need and it does
/// not change. A sparse index's keys need nothing when the change removes one of its
/// optional fields: the record leaves the index whatever the others hold.
fn needed(changed: &[&str], to: &Ticket) -> Vec<&'static str> {
    let leaves_gsi4 = (changed.contains(&"expires") && to.expires.is_none())
        || (changed.contains(&"assignee") && to.assignee.is_none());
    let mut out = Vec::new();
    for (attribute, inputs) in DERIVED {
        if attribute.starts_with("GSI4") && leaves_gsi4 {
            continue;
        }
        if inputs.iter().any(|i| changed.contains(i)) {
            for i in inputs {
                if !changed.contains(i) && !out.contains(i) {
                    out.push(*i);
                }
            }
        }
    }
    out
}

/// A random subset of `of`, in order.
fn subset<'a>(rng: &mut fastrand::Rng, of: &[&'a str]) -> Vec<&'a str> {
    of.iter().copied().filter(|_| rng.u8(..4) == 0).collect()
}

/// What one step should end in.
#[derive(Debug, PartialEq)]
enum Expect {
    Applied,
    ConditionFailed,
    Differs,
    Needed,
    Invalid,
}

fn outcome(result: &faceteer::Result<()>) -> Expect {
    match result {
        Ok(()) => Expect::Applied,
        Err(Error::ConditionFailed { .. }) => Expect::ConditionFailed,
        Err(Error::StoredValueDiffers { .. }) => Expect::Differs,
        Err(Error::Expr(faceteer::error::ExprError::KeyFieldNeeded { .. })) => Expect::Needed,
        Err(Error::InvalidRequest(_)) => Expect::Invalid,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// Run one sequence: the record it ends with, or the first divergence.
async fn sequence(table: &Table, seed: u64) -> Result<Option<Ticket>, String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let org = format!("org-{seed}");
    let key = Ticket::key(&org, "t").unwrap();
    let f = Ticket::fields();
    let mut model: Option<Ticket> = None;
    for step in 0..8 {
        let other = random_ticket(&mut rng, &org);
        let what;
        let (result, expect, next): (faceteer::Result<()>, Expect, Option<Ticket>) = match rng
            .u8(..10)
        {
            0 | 1 => {
                what = format!("put {other:?}");
                (table.put(&other).await, Expect::Applied, Some(other))
            }
            2..=5 => {
                // An update of some fields, naming the others it needs unchanged: all,
                // none, or one at a wrong value.
                let changed = subset(&mut rng, &SETTABLE);
                let needs = needed(&changed, &other);
                let current = model.clone().unwrap_or_else(|| other.clone());
                let mode = rng.u8(..3);
                let given: Vec<&str> = match mode {
                    0 => needs.clone(),
                    1 => subset(&mut rng, &needs),
                    _ => needs.clone(),
                };
                let mut at = current.clone();
                if mode == 2 {
                    // One named field at another value (when there is one to name).
                    if let Some(name) = given.first().filter(|n| **n != "id") {
                        at = apply(&at, &other, &[name]);
                    }
                }
                what = format!("update {changed:?} to {other:?}, {given:?} unchanged at {at:?}");
                // A value the change needs and does not name is read from the stored
                // record: no refusal for it.
                let expect = if changed.is_empty() {
                    Expect::Invalid
                } else if model.is_none() {
                    Expect::ConditionFailed
                } else if given.iter().any(|n| !same_field(&current, &at, n)) {
                    Expect::Differs
                } else {
                    Expect::Applied
                };
                let result = table
                    .update(&key, update_of(&other, &changed, &at, &given))
                    .await
                    .map_err(|e| match e {
                        Error::Expr(faceteer::error::ExprError::EmptyUpdate) => {
                            Error::InvalidRequest("the update changes nothing".into())
                        }
                        e => e,
                    });
                let next = model.as_ref().map(|m| apply(m, &other, &changed));
                (result, expect, next)
            }
            6 | 7 => {
                // An update that creates from a template.
                let mut changed = subset(&mut rng, &SETTABLE);
                if changed.is_empty() {
                    changed.push("title");
                }
                let template = random_ticket(&mut rng, &org);
                what = format!("update {changed:?} to {other:?} or create {template:?}");
                // A stored record whose values differ from the template's is changed with
                // its own (planned again from what the refused request returns).
                let (expect, next) = match &model {
                    None => (Expect::Applied, Some(apply(&template, &other, &changed))),
                    Some(m) => (Expect::Applied, Some(apply(m, &other, &changed))),
                };
                let result = table
                    .update(&key, update_of(&other, &changed, &template, &[]))
                    .or_create(&template)
                    .await;
                (result, expect, next)
            }
            8 => {
                // An upsert keeping some fields.
                let keep = subset(&mut rng, &SETTABLE);
                what = format!("upsert {other:?} keeping {keep:?}");
                let mixed = DERIVED.iter().any(|(_, inputs)| {
                    let inputs: Vec<&&str> = inputs.iter().filter(|i| **i != "id").collect();
                    inputs.iter().any(|i| keep.contains(i))
                        && inputs.iter().any(|i| !keep.contains(i))
                });
                let mut upsert = table.upsert(&other);
                for name in &keep {
                    upsert = match *name {
                        "assignee" => upsert.keep(f.assignee),
                        "stage" => upsert.keep(f.stage),
                        "updated" => upsert.keep(f.updated),
                        "priority" => upsert.keep(f.priority),
                        "expires" => upsert.keep(f.expires),
                        _ => upsert.keep(f.title),
                    };
                }
                let next = match &model {
                    Some(m) => {
                        let written: Vec<&str> = SETTABLE
                            .iter()
                            .copied()
                            .filter(|n| !keep.contains(n))
                            .collect();
                        Some(apply(m, &other, &written))
                    }
                    None => Some(other.clone()),
                };
                let expect = if mixed {
                    Expect::Invalid
                } else {
                    Expect::Applied
                };
                (upsert.await, expect, next)
            }
            _ => {
                what = "delete".to_owned();
                (table.delete(&key).await, Expect::Applied, None)
            }
        };
        let got = outcome(&result);
        if got != expect {
            return Err(format!(
                "seed {seed}, step {step}: {what}: expected {expect:?}, got {result:?}"
            ));
        }
        if got == Expect::Applied {
            model = next;
        }
        // Stored: the model's record, and exactly the item a put of it writes.
        let raw = get_record_item(table, key.to_item()).await;
        let want = model.as_ref().map(|m| faceteer::to_item(m).unwrap());
        if raw != want {
            return Err(format!(
                "seed {seed}, step {step}: {what}: stored {raw:?}, a put of the model {model:?} \
                 writes {want:?}"
            ));
        }
        if let Some(raw) = raw {
            let read: Ticket = faceteer::from_item(raw.clone()).unwrap();
            if faceteer::to_item(&read).unwrap() != raw {
                return Err(format!(
                    "seed {seed}, step {step}: the item read back does not write itself"
                ));
            }
        }
    }
    Ok(model)
}

/// Zero divergences over every sequence.
async fn no_sequence_leaves_an_item_a_put_would_not_write() {
    let table = faceteer_suite::fresh_table::<TicketTable>("update-props").await;
    let default = match faceteer_suite::engine() {
        faceteer_suite::Engine::Embedded => 2_000,
        _ => 200,
    };
    let count: u64 = std::env::var("FACETEER_UPDATE_SEQUENCES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default);
    let results: Vec<Result<Option<Ticket>, String>> = futures::stream::iter(0..count)
        .map(|seed| {
            let table = &table;
            async move { sequence(table, seed).await }
        })
        .buffer_unordered(8)
        .collect()
        .await;
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {count} sequences diverged; first: {}",
        failures.len(),
        failures[0]
    );
    // The sparse index holds exactly the final records with both its fields present.
    let finals: Vec<Ticket> = results
        .into_iter()
        .filter_map(|r| r.ok().flatten())
        .collect();
    let mut expected: Vec<Ticket> = finals
        .iter()
        .filter(|t| t.expires.is_some() && t.assignee.is_some())
        .cloned()
        .collect();
    let mut indexed = table
        .query(Ticket::by_expiring().list())
        .all()
        .await
        .unwrap();
    let by_org = |a: &Ticket, b: &Ticket| a.org.cmp(&b.org);
    expected.sort_by(by_org);
    indexed.sort_by(by_org);
    assert!(
        !expected.is_empty(),
        "some sequences end in the sparse index"
    );
    assert_eq!(indexed, expected);
    // The native index holds exactly the final records with an assignee, each in the
    // partition of its organisation and stage, found by its typed sort values.
    let checks: Vec<Result<(), String>> = futures::stream::iter(&finals)
        .map(|t| {
            let table = &table;
            async move {
                let in_partition = table
                    .query(Ticket::by_org_queue(&t.org, t.stage).list())
                    .all()
                    .await
                    .map_err(|e| e.to_string())?;
                let want: Vec<Ticket> = t
                    .assignee
                    .is_some()
                    .then(|| t.clone())
                    .into_iter()
                    .collect();
                if in_partition != want {
                    return Err(format!("GSI5 holds {in_partition:?} for {t:?}"));
                }
                if let Some(a) = &t.assignee {
                    let exact = table
                        .query(
                            Ticket::by_org_queue(&t.org, t.stage)
                                .eq(t.priority)
                                .eq(a)
                                .list(),
                        )
                        .all()
                        .await
                        .map_err(|e| e.to_string())?;
                    if exact != want {
                        return Err(format!(
                            "GSI5 by priority and assignee: {exact:?} for {t:?}"
                        ));
                    }
                }
                Ok(())
            }
        })
        .buffer_unordered(8)
        .collect()
        .await;
    let wrong: Vec<&String> = checks.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(
        wrong.is_empty(),
        "{} of {} native index checks failed; first: {}",
        wrong.len(),
        finals.len(),
        wrong[0]
    );
}

faceteer_suite::engines!(no_sequence_leaves_an_item_a_put_would_not_write,);
