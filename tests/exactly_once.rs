//! Exactly once under lost answers: a proxy forwards every write, lets the engine apply it
//! (or refuse it), and then loses the answer for a quarter of them (a 500, a reset
//! connection, or no answer at all). For 1,000 writes of each kind, every outcome is
//! checked against a direct read of what the table holds: `Ok` only when applied once, a
//! "not applied" error only when certainly not, and otherwise `OutcomeUnknown`.

use crate::common;

use std::sync::Mutex;
use std::time::Duration;

use common::*;
use faceteer::{BatchOptions, Error, Key, Table, Timeouts};
use faceteer_suite::fault::{FaultConfig, FaultProxy};
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

/// What one write returned, as the tally counts it.
enum Said {
    Applied,
    NotApplied,
    Unknown,
}

fn said<T>(result: &faceteer::Result<T>) -> Said {
    match result {
        Ok(_) => Said::Applied,
        Err(e) if e.is_outcome_unknown() => Said::Unknown,
        Err(_) => Said::NotApplied,
    }
}

/// A proxy that loses a quarter of all write answers after the server acted (a 500 or a
/// reset connection), a table reached through it, and the same table reached directly.
///
/// The tries' deadline is generous: a try abandoned while the server still works on it can
/// land after a later call's write, which nothing in DynamoDB can prevent (see the README,
/// "Exactly once"); requests held past their deadline are `late_writes_never_pass_for_done`'s
/// subject, in the same call.
async fn lossy(label: &str, seed: u64) -> (FaultProxy, Table, Table) {
    let faults = FaultConfig {
        single_writes: true,
        fail_after: 0.1,
        reset_after: 0.15,
        seed,
        ..FaultConfig::default()
    };
    let upstream = faceteer_suite::endpoint().expect("a local endpoint");
    let proxy = FaultProxy::start(&upstream, faults).await.unwrap();
    let client = faceteer::embedded::client_for(&proxy.endpoint());
    let table = faceteer_suite::fresh_table_with::<TestTable>(client, label)
        .await
        .with_batch_options(BatchOptions {
            write_attempts: 8,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(20),
            ..BatchOptions::default()
        })
        .with_timeouts(Timeouts {
            attempt: Duration::from_secs(60),
            operation: Duration::from_secs(120),
            call: Duration::from_secs(300),
            ..Timeouts::default()
        });
    let direct = Table::declared::<TestTable>(faceteer_suite::client().await, table.name())
        .with_timeouts(Timeouts {
            attempt: Duration::from_secs(120),
            operation: Duration::from_secs(600),
            call: Duration::from_secs(600),
            ..Timeouts::default()
        });
    (proxy, table, direct)
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

/// Plain puts, `if_not_exists` puts (half on keys that exist) and versioned puts (half
/// stale): `Ok` exactly when the table holds the record written.
async fn puts_are_reported_exactly() {
    let (proxy, table, direct) = lossy("once-put", 11).await;

    let plain = Mutex::new(Tally::default());
    each(WRITES, |i| {
        let (table, direct, tally) = (&table, &direct, &plain);
        async move {
            let record = account_with(format!("p{i}"), i as i64);
            let result = table.put(&record).await;
            let stored = direct.get(&Account::key(&record.id).unwrap()).consistent();
            let stored = stored.await.unwrap();
            let mut t = tally.lock().unwrap();
            match said(&result) {
                Said::Applied if stored.as_ref() != Some(&record) => t
                    .mismatches
                    .push(format!("put {i}: Ok, table holds {stored:?}")),
                Said::Applied => t.applied += 1,
                Said::NotApplied => t.mismatches.push(format!("put {i}: {result:?}")),
                Said::Unknown => t.unknown += 1,
            }
        }
    })
    .await;
    plain.into_inner().unwrap().check("put");

    let fresh = Mutex::new(Tally::default());
    each(WRITES, |i| {
        let (table, direct, tally) = (&table, &direct, &fresh);
        async move {
            let id = format!("c{i}");
            let existing = account_with(id.clone(), -1);
            if i % 2 == 0 {
                direct.put(&existing).await.unwrap();
            }
            let record = account_with(id.clone(), i as i64);
            let result = table.put(&record).if_not_exists().await;
            let stored = direct.get(&Account::key(&id).unwrap()).consistent();
            let stored = stored.await.unwrap();
            let mut t = tally.lock().unwrap();
            match said(&result) {
                Said::Applied if stored.as_ref() == Some(&record) && i % 2 == 1 => t.applied += 1,
                Said::NotApplied
                    if matches!(result, Err(Error::ConditionFailed { .. }))
                        && stored.as_ref() == Some(&existing) =>
                {
                    t.not_applied += 1
                }
                Said::Unknown => t.unknown += 1,
                _ => t
                    .mismatches
                    .push(format!("create {i}: {result:?}, table holds {stored:?}")),
            }
        }
    })
    .await;
    fresh.into_inner().unwrap().check("put if_not_exists");

    let versioned = Mutex::new(Tally::default());
    each(WRITES, |i| {
        let (table, direct, tally) = (&table, &direct, &versioned);
        async move {
            let sku = format!("v{i}");
            direct.put(&stock(&sku, 1, 0)).await.unwrap();
            direct.put(&stock(&sku, 2, 1)).await.unwrap();
            // Stored now: version 2. Odd writes are stale (read at version 1).
            let read_at = if i % 2 == 0 { 2 } else { 1 };
            let record = stock(&sku, 100 + i as u32, read_at);
            let result = table.put(&record).await;
            let stored = direct.get(&Stock::key(&sku).unwrap()).consistent();
            let stored = stored.await.unwrap().unwrap();
            let written = stock(&sku, 100 + i as u32, read_at + 1);
            let mut t = tally.lock().unwrap();
            match said(&result) {
                Said::Applied if stored == written && read_at == 2 => t.applied += 1,
                Said::NotApplied
                    if matches!(result, Err(Error::VersionConflict { .. }))
                        && stored == stock(&sku, 2, 2) =>
                {
                    t.not_applied += 1
                }
                Said::Unknown => t.unknown += 1,
                _ => t.mismatches.push(format!(
                    "versioned put {i}: {result:?}, table holds {stored:?}"
                )),
            }
        }
    })
    .await;
    versioned.into_inner().unwrap().check("versioned put");
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
/// exactly at what was reported applied, plus at most what was reported unknown. Upserts
/// are checked one by one.
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
    let counted = |tally: &mut Tally, result: faceteer::Result<()>| match said(&result) {
        Said::Applied => tally.applied += 1,
        Said::Unknown => tally.unknown += 1,
        Said::NotApplied => tally.mismatches.push(format!("{result:?}")),
    };

    // update add.
    let mut tallies: Vec<Tally> = (0..KEYS).map(|_| Tally::default()).collect();
    futures::future::join_all(tallies.iter_mut().enumerate().map(|(k, tally)| {
        let (table, direct, f) = (&table, &direct, &f);
        async move {
            let id = format!("add{k}");
            direct.put(&account_with(id.clone(), 0)).await.unwrap();
            let key = Account::key(&id).unwrap();
            for _ in 0..per_key {
                let result = table.update(&key, f.balance.add(1)).await.map(|_| ());
                counted(tally, result);
            }
        }
    }))
    .await;
    let counts = balances(&direct, "add", KEYS).await;
    within("update add", &tallies, counts);

    // Update that creates: the first creates the record from the template (balance 0,
    // changed: 1), every later one adds 1.
    let mut tallies: Vec<Tally> = (0..KEYS).map(|_| Tally::default()).collect();
    futures::future::join_all(tallies.iter_mut().enumerate().map(|(k, tally)| {
        let (table, f) = (&table, &f);
        async move {
            let template = account_with(format!("new{k}"), 0);
            let key = Account::key(&template.id).unwrap();
            for _ in 0..per_key {
                let result = table
                    .update(&key, f.balance.add(1))
                    .or_create(&template)
                    .await
                    .map(|_| ());
                counted(tally, result);
            }
        }
    }))
    .await;
    let counts = balances(&direct, "new", KEYS).await;
    within("update that creates", &tallies, counts);

    // modify.
    let mut tallies: Vec<Tally> = (0..KEYS).map(|_| Tally::default()).collect();
    futures::future::join_all(tallies.iter_mut().enumerate().map(|(k, tally)| {
        let (table, direct) = (&table, &direct);
        async move {
            let sku = format!("m{k}");
            direct.put(&stock(&sku, 0, 0)).await.unwrap();
            let key = Stock::key(&sku).unwrap();
            for _ in 0..per_key {
                let result = table.modify(&key, |s| s.on_hand += 1).await;
                let result = result.map(|s| assert!(s.is_some()));
                counted(tally, result);
            }
        }
    }))
    .await;
    let mut counts = Vec::new();
    for k in 0..KEYS {
        let key = Stock::key(format!("m{k}")).unwrap();
        let stored = direct.get(&key).consistent().await.unwrap().unwrap();
        counts.push(i64::from(stored.on_hand));
    }
    within("modify", &tallies, counts);

    // Upserts, each checked as it returns.
    let upserts = Mutex::new(Tally::default());
    each(WRITES, |i| {
        let (table, direct, tally) = (&table, &direct, &upserts);
        async move {
            let id = format!("up{}", i % 100);
            let record = account_with(id.clone(), i as i64);
            let result = table.upsert(&record).await.map(|_| ());
            let stored = direct.get(&Account::key(&id).unwrap()).consistent();
            let stored = stored.await.unwrap();
            let mut t = tally.lock().unwrap();
            match said(&result) {
                Said::Applied if stored.as_ref() == Some(&record) => t.applied += 1,
                Said::Unknown => t.unknown += 1,
                _ => t
                    .mismatches
                    .push(format!("upsert {i}: {result:?}, table holds {stored:?}")),
            }
        }
    })
    .await;
    // Upserts of one key run one after another (`i % 100` in flight 8 at a time never
    // repeats), so each stored record is the one just written.
    upserts.into_inner().unwrap().check("upsert");
}

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

    let deletes = Mutex::new(Tally::default());
    each(WRITES, |i| {
        let (table, direct, tally) = (&table, &direct, &deletes);
        async move {
            let id = format!("d{i}");
            let exists = i % 4 != 0;
            if exists {
                direct.put(&account(&id)).await.unwrap();
            }
            let key = Account::key(&id).unwrap();
            let result = table.delete(&key).if_exists().await;
            let stored = direct.get(&key).consistent().await.unwrap();
            let mut t = tally.lock().unwrap();
            match said(&result) {
                Said::Applied if exists && stored.is_none() => t.applied += 1,
                Said::NotApplied
                    if !exists && matches!(result, Err(Error::ConditionFailed { .. })) =>
                {
                    t.not_applied += 1
                }
                Said::Unknown => t.unknown += 1,
                _ => t.mismatches.push(format!(
                    "delete {i} (existed: {exists}): {result:?}, table holds {stored:?}"
                )),
            }
        }
    })
    .await;
    deletes.into_inner().unwrap().check("delete if_exists");

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
                .update(&counter, f.balance.add(1))
                .create(&note("tx", i))
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

faceteer_suite::engines!(
    puts_are_reported_exactly,
    counters_never_count_twice,
    deletes_and_transactions_are_reported_exactly,
);
