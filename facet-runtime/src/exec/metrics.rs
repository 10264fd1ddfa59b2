//! Each operation's metrics, through the `metrics` facade (see [`super::trace`]).

use std::sync::Once;
use std::time::Duration;

/// The metrics' descriptions, given once.
static DESCRIBED: Once = Once::new();

fn describe() {
    metrics::describe_histogram!(
        "db.client.operation.duration",
        metrics::Unit::Seconds,
        "Duration of database client operations."
    );
    metrics::describe_histogram!(
        "faceteer.dynamodb.consumed_capacity",
        "Capacity units one operation consumed, as DynamoDB reported them."
    );
    metrics::describe_counter!(
        "faceteer.dynamodb.requests",
        metrics::Unit::Count,
        "DynamoDB requests sent, retries and extra pages included."
    );
}

/// Record one finished operation.
pub(crate) fn record(
    operation: &'static str,
    table: &str,
    elapsed: Duration,
    capacity_units: f64,
    requests: u32,
    error_type: Option<String>,
) {
    DESCRIBED.call_once(describe);
    let base = vec![
        metrics::Label::new("db.system.name", "aws.dynamodb"),
        metrics::Label::new("db.operation.name", operation),
        metrics::Label::new("db.collection.name", table.to_owned()),
    ];
    let seconds = elapsed.as_secs_f64();
    match error_type {
        Some(kind) => {
            let mut labels = base.clone();
            labels.push(metrics::Label::new("error.type", kind));
            metrics::histogram!("db.client.operation.duration", labels).record(seconds);
        }
        None => metrics::histogram!("db.client.operation.duration", base.clone()).record(seconds),
    }
    metrics::histogram!("faceteer.dynamodb.consumed_capacity", base.clone()).record(capacity_units);
    metrics::counter!("faceteer.dynamodb.requests", base).increment(u64::from(requests));
}
