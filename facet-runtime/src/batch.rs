//! Batch reads and writes that never lose an item.
//!
//! * [`Table::put_many`] and [`Table::delete_many`] send `BatchWriteItem` requests of at most
//!   25 items; [`Table::get_many`] sends `BatchGetItem` requests of at most 100 keys.
//! * Requests run with bounded concurrency ([`BatchOptions::concurrency`]).
//! * `UnprocessedItems` / `UnprocessedKeys`, throttling and transient errors are retried
//!   with exponential backoff and full jitter: writes up to [`BatchOptions::write_attempts`]
//!   tries, reads up to [`BatchOptions::read_attempts`].
//! * Every input ends up in exactly one of the result's lists: written (found, missing) or
//!   failed, with the reason. Nothing is silently dropped.
//! * The same key twice in one call is handled: writes to one key are applied in input
//!   order (DynamoDB refuses duplicates within one request, so they go in later rounds);
//!   a key asked for twice is read once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    AttributeValue, DeleteRequest, KeysAndAttributes, PutRequest, WriteRequest,
};
use faceteer_core::facet::is_foreign;
use faceteer_core::names::Placeholders;
use faceteer_core::pick::{
    picked_from_item, projection_attributes, BaseTable, PickValidator, Picked, Projection,
};
use faceteer_core::plan::render_projection;
use faceteer_core::schema::{PK, SK};
use faceteer_core::{from_item, to_item, Facet, Item, ItemError, Key};
use futures::StreamExt;

use crate::error::Error;
use crate::table::Table;

/// Most items in one `BatchWriteItem` request.
pub const WRITE_BATCH_SIZE: usize = 25;
/// Most keys in one `BatchGetItem` request.
pub const GET_BATCH_SIZE: usize = 100;

/// How batch operations run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchOptions {
    /// Requests in flight at once (at least 1). Default 4.
    pub concurrency: usize,
    /// Tries per write request, the first included. Default 5.
    pub write_attempts: u32,
    /// Tries per read request, the first included. Default 10.
    pub read_attempts: u32,
    /// The first retry waits up to this long; each retry doubles it. Default 25 ms.
    pub base_delay: Duration,
    /// No retry waits longer than this. Default 2 s.
    pub max_delay: Duration,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            concurrency: 4,
            write_attempts: 5,
            read_attempts: 10,
            base_delay: Duration::from_millis(25),
            max_delay: Duration::from_secs(2),
        }
    }
}

impl BatchOptions {
    /// Full-jitter exponential backoff before retry number `attempt` (1-based).
    fn backoff(&self, attempt: u32) -> Duration {
        let exp = self.base_delay.saturating_mul(
            1u32.checked_shl(attempt.saturating_sub(1))
                .unwrap_or(u32::MAX),
        );
        let cap = exp.min(self.max_delay);
        let millis = cap.as_millis().min(u64::MAX as u128) as u64;
        Duration::from_millis(fastrand::u64(0..=millis))
    }
}

/// Why one item of a batch was not written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FailureReason {
    /// The record could not be turned into an item (or a read item into a record, including
    /// validator failures). Nothing was sent for it.
    #[error(transparent)]
    Item(ItemError),
    /// DynamoDB still returned it as unprocessed after every try.
    #[error("still unprocessed after {attempts} attempts")]
    Unprocessed {
        /// Tries made.
        attempts: u32,
    },
    /// The request carrying it failed (shared by every item of that request), or could not
    /// be sent (for example a facet not declared on the table: nothing was sent).
    #[error("the batch request failed: {0}")]
    Request(Arc<Error>),
}

impl FailureReason {
    /// Why an item failed once every try was used: the last request's error, or still
    /// unprocessed when the last request succeeded.
    fn exhausted(last_error: &Option<Arc<Error>>, attempts: u32) -> Self {
        match last_error {
            Some(e) => FailureReason::Request(e.clone()),
            None => FailureReason::Unprocessed { attempts },
        }
    }
}

/// Every input of a batch that cannot be sent at all, failed for the same reason.
fn refuse_all<T>(inputs: impl IntoIterator<Item = T>, error: Error) -> Vec<Failed<T>> {
    let error = Arc::new(error);
    inputs
        .into_iter()
        .map(|item| Failed {
            item,
            reason: FailureReason::Request(error.clone()),
        })
        .collect()
}

/// An input of a batch call that did not succeed, with the reason.
#[derive(Debug)]
pub struct Failed<T> {
    /// The record or key, as given.
    pub item: T,
    /// Why it failed.
    pub reason: FailureReason,
}

/// The outcome of [`Table::put_many`].
#[derive(Debug)]
pub struct PutMany<F> {
    /// Records written.
    pub written: Vec<F>,
    /// Records not written.
    pub failed: Vec<Failed<F>>,
}

