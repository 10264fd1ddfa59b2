//! Exactly once under lost answers: a proxy forwards every write, lets the engine apply it
//! (or refuse it), and then loses the answer for a quarter of them (a 500, a reset
//! connection, or no answer at all). For 1,000 writes of each kind, every outcome is
//! checked against a direct read of what the table holds: `Ok` only when applied once, a
//! "not applied" error only when certainly not, and otherwise `OutcomeUnknown`.

use crate::common;

use std::future::IntoFuture;
use std::sync::Mutex;

use common::*;
use faceteer::testing::FaultProxy;
use faceteer::{Error, Facet, Key, Table};
use futures::StreamExt;

/// Writes of each kind.
const WRITES: usize = 1000;
/// Writes in flight at once.
const CONCURRENCY: usize = 8;

/// What a run of writes ended with.
#[derive(Default, Debug)]
struct Tally {
    applied: usize,
    not_applied: usize,
    unknown: usize,
    /// Outcomes the table contradicts.
    mismatches: Vec<String>,
}

impl Tally {
    fn check(&self, kind: &str) {
        println!("{kind}: {self:?}");
        assert!(
            self.mismatches.is_empty(),
            "{kind}: {} outcomes the table contradicts: {:#?}",
            self.mismatches.len(),
            &self.mismatches[..self.mismatches.len().min(10)]
        );
        assert!(self.applied > 0, "{kind}: some writes are applied");
    }
}

/// [`common::lossy_table`] of the test table: resending under `ClientRequestToken`s on the
/// embedded engine, which keeps them; reporting lost answers on moto, which does not (its
/// repeated `TransactWriteItems` applies again). `tests/history.rs` runs both on the
/// embedded engine.
async fn lossy(label: &str, seed: u64) -> (FaultProxy, Table, Table) {
    let (proxy, table, direct) = common::lossy_table::<TestTable>(label, seed).await;
    let choice = match faceteer_suite::server() {
        faceteer_suite::Server::Embedded(_) => faceteer::LostAnswers::Resend,
        _ => faceteer::LostAnswers::Report,
    };
    (proxy, table.with_lost_answers(choice), direct)
}

/// Run `write(i)` for `0..n`, `CONCURRENCY` at a time.
async fn each<Fut>(n: usize, write: impl Fn(usize) -> Fut)
where
    Fut: std::future::Future<Output = ()>,
{
    each_at(CONCURRENCY, n, write).await
}

/// Run `write(i)` for `0..n`, `concurrency` at a time.
async fn each_at<Fut>(concurrency: usize, n: usize, write: impl Fn(usize) -> Fut)
where
    Fut: std::future::Future<Output = ()>,
{
    futures::stream::iter(0..n)
        .map(write)
        .buffer_unordered(concurrency)
        .collect::<()>()
        .await;
}

fn account_with(id: String, balance: i64) -> Account {
    Account {
        balance,
        ..account(&id)
    }
}

/// The records of facet `F` stored under `keys`, read in batches after the writes (no
/// write of this test touches a key after its own).
async fn stored<F>(direct: &Table, keys: Vec<Key<F>>) -> std::collections::HashMap<Key<F>, F>
where
    F: faceteer::Facet + Clone + Send + Sync + 'static,
    Key<F>: std::hash::Hash + Eq,
{
    let report = direct.get_many(keys).consistent().await;
    assert!(report.failed.is_empty(), "reading the truth");
    report
        .found
        .into_iter()
        .map(|r| (r.primary_key().unwrap(), r))
        .collect()
}

/// The keys of `records`.
fn keys_of<F: Facet>(records: &[F]) -> Vec<Key<F>> {
    records.iter().map(|r| r.primary_key().unwrap()).collect()
}

