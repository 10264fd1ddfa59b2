//! `get_many`: batch reads of one facet, each key read once.

use std::collections::{HashMap, HashSet};
use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;

use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};
use faceteer_core::names::Placeholders;
use faceteer_core::pick::{BaseTable, Projection};
use faceteer_core::plan::render_projection;
use faceteer_core::schema::{PK, SK};
use faceteer_core::{Facet, Item, ItemError, Key};
use futures::{Stream, StreamExt};

use crate::batch::report::{Failed, GetReport};
use crate::batch::retry::{until_processed, Sent};
use crate::batch::write::*;
use crate::error::{Error, FailureReason};
use crate::exec::future::{traced, BoxFuture};
use crate::exec::retry::{Deadline, Effect};
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::hook::ReadKind;
use crate::read::{decode_stored, Read, Select, Whole};
use crate::table::Table;
use crate::wire::stored::{OnePass, Stored};

/// Most keys in one `BatchGetItem` request.
pub const GET_BATCH_SIZE: usize = faceteer_core::limits::MAX_BATCH_GET_KEYS;

/// The most records an awaited `get_many` makes room for before reading (when its keys say
/// how many they are); more records grow the list as they come.
const FOUND_ROOM_AHEAD: usize = 100_000;

impl Table {
    /// Read many records by key with `BatchGetItem` (100 keys per request), retrying what
    /// DynamoDB leaves unprocessed. Await it: every distinct key ends up in
    /// [`GetReport::found`], [`GetReport::missing`] or [`GetReport::failed`]; the facet's
    /// validator runs on every record read.
    ///
    /// Options: [`GetMany::consistent`], [`GetMany::select`].
    ///
    /// [`GetMany::stream`] reads keys from the input as request slots free up and hands out
    /// each key's outcome as soon as it is known, in bounded memory.
    pub fn get_many<F, I>(&self, keys: I) -> GetMany<'_, F, Whole, I::IntoIter>
    where
        F: Facet,
        I: IntoIterator<Item = Key<F>>,
    {
        GetMany {
            table: self,
            keys: keys.into_iter(),
            consistent: false,
            _read: PhantomData,
        }
    }