/// The outcome of [`Table::delete_many`].
#[derive(Debug)]
pub struct DeleteMany<F> {
    /// Keys deleted (including keys that held no item).
    pub deleted: Vec<Key<F>>,
    /// Keys not deleted.
    pub failed: Vec<Failed<Key<F>>>,
}

/// The outcome of [`Table::get_many`] (`R = F`) and [`Table::select_many`]
/// (`R = Picked<P>`).
#[derive(Debug)]
pub struct GetMany<F, R = F> {
    /// Records found, in the order their keys were first given.
    pub found: Vec<R>,
    /// Keys that hold no item.
    pub missing: Vec<Key<F>>,
    /// Keys that could not be read, or whose item is not a valid record.
    pub failed: Vec<Failed<Key<F>>>,
}

impl<F> PutMany<F> {
    /// `true` when every record was written.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }
}

impl<F> DeleteMany<F> {
    /// `true` when every key was deleted.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }
}

impl<F, R> GetMany<F, R> {
    /// `true` when every key was read (found or missing).
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }
}

type KeyText = (String, String);

fn key_text(item: &Item) -> Option<KeyText> {
    match (item.get(PK), item.get(SK)) {
        (Some(AttributeValue::S(pk)), Some(AttributeValue::S(sk))) => {
            Some((pk.clone(), sk.clone()))
        }
        _ => None,
    }
}

fn write_request_key(r: &WriteRequest) -> Option<KeyText> {
    if let Some(put) = &r.put_request {
        return key_text(&put.item);
    }
    r.delete_request.as_ref().and_then(|d| key_text(&d.key))
}

/// Throttling, server-side and transport errors are worth another try; the rest are not.
fn is_retryable<E: ProvideErrorMetadata, R>(err: &SdkError<E, R>) -> bool {
    match err {
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => {
            true
        }
        SdkError::ServiceError(se) => matches!(
            se.err().code(),
            Some(
                "ProvisionedThroughputExceededException"
                    | "ThrottlingException"
                    | "RequestLimitExceeded"
                    | "InternalServerError"
                    | "ServiceUnavailable"
            )
        ),
        _ => false,
    }
}

/// One write to send: the caller's index, its key and the request.
struct Write {
    index: usize,
    key: KeyText,
    request: WriteRequest,
}

/// What happened to the writes of one call: indices written, and failures.
#[derive(Default)]
struct WriteOutcome {
    done: Vec<usize>,
    failed: Vec<(usize, FailureReason)>,
}

impl Table {
    /// Write many records with `BatchWriteItem` (25 per request), retrying what DynamoDB
    /// leaves unprocessed. Every record ends up in `written` or in `failed`.
    pub async fn put_many<F: Facet>(&self, records: impl IntoIterator<Item = F>) -> PutMany<F> {
        if let Err(e) = self.check_declared::<F>() {
            return PutMany {
                written: Vec::new(),
                failed: refuse_all(records, e),
            };
        }
        let mut slots: Vec<Option<F>> = Vec::new();
        let mut writes = Vec::new();
        let mut failed = Vec::new();
        for record in records {
            match to_item(&record) {
                Ok(item) => {
                    let key = key_text(&item).expect("to_item always writes PK and SK");
                    writes.push(Write {
                        index: slots.len(),
                        key,
                        request: WriteRequest::builder()
                            .put_request(
                                PutRequest::builder()
                                    .set_item(Some(item))
                                    .build()
                                    .expect("item is set"),
                            )
                            .build(),
                    });
                    slots.push(Some(record));
                }
                Err(e) => failed.push(Failed {
                    item: record,
                    reason: FailureReason::Item(e),
                }),
            }
        }
        let outcome = self.write_all(writes).await;
        let mut take = |i: usize| slots[i].take().expect("each index is reported once");
        let written = outcome.done.into_iter().map(&mut take).collect();
        failed.extend(outcome.failed.into_iter().map(|(i, reason)| Failed {
            item: take(i),
            reason,
        }));
        PutMany { written, failed }
    }

    /// Delete many records by key with `BatchWriteItem` (25 per request), retrying what
    /// DynamoDB leaves unprocessed. Every key ends up in `deleted` or in `failed`.
    pub async fn delete_many<F: Facet>(
        &self,
        keys: impl IntoIterator<Item = Key<F>>,
    ) -> DeleteMany<F> {
        if let Err(e) = self.check_declared::<F>() {
            return DeleteMany {
                deleted: Vec::new(),
                failed: refuse_all(keys, e),
            };
        }
        let mut slots: Vec<Option<Key<F>>> = Vec::new();
        let mut writes = Vec::new();
        for key in keys {
            writes.push(Write {
                index: slots.len(),
                key: (key.pk().to_owned(), key.sk().to_owned()),
                request: WriteRequest::builder()
                    .delete_request(
                        DeleteRequest::builder()
                            .set_key(Some(key.to_item()))
                            .build()
                            .expect("key is set"),
                    )
                    .build(),
            });
            slots.push(Some(key));
        }
        let outcome = self.write_all(writes).await;
        let mut take = |i: usize| slots[i].take().expect("each index is reported once");
        DeleteMany {
            deleted: outcome.done.into_iter().map(&mut take).collect(),
            failed: outcome
                .failed
                .into_iter()
                .map(|(i, reason)| Failed {
                    item: take(i),
                    reason,
                })
                .collect(),
        }
    }

