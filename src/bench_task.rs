//! The README's `Task` (as the tour declares it: an enum key part, an optional index key,
//! a TTL and a validator), and what a careful user writes without faceteer, shared by the
//! benchmarks: a hand-written `aws-sdk-dynamodb` mapping, and serde_dynamo with hand-built
//! keys. Each benchmark checks that every arm writes and reads exactly what faceteer does.
#![allow(missing_docs)] // The fields are the README's Task; the functions say what they do.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use faceteer::{Facet, Item, KeyPart};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    Open,
    Completed,
}

impl TaskStatus {
    fn text(self) -> &'static str {
        match self {
            TaskStatus::Open => "open",
            TaskStatus::Completed => "completed",
        }
    }

    fn from_text(text: &str) -> Option<Self> {
        match text {
            "open" => Some(TaskStatus::Open),
            "completed" => Some(TaskStatus::Completed),
            _ => None,
        }
    }
}

/// The README's task.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "TASK", validator = check_task)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    #[pk(prefix = "#TEAM")]
    #[gsi(n = 1, alias = "GSITeamDueDate", pk, prefix = "#TEAM")]
    pub team_id: String,
    #[sk(prefix = "#TASK")]
    pub task_id: String,
    #[gsi(n = 1, sk, prefix = "#TASK_DUE")]
    #[serde(with = "faceteer::timestamp")]
    pub date_due: DateTime<Utc>,
    #[gsi(n = 2, alias = "GSIUserStatus", pk, prefix = "#USER_STATUS")]
    pub assigned_user_id: Option<String>,
    #[gsi(n = 2, pk)]
    pub status: TaskStatus,
    #[gsi(n = 2, sk, prefix = "#TASK_CREATED")]
    #[serde(with = "faceteer::timestamp")]
    pub date_created: DateTime<Utc>,
    #[ttl]
    #[serde(default, with = "faceteer::timestamp::option")]
    pub expires_at: Option<DateTime<Utc>>,
}

/// The README's validator (every arm runs it on what it reads).
pub fn check_task(task: &Task) -> Result<(), String> {
    if task.date_due < task.date_created {
        return Err("a task is due after it is created".into());
    }
    Ok(())
}

/// Task number `i` of team `team`: distinct keys and values; one in three unassigned (not
/// in the user index), one in four expiring.
pub fn task(team: &str, i: usize) -> Task {
    let created = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
        + chrono::Duration::seconds(i as i64 * 611 + 7);
    Task {
        team_id: team.to_owned(),
        task_id: format!("task-{i:08}"),
        date_due: created + chrono::Duration::minutes(30 + (i % 500) as i64 * 17),
        assigned_user_id: (!i.is_multiple_of(3)).then(|| format!("user-{:04}", i % 997)),
        status: if i.is_multiple_of(4) {
            TaskStatus::Completed
        } else {
            TaskStatus::Open
        },
        date_created: created,
        expires_at: i
            .is_multiple_of(4)
            .then(|| created + chrono::Duration::days(90)),
    }
}

/// One task.
pub fn sample() -> Task {
    task("team-2f1c9a", 1)
}

