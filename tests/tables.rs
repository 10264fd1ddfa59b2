//! Table declarations against a real DynamoDB-API server: facets declared together, reads
//! that skip other facets' items, refused writes of undeclared facets, indexes created from
//! the declaration, and the absent-optional partition of Faceteer's README.

use faceteer::{
    error::FailureReason, error::ItemError, error::KeyError, error::TableError, Error, Facet,
    KeyPart, Table,
};
use serde::{Deserialize, Serialize};

/// A user, in its own partition.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "USER")]
struct User {
    #[pk(prefix = "#USER")]
    #[sk(prefix = "#USER")]
    id: String,
    name: String,
}

/// A user's settings, with a constant sort key that starts like a user's: the two cannot be
/// declared together (`faceteer::table!` refuses them), but a table may already hold both.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "USER_SETTINGS", sk(prefix = "#USER_SETTINGS", fields()))]
struct UserSettings {
    #[pk(prefix = "#USER")]
    id: String,
    theme: String,
}

faceteer::table! {
    /// Users alone.
    struct Users { User }
}

fn user(id: &str) -> User {
    User {
        id: id.into(),
        name: format!("user {id}"),
    }
}

async fn reads_of_a_facet_skip_items_of_another_in_its_partition() {
    let table = faceteer_suite::fresh_table::<Users>("skip-foreign").await;
    table.put(&user("u1")).await.unwrap();
    // Written by an older deployment through an undeclared handle.
    let legacy = Table::new(table.client().clone(), table.name());
    let settings = UserSettings {
        id: "u1".into(),
        theme: "dark".into(),
    };
    legacy.put(&settings).await.unwrap();

    let page = table.query(User::query("u1").list()).await.unwrap();
    assert_eq!(page.records, vec![user("u1")]);
    assert!(page.cursor.is_none());
    let one = table
        .query(User::query("u1").list().limit(1))
        .await
        .unwrap();
    assert_eq!((one.records.len(), one.cursor), (1, None));
    let first = table.query(User::query("u1").list().first()).await.unwrap();
    assert_eq!(first, Some(user("u1")));
    let reverse = table
        .query(User::query("u1").list().reverse().first())
        .await;
    assert_eq!(reverse.unwrap(), Some(user("u1")));
    // The settings item is still there, for its own facet.
    let got = legacy.get(&UserSettings::key("u1").unwrap()).await.unwrap();
    assert_eq!(got, Some(settings));
}

async fn a_declared_table_refuses_writes_of_other_facets() {
    let table = faceteer_suite::fresh_table::<Users>("undeclared").await;
    let settings = UserSettings {
        id: "u1".into(),
        theme: "dark".into(),
    };
    let err = table.put(&settings).await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::UndeclaredFacet {
                facet: "USER_SETTINGS",
                ..
            }
        ),
        "{err:?}"
    );
    let err = table
        .delete(&UserSettings::key("u1").unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::UndeclaredFacet { .. }), "{err:?}");
    let outcome = table.put_many(vec![settings.clone(), settings]).await;
    assert!(outcome.written.is_empty());
    assert_eq!(outcome.failed.len(), 2);
    assert!(outcome.failed.iter().all(|f| matches!(
        &f.reason,
        FailureReason::Request(e) if matches!(**e, Error::UndeclaredFacet { .. })
    )));
    // Nothing reached the table.
    let raw = table
        .client()
        .scan()
        .table_name(table.name())
        .send()
        .await
        .unwrap();
    assert_eq!(raw.count, 0);
}

async fn facets_chosen_at_run_time_are_checked_at_construction() {
    let client = faceteer_suite::client().await;
    let err = Table::with_facets(
        client.clone(),
        "never-created",
        [User::SCHEMA, UserSettings::SCHEMA],
    )
    .unwrap_err();
    match &err {
        Error::Table(TableError::SharedKeys { first, second, .. }) => {
            assert_eq!((*first, *second), ("USER", "USER_SETTINGS"));
        }
        other => panic!("expected overlapping keys, got {other:?}"),
    }
    assert!(err.to_string().contains("`#USER_…`"), "{err}");
    assert!(Table::with_facets(client, "never-created", [User::SCHEMA]).is_ok());
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Done,
}

