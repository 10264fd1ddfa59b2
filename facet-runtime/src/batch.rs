//! Batch reads and writes that never lose an item.
//!
//! * [`Table::put_many`] and [`Table::delete_many`] send `BatchWriteItem` requests of at most
//!   25 items; [`Table::get_many`] sends `BatchGetItem` requests of at most 100 keys.
//! * Requests run with bounded concurrency ([`BatchOptions::concurrency`]).
//! * `UnprocessedItems` / `UnprocessedKeys`, throttling and transient errors are retried
//!   with exponential backoff and full jitter: writes up to [`BatchOptions::write_attempts`]
//!   tries, reads up to [`BatchOptions::read_attempts`].
//! * Every input ends up in exactly one list of the report: written (found, missing) or
//!   failed, with the reason. Nothing is silently dropped.
//! * The same key twice in one call is handled: writes to one key are applied in input
//!   order (DynamoDB refuses duplicates within one request, so they go in later rounds);
//!   a key asked for twice is read once.

use std::collections::{HashMap, HashSet};
use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;

use aws_sdk_dynamodb::types::{
    AttributeValue, DeleteRequest, KeysAndAttributes, PutRequest, WriteRequest,
};
use faceteer_core::facet::is_foreign;
use faceteer_core::limits::check_key_attributes;
use faceteer_core::names::Placeholders;
use faceteer_core::pick::{BaseTable, Projection};
use faceteer_core::plan::render_projection;
use faceteer_core::schema::{PK, SK};
use faceteer_core::{to_item, Facet, Item, ItemError, Key};
use futures::StreamExt;

use crate::error::Error;
use crate::item::{traced, BoxFuture};
use crate::read::{Read, Select, Whole};
use crate::report::{
    refuse_all, DeleteReport, Failed, FailureReason, GetReport, PutReport, Unknown,
};
use crate::retry::{until_processed, BatchOptions, Effect, Sent, Settled};
use crate::sdk;
use crate::table::Table;
use crate::trace::Op;

/// Most items in one `BatchWriteItem` request.
pub const WRITE_BATCH_SIZE: usize = 25;
/// Most keys in one `BatchGetItem` request.
pub const GET_BATCH_SIZE: usize = 100;

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

/// The item of `key`, after checking its lengths against DynamoDB's key limits.
pub(crate) fn checked_key<F: Facet>(key: &Key<F>) -> Result<Item, FailureReason> {
    let item = key.to_item();
    check_key_attributes(&item, F::SCHEMA).map_err(|source| {
        FailureReason::Item(ItemError::Limit {
            facet: F::SCHEMA.name,
            source,
        })
    })?;
    Ok(item)
}

/// Whether records of `F` can be put in a batch on `table`: a declared facet without a
/// `#[version]` field (a batch write cannot carry a condition: it would overwrite a newer
/// version).
pub(crate) fn batch_puttable<F: Facet>(table: &Table) -> Result<(), Error> {
    table.check_declared::<F>()?;
    match F::VERSION {
        Some(version) => Err(Error::InvalidRequest(format!(
            "`{}` records have a `#[version]` field (`{version}`), which a batch write cannot \
             check: write them with `put` (or in a transaction) so that a newer version is \
             never overwritten",
            F::SCHEMA.name
        ))),
        None => Ok(()),
    }
}

/// One write to send: the caller's index, its key and the request.
#[derive(Clone)]
pub(crate) struct Write {
    index: usize,
    pub(crate) key: KeyText,
    request: WriteRequest,
}

impl Write {
    /// The write of `put` (an item) or `delete` (a key), input number `index`.
    pub(crate) fn new(
        index: usize,
        put: Option<Item>,
        delete: Option<Item>,
    ) -> Result<Write, FailureReason> {
        let refuse = |e: aws_sdk_dynamodb::error::BuildError| {
            FailureReason::Request(Arc::new(Error::InvalidRequest(e.to_string())))
        };
        let key = put
            .as_ref()
            .or(delete.as_ref())
            .and_then(key_text)
            .ok_or_else(|| {
                FailureReason::Request(Arc::new(Error::MissingKeyAttribute(PK.into())))
            })?;
        let mut request = WriteRequest::builder();
        if let Some(item) = put {
            request = request.put_request(
                PutRequest::builder()
                    .set_item(Some(item))
                    .build()
                    .map_err(refuse)?,
            );
        }
        if let Some(key) = delete {
            request = request.delete_request(
                DeleteRequest::builder()
                    .set_key(Some(key))
                    .build()
                    .map_err(refuse)?,
            );
        }
        Ok(Write {
            index,
            key,
            request: request.build(),
        })
    }
}

