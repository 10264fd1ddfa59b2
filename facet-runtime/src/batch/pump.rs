//! Batch writes streamed from their input.
//!
//! The pump pulls inputs only as request slots free up: at most `concurrency` requests of
//! 25 writes are in flight, plus at most as many writes held back because their key is
//! already being written. Memory is bounded by that, not by the input's length, and each
//! input's outcome is handed out as soon as its request settles.
//!
//! Writes to one key are applied in input order: a write whose key is in flight (or held
//! back) waits until the earlier one has settled. DynamoDB refuses two writes to one key in
//! one request, and two requests in flight at once could land in either order.
//!
//! A try that is never answered may still be applied later, at any time (a request held in
//! a network). A later write of the same key in the same call is therefore never reported
//! `Done`: it is written, then reported `Unknown`, because that try may still land over it.
//!
//! Once the call's deadline ([`Timeouts::call`](crate::Timeouts::call)) has passed, no
//! request is sent: every input not yet sent fails, and each one under way ends unknown.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use futures::stream::FuturesUnordered;
use futures::{Stream, StreamExt};

use crate::batch::report::{Failed, Unknown};
use crate::batch::retry::Settled;
use crate::batch::write::{Pending, Rebuild, Write, WRITE_BATCH_SIZE};
use crate::error::Error;
use crate::error::FailureReason;
use crate::exec::future::BoxFuture;
use crate::exec::trace::Op;
use crate::table::Table;

/// Where one input of a batch ended: exactly one outcome per input.
#[derive(Debug)]
#[must_use = "an input may have failed; handle each outcome"]
pub enum Outcome<T> {
    /// Written, deleted or read: DynamoDB confirmed it.
    Done(T),
    /// Certainly not done, with the reason.
    Failed(Failed<T>),
    /// Maybe done: a request carrying it may have been applied and no later try confirmed it.
    Unknown(Unknown<T>),
}

/// An input and what to send for it (or why nothing can be sent).
pub(crate) type Prepared<S> = (S, Result<Write, FailureReason>);

struct Pump<'t, S, I> {
    table: &'t Table,
    op: Arc<Op>,
    input: I,
    exhausted: bool,
    /// Makes an input's request again after a failed attempt.
    rebuild: Arc<Rebuild<'t, S>>,
    /// Keys (their hashes) of the writes in flight.
    busy: HashSet<u64>,
    /// Writes held back (their key was busy or held back already), in input order, and how
    /// many are held back per key.
    waiting: VecDeque<Pending<S>>,
    waiting_keys: HashMap<u64, usize>,
    in_flight: FuturesUnordered<BoxFuture<'t, Settled<Pending<S>, Pending<S>>>>,
    ready: VecDeque<Outcome<S>>,
    /// Keys (their hashes) an unanswered try of this call wrote: it may still be applied
    /// at any time, over a later write of the key.
    shadowed: HashSet<u64>,
}

