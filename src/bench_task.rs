//! The README's `Task` and a careful hand-written `aws-sdk-dynamodb` mapping of it, shared
//! by the benchmarks (each compares faceteer with the hand-written code doing the same work).
#![allow(missing_docs)] // The fields are the README's Task; the functions say what they do.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use faceteer::{Facet, Item};
use serde::{Deserialize, Serialize};

/// A task of a team (8 fields, two indexes).
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "TASK")]
#[serde(rename_all = "camelCase")]
pub struct Task {
    #[pk(prefix = "#TEAM")]
    #[gsi(n = 1, alias = "TeamDue", pk, prefix = "#TEAM")]
    pub team_id: String,
    #[sk(prefix = "#TASK")]
    pub task_id: String,
    #[gsi(n = 2, alias = "UserStatus", pk, prefix = "#USER_STATUS")]
    pub assigned_user_id: String,
    #[gsi(n = 2, pk)]
    pub status: String,
    #[gsi(n = 1, sk, prefix = "#TASK_DUE")]
    #[gsi(n = 2, sk, prefix = "#TASK_DUE")]
    #[serde(with = "faceteer::timestamp")]
    pub date_due: DateTime<Utc>,
    pub title: String,
    pub points: u32,
    pub done: bool,
}

/// One task.
pub fn sample() -> Task {
    Task {
        team_id: "team-2f1c9a".into(),
        task_id: "task-81d0be4c".into(),
        assigned_user_id: "user-77ab".into(),
        status: "open".into(),
        date_due: Utc.with_ymd_and_hms(2026, 11, 21, 9, 30, 0).unwrap(),
        title: "Write the quarterly report".into(),
        points: 8,
        done: false,
    }
}

#[inline]
fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// What a careful hand-written mapping does: build every attribute and key string.
#[inline]
pub fn hand_to_item(t: &Task) -> Item {
    let due = t.date_due.to_rfc3339_opts(SecondsFormat::Millis, true);
    let mut item = HashMap::with_capacity(16);
    item.insert("teamId".to_owned(), s(&t.team_id));
    item.insert("taskId".to_owned(), s(&t.task_id));
    item.insert("assignedUserId".to_owned(), s(&t.assigned_user_id));
    item.insert("status".to_owned(), s(&t.status));
    item.insert("dateDue".to_owned(), s(&due));
    item.insert("title".to_owned(), s(&t.title));
    item.insert("points".to_owned(), AttributeValue::N(t.points.to_string()));
    item.insert("done".to_owned(), AttributeValue::Bool(t.done));
    item.insert("PK".to_owned(), s(format!("#TEAM_{}", t.team_id)));
    item.insert("SK".to_owned(), s(format!("#TASK_{}", t.task_id)));
    item.insert("GSI1PK".to_owned(), s(format!("#TEAM_{}", t.team_id)));
    item.insert("GSI1SK".to_owned(), s(format!("#TASK_DUE_{due}")));
    item.insert(
        "GSI2PK".to_owned(),
        s(format!("#USER_STATUS_{}_{}", t.assigned_user_id, t.status)),
    );
    item.insert("GSI2SK".to_owned(), s(format!("#TASK_DUE_{due}")));
    item.insert("facet".to_owned(), s("TASK"));
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

/// What a careful hand-written reader does with an owned item: move each attribute out.
#[inline]
pub fn hand_from_item(mut item: Item) -> Option<Task> {
    let date_due = DateTime::parse_from_rfc3339(item.get("dateDue")?.as_s().ok()?)
        .ok()?
        .with_timezone(&Utc);
    Some(Task {
        team_id: take_s(&mut item, "teamId")?,
        task_id: take_s(&mut item, "taskId")?,
        assigned_user_id: take_s(&mut item, "assignedUserId")?,
        status: take_s(&mut item, "status")?,
        date_due,
        title: take_s(&mut item, "title")?,
        points: item.get("points")?.as_n().ok()?.parse().ok()?,
        done: *item.get("done")?.as_bool().ok()?,
    })
}

/// Task number `i` of team `team` (distinct keys, varied values).
pub fn task(team: &str, i: usize) -> Task {
    Task {
        team_id: team.to_owned(),
        task_id: format!("task-{i:08}"),
        assigned_user_id: format!("user-{}", i % 97),
        status: ["open", "doing", "done"][i % 3].to_owned(),
        date_due: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
            + chrono::Duration::minutes(i as i64 * 17),
        title: format!("Task {i}: write the quarterly report"),
        points: (i % 13) as u32,
        done: i.is_multiple_of(5),
    }
}