/// What happened to the writes of one call: indices written, failed and unknown.
#[derive(Default)]
pub(crate) struct WriteOutcome {
    pub(crate) done: Vec<usize>,
    pub(crate) failed: Vec<(usize, FailureReason)>,
    pub(crate) unknown: Vec<(usize, Arc<Error>)>,
}

impl Table {
    /// Write many records with `BatchWriteItem` (25 per request), retrying what DynamoDB
    /// leaves unprocessed. Await it: every record ends up in [`PutReport::written`] or in
    /// [`PutReport::failed`].
    pub fn put_many<F: Facet>(&self, records: impl IntoIterator<Item = F>) -> PutMany<'_, F> {
        PutMany {
            table: self,
            records: records.into_iter().collect(),
        }
    }

    /// Delete many records by key with `BatchWriteItem` (25 per request), retrying what
    /// DynamoDB leaves unprocessed. Await it: every key ends up in [`DeleteReport::deleted`]
    /// or in [`DeleteReport::failed`].
    pub fn delete_many<F: Facet>(
        &self,
        keys: impl IntoIterator<Item = Key<F>>,
    ) -> DeleteMany<'_, F> {
        DeleteMany {
            table: self,
            keys: keys.into_iter().collect(),
        }
    }

    /// Read many records by key with `BatchGetItem` (100 keys per request), retrying what
    /// DynamoDB leaves unprocessed. Await it: every distinct key ends up in
    /// [`GetReport::found`], [`GetReport::missing`] or [`GetReport::failed`]; the facet's
    /// validator runs on every record read.
    ///
    /// Options: [`GetMany::consistent`], [`GetMany::select`].
    pub fn get_many<F: Facet>(&self, keys: impl IntoIterator<Item = Key<F>>) -> GetMany<'_, F> {
        GetMany {
            table: self,
            keys: keys.into_iter().collect(),
            consistent: false,
            _read: PhantomData,
        }
    }

    /// Send writes in rounds (so that repeated keys are applied in input order), each round
    /// in chunks of 25 with bounded concurrency.
    pub(crate) async fn write_all(&self, op: &Op, writes: Vec<Write>) -> WriteOutcome {
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
        let options = self.batch_options();
        for round in rounds {
            let mut chunks = Vec::new();
            let mut iter = round.into_iter().peekable();
            while iter.peek().is_some() {
                chunks.push(iter.by_ref().take(WRITE_BATCH_SIZE).collect::<Vec<_>>());
            }
            let mut results = futures::stream::iter(chunks)
                .map(|chunk| self.write_chunk(op, options, chunk))
                .buffer_unordered(options.concurrency.max(1));
            while let Some(settled) = results.next().await {
                outcome.done.extend(settled.done);
                outcome.failed.extend(
                    settled
                        .failed
                        .into_iter()
                        .map(|(w, reason)| (w.index, reason)),
                );
                outcome
                    .unknown
                    .extend(settled.unknown.into_iter().map(|(w, e)| (w.index, e)));
            }
        }
        outcome
    }

    async fn write_chunk(
        &self,
        op: &Op,
        options: &BatchOptions,
        chunk: Vec<Write>,
    ) -> Settled<Write, usize> {
        let mut send = |pending: Vec<Write>| async move {
            let requests = pending.iter().map(|w| w.request.clone()).collect();
            match sdk::batch_write(self, op, requests).await {
                Ok(unprocessed) => {
                    let unprocessed: HashSet<KeyText> =
                        unprocessed.iter().filter_map(write_request_key).collect();
                    let (still, written): (Vec<Write>, Vec<Write>) = pending
                        .into_iter()
                        .partition(|w| unprocessed.contains(&w.key));
                    Sent::Processed {
                        done: written.iter().map(|w| w.index).collect(),
                        unprocessed: still,
                    }
                }
                Err(error) => Sent::Failed { pending, error },
            }
        };
        until_processed(
            options,
            options.write_attempts,
            Effect::Writes,
            chunk,
            &mut send,
        )
        .await
    }

    /// The stored items of facet `F` under `keys` (`(PK, SK)`), read in batches; fails when
    /// any key cannot be read.
    pub(crate) async fn read_items<F: Facet>(
        &self,
        keys: &[(String, String)],
        consistent: bool,
    ) -> Result<HashMap<(String, String), Item>, Error> {
        let op = Op::new("BatchGetItem", self.name(), F::SCHEMA.name, None);
        let mut unique: Vec<&(String, String)> = Vec::with_capacity(keys.len());
        let mut seen = HashSet::with_capacity(keys.len());
        unique.extend(keys.iter().filter(|k| seen.insert(*k)));
        let chunks: Vec<Vec<Item>> = unique
            .chunks(GET_BATCH_SIZE)
            .map(|c| {
                c.iter()
                    .map(|(pk, sk)| {
                        Item::from([
                            (PK.to_owned(), AttributeValue::S(pk.clone())),
                            (SK.to_owned(), AttributeValue::S(sk.clone())),
                        ])
                    })
                    .collect()
            })
            .collect();
        let mut results = futures::stream::iter(chunks)
            .map(|chunk| self.get_chunk(&op, chunk, None, consistent))
            .buffer_unordered(self.batch_options().concurrency.max(1));
        let mut out = HashMap::with_capacity(unique.len());
        while let Some((found, failed)) = results.next().await {
            if let Some((key, reason)) = failed.into_iter().next() {
                let (pk, sk) = crate::walk::key_strings(&key).unwrap_or_default();
                return Err(Error::Fetch {
                    pk,
                    sk,
                    reason: Box::new(reason),
                });
            }
            for item in found.into_iter().filter(|i| !is_foreign(i, F::SCHEMA.name)) {
                if let Some(key) = crate::walk::key_strings(&item) {
                    out.insert(key, item);
                }
            }
        }
        Ok(out)
    }

    /// One chunk of keys: the items found, and the keys that failed.
    async fn get_chunk(
        &self,
        op: &Op,
        keys: Vec<Item>,
        projection: Option<&[&'static str]>,
        consistent: bool,
    ) -> (Vec<Item>, Vec<(Item, FailureReason)>) {
        let options = self.batch_options();
        let mut names = Placeholders::new();
        let projection = render_projection(projection, &mut names);
        let (names, _) = names.into_parts();
        let (names, projection) = (&names, &projection);
        let mut send = |pending: Vec<Item>| async move {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(pending.clone()))
                .set_projection_expression(projection.clone())
                .set_expression_attribute_names(names.clone())
                .set_consistent_read(consistent.then_some(true))
                .build();
            let result = match request {
                Ok(request) => sdk::batch_get(self, op, request).await,
                Err(e) => Err(Error::InvalidRequest(e.to_string())),
            };
            match result {
                Ok((found, unprocessed)) => Sent::Processed {
                    done: found,
                    unprocessed,
                },
                Err(error) => Sent::Failed { pending, error },
            }
        };
        let settled = until_processed(
            options,
            options.read_attempts,
            Effect::Reads,
            keys,
            &mut send,
        )
        .await;
        // Reads change nothing: a read whose outcome is unknown simply failed.
        let mut failed = settled.failed;
        failed.extend(
            settled
                .unknown
                .into_iter()
                .map(|(key, e)| (key, FailureReason::Request(e))),
        );
        (settled.done, failed)
    }
}

