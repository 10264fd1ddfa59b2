//! `put_many` and `delete_many`: batch writes of one facet.

use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;

use faceteer_core::facet::{BatchDeletable, BatchWritable};
use faceteer_core::{Facet, Key};
use futures::future::Either;
use futures::{stream, Stream, StreamExt};

use crate::batch::pump::{gather, write_stream, Outcome};
use crate::batch::report::{DeleteReport, PutReport};
use crate::batch::write::*;
use crate::error::{Error, FailureReason};
use crate::exec::future::{traced, BoxFuture};
use crate::exec::trace::Op;
use crate::hook::{Requires, WritePath};
use crate::table::Table;
use faceteer_core::facet::ItemError;

impl Table {
    /// Write many records with `BatchWriteItem` (25 per request), retrying what DynamoDB
    /// leaves unprocessed. Await it: every record ends up in [`PutReport::written`] or in
    /// [`PutReport::failed`].
    ///
    /// Records are pulled from `records` as requests go out ([`PutMany::stream`] hands out
    /// each record's outcome as soon as it is known, in bounded memory).
    ///
    /// Only facets without a `#[version]` field or `#[unique]` fields
    /// ([`BatchWritable`]): a batch write carries no condition, so it could overwrite a newer
    /// version or take a value another record owns.
    pub fn put_many<F, I>(&self, records: I) -> PutMany<'_, F, I::IntoIter>
    where
        F: BatchWritable,
        I: IntoIterator<Item = F>,
    {
        PutMany {
            table: self,
            records: records.into_iter(),
            _facet: PhantomData,
        }
    }

    /// Delete many records by key with `BatchWriteItem` (25 per request), retrying what
    /// DynamoDB leaves unprocessed. Await it: every key ends up in [`DeleteReport::deleted`]
    /// or in [`DeleteReport::failed`].
    ///
    /// Keys are pulled from `keys` as requests go out ([`DeleteMany::stream`] hands out each
    /// key's outcome as soon as it is known, in bounded memory).
    ///
    /// Only facets without `#[unique]` fields ([`BatchDeletable`]), whose guards a delete
    /// removes in one transaction with the record.
    pub fn delete_many<F, I>(&self, keys: I) -> DeleteMany<'_, F, I::IntoIter>
    where
        F: BatchDeletable,
        I: IntoIterator<Item = Key<F>>,
    {
        DeleteMany {
            table: self,
            keys: keys.into_iter(),
            _facet: PhantomData,
        }
    }
}

/// A batch write of records: [`Table::put_many`]. Await it for the [`PutReport`], or read
/// each record's outcome from [`PutMany::stream`].
#[must_use = "a batch write does nothing until it is awaited"]
pub struct PutMany<'t, F, I> {
    table: &'t Table,
    records: I,
    _facet: PhantomData<fn() -> F>,
}

impl<'t, F, I> PutMany<'t, F, I>
where
    F: Facet,
    I: Iterator<Item = F> + Send + 't,
{
    /// Every record's [`Outcome`], as soon as it is known. Records are pulled from the input
    /// only as request slots free up, so memory stays bounded by
    /// [`BatchOptions::concurrency`](crate::BatchOptions::concurrency) requests of 25 items, whatever the input's length.
    pub fn stream(self) -> impl Stream<Item = Outcome<F>> + Send + 't {
        let op = Arc::new(batch_op::<F>(self.table, "BatchWriteItem"));
        self.stream_in(op)
    }

    fn stream_in(self, op: Arc<Op>) -> impl Stream<Item = Outcome<F>> + Send + 't {
        let PutMany { table, records, .. } = self;
        let rebuild = |record: &F| put_write(record).ok().and_then(|w| w.request);
        if let (Some(hooked), Ok(())) = (table.hooks_for::<F>(), table.check_declared::<F>()) {
            // The hooks run first, on every record (a few at a time); the records they leave
            // are written.
            return Either::Left(
                stream::once(async move {
                    let concurrency = table.batch_options().concurrency.max(1);
                    let prepared: Vec<_> = stream::iter(records)
                        .map(|record| {
                            let hooked = &hooked;
                            async move {
                                match hooked
                                    .record("BatchWriteItem", &record, WritePath::Batch)
                                    .await
                                {
                                    Ok((record, requires)) if requires.0.is_empty() => {
                                        let write = put_write(&record);
                                        (record, write)
                                    }
                                    Ok((record, requires)) => {
                                        (record, Err(unconditioned::<F>(&requires)))
                                    }
                                    Err(e) => (record, Err(batch_failure(e))),
                                }
                            }
                        })
                        .buffered(concurrency)
                        .collect()
                        .await;
                    write_stream(table, op, prepared.into_iter(), rebuild)
                })
                .flatten(),
            );
        }
        let refusal = table.check_declared::<F>().err().map(Arc::new);
        let prepared = records.map(move |record| {
            let write = match &refusal {
                Some(e) => Err(FailureReason::Request(e.clone())),
                None => put_write(&record),
            };
            (record, write)
        });
        Either::Right(write_stream(table, op, prepared, rebuild))
    }
}

