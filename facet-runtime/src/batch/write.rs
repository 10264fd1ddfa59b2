//! One batch write request: its inputs, how each is rebuilt after a failed try, and sending it
//! until every input is settled.

use std::collections::HashMap;
use std::sync::Arc;

use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};
use faceteer_core::limits::check_key_texts;
use faceteer_core::schema::PK;
use faceteer_core::{Facet, Item, ItemError, Key};

use crate::batch::retry::{until_processed, Sent, Settled};
use crate::error::{Error, FailureReason};
use crate::exec::retry::{verdict, Deadline, Effect};
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::table::{BatchOptions, Table};
use crate::wire::keys::key_strings;

/// Most items in one `BatchWriteItem` request.
pub const WRITE_BATCH_SIZE: usize = 25;

pub(crate) type KeyText = (String, String);

fn write_request_key(r: &WriteRequest) -> Option<KeyText> {
    if let Some(put) = &r.put_request {
        return key_strings(&put.item);
    }
    r.delete_request.as_ref().and_then(|d| key_strings(&d.key))
}

/// Check `key`'s lengths against DynamoDB's key limits.
pub(crate) fn check_key<F: Facet>(key: &Key<F>) -> Result<(), FailureReason> {
    check_key_texts(key.pk(), key.sk()).map_err(|source| {
        FailureReason::Item(ItemError::Limit {
            facet: F::SCHEMA.name,
            source,
        })
    })
}

/// The item of `key`, after checking its lengths against DynamoDB's key limits.
pub(crate) fn checked_key<F: Facet>(key: &Key<F>) -> Result<Item, FailureReason> {
    check_key(key)?;
    Ok(key.to_item())
}

/// One write to send: its key and the request (taken while an attempt carries it).
pub(crate) struct Write {
    pub(crate) key: KeyText,
    /// A hash of `key`, for the sets of keys in flight (a collision only makes a write wait).
    pub(crate) key_hash: u64,
    pub(crate) request: Option<WriteRequest>,
}

/// A write in flight with the input it came from (reported with its outcome, and used to
/// rebuild the request after a failed attempt).
pub(crate) struct Pending<S> {
    pub(crate) write: Write,
    pub(crate) source: S,
    /// A try that carried it was never answered: it may still be applied, at any time.
    pub(crate) lost: bool,
}

/// Rebuilds an input's request after an attempt that carried it failed.
pub(crate) type Rebuild<'a, S> = dyn Fn(&S) -> Option<WriteRequest> + Send + Sync + 'a;

impl Write {
    /// The write of `put` (an item) or `delete` (a key).
    pub(crate) fn new(put: Option<Item>, delete: Option<Item>) -> Result<Write, FailureReason> {
        let refuse = |e: aws_sdk_dynamodb::error::BuildError| {
            FailureReason::Request(Arc::new(Error::InvalidRequest(e.to_string())))
        };
        let key = put
            .as_ref()
            .or(delete.as_ref())
            .and_then(key_strings)
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
        let key_hash = {
            use std::hash::{Hash, Hasher};
            let mut h = std::hash::DefaultHasher::new();
            key.hash(&mut h);
            h.finish()
        };
        Ok(Write {
            key,
            key_hash,
            request: Some(request.build()),
        })
    }

    /// The request itself (a copy kept by a caller that cannot rebuild it).
    pub(crate) fn request(&self) -> Option<&WriteRequest> {
        self.request.as_ref()
    }
}

impl Table {
    /// Send one request's writes until each is settled.
    ///
    /// Each request is moved into the SDK call, never copied: what the server leaves
    /// unprocessed comes back in its answer, and after a failed attempt (the request is
    /// gone with it) `rebuild` makes it again from its input. A write that cannot be rebuilt
    /// is not sent again and ends like one left unprocessed.
    pub(crate) async fn write_chunk<S: Send>(
        &self,
        op: &Op,
        options: &BatchOptions,
        chunk: Vec<Pending<S>>,
        rebuild: &Rebuild<'_, S>,
    ) -> Settled<Pending<S>, Pending<S>> {
        let mut send = |pending: Vec<Pending<S>>| async move {
            let mut requests = Vec::with_capacity(pending.len());
            let (mut sent, mut unsendable) = (Vec::with_capacity(pending.len()), Vec::new());
            for mut p in pending {
                match p.write.request.take().or_else(|| rebuild(&p.source)) {
                    Some(request) => {
                        requests.push(request);
                        sent.push(p);
                    }
                    None => unsendable.push(p),
                }
            }
            if requests.is_empty() {
                return Sent::Processed {
                    done: Vec::new(),
                    unprocessed: unsendable,
                };
            }
            match sdk::batch_write(self, op, requests).await {
                Ok(unprocessed) => {
                    let mut returned: HashMap<KeyText, WriteRequest> = unprocessed
                        .into_iter()
                        .filter_map(|r| Some((write_request_key(&r)?, r)))
                        .collect();
                    let mut written = Vec::with_capacity(sent.len());
                    for mut p in sent {
                        match returned.remove(&p.write.key) {
                            Some(request) => {
                                p.write.request = Some(request);
                                unsendable.push(p);
                            }
                            None => written.push(p),
                        }
                    }
                    Sent::Processed {
                        done: written,
                        unprocessed: unsendable,
                    }
                }
                Err(error) => {
                    if verdict(&error, Effect::Writes).maybe_applied {
                        for p in &mut sent {
                            p.lost = true;
                        }
                    }
                    // The unsendable ones were not in this request: they stay pending too.
                    sent.extend(unsendable);
                    Sent::Failed {
                        pending: sent,
                        error,
                    }
                }
            }
        };
        let deadline = Deadline::of(op);
        until_processed(
            options,
            options.write_attempts,
            Effect::Writes,
            deadline,
            chunk,
            &mut send,
        )
        .await
    }
}

/// The operation a batch request of `F` (`BatchWriteItem` or `BatchGetItem`) runs as.
pub(crate) fn batch_op<F: Facet>(table: &Table, operation: &'static str) -> Op {
    Op::new(operation, table, F::SCHEMA.name, None)
}

/// The items of `items` in chunks of at most `n`, each pulled only when it is asked for.
pub(crate) fn chunks<T>(
    mut items: impl Iterator<Item = T>,
    n: usize,
) -> impl Iterator<Item = Vec<T>> {
    std::iter::from_fn(move || {
        let chunk: Vec<T> = items.by_ref().take(n).collect();
        (!chunk.is_empty()).then_some(chunk)
    })
}

/// The write that puts `record`.
pub(crate) fn put_write<F: Facet>(record: &F) -> Result<Write, FailureReason> {
    faceteer_core::convert::to_stored_item(record)
        .map_err(FailureReason::Item)
        .and_then(|item| Write::new(Some(item), None))
}

/// The write that deletes the record under `key`.
pub(crate) fn delete_write<F: Facet>(key: &Key<F>) -> Result<Write, FailureReason> {
    checked_key(key).and_then(|k| Write::new(None, Some(k)))
}