/// A batch write of records: [`Table::put_many`]. Await it for the [`PutReport`].
#[must_use = "a batch write does nothing until it is awaited"]
pub struct PutMany<'t, F> {
    table: &'t Table,
    records: Vec<F>,
}

impl<'t, F: Facet> IntoFuture for PutMany<'t, F> {
    type Output = PutReport<F>;
    type IntoFuture = BoxFuture<'t, PutReport<F>>;

    fn into_future(self) -> Self::IntoFuture {
        let PutMany { table, records } = self;
        let op = Op::new("BatchWriteItem", table.name(), F::SCHEMA.name, None);
        let work = |op: Arc<Op>| async move {
            let refusal = batch_puttable::<F>(table);
            if let Err(e) = refusal {
                return PutReport {
                    written: Vec::new(),
                    failed: refuse_all(records, e),
                    unknown: Vec::new(),
                };
            }
            let mut slots: Vec<Option<F>> = Vec::new();
            let mut writes = Vec::new();
            let mut failed = Vec::new();
            for record in records {
                let request = to_item(&record)
                    .map_err(FailureReason::Item)
                    .and_then(|item| Write::new(slots.len(), Some(item), None));
                match request {
                    Ok(write) => {
                        writes.push(write);
                        slots.push(Some(record));
                    }
                    Err(reason) => failed.push(Failed {
                        item: record,
                        reason,
                    }),
                }
            }
            let outcome = table.write_all(&op, writes).await;
            let (written, more_failed, unknown) = settle(slots, outcome);
            failed.extend(more_failed);
            PutReport {
                written,
                failed,
                unknown,
            }
        };
        traced(
            op,
            |op, r: &PutReport<F>| op.finish::<Error>(Ok(r.written.len())),
            work,
        )
    }
}

/// Hand each input back: written ones in order, failed ones with their reasons, unknown ones
/// with their last error.
fn settle<T>(
    mut slots: Vec<Option<T>>,
    outcome: WriteOutcome,
) -> (Vec<T>, Vec<Failed<T>>, Vec<Unknown<T>>) {
    let mut take = |i: usize| slots[i].take().expect("each index is reported once");
    let done = outcome.done.into_iter().map(&mut take).collect();
    let failed = outcome
        .failed
        .into_iter()
        .map(|(i, reason)| Failed {
            item: take(i),
            reason,
        })
        .collect();
    let unknown = outcome
        .unknown
        .into_iter()
        .map(|(i, cause)| Unknown {
            item: take(i),
            cause,
        })
        .collect();
    (done, failed, unknown)
}