/// Run `write(i)` for `0..WRITES` and keep each result, by `i`.
async fn results<T, Fut>(write: impl Fn(usize) -> Fut) -> Vec<faceteer::Result<T>>
where
    Fut: std::future::Future<Output = (usize, faceteer::Result<T>)>,
{
    let mut out: Vec<(usize, faceteer::Result<T>)> = futures::stream::iter(0..WRITES)
        .map(write)
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// Plain puts, `if_not_exists` puts (half on keys that exist), versioned puts (half stale)
/// and upserts (half on records that exist): `Ok` exactly when the table holds the record
/// written.
async fn puts_are_reported_exactly() {
    let (proxy, table, direct) = lossy("once-put", 11).await;

    // Plain puts.
    let records: Vec<Account> = (0..WRITES)
        .map(|i| account_with(format!("p{i}"), i as i64))
        .collect();
    let said_ = results(|i| {
        let (table, record) = (&table, &records[i]);
        async move { (i, table.put(record).await) }
    })
    .await;
    let now = stored(&direct, keys_of(&records)).await;
    let mut t = Tally::default();
    for (record, result) in records.iter().zip(&said_) {
        let holds = now.get(&record.primary_key().unwrap());
        match said(result) {
            Said::Applied if holds == Some(record) => t.applied += 1,
            Said::Unknown => t.unknown += 1,
            _ => t.mismatches.push(format!(
                "put {}: {result:?}, table holds {holds:?}",
                record.id
            )),
        }
    }
    t.check("put");

    // Puts if not exists, and upserts: even records exist beforehand.
    for upsert in [false, true] {
        let tag = if upsert { "u" } else { "c" };
        let existing: Vec<Account> = (0..WRITES)
            .step_by(2)
            .map(|i| account_with(format!("{tag}{i}"), -1))
            .collect();
        let seeded = direct.put_many(existing.clone()).await;
        assert_eq!(seeded.written.len(), existing.len());
        let records: Vec<Account> = (0..WRITES)
            .map(|i| account_with(format!("{tag}{i}"), i as i64))
            .collect();
        let said_ = results(|i| {
            let (table, record) = (&table, &records[i]);
            async move {
                let result = match upsert {
                    true => table.upsert(record).await.map(|_| ()),
                    false => table.put(record).if_not_exists().await,
                };
                (i, result)
            }
        })
        .await;
        let now = stored(&direct, keys_of(&records)).await;
        let mut t = Tally::default();
        for (i, (record, result)) in records.iter().zip(&said_).enumerate() {
            let holds = now.get(&record.primary_key().unwrap());
            let existed = i % 2 == 0;
            let refused = matches!(result, Err(Error::ConditionFailed { .. }));
            match said(result) {
                Said::Applied if holds == Some(record) && (upsert || !existed) => t.applied += 1,
                Said::NotApplied if refused && !upsert && existed && holds != Some(record) => {
                    t.not_applied += 1
                }
                Said::Unknown => t.unknown += 1,
                _ => t.mismatches.push(format!(
                    "{} {i}: {result:?}, table holds {holds:?}",
                    if upsert { "upsert" } else { "create" }
                )),
            }
        }
        t.check(if upsert {
            "upsert"
        } else {
            "put if_not_exists"
        });
    }

    // Versioned puts: every record stored at version 1; odd writes are stale creates
    // (version 0).
    let skus: Vec<String> = (0..WRITES).map(|i| format!("v{i}")).collect();
    each(WRITES, |i| {
        let (direct, sku) = (&direct, &skus[i]);
        async move { direct.put(&stock(sku, 1, 0)).await.unwrap() }
    })
    .await;
    let read_at = |i: usize| if i.is_multiple_of(2) { 1 } else { 0 };
    let said_ = results(|i| {
        let (table, sku) = (&table, &skus[i]);
        async move { (i, table.put(&stock(sku, 100 + i as u32, read_at(i))).await) }
    })
    .await;
    let keys = skus.iter().map(|s| Stock::key(s).unwrap()).collect();
    let now = stored(&direct, keys).await;
    let mut t = Tally::default();
    for (i, (sku, result)) in skus.iter().zip(&said_).enumerate() {
        let holds = now.get(&Stock::key(sku).unwrap());
        let written = stock(sku, 100 + i as u32, read_at(i) + 1);
        let conflict = matches!(result, Err(Error::VersionConflict { .. }));
        match said(result) {
            Said::Applied if holds == Some(&written) && read_at(i) == 1 => t.applied += 1,
            Said::NotApplied if conflict && holds == Some(&stock(sku, 1, 1)) => t.not_applied += 1,
            Said::Unknown => t.unknown += 1,
            _ => t.mismatches.push(format!(
                "versioned put {i}: {result:?}, table holds {holds:?}"
            )),
        }
    }
    t.check("versioned put");
    assert!(
        proxy
            .stats()
            .lost_answers
            .load(std::sync::atomic::Ordering::Relaxed)
            > 100
    );
}

/// Stock `sku` with `on_hand`, as read at `version`.
fn stock(sku: &str, on_hand: u32, version: u64) -> Stock {
    Stock {
        sku: sku.into(),
        on_hand,
        version,
    }
}

/// Counters changed 1,000 times each way — `add`, an update that creates, `modify` — end
/// exactly at what was reported applied, plus at most what was reported unknown.
async fn counters_never_count_twice() {
    let (_proxy, table, direct) = lossy("once-count", 12).await;
    const KEYS: usize = 10;
    let per_key = WRITES / KEYS;
    let f = Account::fields();

    // The final count of key `k` must be within what the outcomes allow.
    let within = |kind: &str, tallies: &[Tally], counts: Vec<i64>| {
        let mut all = Tally::default();
        for (k, (t, count)) in tallies.iter().zip(counts).enumerate() {
            let (low, high) = (t.applied as i64, (t.applied + t.unknown) as i64);
            if !(low..=high).contains(&count) {
                all.mismatches.push(format!(
                    "{kind} key {k}: counted {count}, outcomes allow {low}..={high}"
                ));
            }
            all.applied += t.applied;
            all.unknown += t.unknown;
            all.not_applied += t.not_applied;
            all.mismatches.extend(t.mismatches.iter().cloned());
        }
        all.check(kind);
    };

    // update add.
    for k in 0..KEYS {
        direct
            .put(&account_with(format!("add{k}"), 0))
            .await
            .unwrap();
    }
    let tallies = per_key_writes(KEYS, per_key, |k| {
        let (table, f) = (&table, &f);
        Box::pin(async move {
            let key = Account::key(format!("add{k}")).unwrap();
            table.update(&key, f.balance.add(1)).await.map(|_| ())
        })
    })
    .await;
    let counts = balances(&direct, "add", KEYS).await;
    within("update add", &tallies, counts);

    // An `ADD` inside a `#[nested]` map, the same: its counter counts each applied once.
    for k in 0..KEYS {
        direct
            .put(&account_with(format!("nest{k}"), 0))
            .await
            .unwrap();
    }
    let tallies = per_key_writes(KEYS, per_key, |k| {
        let (table, f) = (&table, &f);
        Box::pin(async move {
            let key = Account::key(format!("nest{k}")).unwrap();
            table
                .update(&key, f.profile.visits.add(1))
                .await
                .map(|_| ())
        })
    })
    .await;
    let mut counts = Vec::new();
    for k in 0..KEYS {
        let key = Account::key(format!("nest{k}")).unwrap();
        let stored = direct.get(&key).consistent().await.unwrap().unwrap();
        // Every account starts with one visit.
        counts.push(i64::from(stored.profile.visits) - 1);
    }
    within("nested add", &tallies, counts);

    // Update that creates: the first creates the record from the template (balance 0,
    // changed: 1), every later one adds 1.
    let tallies = per_key_writes(KEYS, per_key, |k| {
        let (table, f) = (&table, &f);
        Box::pin(async move {
            let template = account_with(format!("new{k}"), 0);
            let key = Account::key(&template.id).unwrap();
            let change = table.update(&key, f.balance.add(1)).or_create(&template);
            change.await.map(|_| ())
        })
    })
    .await;
    let counts = balances(&direct, "new", KEYS).await;
    within("update that creates", &tallies, counts);

    // modify.
    for k in 0..KEYS {
        direct.put(&stock(&format!("m{k}"), 0, 0)).await.unwrap();
    }
    let tallies = per_key_writes(KEYS, per_key, |k| {
        let table = &table;
        Box::pin(async move {
            let key = Stock::key(format!("m{k}")).unwrap();
            let result = table.modify(&key, |s| s.on_hand += 1).await;
            result.map(|s| assert!(s.is_some()))
        })
    })
    .await;
    let mut counts = Vec::new();
    for k in 0..KEYS {
        let key = Stock::key(format!("m{k}")).unwrap();
        let stored = direct.get(&key).consistent().await.unwrap().unwrap();
        counts.push(i64::from(stored.on_hand));
    }
    within("modify", &tallies, counts);
}

/// Run `write(k)` `per_key` times for each key `k` of `0..keys`: one write at a time per
/// key, the keys at once. Each key's tally.
async fn per_key_writes<'a>(
    keys: usize,
    per_key: usize,
    write: impl Fn(usize) -> BoxedWrite<'a>,
) -> Vec<Tally> {
    let write = &write;
    futures::future::join_all((0..keys).map(|k| async move {
        let mut tally = Tally::default();
        for _ in 0..per_key {
            let result = write(k).await;
            match said(&result) {
                Said::Applied => tally.applied += 1,
                Said::Unknown => tally.unknown += 1,
                Said::NotApplied => tally.mismatches.push(format!("{result:?}")),
            }
        }
        tally
    }))
    .await
}

