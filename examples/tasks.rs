//! The tasks application from Faceteer's README: teams, users and tasks in one table, and
//! the nine access patterns it needs, and a tenth: a team with its users and tasks in one query.
//!
//! ```text
//! cargo run --example tasks
//! ```
//!
//! With no configuration it runs on the embedded engine (`faceteer`'s `embedded` feature): an
//! in-process DynamoDB engine on a free loopback port, started in milliseconds, with nothing
//! to install. Set `FACETEER_DYNAMODB_ENDPOINT=http://host:port` to use another server (moto,
//! dynalite, DynamoDB Local): the table `faceteer-example-tasks-…` is created there and
//! deleted at the end, through `Table::from_env` as an application opens its table.

use chrono::{DateTime, Duration, TimeZone, Utc};
use faceteer::{Collection, Facet, KeyPart, Table};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Facet, Serialize, Deserialize)]
#[facet(name = "TEAM", validator = validate_team)]
#[serde(rename_all = "camelCase")]
struct Team {
    #[pk(prefix = "#TEAM")]
    #[sk(prefix = "#TEAM")]
    team_id: String,
    team_name: String,
    #[serde(with = "faceteer::timestamp")]
    date_created: DateTime<Utc>,
    #[serde(default, with = "faceteer::timestamp::option")]
    date_deleted: Option<DateTime<Utc>>,
}

fn validate_team(team: &Team) -> Result<(), String> {
    if team.team_name.trim().is_empty() {
        return Err("a team needs a name".into());
    }
    Ok(())
}

#[derive(Debug, Clone, Facet, Serialize, Deserialize)]
#[facet(name = "USER")]
#[serde(rename_all = "camelCase")]
struct User {
    #[sk(prefix = "#USER")]
    #[gsi(n = 1, sk, prefix = "#USER")]
    user_id: String,
    #[pk(prefix = "#TEAM")]
    #[gsi(n = 2, alias = "GSITeamUsersCreated", pk, prefix = "#TEAM")]
    team_id: String,
    #[gsi(n = 1, alias = "GSIUserEmail", pk, prefix = "#USER_EMAIL")]
    email: String,
    password: String,
    #[gsi(n = 2, sk, prefix = "#USER_CREATED")]
    #[serde(with = "faceteer::timestamp")]
    date_created: DateTime<Utc>,
    #[serde(default, with = "faceteer::timestamp::option")]
    date_deleted: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum TaskStatus {
    Open,
    Completed,
    Deleted,
}

#[derive(Debug, Clone, Facet, Serialize, Deserialize)]
#[facet(name = "TASK")]
#[serde(rename_all = "camelCase")]
struct Task {
    #[sk(prefix = "#TASK")]
    task_id: String,
    #[pk(prefix = "#TEAM")]
    #[gsi(n = 1, alias = "GSITeamDueDate", pk, prefix = "#TEAM")]
    #[gsi(n = 3, alias = "GSITeamCreated", pk, prefix = "#TEAM")]
    team_id: String,
    #[gsi(n = 2, alias = "GSIUserStatusCreated", pk, prefix = "#USER_STATUS")]
    #[gsi(n = 4, alias = "GSIUserStatusDue", pk, prefix = "#USER_STATUS")]
    assigned_user_id: Option<String>,
    #[gsi(n = 2, sk, prefix = "#TASK_CREATED")]
    #[gsi(n = 3, sk, prefix = "#TASK_CREATED")]
    #[serde(with = "faceteer::timestamp")]
    date_created: DateTime<Utc>,
    #[gsi(n = 1, sk, prefix = "#TASK_DUE")]
    #[gsi(n = 4, sk, prefix = "#TASK_DUE")]
    #[serde(with = "faceteer::timestamp")]
    date_due: DateTime<Utc>,
    #[gsi(n = 2, pk)]
    #[gsi(n = 4, pk)]
    status: TaskStatus,
    title: String,
}

faceteer::table! {
    /// The one table of the application: teams, their users and their tasks.
    pub struct TasksTable { Team, User, Task }
}

/// Everything stored in a team's partition: the team, its users and its tasks.
#[derive(Debug, Collection)]
enum TeamItems {
    Team(Team),
    User(User),
    Task(Task),
}

fn day(d: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, d, 9, 0, 0).unwrap()
}

fn titles(tasks: &[Task]) -> Vec<String> {
    tasks
        .iter()
        .map(|t| {
            format!(
                "{} (due {}, {:?})",
                t.title,
                t.date_due.date_naive(),
                t.status
            )
        })
        .collect()
}