/// A batch delete: [`Table::delete_many`]. Await it for the [`DeleteReport`].
#[must_use = "a batch delete does nothing until it is awaited"]
pub struct DeleteMany<'t, F> {
    table: &'t Table,
    keys: Vec<Key<F>>,
}

impl<'t, F: Facet> IntoFuture for DeleteMany<'t, F> {
    type Output = DeleteReport<F>;
    type IntoFuture = BoxFuture<'t, DeleteReport<F>>;

    fn into_future(self) -> Self::IntoFuture {
        let DeleteMany { table, keys } = self;
        let op = Op::new("BatchWriteItem", table.name(), F::SCHEMA.name, None);
        let work = |op: Arc<Op>| async move {
            if let Err(e) = table.check_declared::<F>() {
                return DeleteReport {
                    deleted: Vec::new(),
                    failed: refuse_all(keys, e),
                    unknown: Vec::new(),
                };
            }
            let mut slots = Vec::new();
            let mut writes = Vec::new();
            let mut failed = Vec::new();
            for key in keys {
                let write = checked_key(&key).and_then(|k| Write::new(slots.len(), None, Some(k)));
                match write {
                    Ok(write) => {
                        writes.push(write);
                        slots.push(Some(key));
                    }
                    Err(reason) => failed.push(Failed { item: key, reason }),
                }
            }
            let outcome = table.write_all(&op, writes).await;
            let (deleted, more_failed, unknown) = settle(slots, outcome);
            failed.extend(more_failed);
            DeleteReport {
                deleted,
                failed,
                unknown,
            }
        };
        traced(
            op,
            |op, r: &DeleteReport<F>| op.finish::<Error>(Ok(r.deleted.len())),
            work,
        )
    }
}

/// A batch read: [`Table::get_many`]. Await it for the [`GetReport`].
#[must_use = "a batch read does nothing until it is awaited"]
pub struct GetMany<'t, F, R = Whole> {
    table: &'t Table,
    keys: Vec<Key<F>>,
    consistent: bool,
    _read: PhantomData<fn() -> R>,
}

impl<'t, F: Facet, R> GetMany<'t, F, R> {
    /// Read with strong consistency.
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// Read only the fields of projection `P` (plus the key fields), with a
    /// `ProjectionExpression`. Needs a pick validator on the facet; it runs on every item.
    pub fn select<P: Projection<Facet = F> + Send + 'static>(self) -> GetMany<'t, F, Select<P>> {
        GetMany {
            table: self.table,
            keys: self.keys,
            consistent: self.consistent,
            _read: PhantomData,
        }
    }
}

impl<'t, F: Facet, R: Read<F, BaseTable>> IntoFuture for GetMany<'t, F, R> {
    type Output = GetReport<F, R::Record>;
    type IntoFuture = BoxFuture<'t, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let GetMany {
            table,
            keys,
            consistent,
            ..
        } = self;
        let op = Op::new("BatchGetItem", table.name(), F::SCHEMA.name, None);
        let work = |op: Arc<Op>| async move {
            let attributes = R::attributes(&[]);
            let mut unique: Vec<Key<F>> = Vec::new();
            let mut index: HashMap<KeyText, usize> = HashMap::new();
            let mut refused = Vec::new();
            for key in keys {
                if let Err(reason) = checked_key(&key) {
                    refused.push(Failed { item: key, reason });
                    continue;
                }
                let text = (key.pk().to_owned(), key.sk().to_owned());
                index.entry(text).or_insert_with(|| {
                    unique.push(key);
                    unique.len() - 1
                });
            }
            let chunks: Vec<Vec<Item>> = unique
                .chunks(GET_BATCH_SIZE)
                .map(|c| c.iter().map(Key::to_item).collect())
                .collect();
            let mut results = futures::stream::iter(chunks)
                .map(|chunk| table.get_chunk(&op, chunk, attributes.as_deref(), consistent))
                .buffer_unordered(table.batch_options().concurrency.max(1));

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
            drop(results);

            let mut out = GetReport {
                found: Vec::new(),
                missing: Vec::new(),
                failed: refused,
            };
            for (i, key) in unique.into_iter().enumerate() {
                if let Some(reason) = errors.remove(&i) {
                    out.failed.push(Failed { item: key, reason });
                } else if let Some(item) = items
                    .remove(&i)
                    .filter(|item| !is_foreign(item, F::SCHEMA.name))
                {
                    match R::decode(item, attributes.as_deref()) {
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
        };
        traced(
            op,
            |op, r: &GetReport<F, R::Record>| op.finish::<Error>(Ok(r.found.len())),
            work,
        )
    }
}