impl<'t, F, I> IntoFuture for PutMany<'t, F, I>
where
    F: Facet,
    I: Iterator<Item = F> + Send + 't,
{
    type Output = PutReport<F>;
    type IntoFuture = BoxFuture<'t, PutReport<F>>;

    fn into_future(self) -> Self::IntoFuture {
        let op = batch_op::<F>(self.table, "BatchWriteItem");
        let work = |op: Arc<Op>| async move {
            let (written, failed, unknown) = gather(self.stream_in(op)).await;
            PutReport {
                written,
                failed,
                unknown,
            }
        };
        traced(
            op,
            |op, r: &PutReport<F>| {
                op.finish_batch(
                    r.written.len(),
                    r.written.len() + r.failed.len() + r.unknown.len(),
                    r.failed.len(),
                    r.unknown.len(),
                )
            },
            work,
        )
    }
}

/// A batch delete: [`Table::delete_many`]. Await it for the [`DeleteReport`], or read each
/// key's outcome from [`DeleteMany::stream`].
#[must_use = "a batch delete does nothing until it is awaited"]
pub struct DeleteMany<'t, F, I> {
    table: &'t Table,
    keys: I,
    _facet: PhantomData<fn() -> F>,
}

impl<'t, F, I> DeleteMany<'t, F, I>
where
    F: Facet,
    I: Iterator<Item = Key<F>> + Send + 't,
{
    /// Every key's [`Outcome`], as soon as it is known, in bounded memory (as
    /// [`PutMany::stream`]).
    pub fn stream(self) -> impl Stream<Item = Outcome<Key<F>>> + Send + 't {
        let op = Arc::new(batch_op::<F>(self.table, "BatchWriteItem"));
        self.stream_in(op)
    }

    fn stream_in(self, op: Arc<Op>) -> impl Stream<Item = Outcome<Key<F>>> + Send + 't {
        let DeleteMany { table, keys, .. } = self;
        let rebuild = |key: &Key<F>| delete_write(key).ok().and_then(|w| w.request);
        if let (Some(hooked), Ok(())) = (table.hooks_for::<F>(), table.check_declared::<F>()) {
            return Either::Left(
                stream::once(async move {
                    let mut prepared = Vec::new();
                    for key in keys {
                        let write = match hooked.delete(&key, WritePath::Batch).await {
                            Ok(requires) if requires.0.is_empty() => delete_write(&key),
                            Ok(requires) => Err(unconditioned::<F>(&requires)),
                            Err(e) => Err(batch_failure(e)),
                        };
                        prepared.push((key, write));
                    }
                    write_stream(table, op, prepared.into_iter(), rebuild)
                })
                .flatten(),
            );
        }
        let refusal = table.check_declared::<F>().err().map(Arc::new);
        let prepared = keys.map(move |key| {
            let write = match &refusal {
                Some(e) => Err(FailureReason::Request(e.clone())),
                None => delete_write(&key),
            };
            (key, write)
        });
        Either::Right(write_stream(table, op, prepared, rebuild))
    }
}

impl<'t, F, I> IntoFuture for DeleteMany<'t, F, I>
where
    F: Facet,
    I: Iterator<Item = Key<F>> + Send + 't,
{
    type Output = DeleteReport<F>;
    type IntoFuture = BoxFuture<'t, DeleteReport<F>>;

    fn into_future(self) -> Self::IntoFuture {
        let op = batch_op::<F>(self.table, "BatchWriteItem");
        let work = |op: Arc<Op>| async move {
            let (deleted, failed, unknown) = gather(self.stream_in(op)).await;
            DeleteReport {
                deleted,
                failed,
                unknown,
            }
        };
        traced(
            op,
            |op, r: &DeleteReport<F>| {
                op.finish_batch(
                    r.deleted.len(),
                    r.deleted.len() + r.failed.len() + r.unknown.len(),
                    r.failed.len(),
                    r.unknown.len(),
                )
            },
            work,
        )
    }
}

/// A hook's refusal of one input of a batch (or its record that could not be copied), as
/// the input's failure.
fn batch_failure(e: Error) -> FailureReason {
    match e {
        Error::Refused { facet, veto, .. } => {
            FailureReason::Item(ItemError::Refused { facet, veto })
        }
        Error::Item(e) => FailureReason::Item(e),
        other => FailureReason::Request(Arc::new(other)),
    }
}

/// A batch write a hook requires values of the stored record for: a batch carries no
/// condition, so it is refused (write it with a single put or delete).
fn unconditioned<F: Facet>(requires: &Requires) -> FailureReason {
    let hook = requires.0.first().map_or("", |r| r.hook);
    FailureReason::Item(ItemError::Refused {
        facet: F::SCHEMA.name,
        veto: faceteer_core::facet::Veto::because(
            hook,
            "the hook requires values of the stored record, and a batch write carries no \
             condition: write this record with a single put or delete",
        ),
    })
}