pub async fn run(table: &Table) -> faceteer::Result<()> {
    let team = Team {
        team_id: "penguins".into(),
        team_name: "Penguin Popsicles".into(),
        date_created: day(1),
        date_deleted: None,
    };
    table.put(&team).await?;

    let users = [("ada", 3), ("grace", 2), ("linus", 5)].map(|(name, created)| User {
        user_id: format!("u-{name}"),
        team_id: team.team_id.clone(),
        email: format!("{name}@penguins.example"),
        password: "hunter2".into(),
        date_created: day(created),
        date_deleted: None,
    });
    for user in &users {
        table.put(user).if_not_exists().await?;
    }

    let specs = [
        (
            "t-1",
            Some("u-ada"),
            2,
            20,
            TaskStatus::Open,
            "Write the launch post",
        ),
        (
            "t-2",
            Some("u-ada"),
            4,
            10,
            TaskStatus::Open,
            "Fix the freezer",
        ),
        (
            "t-3",
            Some("u-grace"),
            3,
            15,
            TaskStatus::Completed,
            "Order sticks",
        ),
        ("t-4", None, 6, 8, TaskStatus::Open, "Pick a new flavour"),
        (
            "t-5",
            Some("u-ada"),
            7,
            30,
            TaskStatus::Completed,
            "Hire a penguin",
        ),
        (
            "t-6",
            Some("u-ada"),
            8,
            12,
            TaskStatus::Open,
            "Paint the van",
        ),
    ];
    for (id, user, created, due, status, title) in specs {
        let task = Task {
            task_id: id.into(),
            team_id: team.team_id.clone(),
            assigned_user_id: user.map(Into::into),
            date_created: day(created),
            date_due: day(due),
            status,
            title: title.into(),
        };
        table.put(&task).await?;
    }

    println!("1. Get a team by its id");
    let found = table.get(&Team::key("penguins")?).await?;
    println!("   {:?}\n", found.map(|t| t.team_name));

    println!("2. Get a user by their id");
    let found = table.get(&User::key("penguins", "u-grace")?).await?;
    println!("   {:?}\n", found.map(|u| u.email));

    println!("3. Get a user by their email address");
    let found = table
        .query(
            User::by_gsi_user_email("linus@penguins.example")
                .list()
                .first(),
        )
        .await?;
    println!("   {:?}\n", found.map(|u| u.user_id));

    println!("4. Get a task by its id");
    let found = table.get(&Task::key("penguins", "t-3")?).await?;
    println!("   {:?}\n", found.map(|t| t.title));

    println!("5. List users by team ordered by the date they were created");
    let page = table
        .query(User::by_gsi_team_users_created("penguins").list())
        .await?;
    let names: Vec<_> = page
        .records
        .iter()
        .map(|u| format!("{} (joined {})", u.user_id, u.date_created.date_naive()))
        .collect();
    println!("   {names:?}\n");

    println!("6. List tasks by team ordered by the date they were created");
    let page = table
        .query(Task::by_gsi_team_created("penguins").list())
        .await?;
    println!("   {:?}\n", titles(&page.records));

    println!("7. List tasks by team ordered by the date they are due (past due on the 14th, two per page)");
    let mut cursor = None;
    loop {
        let page = table
            .query(
                Task::by_gsi_team_due_date("penguins")
                    .less_than(day(14))
                    .limit(2)
                    .cursor(cursor),
            )
            .await?;
        println!("   page: {:?}", titles(&page.records));
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    println!();

    println!("8. List tasks by user and by status ordered by the date they were created");
    let page = table
        .query(Task::by_gsi_user_status_created(Some("u-ada"), TaskStatus::Open).list())
        .await?;
    println!("   {:?}\n", titles(&page.records));

    println!("   ... and the unassigned tasks with status open (partition `#USER_STATUS_open`)");
    let page = table
        .query(Task::by_gsi_user_status_created(None, TaskStatus::Open).list())
        .await?;
    println!("   {:?}\n", titles(&page.records));

    println!("9. List tasks by user and by status ordered by the date they are due (latest first)");
    let page = table
        .query(
            Task::by_gsi_user_status_due(Some("u-ada"), TaskStatus::Open)
                .greater_than_or_equal(day(1) + Duration::days(0))
                .reverse(),
        )
        .await?;
    println!("   {:?}", titles(&page.records));

    println!("10. A team with its users and tasks, in one query of its partition");
    let page = table
        .collection::<TeamItems>(Team::query(&team.team_id))
        .await?;
    let (mut users, mut tasks) = (Vec::new(), Vec::new());
    for item in &page.records {
        match item {
            TeamItems::Team(team) => println!("   team {}", team.team_name),
            TeamItems::User(user) => users.push(user.email.clone()),
            TeamItems::Task(task) => tasks.push(task.title.clone()),
        }
    }
    println!("   users {users:?}");
    println!("   {} tasks, first {:?}", tasks.len(), tasks.first());
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // An application opens its table with `Table::from_env::<TasksTable>(name)`: the standard
    // AWS configuration, or the local server FACETEER_DYNAMODB_ENDPOINT names. With neither
    // set, this example runs on a fresh in-process engine, stopped when the table is dropped.
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-tasks-{}", std::process::id());
        let table = Table::from_env::<TasksTable>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<TasksTable>().await?
    };
    println!("faceteer tasks example: table {}\n", table.name());
    let result = run(&table).await;
    table.delete_table().await?;
    result?;
    write_design()?;
    Ok(())
}

/// Write the table's design next to the build: its CloudFormation template, Terraform
/// resource, NoSQL Workbench model and access-pattern pages, generated from the facets.
/// `FACETEER_DESIGN_DIR` chooses the folder (default `target/design/tasks`).
fn write_design() -> std::io::Result<()> {
    use faceteer::design;
    use faceteer::TableSchema;
    let dir = std::path::PathBuf::from(
        std::env::var("FACETEER_DESIGN_DIR").unwrap_or_else(|_| "target/design/tasks".into()),
    );
    std::fs::create_dir_all(&dir)?;
    let table = TasksTable::design("tasks");
    let today = Utc::now().format("%b %-d, %Y").to_string();
    let model = design::WorkbenchMetadata {
        author: "faceteer tasks example",
        description: "Teams, users and tasks in one table (Faceteer's README)",
        created: &today,
        modified: &today,
    };
    let files = [
        ("table.cfn.json", design::cloudformation(&table)),
        ("table.tf", design::terraform(&table)),
        ("workbench.json", design::workbench(&table, &model)),
        (
            "access-patterns.md",
            design::access_patterns_markdown(&table),
        ),
        ("access-patterns.html", design::access_patterns_html(&table)),
        (
            "design.lock.json",
            faceteer::lock::DesignLock::of::<TasksTable>().to_json(),
        ),
    ];
    println!("\nthe table's design:");
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text)?;
        println!("  {}", path.display());
    }
    Ok(())
}