    /// The stored items of facet `F` under `keys` (`(PK, SK)`), read in batches; fails when
    /// any key cannot be read.
    pub(crate) async fn read_items<F: Facet>(
        &self,
        keys: &[(String, String)],
        consistent: bool,
    ) -> Result<HashMap<(String, String), Stored>, Error> {
        let op = batch_op::<F>(self, "BatchGetItem");
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
            .map(|chunk| self.get_chunk(&op, chunk, None, consistent, OnePass::of::<F>(&[])))
            .buffer_unordered(self.batch_options().concurrency.max(1));
        let mut out = HashMap::with_capacity(unique.len());
        while let Some((found, failed)) = results.next().await {
            if let Some((key, reason)) = failed.into_iter().next() {
                let (pk, sk) = crate::wire::keys::key_strings(&key).unwrap_or_default();
                return Err(Error::Fetch {
                    pk: pk.into(),
                    sk: sk.into(),
                    reason: Box::new(reason),
                });
            }
            let wanted = |i: &Stored| !i.is_foreign(F::SCHEMA.name) && !self.hides(F::SCHEMA, i);
            for item in found.into_iter().filter(wanted) {
                if let Some((pk, sk)) = item.key() {
                    let key = (pk.into_owned(), sk.into_owned());
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
        pass: Option<OnePass>,
    ) -> (Vec<Stored>, Vec<(Item, FailureReason)>) {
        let options = self.batch_options();
        let mut names = Placeholders::new();
        let projection = render_projection(projection, &mut names);
        let (names, _) = names.into_parts();
        let (names, projection) = (&names, &projection);
        let mut send = |pending: Vec<Item>| async move {
            // The keys go into the request without a copy, and come back with its outcome.
            let request = KeysAndAttributes::builder()
                .set_keys(Some(Vec::new()))
                .set_projection_expression(projection.clone())
                .set_expression_attribute_names(names.clone())
                .set_consistent_read(consistent.then_some(true))
                .build();
            let mut request = match request {
                Ok(request) => request,
                Err(e) => {
                    let error = Error::InvalidRequest(e.to_string());
                    return Sent::Failed { pending, error };
                }
            };
            request.keys = pending;
            match sdk::batch_get(self, op, request, pass).await {
                (Ok((found, unprocessed)), _) => Sent::Processed {
                    done: found,
                    unprocessed,
                },
                (Err(error), pending) => Sent::Failed { pending, error },
            }
        };
        let deadline = Deadline::of(op);
        let settled = until_processed(
            options,
            options.read_attempts,
            Effect::Reads,
            deadline,
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

/// A batch read: [`Table::get_many`]. Await it for the [`GetReport`].
#[must_use = "a batch read does nothing until it is awaited"]
pub struct GetMany<'t, F, R = Whole, I = std::vec::IntoIter<Key<F>>> {
    table: &'t Table,
    keys: I,
    consistent: bool,
    _read: PhantomData<fn() -> (F, R)>,
}

impl<'t, F: Facet, R, I> GetMany<'t, F, R, I> {
    /// Read with strong consistency.
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// Read only the fields of projection `P` (plus the key fields), with a
    /// `ProjectionExpression`. Needs a pick validator on the facet; it runs on every item.
    pub fn select<P: Projection<Facet = F> + Send + 'static>(self) -> GetMany<'t, F, Select<P>, I> {
        GetMany {
            table: self.table,
            keys: self.keys,
            consistent: self.consistent,
            _read: PhantomData,
        }
    }
}

/// Positions of distinct keys, found by `(PK, SK)` without copying the strings: by a hash
/// of both, checked against the key itself (keys whose hashes collide go to `others`).
#[derive(Default)]
struct KeyIndex {
    hasher: std::hash::RandomState,
    /// Keyed by the hash already computed: not hashed again.
    by_hash: HashMap<u64, usize, std::hash::BuildHasherDefault<Prehashed>>,
    others: HashMap<KeyText, usize>,
}

/// A hasher for keys that are hashes already: it passes the `u64` through.
#[derive(Default)]
struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64`s are hashed (`write_u64`); anything else is folded in.
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn write_u128(&mut self, n: u128) {
        // A fingerprint: its low half is a hash already.
        self.0 = n as u64;
    }
}

impl KeyIndex {
    fn hash(&self, pk: &str, sk: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one((pk, sk))
    }

    /// The position of `(pk, sk)` among `keys`, if it was inserted.
    fn find<F>(&self, keys: &[Key<F>], pk: &str, sk: &str) -> Option<usize> {
        match self.by_hash.get(&self.hash(pk, sk)) {
            Some(&i) if keys[i].pk() == pk && keys[i].sk() == sk => Some(i),
            Some(_) => self.others.get(&(pk.to_owned(), sk.to_owned())).copied(),
            None => None,
        }
    }

    /// Record `(pk, sk)` (not yet present) at position `at`.
    fn insert(&mut self, pk: &str, sk: &str, at: usize) {
        let h = self.hash(pk, sk);
        match self.by_hash.entry(h) {
            std::collections::hash_map::Entry::Occupied(_) => {
                self.others.insert((pk.to_owned(), sk.to_owned()), at);
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(at);
            }
        }
    }
}

/// Distinct keys to read, in the order first given, and how to find a returned item's
/// position among them.
struct KeySet<F> {
    keys: Vec<Key<F>>,
    index: KeyIndex,
}

impl<F> KeySet<F> {
    fn new() -> Self {
        KeySet {
            keys: Vec::new(),
            index: KeyIndex::default(),
        }
    }

    /// The position of `key`, and whether it is new (a key given again keeps its first
    /// position).
    fn add(&mut self, key: Key<F>) -> (usize, bool) {
        if let Some(at) = self.index.find(&self.keys, key.pk(), key.sk()) {
            return (at, false);
        }
        let at = self.keys.len();
        self.index.insert(key.pk(), key.sk(), at);
        self.keys.push(key);
        (at, true)
    }

    /// The position of the key of `item` (a returned key), if it is one of them.
    fn position(&self, item: &Item) -> Option<usize> {
        let (pk, sk) = crate::wire::keys::key_refs(item)?;
        self.index.find(&self.keys, pk, sk)
    }

    /// The position of the key of `item` (a returned item), if it is one of them.
    fn position_of(&self, item: &Stored) -> Option<usize> {
        let (pk, sk) = item.key()?;
        self.index.find(&self.keys, &pk, &sk)
    }
}

impl Table {
    /// Read one request's keys (`items`, the key items of some of `set`'s keys) and hand
    /// back each answer by its key's position in `set`: the item stored, or why it could not
    /// be read. A key absent from the answer holds no item. With `whole`, whole records are
    /// read, in one pass when the answer allows ([`OnePass`]); the items of the answer are
    /// not held.
    async fn read_positions<F: Facet>(
        &self,
        op: &Op,
        set: &KeySet<F>,
        items: Vec<Item>,
        projection: Option<&[&'static str]>,
        consistent: bool,
        whole: bool,
    ) -> Vec<(usize, Result<Stored, FailureReason>)> {
        let pass = if whole && projection.is_none() {
            OnePass::of::<F>(&[])
        } else {
            None
        };
        let projection = self.read_attributes(F::SCHEMA, projection);
        let (found, failed) = self
            .get_chunk(op, items, projection.as_deref(), consistent, pass)
            .await;
        // An expired record (when the table hides them) reads as absent.
        // Sized once: a growing list would move every answer put in it so far.
        let mut answers = Vec::with_capacity(found.len() + failed.len());
        answers.extend(
            found
                .into_iter()
                .filter(|item| !self.hides(F::SCHEMA, item))
                .filter_map(|item| Some((set.position_of(&item)?, Ok(item)))),
        );
        answers.extend(
            failed
                .into_iter()
                .filter_map(|(key, reason)| Some((set.position(&key)?, Err(reason)))),
        );
        answers
    }
}

/// A read item as a record of `F`: `None` when the item under the key belongs to another
/// facet (the key holds no record of `F`).
fn decode_read<F: Facet, R: Read<F, BaseTable>>(
    item: Stored,
    attributes: Option<&[&'static str]>,
) -> Option<Result<R::Record, FailureReason>> {
    match decode_stored::<F, BaseTable, R>(item, attributes) {
        Ok(record) => Some(Ok(record)),
        Err(ItemError::WrongFacet { .. }) => None,
        Err(e) => Some(Err(FailureReason::Item(e))),
    }
}

/// Put `records` in the order of their keys' `positions` (each record's, distinct), in
/// place: no second list of records is held.
fn in_key_order<T>(records: &mut [T], positions: &mut [usize]) {
    // `order[k]`: the record that goes to place `k`.
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_unstable_by_key(|&i| positions[i]);
    positions.sort_unstable();
    // Each cycle of the permutation, followed once by swaps.
    for start in 0..order.len() {
        let mut place = start;
        while order[place] != usize::MAX {
            let from = order[place];
            order[place] = usize::MAX;
            if from == start {
                break;
            }
            records.swap(place, from);
            place = from;
        }
    }
}

/// Where one key of a streamed batch read ended: exactly one outcome per key given.
#[derive(Debug)]
#[must_use = "a key may have failed; handle each outcome"]
pub enum GetOutcome<F, R = F> {
    /// The key's record.
    Found(R),
    /// The key holds no item of the facet.
    Missing(Key<F>),
    /// The key could not be read, or its item is not a valid record.
    Failed(Failed<Key<F>>),
}

impl<'t, F, R, I> GetMany<'t, F, R, I>
where
    F: Facet,
    R: Read<F, BaseTable>,
    I: Iterator<Item = Key<F>> + Send + 't,
{
    /// Every key's [`GetOutcome`], as soon as its request settles (keys of one request in
    /// the order given). Keys are pulled from the input 100 at a time as request slots free
    /// up, so memory stays bounded by [`BatchOptions::concurrency`](crate::BatchOptions::concurrency) requests whatever the
    /// input's length. A key given twice within one request is read once and reported for
    /// each time it was given.
    pub fn stream(self) -> impl Stream<Item = GetOutcome<F, R::Record>> + Send + 't {
        let GetMany {
            table,
            keys,
            consistent,
            ..
        } = self;
        let op = Arc::new(batch_op::<F>(table, "BatchGetItem"));
        futures::stream::iter(chunks(keys, GET_BATCH_SIZE))
            .map(move |chunk| {
                let op = op.clone();
                async move { read_chunk::<F, R>(table, &op, chunk, consistent).await }
            })
            .buffer_unordered(table.batch_options().concurrency.max(1))
            .flat_map(futures::stream::iter)
    }
}

/// Read one request's keys (refusing those over DynamoDB's limits) and settle each; a key
/// given twice is read once and settled for each time it was given.
async fn read_chunk<F: Facet, R: Read<F, BaseTable>>(
    table: &Table,
    op: &Op,
    chunk: Vec<Key<F>>,
    consistent: bool,
) -> Vec<GetOutcome<F, R::Record>> {
    let attributes = R::attributes(&[]);
    let mut set = KeySet::new();
    let mut items = Vec::with_capacity(chunk.len());
    // Each given key's position in `set`, or why it was refused.
    let mut given = Vec::with_capacity(chunk.len());
    for key in chunk {
        match checked_key(&key) {
            Err(reason) => given.push(Err(Failed { item: key, reason })),
            Ok(item) => {
                let (at, new) = set.add(key);
                if new {
                    items.push(item);
                }
                given.push(Ok(at));
            }
        }
    }
    let mut answers: Vec<Option<Result<Stored, FailureReason>>> = std::iter::repeat_with(|| None)
        .take(set.keys.len())
        .collect();
    if !items.is_empty() {
        // A key given twice copies its item: only a request of distinct keys is read in one
        // pass (its records are not kept as items).
        let distinct = given.iter().flatten().count() == set.keys.len();
        let attributes = attributes.as_deref();
        let read = table.read_positions(op, &set, items, attributes, consistent, distinct);
        for (at, answer) in read.await {
            answers[at] = Some(answer);
        }
    }
    // How many more times each position is still to be settled: the last takes the answer,
    // earlier ones a copy.
    let mut left = vec![0usize; set.keys.len()];
    for at in given.iter().flatten() {
        left[*at] += 1;
    }
    // Each outcome's position in `set` (none for a refused key).
    let positions: Vec<Option<usize>> = given.iter().map(|g| g.as_ref().ok().copied()).collect();
    let mut outcomes = given
        .into_iter()
        .map(|given| {
            let at = match given {
                Err(refused) => return GetOutcome::Failed(refused),
                Ok(at) => at,
            };
            left[at] -= 1;
            // The key is copied only for an outcome that names it.
            let key = || set.keys[at].clone();
            let answer = if left[at] == 0 {
                answers[at].take()
            } else {
                answers[at].as_ref().map(|a| match a {
                    Ok(item) => item.try_clone().ok_or_else(|| {
                        FailureReason::Item(ItemError::deserialize(
                            F::SCHEMA.name,
                            serde::de::Error::custom("a record read once cannot be copied"),
                        ))
                    }),
                    Err(reason) => Err(reason.shared()),
                })
            };
            match answer {
                None => GetOutcome::Missing(key()),
                Some(Err(reason)) => GetOutcome::Failed(Failed {
                    item: key(),
                    reason,
                }),
                Some(Ok(item)) => match decode_read::<F, R>(item, attributes.as_deref()) {
                    None => GetOutcome::Missing(key()),
                    Some(Ok(record)) => GetOutcome::Found(record),
                    Some(Err(reason)) => GetOutcome::Failed(Failed {
                        item: key(),
                        reason,
                    }),
                },
            }
        })
        .collect::<Vec<_>>();
    if let Some(hooked) = table.hooks_for::<F>() {
        for (outcome, at) in outcomes.iter_mut().zip(positions) {
            let (GetOutcome::Found(record), Some(at)) = (&mut *outcome, at) else {
                continue;
            };
            let Some(whole) = R::record_mut(record) else {
                continue;
            };
            if let Err(e) = hooked.after_read(whole, ReadKind::BatchGet).await {
                *outcome = GetOutcome::Failed(Failed {
                    item: set.keys[at].clone(),
                    reason: FailureReason::Item(e),
                });
            }
        }
    }
    outcomes
}

/// The keys already given to one call, as 128-bit keyed fingerprints of `(PK, SK)`: a key
/// given again is read once, without holding every key's strings. Two distinct keys share
/// a fingerprint with probability about n²/2¹²⁹ (about 10⁻²⁹ for 100,000 keys; the two
/// SipHash keys are drawn for each call, so no input can aim at a collision).
struct Seen {
    hashers: (std::hash::RandomState, std::hash::RandomState),
    fingerprints: std::collections::HashSet<u128, std::hash::BuildHasherDefault<Prehashed>>,
}

impl Seen {
    fn new() -> Self {
        Seen {
            hashers: Default::default(),
            fingerprints: Default::default(),
        }
    }

    /// Whether `key` is given for the first time.
    fn first<F>(&mut self, key: &Key<F>) -> bool {
        use std::hash::BuildHasher;
        let pair = (key.pk(), key.sk());
        let high = u128::from(self.hashers.0.hash_one(pair));
        let low = u128::from(self.hashers.1.hash_one(pair));
        self.fingerprints.insert(high << 64 | low)
    }
}

impl<'t, F, R, I> IntoFuture for GetMany<'t, F, R, I>
where
    F: Facet,
    R: Read<F, BaseTable>,
    I: Iterator<Item = Key<F>> + Send + 't,
{
    type Output = GetReport<F, R::Record>;
    type IntoFuture = BoxFuture<'t, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let GetMany {
            table,
            keys,
            consistent,
            ..
        } = self;
        let op = batch_op::<F>(table, "BatchGetItem");
        // Room for a record per key the keys say they are (up to `FOUND_ROOM_AHEAD`): a list
        // grown record by record moves every record read so far at each doubling, and holds
        // up to twice the room while it does.
        let room = keys.size_hint().0.min(FOUND_ROOM_AHEAD);
        let work = move |op: Arc<Op>| async move {
            // Keys are pulled 100 at a time as request slots free up, each distinct valid key
            // once (`Seen`), and each request's outcomes are kept as it settles: only the
            // records, the keys that failed or hold nothing, and the fingerprints are held.
            let mut refused = Vec::new();
            let mut seen = Seen::new();
            let distinct = keys.filter_map(|key| match check_key(&key) {
                Err(reason) => {
                    refused.push(Failed { item: key, reason });
                    None
                }
                Ok(()) => seen.first(&key).then_some(key),
            });
            let op = &op;
            let mut results = futures::stream::iter(chunks(distinct, GET_BATCH_SIZE).enumerate())
                .map(|(i, chunk)| async move {
                    (i, read_chunk::<F, R>(table, op, chunk, consistent).await)
                })
                .buffer_unordered(table.batch_options().concurrency.max(1));
            // The records, in the order their requests settle, with their keys' positions.
            let mut found: Vec<R::Record> = Vec::with_capacity(room);
            let mut positions: Vec<usize> = Vec::with_capacity(room);
            let mut missing = Vec::new();
            let mut failed = Vec::new();
            while let Some((i, outcomes)) = results.next().await {
                for (j, outcome) in outcomes.into_iter().enumerate() {
                    let at = i * GET_BATCH_SIZE + j;
                    match outcome {
                        GetOutcome::Found(record) => {
                            found.push(record);
                            positions.push(at);
                        }
                        GetOutcome::Missing(key) => missing.push((at, key)),
                        GetOutcome::Failed(failure) => failed.push((at, failure)),
                    }
                }
            }
            drop(results);
            in_key_order(&mut found, &mut positions);
            missing.sort_unstable_by_key(|(at, _)| *at);
            failed.sort_unstable_by_key(|(at, _)| *at);
            refused.extend(failed.into_iter().map(|(_, f)| f));
            GetReport {
                found,
                missing: missing.into_iter().map(|(_, k)| k).collect(),
                failed: refused,
            }
        };
        traced(
            op,
            |op, r: &GetReport<F, R::Record>| {
                op.finish_batch(
                    r.found.len(),
                    r.found.len() + r.missing.len() + r.failed.len(),
                    r.failed.len(),
                    0,
                )
            },
            work,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Doc;

    fn key(pk: &str, sk: &str) -> Key<Doc> {
        Key::from_parts(pk.to_owned(), sk.to_owned())
    }

    #[test]
    fn records_are_put_in_key_order_in_place() {
        let mut state = 7u64;
        for len in 0..40 {
            // A shuffled permutation of 0..len (a small linear congruential generator).
            let mut positions: Vec<usize> = (0..len).map(|i| i * 3 + 1).collect();
            for i in (1..positions.len()).rev() {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                positions.swap(i, (state >> 33) as usize % (i + 1));
            }
            let mut records: Vec<String> = positions.iter().map(|p| format!("r{p}")).collect();
            in_key_order(&mut records, &mut positions);
            let want: Vec<usize> = (0..len).map(|i| i * 3 + 1).collect();
            assert_eq!(positions, want);
            let want: Vec<String> = want.iter().map(|p| format!("r{p}")).collect();
            assert_eq!(records, want);
        }
    }

    #[test]
    fn the_key_index_finds_keys_whose_hashes_collide() {
        let keys = vec![key("#A", "1"), key("#B", "2"), key("#C", "3")];
        let mut index = KeyIndex::default();
        index.insert("#A", "1", 0);
        // Make `#B/2` collide with `#A/1`: its hash already names position 0.
        let h = index.hash("#B", "2");
        index.by_hash.insert(h, 0);
        index.insert("#B", "2", 1);
        index.insert("#C", "3", 2);
        assert_eq!(index.find(&keys, "#A", "1"), Some(0));
        assert_eq!(index.find(&keys, "#B", "2"), Some(1));
        assert_eq!(index.find(&keys, "#C", "3"), Some(2));
        assert_eq!(index.find(&keys, "#C", "4"), None);
        assert_eq!(index.others.len(), 1);
    }
}
