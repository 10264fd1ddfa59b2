//! The catalogue the tests, examples and benchmarks share: the README's `Task` (as the
//! tour declares it: an enum key part, an optional index key, a TTL and a validator) and
//! generators of tasks.
#![allow(missing_docs)] // The fields are the README's Task.

use chrono::{DateTime, TimeZone, Utc};
use faceteer::{Facet, KeyPart};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    Open,
    Completed,
}

impl TaskStatus {
    /// The status as stored (serde's name).
    pub fn text(self) -> &'static str {
        match self {
            TaskStatus::Open => "open",
            TaskStatus::Completed => "completed",
        }
    }

    /// The status stored as `text`.
    pub fn from_text(text: &str) -> Option<Self> {
        match text {
            "open" => Some(TaskStatus::Open),
            "completed" => Some(TaskStatus::Completed),
            _ => None,
        }
    }
}

/// The README's `Task`, declared as the tour declares it.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "TASK",
    validator = check_task,
    pk(prefix = "#TEAM", fields(team_id)),
    sk(prefix = "#TASK", fields(task_id)),
    gsi(
        n = 1,
        alias = "GSITeamDueDate",
        pk(prefix = "#TEAM", fields(team_id)),
        sk(prefix = "#TASK_DUE", fields(date_due)),
    ),
    gsi(
        n = 2,
        alias = "GSIUserStatus",
        pk(prefix = "#USER_STATUS", fields(assigned_user_id, status)),
        sk(prefix = "#TASK_CREATED", fields(date_created)),
    ),
)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub team_id: String,
    pub task_id: String,
    #[serde(with = "faceteer::timestamp")]
    pub date_due: DateTime<Utc>,
    pub assigned_user_id: Option<String>,
    pub status: TaskStatus,
    #[serde(with = "faceteer::timestamp")]
    pub date_created: DateTime<Utc>,
    #[ttl]
    #[serde(default, with = "faceteer::timestamp::option")]
    pub expires_at: Option<DateTime<Utc>>,
}

/// The README's validator (every arm runs it on what it reads).
pub fn check_task(task: &Task) -> Result<(), String> {
    due_after_created(task.date_due, task.date_created)
}

/// The README validator's rule: a task is due after it is created.
fn due_after_created(due: DateTime<Utc>, created: DateTime<Utc>) -> Result<(), String> {
    if due < created {
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

/// The README's `Task` with its two indexes native (DynamoDB's multi-attribute keys over
/// the same fields): nothing written for them. For the benchmark of item size and CPU
/// against the concatenated keys (`benches/items.rs`).
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "TASK",
    validator = check_native_task,
    pk(prefix = "#TEAM", fields(team_id)),
    sk(prefix = "#TASK", fields(task_id)),
    gsi(n = 1, native, alias = "GSITeamDueDate", pk(fields(team_id)), sk(fields(date_due))),
    gsi(
        n = 2,
        native,
        alias = "GSIUserStatus",
        pk(fields(assigned_user_id, status)),
        sk(fields(date_created))
    ),
)]
#[serde(rename_all = "camelCase")]
pub struct NativeTask {
    pub team_id: String,
    pub task_id: String,
    #[serde(with = "faceteer::timestamp")]
    pub date_due: DateTime<Utc>,
    pub assigned_user_id: Option<String>,
    pub status: TaskStatus,
    #[serde(with = "faceteer::timestamp")]
    pub date_created: DateTime<Utc>,
    #[ttl]
    #[serde(default, with = "faceteer::timestamp::option")]
    pub expires_at: Option<DateTime<Utc>>,
}

/// The README's validator, on the native twin.
pub fn check_native_task(task: &NativeTask) -> Result<(), String> {
    due_after_created(task.date_due, task.date_created)
}

impl From<&Task> for NativeTask {
    fn from(t: &Task) -> Self {
        NativeTask {
            team_id: t.team_id.clone(),
            task_id: t.task_id.clone(),
            date_due: t.date_due,
            assigned_user_id: t.assigned_user_id.clone(),
            status: t.status,
            date_created: t.date_created,
            expires_at: t.expires_at,
        }
    }
}

/// A team member whose email is unique within the team (a guard item owns each email). A
/// put of a changed member reads the stored record and writes it in a transaction, even
/// when no unique value changes; a save of a change of `name` is one `UpdateItem`
/// (`benches/saves.rs`).
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "MEMBER")]
pub struct Member {
    #[pk(prefix = "#TEAM")]
    pub team: String,
    #[sk(prefix = "#MEMBER")]
    pub id: String,
    #[unique(scope(team))]
    pub email: String,
    pub name: String,
}

/// Member number `i` of team `team`: distinct ids and emails.
pub fn member(team: &str, i: usize) -> Member {
    Member {
        team: team.to_owned(),
        id: format!("member-{i:06}"),
        email: format!("member-{i:06}@example.com"),
        name: format!("Member {i}"),
    }
}