/// A time as Faceteer stores it (`toISOString()`).
fn iso(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn parse_iso(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

#[inline]
fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// The key attributes faceteer writes for `t`, built by hand.
fn hand_keys(t: &Task, due: &str, created: &str, item: &mut Item) {
    item.insert("PK".to_owned(), s(format!("#TEAM_{}", t.team_id)));
    item.insert("SK".to_owned(), s(format!("#TASK_{}", t.task_id)));
    item.insert("GSI1PK".to_owned(), s(format!("#TEAM_{}", t.team_id)));
    item.insert("GSI1SK".to_owned(), s(format!("#TASK_DUE_{due}")));
    // An absent key part contributes nothing (as in Faceteer).
    let gsi2pk = match &t.assigned_user_id {
        Some(user) => format!("#USER_STATUS_{user}_{}", t.status.text()),
        None => format!("#USER_STATUS_{}", t.status.text()),
    };
    item.insert("GSI2PK".to_owned(), s(gsi2pk));
    item.insert("GSI2SK".to_owned(), s(format!("#TASK_CREATED_{created}")));
    item.insert("facet".to_owned(), s("TASK"));
    if let Some(at) = t.expires_at {
        item.insert(
            "ttl".to_owned(),
            AttributeValue::N(at.timestamp().to_string()),
        );
    }
}

/// What a careful hand-written mapping does: build every attribute and key string.
#[inline]
pub fn hand_to_item(t: &Task) -> Item {
    let due = iso(&t.date_due);
    let created = iso(&t.date_created);
    let mut item = HashMap::with_capacity(16);
    item.insert("teamId".to_owned(), s(&t.team_id));
    item.insert("taskId".to_owned(), s(&t.task_id));
    item.insert("dateDue".to_owned(), s(&due));
    if let Some(user) = &t.assigned_user_id {
        item.insert("assignedUserId".to_owned(), s(user));
    }
    item.insert("status".to_owned(), s(t.status.text()));
    item.insert("dateCreated".to_owned(), s(&created));
    if let Some(at) = &t.expires_at {
        item.insert("expiresAt".to_owned(), s(iso(at)));
    }
    hand_keys(t, &due, &created, &mut item);
    item
}

/// Take string attribute `name` out of an owned item (no copy).
#[inline]
fn take_s(item: &mut Item, name: &str) -> Option<String> {
    match item.remove(name)? {
        AttributeValue::S(s) => Some(s),
        _ => None,
    }
}

/// An optional string attribute: absent or `NULL` for `None`.
#[inline]
fn take_opt_s(item: &mut Item, name: &str) -> Option<Option<String>> {
    match item.remove(name) {
        None | Some(AttributeValue::Null(_)) => Some(None),
        Some(AttributeValue::S(s)) => Some(Some(s)),
        Some(_) => None,
    }
}

/// What a careful hand-written reader does with an owned item: check the facet, move each
/// attribute out, run the validator.
#[inline]
pub fn hand_from_item(mut item: Item) -> Option<Task> {
    if item.get("facet")?.as_s().ok()? != "TASK" {
        return None;
    }
    let expires_at = match take_opt_s(&mut item, "expiresAt")? {
        Some(text) => Some(parse_iso(&text)?),
        None => None,
    };
    let task = Task {
        date_due: parse_iso(item.get("dateDue")?.as_s().ok()?)?,
        date_created: parse_iso(item.get("dateCreated")?.as_s().ok()?)?,
        status: TaskStatus::from_text(item.get("status")?.as_s().ok()?)?,
        team_id: take_s(&mut item, "teamId")?,
        task_id: take_s(&mut item, "taskId")?,
        assigned_user_id: take_opt_s(&mut item, "assignedUserId")?,
        expires_at,
    };
    check_task(&task).ok()?;
    Some(task)
}

/// The hand-written key of a task (`PK`, `SK`).
pub fn hand_key(team: &str, task_id: &str) -> Item {
    HashMap::from([
        ("PK".to_owned(), s(format!("#TEAM_{team}"))),
        ("SK".to_owned(), s(format!("#TASK_{task_id}"))),
    ])
}

/// serde_dynamo's item of `t`, with the keys built by hand and `None` fields left out (as
/// faceteer and Faceteer store them; serde_dynamo writes them as `NULL`).
pub fn dynamo_to_item(t: &Task) -> Item {
    let mut item: Item = serde_dynamo::to_item(t).expect("a task serializes");
    item.retain(|_, v| !matches!(v, AttributeValue::Null(_)));
    hand_keys(t, &iso(&t.date_due), &iso(&t.date_created), &mut item);
    item
}

/// serde_dynamo's record of an item, checked as faceteer checks it.
pub fn dynamo_from_item(item: Item) -> Option<Task> {
    if item.get("facet")?.as_s().ok()? != "TASK" {
        return None;
    }
    let task: Task = serde_dynamo::from_item(item).ok()?;
    check_task(&task).ok()?;
    Some(task)
}
