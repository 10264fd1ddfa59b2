//! The README's `Task` (from [`crate::catalogue`]) and what a careful user writes without
//! faceteer, shared by the benchmarks: a hand-written `aws-sdk-dynamodb` mapping, and
//! serde_dynamo with hand-built keys. Each benchmark checks that every arm writes and reads
//! exactly what faceteer does.
#![allow(missing_docs)] // The fields are the README's Task; the functions say what they do.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, SecondsFormat, Utc};
use faceteer::Item;

pub use crate::catalogue::{check_task, sample, task, Task, TaskStatus};

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