/// One write of a counter, boxed.
type BoxedWrite<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = faceteer::Result<()>> + Send + 'a>>;

/// The balances of accounts `{prefix}0..{prefix}{n}`.
async fn balances(direct: &Table, prefix: &str, n: usize) -> Vec<i64> {
    let mut out = Vec::new();
    for k in 0..n {
        let key = Account::key(format!("{prefix}{k}")).unwrap();
        let stored = direct.get(&key).consistent().await.unwrap();
        out.push(stored.map_or(0, |a| a.balance));
    }
    out
}

/// `delete().if_exists()` on 1,000 keys, a quarter of them absent; and 1,000 transactions
/// that add 1 to a counter and create a note: each transaction's note is stored exactly
/// when it reported `Ok` (or maybe, when unknown), and the counters match the notes.
async fn deletes_and_transactions_are_reported_exactly() {
    let (_proxy, table, direct) = lossy("once-tx", 13).await;

    let exists = |i: usize| !i.is_multiple_of(4);
    let seeded = direct
        .put_many(
            (0..WRITES)
                .filter(|i| exists(*i))
                .map(|i| account(&format!("d{i}"))),
        )
        .await;
    assert!(seeded.failed.is_empty() && seeded.unknown.is_empty());
    let keys: Vec<Key<Account>> = (0..WRITES)
        .map(|i| Account::key(format!("d{i}")).unwrap())
        .collect();
    let said_ = results(|i| {
        let (table, key) = (&table, &keys[i]);
        async move { (i, table.delete(key).if_exists().await) }
    })
    .await;
    let now = stored(&direct, keys.clone()).await;
    let mut t = Tally::default();
    for (i, (key, result)) in keys.iter().zip(&said_).enumerate() {
        let present = now.contains_key(key);
        let refused = matches!(result, Err(Error::ConditionFailed { .. }));
        match said(result) {
            Said::Applied if exists(i) && !present => t.applied += 1,
            Said::NotApplied if !exists(i) && refused && !present => t.not_applied += 1,
            Said::Unknown => t.unknown += 1,
            _ => t.mismatches.push(format!(
                "delete {i} (existed: {}): {result:?}, present: {present}",
                exists(i)
            )),
        }
    }
    t.check("delete if_exists");

    const COUNTERS: usize = 10;
    for k in 0..COUNTERS {
        direct
            .put(&account_with(format!("tx{k}"), 0))
            .await
            .unwrap();
    }
    let f = Account::fields();
    let outcomes: Mutex<Vec<(usize, Said)>> = Mutex::new(Vec::new());
    // moto backs up the whole table before a transaction and restores it when the
    // transaction is canceled, undoing every write other requests made meanwhile
    // (`transact_write_items` in moto/dynamodb/models/__init__.py): one at a time there.
    let concurrency = match faceteer_suite::server() {
        faceteer_suite::Server::Moto(_) => 1,
        _ => CONCURRENCY,
    };
    each_at(concurrency, WRITES, |i| {
        let (table, f, outcomes) = (&table, &f, &outcomes);
        async move {
            let counter = Account::key(format!("tx{}", i % COUNTERS)).unwrap();
            let result = table
                .transact_write()
                .update(table.update(&counter, f.balance.add(1)))
                .put(table.put(&note("tx", i)).if_not_exists())
                .await;
            if let Err(e) = &result {
                assert!(e.is_outcome_unknown(), "transaction {i}: {e}");
            }
            outcomes.lock().unwrap().push((i, said(&result)));
        }
    })
    .await;
    let stored = stored_keys(&direct).await;
    let mut tally = Tally::default();
    let mut applied_per_counter = [0i64; COUNTERS];
    for (i, said) in outcomes.into_inner().unwrap() {
        let k: Key<Note> = Note::key("tx", format!("n{i:03}")).unwrap();
        let present = stored.contains(&key_pair(&k));
        if present {
            applied_per_counter[i % COUNTERS] += 1;
        }
        match (said, present) {
            (Said::Applied, true) => tally.applied += 1,
            (Said::Unknown, _) => tally.unknown += 1,
            (_, present) => tally
                .mismatches
                .push(format!("transaction {i}: note stored: {present}")),
        }
    }
    let counts = balances(&direct, "tx", COUNTERS).await;
    for (k, (count, applied)) in counts.iter().zip(applied_per_counter).enumerate() {
        if *count != applied {
            tally.mismatches.push(format!(
                "counter {k}: {count}, but {applied} transactions are applied"
            ));
        }
    }
    tally.check("transact_write");
}

