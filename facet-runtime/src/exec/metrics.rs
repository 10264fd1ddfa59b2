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
    let base = [
        ("db.system.name", "aws.dynamodb".to_owned()),
        ("db.operation.name", operation.to_owned()),
        ("db.collection.name", table.to_owned()),
    ];
    match error_type {
        Some(kind) => {
            let mut labels = base.to_vec();
            labels.push(("error.type", kind));
            metrics::histogram!("db.client.operation.duration", &labels)
                .record(elapsed.as_secs_f64());
        }
        None => {
            metrics::histogram!("db.client.operation.duration", &base).record(elapsed.as_secs_f64())
        }
    }
    metrics::histogram!("faceteer.dynamodb.consumed_capacity", &base).record(capacity_units);
    metrics::counter!("faceteer.dynamodb.requests", &base).increment(u64::from(requests));
}
