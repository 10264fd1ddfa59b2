//! `tracing` spans and events for every operation, following OpenTelemetry's database
//! conventions: inside its span, each request sent is a DEBUG event, and a failed operation
//! (or a batch that left inputs failed or unknown) is one WARN event with the error.
//!
//! Each public operation (a get, a put, a query page, a batch) runs inside one `INFO` span
//! named `dynamodb` with:
//!
//! | field | meaning |
//! |---|---|
//! | `db.system.name` | `aws.dynamodb` |
//! | `db.operation.name` | the DynamoDB operation (`GetItem`, `Query`, `BatchWriteItem`, …) |
//! | `db.collection.name` | the table |
//! | `aws.dynamodb.index_name` | the index queried, if any |
//! | `faceteer.facet` | the facet |
//! | `faceteer.records` | records returned or written |
//! | `faceteer.requests` | DynamoDB requests sent (retries and extra pages included) |
//! | `aws.dynamodb.consumed_capacity` | capacity units consumed, summed over the requests |
//! | `faceteer.duration_ms` | wall time of the operation |
//! | `error.type` | the error, when the operation failed |

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use aws_sdk_dynamodb::types::ConsumedCapacity;
use tracing::field::Empty;
use tracing::Span;

use crate::error::Context;
use crate::error::{Error, Result};
use crate::table::Table;

/// One operation's span and its running totals.
pub(crate) struct Op {
    operation: &'static str,
    context: Context,
    span: Span,
    start: Instant,
    requests: AtomicU32,
    capacity: Mutex<f64>,
    /// When the whole call must be over ([`Timeouts::call`](crate::Timeouts::call)).
    deadline: tokio::time::Instant,
    /// A version conflict is expected (a `modify` reads again): no WARN event for it.
    conflict_expected: bool,
}

impl Op {
    /// Open the span of `operation` on `table` for `facet` (and `index`); the call's
    /// deadline starts now (or is the one `table` shares).
    pub(crate) fn new(
        operation: &'static str,
        table: &Table,
        facet: &'static str,
        index: Option<&'static str>,
    ) -> Op {
        let deadline = table.call_deadline();
        let endpoint = table.endpoint().cloned();
        let table = table.name();
        let span = tracing::info_span!(
            "dynamodb",
            otel.name = %format_args!("{operation} {table}"),
            otel.kind = "client",
            db.system.name = "aws.dynamodb",
            db.operation.name = operation,
            db.collection.name = table,
            aws.dynamodb.index_name = Empty,
            faceteer.facet = facet,
            faceteer.records = Empty,
            faceteer.requests = Empty,
            aws.dynamodb.consumed_capacity = Empty,
            faceteer.duration_ms = Empty,
            error.type = Empty,
        );
        if let Some(index) = index {
            span.record("aws.dynamodb.index_name", index);
        }
        Op {
            operation,
            context: Context {
                table: table.to_owned(),
                facet: Some(facet),
                index,
                key: None,
                endpoint,
            },
            span,
            start: Instant::now(),
            requests: AtomicU32::new(0),
            capacity: Mutex::new(0.0),
            deadline,
            conflict_expected: false,
        }
    }

    /// The DynamoDB operation.
    pub(crate) fn operation(&self) -> &'static str {
        self.operation
    }

    /// When the call must be over.
    pub(crate) fn deadline(&self) -> tokio::time::Instant {
        self.deadline
    }

    /// Whether the call's deadline has passed.
    pub(crate) fn past_deadline(&self) -> bool {
        tokio::time::Instant::now() >= self.deadline
    }

    /// [`Error::DeadlineExceeded`] for this call; `sent` when a request was under way.
    pub(crate) fn deadline_exceeded(&self, sent: bool) -> Error {
        Error::DeadlineExceeded {
            operation: self.operation,
            table: self.context.table.clone(),
            after: self.deadline.saturating_duration_since(self.start.into()),
            sent,
        }
    }

    /// Run one request, refused before it starts when the deadline has passed and abandoned
    /// when it passes while the request is under way.
    pub(crate) async fn within<T>(
        &self,
        request: impl std::future::Future<Output = Result<T>>,
    ) -> Result<T> {
        if self.past_deadline() {
            return Err(self.deadline_exceeded(false));
        }
        tracing::debug!(
            parent: &self.span,
            operation = self.operation,
            table = %self.context.table,
            "faceteer: sending {} to table `{}`",
            self.operation,
            self.context.table
        );
        match tokio::time::timeout_at(self.deadline, request).await {
            Ok(result) => result,
            Err(_) => Err(self.deadline_exceeded(true)),
        }
    }

    /// What the operation is about, for its errors.
    pub(crate) fn context(&self) -> Context {
        self.context.clone()
    }

    /// The span, to instrument the operation's future with.
    pub(crate) fn span(&self) -> Span {
        self.span.clone()
    }

    /// Count one request and the capacity it consumed.
    pub(crate) fn request(&self, consumed: &[ConsumedCapacity]) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let units: f64 = consumed.iter().filter_map(|c| c.capacity_units).sum();
        if let Ok(mut total) = self.capacity.lock() {
            *total += units;
        }
    }

    /// Count one request that consumed `units` capacity units (an answer read directly).
    pub(crate) fn request_units(&self, units: f64) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut total) = self.capacity.lock() {
            *total += units;
        }
    }

    /// The capacity units the operation's requests consumed so far, as DynamoDB reported.
    pub(crate) fn capacity(&self) -> f64 {
        self.capacity.lock().map_or(0.0, |total| *total)
    }

    /// The same operation, expecting version conflicts: a caller that handles them (a
    /// `modify` reads again) gets no WARN event for one.
    pub(crate) fn expecting_conflicts(mut self) -> Op {
        self.conflict_expected = true;
        self
    }

    /// Record a batch call's totals: `records` read or written, and a WARN event when some
    /// of its `inputs` `failed` or ended `unknown` (the report says which and why).
    pub(crate) fn finish_batch(
        &self,
        records: usize,
        inputs: usize,
        failed: usize,
        unknown: usize,
    ) {
        if failed + unknown > 0 {
            tracing::warn!(
                parent: &self.span,
                operation = self.operation,
                table = %self.context.table,
                inputs,
                failed,
                unknown,
                "faceteer: {} left {failed} inputs failed and {unknown} unknown (of {inputs})",
                self.operation,
            );
        }
        self.finish(Ok(records));
    }

    /// Record the totals: `records` returned or written, or the error.
    pub(crate) fn finish(&self, outcome: Result<usize, &Error>) {
        match outcome {
            Ok(records) => {
                self.span.record("faceteer.records", records);
            }
            Err(e) => {
                self.span.record("error.type", tracing::field::display(e));
                let expected = self.conflict_expected && matches!(e, Error::VersionConflict { .. });
                if !expected {
                    tracing::warn!(
                    parent: &self.span,
                    operation = self.operation,
                    table = %self.context.table,
                    error = %e,
                    "faceteer: {} failed",
                    self.operation
                    );
                }
            }
        }
        self.span
            .record("faceteer.requests", self.requests.load(Ordering::Relaxed));
        if let Ok(total) = self.capacity.lock() {
            self.span.record("aws.dynamodb.consumed_capacity", *total);
        }
        self.span.record(
            "faceteer.duration_ms",
            self.start.elapsed().as_secs_f64() * 1000.0,
        );
    }
}