    /// Send writes in rounds (so that repeated keys are applied in input order), each round
    /// in chunks of 25 with bounded concurrency.
    async fn write_all(&self, writes: Vec<Write>) -> WriteOutcome {
        let mut seen: HashMap<KeyText, usize> = HashMap::new();
        let mut rounds: Vec<Vec<Write>> = Vec::new();
        for w in writes {
            let round = seen.entry(w.key.clone()).or_insert(0);
            if rounds.len() <= *round {
                rounds.push(Vec::new());
            }
            rounds[*round].push(w);
            *round += 1;
        }
        let mut outcome = WriteOutcome::default();
        let concurrency = self.batch_options().concurrency.max(1);
        for round in rounds {
            let mut chunks = Vec::new();
            let mut iter = round.into_iter().peekable();
            while iter.peek().is_some() {
                chunks.push(iter.by_ref().take(WRITE_BATCH_SIZE).collect::<Vec<_>>());
            }
            let mut results = futures::stream::iter(chunks)
                .map(|chunk| self.write_chunk(chunk))
                .buffer_unordered(concurrency);
            while let Some(chunk_outcome) = results.next().await {
                outcome.done.extend(chunk_outcome.done);
                outcome.failed.extend(chunk_outcome.failed);
            }
        }
        outcome
    }

