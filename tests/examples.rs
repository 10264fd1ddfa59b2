//! The examples, run as tests on both engines: each example's own `run` on a fresh table of
//! its own facets, so an example that stops working fails the suite. Other tests use the
//! examples' facets rather than copies of them.

use faceteer_suite::fresh_table;

#[path = "../examples/existing_table.rs"]
#[allow(dead_code)]
pub mod existing_table;
#[path = "../examples/orders.rs"]
#[allow(dead_code)]
pub mod orders;
#[path = "../examples/profiles.rs"]
#[allow(dead_code)]
pub mod profiles;
#[path = "../examples/support.rs"]
#[allow(dead_code)]
pub mod support;
#[path = "../examples/tasks.rs"]
#[allow(dead_code)]
pub mod tasks;
#[path = "../examples/telemetry.rs"]
#[allow(dead_code)]
pub mod telemetry;
#[path = "../examples/tenants.rs"]
#[allow(dead_code)]
pub mod tenants;
#[path = "../examples/user_service.rs"]
#[allow(dead_code)]
pub mod user_service;

/// The tasks table's design is the one locked in `docs/design/design.lock.json`: the one
/// line a user puts in their own tests (`FACETEER_BLESS=1` rewrites the file after a
/// change that breaks nothing).
#[test]
fn the_tasks_design_is_the_locked_one() {
    faceteer::lock::assert_current::<tasks::TasksTable>(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/design/design.lock.json"
    ));
}

async fn the_tasks_example_runs() {
    let table = fresh_table::<tasks::TasksTable>("example-tasks").await;
    tasks::run(&table).await.unwrap();
}

/// The telemetry example's operations record the conventions' metrics.
async fn the_telemetry_example_records_its_metrics() {
    let samples = faceteer_suite::metrics_recorder::global();
    let table = fresh_table::<telemetry::NotesTable>("example-telemetry").await;
    telemetry::run(&table).await.unwrap();
    let mine = samples.of_table(table.name());
    let operations: std::collections::BTreeSet<&str> = mine
        .iter()
        .filter(|(name, _, _)| name == "db.client.operation.duration")
        .map(|(_, labels, _)| labels["db.operation.name"].as_str())
        .collect();
    for operation in ["PutItem", "BatchWriteItem", "GetItem", "Query"] {
        assert!(operations.contains(operation), "{operations:?}");
    }
    let summary = samples.summary();
    assert!(
        summary.contains("db.client.operation.duration{"),
        "{summary}"
    );
    assert!(summary.contains("error.type="), "{summary}");
}

async fn the_profiles_example_runs() {
    let table = fresh_table::<profiles::Shop>("example-profiles").await;
    profiles::run(&table).await.unwrap();
}

async fn the_tenants_example_runs() {
    let table = fresh_table::<tenants::Workspace>("example-tenants").await;
    tenants::run(&table).await.unwrap();
}

async fn the_orders_example_runs() {
    let table = fresh_table::<orders::ShopTable>("example-orders").await;
    orders::run(&table).await.unwrap();
}

async fn the_user_service_example_runs() {
    let table = fresh_table::<user_service::UserService>("example-users").await;
    user_service::run(&table).await.unwrap();
}

async fn the_existing_table_example_runs() {
    let table = fresh_table::<existing_table::OneTableApp>("example-onetable").await;
    existing_table::run(&table).await.unwrap();
}

async fn the_support_example_runs() {
    let table = fresh_table::<support::SupportDesk>("example-support").await;
    support::run(&table).await.unwrap();
}

/// Vector search runs on the embedded engine only (moto has none).
#[test]
fn the_support_example_runs_embedded() {
    faceteer_suite::run(faceteer_suite::Engine::Embedded, the_support_example_runs())
}

faceteer_suite::engines!(
    the_telemetry_example_records_its_metrics,
    the_tasks_example_runs,
    the_tenants_example_runs,
    the_profiles_example_runs,
    the_orders_example_runs,
    the_user_service_example_runs,
    the_existing_table_example_runs,
);