impl<'t, S, I> Pump<'t, S, I>
where
    S: Send + 't,
    I: Iterator<Item = Prepared<S>> + Send + 't,
{
    fn concurrency(&self) -> usize {
        self.table.batch_options().concurrency.max(1)
    }

    /// The next request's writes: held-back writes whose key is free first, then new inputs.
    fn next_chunk(&mut self) -> Vec<Pending<S>> {
        let mut chunk: Vec<Pending<S>> = Vec::with_capacity(WRITE_BATCH_SIZE);
        let mut keys: HashSet<u64> = HashSet::new();
        let mut kept = VecDeque::with_capacity(self.waiting.len());
        while let Some(p) = self.waiting.pop_front() {
            // The first held-back write of a free key goes; later ones of that key wait.
            let key = p.write.key_hash;
            if chunk.len() < WRITE_BATCH_SIZE && !self.busy.contains(&key) && keys.insert(key) {
                release(&mut self.waiting_keys, key);
                chunk.push(p);
            } else {
                kept.push_back(p);
            }
        }
        self.waiting = kept;
        let hold_limit = WRITE_BATCH_SIZE * self.concurrency();
        while chunk.len() < WRITE_BATCH_SIZE && !self.exhausted && self.waiting.len() < hold_limit {
            let Some((source, write)) = self.input.next() else {
                self.exhausted = true;
                break;
            };
            match write {
                Err(reason) => self.ready.push_back(Outcome::Failed(Failed {
                    item: source,
                    reason,
                })),
                Ok(write) => {
                    let key = write.key_hash;
                    let held = self.busy.contains(&key)
                        || self.waiting_keys.contains_key(&key)
                        || !keys.insert(key);
                    let pending = Pending {
                        write,
                        source,
                        lost: false,
                    };
                    if held {
                        *self.waiting_keys.entry(key).or_insert(0) += 1;
                        self.waiting.push_back(pending);
                    } else {
                        chunk.push(pending);
                    }
                }
            }
        }
        chunk
    }

    /// Start requests until `concurrency` are in flight or nothing is left to send. Once
    /// the call's deadline has passed, nothing more is sent: every write not yet sent fails.
    fn fill(&mut self) {
        if self.op.past_deadline() {
            // Every write not yet sent fails; the input is pulled a request's worth at a
            // time, so that memory stays bounded as before.
            let late = Arc::new(self.op.deadline_exceeded(false));
            let mut unsent: Vec<_> = self.waiting.drain(..).map(|p| (p.source, None)).collect();
            self.waiting_keys.clear();
            if !self.exhausted {
                let before = unsent.len();
                let pulled = self.input.by_ref().take(WRITE_BATCH_SIZE);
                unsent.extend(pulled.map(|(source, w)| (source, w.err())));
                self.exhausted = unsent.len() - before < WRITE_BATCH_SIZE;
            }
            for (item, refused) in unsent {
                let reason = refused.unwrap_or_else(|| FailureReason::Request(late.clone()));
                self.ready
                    .push_back(Outcome::Failed(Failed { item, reason }));
            }
            return;
        }
        while self.in_flight.len() < self.concurrency() {
            let chunk = self.next_chunk();
            if chunk.is_empty() {
                return;
            }
            for p in &chunk {
                self.busy.insert(p.write.key_hash);
            }
            let (table, op, rebuild) = (self.table, self.op.clone(), self.rebuild.clone());
            self.in_flight.push(Box::pin(async move {
                table
                    .write_chunk(&op, table.batch_options(), chunk, &*rebuild)
                    .await
            }));
        }
    }

    /// Hand out the outcomes of a settled request.
    ///
    /// A write confirmed after an earlier write of this call to the same key had a try
    /// that was never answered is not `Done`: that try may still land over it. It is
    /// `Unknown` ([`Error::EarlierTryPending`]).
    fn settle(&mut self, settled: Settled<Pending<S>, Pending<S>>) {
        for p in settled.done {
            let key = p.write.key_hash;
            self.busy.remove(&key);
            let overtakable = self.shadowed.contains(&key);
            if p.lost {
                self.shadowed.insert(key);
            }
            self.ready.push_back(if overtakable {
                let (pk, sk) = p.write.key.clone();
                Outcome::Unknown(Unknown {
                    item: p.source,
                    cause: Arc::new(Error::EarlierTryPending {
                        pk: pk.into(),
                        sk: sk.into(),
                    }),
                })
            } else {
                Outcome::Done(p.source)
            });
        }
        for (p, reason) in settled.failed {
            self.busy.remove(&p.write.key_hash);
            self.ready.push_back(Outcome::Failed(Failed {
                item: p.source,
                reason,
            }));
        }
        for (p, cause) in settled.unknown {
            self.busy.remove(&p.write.key_hash);
            self.shadowed.insert(p.write.key_hash);
            self.ready.push_back(Outcome::Unknown(Unknown {
                item: p.source,
                cause,
            }));
        }
    }

    /// The next outcome, or `None` when every input has one.
    async fn next(&mut self) -> Option<Outcome<S>> {
        loop {
            if let Some(outcome) = self.ready.pop_front() {
                return Some(outcome);
            }
            self.fill();
            if let Some(outcome) = self.ready.pop_front() {
                return Some(outcome);
            }
            match self.in_flight.next().await {
                Some(settled) => self.settle(settled),
                None if self.exhausted && self.waiting.is_empty() => return None,
                // Nothing in flight but writes held back: their keys are free now.
                None => {}
            }
        }
    }
}

fn release(counts: &mut HashMap<u64, usize>, key: u64) {
    if let Some(n) = counts.get_mut(&key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(&key);
        }
    }
}

/// Stream the outcome of every input of `input` (each prepared as it is pulled), written
/// with `BatchWriteItem` requests of at most 25, `concurrency` at a time; `rebuild` makes an
/// input's request again after an attempt that carried it failed.
pub(crate) fn write_stream<'t, S, I>(
    table: &'t Table,
    op: Arc<Op>,
    input: I,
    rebuild: impl Fn(&S) -> Option<aws_sdk_dynamodb::types::WriteRequest> + Send + Sync + 't,
) -> impl Stream<Item = Outcome<S>> + Send + 't
where
    S: Send + 't,
    I: Iterator<Item = Prepared<S>> + Send + 't,
{
    let rebuild: Arc<Rebuild<'t, S>> = Arc::new(rebuild);
    let pump = Pump {
        table,
        op,
        input,
        exhausted: false,
        rebuild,
        busy: HashSet::new(),
        waiting: VecDeque::new(),
        waiting_keys: HashMap::new(),
        in_flight: FuturesUnordered::new(),
        ready: VecDeque::new(),
        shadowed: HashSet::new(),
    };
    futures::stream::unfold(pump, |mut pump| async move {
        let outcome = pump.next().await?;
        Some((outcome, pump))
    })
}

/// Every outcome of `outcomes`, sorted into done, failed and unknown.
pub(crate) async fn gather<T>(
    outcomes: impl Stream<Item = Outcome<T>>,
) -> (Vec<T>, Vec<Failed<T>>, Vec<Unknown<T>>) {
    let mut outcomes = std::pin::pin!(outcomes);
    let (mut done, mut failed, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
    while let Some(outcome) = outcomes.next().await {
        match outcome {
            Outcome::Done(t) => done.push(t),
            Outcome::Failed(f) => failed.push(f),
            Outcome::Unknown(u) => unknown.push(u),
        }
    }
    (done, failed, unknown)
}