    async fn write_chunk(&self, mut pending: Vec<Write>) -> WriteOutcome {
        let options = self.batch_options();
        let mut outcome = WriteOutcome::default();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let requests: Vec<WriteRequest> = pending.iter().map(|w| w.request.clone()).collect();
            let result = self
                .client()
                .batch_write_item()
                .request_items(self.name(), requests)
                .send()
                .await;
            let mut last_error = None;
            match result {
                Ok(out) => {
                    let unprocessed: HashSet<KeyText> = out
                        .unprocessed_items
                        .and_then(|mut m| m.remove(self.name()))
                        .unwrap_or_default()
                        .iter()
                        .filter_map(write_request_key)
                        .collect();
                    let (still, written): (Vec<Write>, Vec<Write>) = pending
                        .into_iter()
                        .partition(|w| unprocessed.contains(&w.key));
                    outcome.done.extend(written.iter().map(|w| w.index));
                    pending = still;
                    if pending.is_empty() {
                        return outcome;
                    }
                }
                Err(e) if is_retryable(&e) => {
                    tracing::debug!(error = %e, attempt, "BatchWriteItem failed; retrying");
                    last_error = Some(Arc::new(Error::dynamo("BatchWriteItem", e)));
                }
                Err(e) => {
                    let error = Arc::new(Error::dynamo("BatchWriteItem", e));
                    outcome.failed.extend(
                        pending
                            .iter()
                            .map(|w| (w.index, FailureReason::Request(error.clone()))),
                    );
                    return outcome;
                }
            }
            if attempt >= options.write_attempts.max(1) {
                outcome.failed.extend(
                    pending
                        .iter()
                        .map(|w| (w.index, FailureReason::exhausted(&last_error, attempt))),
                );
                return outcome;
            }
            tokio::time::sleep(options.backoff(attempt)).await;
        }
    }

    /// Read many records by key with `BatchGetItem` (100 keys per request), retrying what
    /// DynamoDB leaves unprocessed. Every distinct key ends up in `found` (as its record),
    /// `missing` or `failed`; the facet's validator runs on every record read.
    pub async fn get_many<F: Facet>(&self, keys: impl IntoIterator<Item = Key<F>>) -> GetMany<F> {
        self.get_many_with(keys, None, from_item::<F>).await
    }

    /// Read only the fields of projection `P` (plus the key fields) of many records, with
    /// `BatchGetItem` and a `ProjectionExpression`; otherwise as [`Table::get_many`]. Needs
    /// a pick validator on the facet; it runs on every item read.
    pub async fn select_many<P>(
        &self,
        keys: impl IntoIterator<Item = Key<P::Facet>>,
    ) -> GetMany<P::Facet, Picked<P>>
    where
        P: Projection,
        P::Facet: PickValidator,
    {
        let attributes = projection_attributes::<P, BaseTable>(&[]);
        let decode = |item: Item| picked_from_item::<P, BaseTable>(item, &attributes);
        self.get_many_with(keys, Some(&attributes), decode).await
    }

    async fn get_many_with<F: Facet, R>(
        &self,
        keys: impl IntoIterator<Item = Key<F>>,
        projection: Option<&[&'static str]>,
        decode: impl Fn(Item) -> Result<R, ItemError>,
    ) -> GetMany<F, R> {
        let mut unique: Vec<Key<F>> = Vec::new();
        let mut index: HashMap<KeyText, usize> = HashMap::new();
        for key in keys {
            let text = (key.pk().to_owned(), key.sk().to_owned());
            index.entry(text).or_insert_with(|| {
                unique.push(key);
                unique.len() - 1
            });
        }
        let concurrency = self.batch_options().concurrency.max(1);
        let chunks: Vec<Vec<Item>> = unique
            .chunks(GET_BATCH_SIZE)
            .map(|c| c.iter().map(Key::to_item).collect())
            .collect();
        let mut results = futures::stream::iter(chunks)
            .map(|chunk| self.get_chunk(chunk, projection))
            .buffer_unordered(concurrency);

        let mut items: HashMap<usize, Item> = HashMap::new();
        let mut errors: HashMap<usize, FailureReason> = HashMap::new();
        while let Some((found, failed)) = results.next().await {
            for item in found {
                if let Some(i) = key_text(&item).and_then(|k| index.get(&k).copied()) {
                    items.insert(i, item);
                }
            }
            for (key, reason) in failed {
                if let Some(i) = key_text(&key).and_then(|k| index.get(&k).copied()) {
                    errors.insert(i, reason);
                }
            }
        }

        let mut out = GetMany {
            found: Vec::new(),
            missing: Vec::new(),
            failed: Vec::new(),
        };
        for (i, key) in unique.into_iter().enumerate() {
            if let Some(reason) = errors.remove(&i) {
                out.failed.push(Failed { item: key, reason });
            } else if let Some(item) = items
                .remove(&i)
                .filter(|item| !is_foreign(item, F::SCHEMA.name))
            {
                match decode(item) {
                    Ok(record) => out.found.push(record),
                    Err(e) => out.failed.push(Failed {
                        item: key,
                        reason: FailureReason::Item(e),
                    }),
                }
            } else {
                out.missing.push(key);
            }
        }
        out
    }

    /// One chunk of keys: the items found, and the keys that failed.
    async fn get_chunk(
        &self,
        keys: Vec<Item>,
        projection: Option<&[&'static str]>,
    ) -> (Vec<Item>, Vec<(Item, FailureReason)>) {
        let options = self.batch_options();
        let mut pending = keys;
        let mut found = Vec::new();
        let mut attempt = 0;
        let mut names = Placeholders::new();
        let projection = render_projection(projection, &mut names);
        let (names, _) = names.into_parts();
        loop {
            attempt += 1;
            let request = KeysAndAttributes::builder()
                .set_keys(Some(pending.clone()))
                .set_projection_expression(projection.clone())
                .set_expression_attribute_names(names.clone())
                .build()
                .expect("keys are set");
            let result = self
                .client()
                .batch_get_item()
                .request_items(self.name(), request)
                .send()
                .await;
            let mut last_error = None;
            match result {
                Ok(out) => {
                    if let Some(items) = out.responses.and_then(|mut r| r.remove(self.name())) {
                        found.extend(items);
                    }
                    pending = out
                        .unprocessed_keys
                        .and_then(|mut u| u.remove(self.name()))
                        .map(|k| k.keys)
                        .unwrap_or_default();
                    if pending.is_empty() {
                        return (found, Vec::new());
                    }
                }
                Err(e) if is_retryable(&e) => {
                    tracing::debug!(error = %e, attempt, "BatchGetItem failed; retrying");
                    last_error = Some(Arc::new(Error::dynamo("BatchGetItem", e)));
                }
                Err(e) => {
                    let error = Arc::new(Error::dynamo("BatchGetItem", e));
                    let failed = pending
                        .into_iter()
                        .map(|k| (k, FailureReason::Request(error.clone())))
                        .collect();
                    return (found, failed);
                }
            }
            if attempt >= options.read_attempts.max(1) {
                let failed = pending
                    .into_iter()
                    .map(|k| (k, FailureReason::exhausted(&last_error, attempt)))
                    .collect();
                return (found, failed);
            }
            tokio::time::sleep(options.backoff(attempt)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_bounded_and_grows() {
        let o = BatchOptions {
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(100),
            ..BatchOptions::default()
        };
        for attempt in 1..40 {
            let d = o.backoff(attempt);
            assert!(d <= Duration::from_millis(100));
            let cap = (10u64 << (attempt - 1).min(20)).min(100);
            assert!(d.as_millis() as u64 <= cap);
        }
    }
}
