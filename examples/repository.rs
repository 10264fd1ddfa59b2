//! The repository pattern over a faceteer table, as in OneTable's guide: the application
//! talks to a `TaskRepository` whose methods are its access patterns; the repository owns
//! the `Table` and hides keys, indexes, cursors and batch reports.
//!
//! ```text
//! cargo run --example repository
//! ```
//!
//! Runs against the same local server as the tasks example (see `examples/tasks.rs`).

use faceteer::{Facet, Page, Table};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "TASK")]
#[serde(rename_all = "camelCase")]
struct Task {
    #[pk(prefix = "#PROJECT")]
    project_id: String,
    #[sk(prefix = "#TASK")]
    task_id: String,
    #[gsi(n = 1, alias = "Assignee", pk, prefix = "#ASSIGNEE")]
    assignee: String,
    #[gsi(n = 1, sk, prefix = "#PRIORITY", sortable)]
    priority: u32,
    title: String,
    version: u64,
    done: bool,
}

faceteer::table! {
    /// The application's table.
    struct AppTable { Task }
}

/// Why a repository call failed, in the application's words.
#[derive(Debug, thiserror::Error)]
enum RepoError {
    #[error("task {0} changed since it was read; reload it and try again")]
    Conflict(String),
    #[error("{count} task(s) could not be saved: {first}")]
    Unsaved { count: usize, first: String },
    #[error(transparent)]
    Store(#[from] faceteer::Error),
}

/// The access patterns of the tasks service.
struct TaskRepository {
    table: Table,
}

impl TaskRepository {
    fn new(table: Table) -> Self {
        TaskRepository { table }
    }

    /// Create a task; refuse to overwrite an existing one.
    async fn create(&self, task: &Task) -> Result<(), RepoError> {
        self.table.put(task).if_not_exists().await?;
        Ok(())
    }

    /// Create many tasks: all saved, or an error naming what was not (or may not have been:
    /// a lost answer leaves a record's outcome unknown).
    async fn import(&self, tasks: Vec<Task>) -> Result<usize, RepoError> {
        let report = self.table.put_many(tasks).await;
        if !report.is_complete() {
            let first = match (report.failed.first(), report.unknown.first()) {
                (Some(failed), _) => failed.reason.to_string(),
                (None, Some(unknown)) => format!("outcome unknown: {}", unknown.cause),
                (None, None) => {
                    unreachable!("an incomplete report holds a failed or unknown record")
                }
            };
            return Err(RepoError::Unsaved {
                count: report.failed.len() + report.unknown.len(),
                first,
            });
        }
        Ok(report.written.len())
    }

    /// One task, read consistently.
    async fn find(&self, project: &str, task: &str) -> Result<Option<Task>, RepoError> {
        Ok(self
            .table
            .get(&Task::key(project, task)?)
            .consistent()
            .await?)
    }

    /// Save an edited task with optimistic locking on `version`.
    async fn save(&self, mut task: Task) -> Result<Task, RepoError> {
        let read_version = task.version;
        task.version += 1;
        let f = Task::fields();
        match self.table.put(&task).when(f.version.eq(read_version)).await {
            Ok(()) => Ok(task),
            Err(e) if e.is_condition_failed() => Err(RepoError::Conflict(task.task_id)),
            Err(e) => Err(e.into()),
        }
    }

    /// A page of a project's open tasks; pass the previous page's cursor to continue.
    async fn open_tasks(
        &self,
        project: &str,
        cursor: Option<String>,
    ) -> Result<Page<Task>, RepoError> {
        let f = Task::fields();
        let query = Task::query(project)
            .list()
            .filter(f.done.eq(false))
            .limit(2)
            .cursor(cursor);
        Ok(self.table.query(query).await?)
    }

    /// An assignee's most urgent task (lowest priority number).
    async fn next_for(&self, assignee: &str) -> Result<Option<Task>, RepoError> {
        let query = Task::by_assignee(assignee).list().first();
        Ok(self.table.query(query).await?)
    }
}

fn task(id: u32, assignee: &str, priority: u32, done: bool) -> Task {
    Task {
        project_id: "apollo".into(),
        task_id: format!("t{id}"),
        assignee: assignee.into(),
        priority,
        title: format!("task {id}"),
        version: 1,
        done,
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // An application opens its table with `Table::from_env::<AppTable>(name)`: the standard
    // AWS configuration, or the local server FACETEER_DYNAMODB_ENDPOINT names. With neither
    // set, this example runs on a fresh in-process engine, stopped when the table is dropped.
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-repository-{}", std::process::id());
        let table = Table::from_env::<AppTable>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<AppTable>().await?
    };
    let result = run(TaskRepository::new(table.clone())).await;
    table.delete_table().await?;
    result
}

async fn run(repo: TaskRepository) -> Result<(), Box<dyn std::error::Error>> {
    repo.create(&task(1, "ada", 3, false)).await?;
    let again = repo.create(&task(1, "ada", 3, false)).await;
    println!(
        "create twice: {}",
        again.map_or_else(|e| e.to_string(), |_| "ok".into())
    );

    let imported = repo
        .import(vec![
            task(2, "ada", 1, false),
            task(3, "grace", 2, true),
            task(4, "grace", 5, false),
            task(5, "ada", 4, false),
        ])
        .await?;
    println!("imported {imported} tasks");

    let t1 = repo.find("apollo", "t1").await?.ok_or("t1 exists")?;
    let saved = repo.save(t1.clone()).await?;
    println!("saved {} at version {}", saved.task_id, saved.version);
    let stale = repo.save(t1).await;
    println!("saving a stale copy: {}", stale.unwrap_err());

    let mut cursor = None;
    loop {
        let page = repo.open_tasks("apollo", cursor).await?;
        let ids: Vec<&str> = page.records.iter().map(|t| t.task_id.as_str()).collect();
        println!("open tasks page: {ids:?}");
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let next = repo.next_for("ada").await?.ok_or("ada has tasks")?;
    println!(
        "ada's most urgent task: {} (priority {})",
        next.task_id, next.priority
    );
    Ok(())
}