/// Faceteer README's task, reduced to the index by assignee and status, plus a fifth index by
/// title (index numbers need not start at 1).
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "TASK")]
#[serde(rename_all = "camelCase")]
struct TitledTask {
    #[pk(prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#TASK")]
    #[gsi(n = 5, sk, prefix = "#TASK")]
    task_id: String,
    #[gsi(n = 2, alias = "GSIUserStatus", pk, prefix = "#USER_STATUS")]
    assigned_user_id: Option<String>,
    #[gsi(n = 2, pk)]
    status: Status,
    #[gsi(n = 2, sk, prefix = "#TASK_TITLE")]
    #[gsi(n = 5, pk, prefix = "#TITLE")]
    title: String,
}

/// A facet whose optional key field comes before a free-text one.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "LABEL", pk(prefix = "#LABEL", fields(owner, text)))]
struct Label {
    owner: Option<String>,
    text: String,
    #[sk(prefix = "#LABEL")]
    id: String,
}

faceteer::table! {
    struct Tasks { TitledTask, Label }
}

fn task(id: &str, user: Option<&str>, status: Status) -> TitledTask {
    TitledTask {
        team_id: "t1".into(),
        task_id: id.into(),
        assigned_user_id: user.map(Into::into),
        status,
        title: format!("task {id}"),
    }
}

async fn create_makes_exactly_the_declared_indexes() {
    let table = faceteer_suite::fresh_table::<Tasks>("indexes").await;
    let out = table
        .client()
        .describe_table()
        .table_name(table.name())
        .send()
        .await
        .unwrap();
    let mut names: Vec<String> = out
        .table
        .unwrap()
        .global_secondary_indexes()
        .iter()
        .filter_map(|i| i.index_name.clone())
        .collect();
    names.sort();
    assert_eq!(names, ["GSI2", "GSI5"]);
    let undeclared = Table::new(table.client().clone(), "never-created");
    assert!(matches!(
        undeclared.create_table().await,
        Err(Error::TableSetup(_))
    ));
}

async fn the_unassigned_partition_of_the_readme_is_queryable() {
    let table = faceteer_suite::fresh_table::<Tasks>("unassigned").await;
    let tasks = vec![
        task("a", None, Status::Open),
        task("b", Some("u1"), Status::Open),
        task("c", None, Status::Done),
        task("d", None, Status::Open),
        task("e", Some("u1"), Status::Done),
    ];
    assert!(table.put_many(tasks.clone()).await.is_complete());
    let item = faceteer::to_item(&tasks[0]).unwrap();
    assert_eq!(item["GSI2PK"].as_s().unwrap(), "#USER_STATUS_open");

    let unassigned = table
        .query(TitledTask::by_gsi_user_status(None, Status::Open).list())
        .await
        .unwrap();
    assert_eq!(unassigned.records, vec![tasks[0].clone(), tasks[3].clone()]);
    let assigned = table
        .query(TitledTask::gsi2(Some("u1"), Status::Open).list())
        .await
        .unwrap();
    assert_eq!(assigned.records, vec![tasks[1].clone()]);
}

async fn ambiguous_keys_are_refused_before_anything_is_written() {
    let table = faceteer_suite::fresh_table::<Tasks>("ambiguous-keys").await;
    let label = |owner: Option<&str>, text: &str| Label {
        owner: owner.map(Into::into),
        text: text.into(),
        id: "1".into(),
    };
    // (Some("y"), "x") is written; (None, "y_x") would get the same partition key.
    table.put(&label(Some("y"), "x")).await.unwrap();
    let err = table.put(&label(None, "y_x")).await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Item(ItemError::Key {
                source: KeyError::DelimiterAfterAbsent {
                    absent: "owner",
                    field: "text",
                    ..
                },
                ..
            })
        ),
        "{err:?}"
    );
    // The same key cannot be queried either.
    let err = table
        .query(Label::query(None, "y_x").list())
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Key(KeyError::DelimiterAfterAbsent { .. })),
        "{err:?}"
    );
    let stored = table
        .get(&Label::key(Some("y"), "x", "1").unwrap())
        .await
        .unwrap();
    assert_eq!(stored, Some(label(Some("y"), "x")));
}

faceteer_suite::engines!(
    reads_of_a_facet_skip_items_of_another_in_its_partition,
    a_declared_table_refuses_writes_of_other_facets,
    facets_chosen_at_run_time_are_checked_at_construction,
    create_makes_exactly_the_declared_indexes,
    the_unassigned_partition_of_the_readme_is_queryable,
    ambiguous_keys_are_refused_before_anything_is_written,
);