/// Concurrent `modify`s that each take one from a counter write identical items when they
/// read one version: with answers lost, a try must never take another writer's identical
/// item for its own, or two decrements count once (a lost update once seen on a loaded
/// moto).
async fn concurrent_modifies_under_lost_answers_lose_nothing() {
    let (proxy, table, direct) = lossy("modify-lossy", 31).await;
    const START: u32 = 1_000;
    const ROUNDS: usize = 12;
    const WRITERS: usize = 6;
    let key = Stock::key("sku-lossy").unwrap();
    direct.put(&stock("sku-lossy", START, 0)).await.unwrap();
    let (mut done, mut unknown) = (0u32, 0u32);
    for _ in 0..ROUNDS {
        let writers = (0..WRITERS).map(|_| {
            table
                .modify(&key, |s: &mut Stock| s.on_hand -= 1)
                .attempts(WRITERS as u32 * 4)
                .into_future()
        });
        for result in futures::future::join_all(writers).await {
            match result {
                Ok(Some(_)) => done += 1,
                Err(e) if e.is_outcome_unknown() => unknown += 1,
                other => panic!("a modify ended {other:?}"),
            }
        }
    }
    let stored = direct.get(&key).consistent().await.unwrap().unwrap();
    let applied = START - stored.on_hand;
    // Every done decrement is stored; an unknown one may or may not be.
    assert!(
        applied >= done && applied <= done + unknown,
        "{applied} decrements stored, {done} reported done and {unknown} unknown"
    );
    // The first put stored version 1.
    assert_eq!(
        stored.version,
        u64::from(applied) + 1,
        "one version per decrement"
    );
    assert!(
        proxy
            .stats()
            .lost_answers
            .load(std::sync::atomic::Ordering::Relaxed)
            > 0,
        "answers were lost"
    );
}

faceteer_suite::engines!(
    concurrent_modifies_under_lost_answers_lose_nothing,
    puts_are_reported_exactly,
    counters_never_count_twice,
    deletes_and_transactions_are_reported_exactly,
);
