//! A concurrent history, checked as Jepsen's Elle checks one: many clients write and read
//! a few records at once, through a proxy that applies requests and then loses their
//! answers, and that holds some back to apply them late (out of order). Every write
//! appends an element unique to it to a record's list, so the final lists tell in which
//! order writes applied and every read shows which writes it saw.
//! [`faceteer::testing::history`] then finds every anomaly: a write applied twice, reported
//! failed yet applied, or reported done yet lost; a read of a value never written, a
//! consistent read missing a completed write, a deleted record back again, a transaction
//! half visible. Beside it, this test checks what only the records can tell: transfers
//! conserve the total, every record's counter matches its list, every index entry matches
//! its record, and no unique value has two owners.
//!
//! Every kind of write runs: `update` (`append` and `add`, and an `ADD` inside a `#[nested]`
//! map), an update that creates, `modify` (which sends what changed), versioned `put`,
//! `upsert` on condition, `save` of what changed, `put().if_not_exists()`, `delete().if_exists()`,
//! two-record transactions, and puts, updates, moves and deletes of a facet with a unique
//! field;
//! reads are consistent gets, transactional gets of every record, and index queries.
//!
//! Both choices of [`LostAnswers`] run on the embedded engine. moto keeps no
//! `ClientRequestToken` (a repeated `TransactWriteItems` is applied again), so
//! `LostAnswers::Resend` would apply resent writes twice there: moto runs `Report` only.
//! A planted double apply — a client that sends a plain `UpdateItem` again after a lost
//! answer, as faceteer's write token once did — must be caught.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer::hook::{Hooks, Tenant};
use faceteer::testing::history::{Anomaly, History, Op, Pending, Report};
use faceteer::testing::{FaultConfig, FaultProxy};
use faceteer::{Facet, LostAnswers, Table, Timeouts};
use faceteer_core::unique::{guards, is_guard, OWNER_PK, OWNER_SK};
use serde::{Deserialize, Serialize};

/// A record holding a list of elements, one per write applied to it.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "LOG")]
struct Log {
    #[pk(prefix = "#LOG")]
    #[sk(prefix = "#LOG")]
    #[gsi(n = 1, sk, prefix = "#LOG")]
    id: String,
    #[gsi(n = 1, alias = "LogsByGroup", pk, prefix = "#GROUP")]
    group: String,
    /// How many writes appended.
    count: i64,
    elements: Vec<u64>,
    /// Moved only by transfers between records.
    balance: i64,
    /// Counts the appends too, inside a map (nested `ADD`s, and whole-record writes).
    #[nested]
    stats: Stats,
    /// The tenant, in the runs through the `Tenant` hook (stamped by it).
    #[serde(default)]
    tenant: String,
    #[version]
    version: u64,
}

/// A map inside the record.
#[derive(Debug, Clone, PartialEq, faceteer::Nested, Serialize, Deserialize)]
struct Stats {
    appended: i64,
}

/// A claim on a code no other claim may hold.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "CLAIM")]
struct Claim {
    #[pk(prefix = "#CLAIM")]
    #[sk(prefix = "#CLAIM")]
    id: String,
    #[unique]
    code: Option<String>,
}

faceteer::table! {
    struct Logs { Log, Claim }
}

/// Records never deleted: appends, transfers, reads.
const STABLE: [&str; 4] = ["a0", "a1", "a2", "a3"];
/// Records created and deleted as well.
const FLEETING: [&str; 2] = ["d0", "d1"];
/// Each stable record's balance at the start.
const BALANCE: i64 = 100;
const GROUP: &str = "g";

fn log(id: &str, elements: Vec<u64>, balance: i64) -> Log {
    Log {
        id: id.into(),
        group: GROUP.into(),
        count: elements.len() as i64,
        stats: Stats {
            appended: elements.len() as i64,
        },
        elements,
        balance,
        tenant: String::new(),
        version: 0,
    }
}

/// One run's settings.
struct Run {
    label: &'static str,
    seed: u64,
    clients: usize,
    ops_per_client: usize,
    lost_answers: LostAnswers,
    /// Through the built-in `Tenant` hook, as tenant `t1`, with an intruder (`t2`) writing
    /// the same records: every write of the intruder must be refused, none applied.
    hooked: bool,
}

/// The tenant of the hooked runs.
const TENANT: &str = "t1";

/// A table reached through a proxy that loses a quarter of the answers to writes after
/// applying them and holds a twentieth back, to apply them after the client gave up on
/// them; and the same table reached directly.
async fn lossy(label: &str, seed: u64) -> (FaultProxy, Table, Table) {
    let faults = FaultConfig {
        single_writes: true,
        fail_after: 0.1,
        reset_after: 0.15,
        late_share: 0.05,
        late_by: Duration::from_millis(1500),
        seed,
        ..FaultConfig::default()
    };
    // A held-back request is never answered: its try ends at the attempt deadline, and the
    // proxy applies it later. Any try slower than that on a loaded machine only makes one
    // more outcome unknown.
    let timeouts = Timeouts {
        attempt: Duration::from_secs(1),
        operation: Duration::from_secs(60),
        call: Duration::from_secs(120),
        ..Timeouts::default()
    };
    common::lossy_table_with::<Logs>(label, faults, timeouts, 6).await
}

/// Complete `pending` with a write's result: `Ok`, certainly not applied, or unknown.
fn settle<T>(pending: Pending, result: &faceteer::Result<T>) {
    match result {
        Ok(_) => pending.ok(),
        Err(e) if e.is_outcome_unknown() => pending.unknown(),
        Err(_) => pending.failed(),
    }
}

/// Anomalies only the records tell, found by reads: (what, which read).
type Broken = Arc<Mutex<Vec<String>>>;

/// Check what one consistent view of a record must hold: its counters count its list.
fn check_record(r: &Log, broken: &Broken, seen_by: &str) {
    if r.stats.appended != r.count {
        broken.lock().unwrap().push(format!(
            "{seen_by}: record {} counts {} in its map but {} beside it",
            r.id, r.stats.appended, r.count
        ));
    }
    if r.count != r.elements.len() as i64 {
        broken.lock().unwrap().push(format!(
            "{seen_by}: record {} counts {} but holds {} elements",
            r.id,
            r.count,
            r.elements.len()
        ));
    }
}

/// One client: `ops` random operations.
async fn client(
    process: usize,
    run: &Run,
    table: &Table,
    history: &History,
    next: &AtomicU64,
    broken: &Broken,
) {
    let mut rng = fastrand::Rng::with_seed(run.seed * 1000 + process as u64);
    let f = Log::fields();
    let intruder = run.hooked.then(|| table.for_tenant("t2"));
    for _ in 0..run.ops_per_client {
        let e = next.fetch_add(1, Ordering::Relaxed);
        let any = |rng: &mut fastrand::Rng| {
            if rng.u8(..4) == 0 {
                FLEETING[rng.usize(..FLEETING.len())]
            } else {
                STABLE[rng.usize(..STABLE.len())]
            }
        };
        let append = |keys: &[&str], creates| Op::Append {
            keys: keys.iter().map(|k| (*k).to_owned()).collect(),
            element: e,
            creates,
        };
        let one = |k: &str| vec![k.to_owned()];
        match rng.u8(..13) {
            // update: append and count.
            0 | 1 => {
                let k = any(&mut rng);
                let change = f.elements.append([e]) & f.count.add(1) & f.stats.appended.add(1);
                // In a hooked run, now and then another tenant tries the same write.
                if let Some(intruder) = intruder.as_ref().filter(|_| rng.u8(..5) == 0) {
                    let p = history.invoke(process, append(&[k], false));
                    let result = intruder.update(&Log::key(k).unwrap(), change).await;
                    match &result {
                        Ok(()) => broken
                            .lock()
                            .unwrap()
                            .push(format!("tenant t2's update of {k} applied")),
                        Err(e) if e.is_outcome_unknown() || e.refusal().is_some() => {}
                        Err(e) if e.is_condition_failed() => {}
                        Err(e) => broken
                            .lock()
                            .unwrap()
                            .push(format!("tenant t2's update of {k} failed otherwise: {e}")),
                    }
                    settle(p, &result);
                    continue;
                }
                let p = history.invoke(process, append(&[k], false));
                settle(p, &table.update(&Log::key(k).unwrap(), change).await);
            }
            // An update that creates.
            2 => {
                let k = any(&mut rng);
                let p = history.invoke(process, append(&[k], true));
                // The nested `ADD` also applies to the record it would create.
                let change = f.elements.append([e]) & f.count.add(1) & f.stats.appended.add(1);
                let template = log(k, Vec::new(), 0);
                let result = table
                    .update(&Log::key(k).unwrap(), change)
                    .or_create(&template)
                    .await;
                settle(p, &result);
            }
            // modify: read, change, write with a version check. Only on records never
            // deleted: a record deleted and created again counts its versions from 1 again,
            // so a version read before the delete can be met again after it (optimistic
            // locking's ABA), and the stale list read would be written back.
            3 => {
                let k = STABLE[rng.usize(..STABLE.len())];
                let p = history.invoke(process, append(&[k], false));
                let result = table
                    .modify(&Log::key(k).unwrap(), |r: &mut Log| {
                        r.elements.push(e);
                        r.count += 1;
                        r.stats.appended += 1;
                    })
                    .await;
                match result {
                    Ok(None) => p.failed(),
                    other => settle(p, &other),
                }
            }
            // A versioned put, or an upsert on condition, of what a consistent read gave.
            4 | 5 => {
                let k = STABLE[rng.usize(..STABLE.len())];
                let read = history.invoke(process, read_op(&one(k), false));
                let got = table.get(&Log::key(k).unwrap()).consistent().await;
                let Some(r) = observe(read, got, broken, "a get") else {
                    continue;
                };
                let p = history.invoke(process, append(&[k], false));
                let mut next_r = r.clone();
                next_r.elements.push(e);
                next_r.count += 1;
                next_r.stats.appended += 1;
                // Only on records never deleted, as `modify` (and an upsert creates a missing
                // record whatever its condition).
                let result = match rng.u8(..3) {
                    0 => table.put(&next_r).await,
                    1 => table
                        .upsert(&next_r)
                        .when(f.version.eq(r.version))
                        .await
                        .map(|_| ()),
                    // A save of what changed, conditioned on the version read.
                    _ => table.save(&r, &next_r).await.map(|_| ()),
                };
                settle(p, &result);
            }
            // Create a fleeting record, or delete it.
            6 => {
                let k = FLEETING[rng.usize(..FLEETING.len())];
                let p = history.invoke(
                    process,
                    Op::Create {
                        key: k.to_owned(),
                        element: e,
                    },
                );
                settle(p, &table.put(&log(k, vec![e], 0)).if_not_exists().await);
            }
            7 => {
                let k = FLEETING[rng.usize(..FLEETING.len())];
                let p = history.invoke(process, Op::Delete { key: k.to_owned() });
                settle(p, &table.delete(&Log::key(k).unwrap()).if_exists().await);
            }
            // A transfer between two stable records, each gaining the element.
            8 => {
                let i = rng.usize(..STABLE.len());
                let j = (i + 1 + rng.usize(..STABLE.len() - 1)) % STABLE.len();
                let (from, to) = (STABLE[i], STABLE[j]);
                let p = history.invoke(process, append(&[from, to], false));
                let step = |amount: i64| {
                    f.elements.append([e])
                        & f.count.add(1)
                        & f.stats.appended.add(1)
                        & f.balance.add(amount)
                };
                let result = table
                    .transact_write()
                    .update(table.update(&Log::key(from).unwrap(), step(-1)))
                    .update(table.update(&Log::key(to).unwrap(), step(1)))
                    .await;
                settle(p, &result);
            }
            // A consistent get.
            9 => {
                let k = any(&mut rng);
                let read = history.invoke(process, read_op(&one(k), false));
                let got = table.get(&Log::key(k).unwrap()).consistent().await;
                observe(read, got, broken, "a get");
            }
            // One snapshot of every stable record: the total is conserved.
            10 => {
                let keys: Vec<String> = STABLE.iter().map(|k| (*k).to_owned()).collect();
                let read = history.invoke(process, read_op(&keys, true));
                let mut tx = table.transact_get();
                let handles: Vec<_> = STABLE
                    .iter()
                    .map(|k| tx.get(&Log::key(*k).unwrap()))
                    .collect();
                match tx.await {
                    Ok(mut got) => {
                        let mut values = Vec::new();
                        let mut total = 0;
                        for h in handles {
                            let r = got.take(h).unwrap();
                            if let Some(r) = &r {
                                check_record(r, broken, "a transactional get");
                                total += r.balance;
                            }
                            values.push(r.map(|r| r.elements));
                        }
                        if values.iter().all(Option::is_some)
                            && total != BALANCE * STABLE.len() as i64
                        {
                            broken
                                .lock()
                                .unwrap()
                                .push(format!("a transactional get totals {total}"));
                        }
                        read.read(values);
                    }
                    Err(_) => read.read_failed(),
                }
            }
            // An index query (eventually consistent: checked for values never written).
            11 => {
                let keys: Vec<String> = STABLE
                    .iter()
                    .chain(&FLEETING)
                    .map(|k| (*k).to_owned())
                    .collect();
                let read = history.invoke(
                    process,
                    Op::Read {
                        keys: keys.clone(),
                        consistent: false,
                        atomic: false,
                    },
                );
                let query = table.query(Log::by_logs_by_group(GROUP).list()).all().await;
                // A read that fails claims nothing (a slow server times it out).
                let Ok(records) = query else {
                    read.read_failed();
                    continue;
                };
                for r in &records {
                    check_record(r, broken, "an index query");
                }
                let mut found: HashMap<String, Vec<u64>> =
                    records.into_iter().map(|r| (r.id, r.elements)).collect();
                read.read(keys.iter().map(|k| found.remove(k)).collect());
            }
            // A unique claim: taken, moved to another code, or given up.
            _ => {
                let claim = Claim {
                    id: format!("c{}", rng.u8(..4)),
                    code: Some(format!("code{}", rng.u8(..3))),
                };
                let key = Claim::key(&claim.id).unwrap();
                let result = match rng.u8(..4) {
                    0 => table.put(&claim).await,
                    1 => table.delete(&key).await,
                    // A move to another id keeps the code, its guard moved along.
                    2 => match table.get(&key).consistent().await {
                        Ok(Some(stored)) => {
                            let to = Claim {
                                id: format!("c{}", rng.u8(4..8)),
                                ..stored
                            };
                            table.move_to(&key, &to).await
                        }
                        Ok(None) => Ok(()),
                        Err(e) => Err(e),
                    },
                    _ => {
                        table
                            .update(&key, Claim::fields().code.set(claim.code.clone().unwrap()))
                            .await
                    }
                };
                if let Err(e) = result {
                    // Refused, unknown, or failed on the way (its read timed out, another
                    // transaction conflicted): the guards, checked at the end, tell the rest.
                    let expected = e.is_outcome_unknown()
                        || e.is_unique()
                        || e.is_condition_failed()
                        || e.is_timeout()
                        || matches!(
                            e,
                            faceteer::Error::Dynamo(_)
                                | faceteer::Error::TransactionCanceled { .. }
                        );
                    if !expected {
                        broken.lock().unwrap().push(format!("a claim failed: {e}"));
                    }
                }
            }
        }
    }
}

fn read_op(keys: &[String], atomic: bool) -> Op {
    Op::Read {
        keys: keys.to_vec(),
        consistent: true,
        atomic,
    }
}

/// Complete a one-record read, check the record, and return it.
fn observe(
    read: Pending,
    got: faceteer::Result<Option<Log>>,
    broken: &Broken,
    by: &str,
) -> Option<Log> {
    match got {
        Ok(r) => {
            if let Some(r) = &r {
                check_record(r, broken, by);
            }
            read.read(vec![r.as_ref().map(|r| r.elements.clone())]);
            r
        }
        Err(_) => {
            read.read_failed();
            None
        }
    }
}

/// Run `run` against the current engine; its report, and the anomalies the records tell.
async fn history_of(run: &Run) -> (Report, Vec<String>) {
    let (proxy, table, direct) = lossy(run.label, run.seed).await;
    let table = table.with_lost_answers(run.lost_answers);
    let table = if run.hooked {
        let tenant = Tenant::new("tenant").except::<Claim>();
        table
            .with_hooks(Hooks::new().table::<Logs, _>(tenant))
            .unwrap()
            .for_tenant(TENANT)
    } else {
        table
    };
    let tenant = if run.hooked { TENANT } else { "" };
    for k in STABLE {
        let mut r = log(k, Vec::new(), BALANCE);
        r.tenant = tenant.to_owned();
        direct.put(&r).await.unwrap();
    }
    let history = History::new();
    let next = AtomicU64::new(1);
    let broken: Broken = Arc::default();
    futures::future::join_all(
        (0..run.clients).map(|p| client(p, run, &table, &history, &next, &broken)),
    )
    .await;
    // Held-back requests land before the final state is read.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let mut broken = Arc::try_unwrap(broken).unwrap().into_inner().unwrap();
    let mut finals = BTreeMap::new();
    let mut total = 0;
    for k in STABLE.iter().chain(&FLEETING) {
        let r = direct
            .get(&Log::key(*k).unwrap())
            .consistent()
            .await
            .unwrap();
        if let Some(r) = &r {
            if r.tenant != tenant {
                broken.push(format!("final {k}: tenant {:?}, not {tenant:?}", r.tenant));
            }
            if r.count != r.elements.len() as i64 {
                broken.push(format!(
                    "final {k}: count {} for {} elements",
                    r.count,
                    r.elements.len()
                ));
            }
            if STABLE.contains(k) {
                total += r.balance;
            }
        }
        finals.insert((*k).to_owned(), r.map(|r| r.elements));
    }
    if total != BALANCE * STABLE.len() as i64 {
        broken.push(format!("the stable records' balances total {total}"));
    }
    broken.extend(index_mismatches(&direct, &finals).await);
    broken.extend(claim_mismatches(&direct).await);
    let report = history.check(&finals);
    let lost = proxy.stats().lost_answers.load(Ordering::Relaxed)
        + proxy.stats().held_back.load(Ordering::Relaxed);
    println!(
        "{} on {:?} ({:?}, seed {}): {report}; {lost} answers lost or held back",
        run.label,
        faceteer_suite::engine(),
        run.lost_answers,
        run.seed
    );
    assert!(lost > 50, "answers were lost ({lost})");
    (report, broken)
}

/// Every record has exactly one index entry, holding what the record holds; no entry for a
/// record that is gone.
async fn index_mismatches(
    direct: &Table,
    finals: &BTreeMap<String, Option<Vec<u64>>>,
) -> Vec<String> {
    let indexed = direct
        .query(Log::by_logs_by_group(GROUP).list())
        .all()
        .await
        .unwrap();
    let mut out = Vec::new();
    let mut by_id: HashMap<String, Vec<Vec<u64>>> = HashMap::new();
    for r in indexed {
        by_id.entry(r.id).or_default().push(r.elements);
    }
    for (k, v) in finals {
        let entries = by_id.remove(k).unwrap_or_default();
        let expected: Vec<Vec<u64>> = v.iter().cloned().collect();
        if entries != expected {
            out.push(format!(
                "index entries of {k}: {entries:?}, the record holds {v:?}"
            ));
        }
    }
    out.extend(
        by_id
            .into_iter()
            .map(|(k, e)| format!("stray index entries {e:?} of {k}")),
    );
    out
}

/// Every claim's code has its guard, every guard its claim, and no code two owners.
async fn claim_mismatches(direct: &Table) -> Vec<String> {
    let items = common::raw_items(direct).await;
    let s = |item: &faceteer::Item, n: &str| item[n].as_s().unwrap().clone();
    let stored: HashMap<String, (String, String)> = items
        .iter()
        .filter(|i| is_guard(i))
        .map(|g| (s(g, "PK"), (s(g, OWNER_PK), s(g, OWNER_SK))))
        .collect();
    let mut out = Vec::new();
    let mut expected: HashMap<String, (String, String)> = HashMap::new();
    for record in items
        .iter()
        .filter(|i| i.get("facet") == Some(&AttributeValue::S("CLAIM".into())))
    {
        for guard in guards(Claim::SCHEMA, record).unwrap() {
            let owner = (s(record, "PK"), s(record, "SK"));
            if let Some(other) = expected.insert(guard.pk.clone(), owner.clone()) {
                out.push(format!(
                    "{} has two owners: {other:?} and {owner:?}",
                    guard.pk
                ));
            }
        }
    }
    if expected != stored {
        out.push(format!("guards {stored:?}, claims {expected:?}"));
    }
    out
}

/// Both choices of [`LostAnswers`] where the engine keeps tokens, two seeds each (one run
/// of `Report` on moto): no anomaly of any kind.
async fn concurrent_histories_have_no_anomalies() {
    let resend_too = matches!(
        faceteer_suite::server(),
        faceteer_suite::Server::Embedded(_)
    );
    if !resend_too {
        println!(
            "moto keeps no ClientRequestToken: LostAnswers::Resend would apply a resent write \
             twice there, so only LostAnswers::Report runs"
        );
    }
    // moto serves one request at a time: one run there.
    // The second run of each choice goes through the `Tenant` hook.
    let mut runs = vec![(1, LostAnswers::Report, false)];
    if resend_too {
        runs.extend([
            (11, LostAnswers::Resend, false),
            (2, LostAnswers::Report, true),
            (12, LostAnswers::Resend, true),
        ]);
    } else {
        runs.push((2, LostAnswers::Report, true));
    }
    for (seed, lost_answers, hooked) in runs {
        let run = Run {
            label: "history",
            seed,
            clients: 10,
            ops_per_client: 250,
            lost_answers,
            hooked,
        };
        let (report, broken) = history_of(&run).await;
        assert!(
            report.is_valid() && broken.is_empty(),
            "{lost_answers:?}, seed {seed}: {report}\n{}",
            broken.join("\n")
        );
        assert!(report.writes_ok > 500, "{report}");
        assert!(report.reads > 300, "{report}");
        if lost_answers == LostAnswers::Resend {
            // Resent under tokens, most lost answers end `Ok`.
            assert!(report.writes_ok > 4 * report.writes_unknown, "{report}");
        }
    }
}

/// A client that sends a plain `UpdateItem` again after a lost answer applies it twice
/// when the first try was applied, whatever other writers do: the checker finds it.
async fn a_planted_double_apply_is_caught() {
    let (_proxy, table, direct) = lossy("history-planted", 3).await;
    for k in STABLE {
        direct.put(&log(k, Vec::new(), BALANCE)).await.unwrap();
    }
    let history = History::new();
    let next = AtomicU64::new(1);
    let naive = |p: usize| {
        let (table, history, next) = (&table, &history, &next);
        async move {
            let mut rng = fastrand::Rng::with_seed(p as u64);
            for _ in 0..60 {
                let e = next.fetch_add(1, Ordering::Relaxed);
                let k = STABLE[rng.usize(..2)];
                let key = Log::key(k).unwrap();
                let pending = history.invoke(
                    p,
                    Op::Append {
                        keys: vec![k.to_owned()],
                        element: e,
                        creates: false,
                    },
                );
                let mut ok = false;
                for _ in 0..6 {
                    let sent = table
                        .client()
                        .update_item()
                        .table_name(table.name())
                        .set_key(Some(key.to_item()))
                        .update_expression("SET #e = list_append(#e, :e), #c = #c + :one")
                        .expression_attribute_names("#e", "elements")
                        .expression_attribute_names("#c", "count")
                        .expression_attribute_values(
                            ":e",
                            AttributeValue::L(vec![AttributeValue::N(e.to_string())]),
                        )
                        .expression_attribute_values(":one", AttributeValue::N("1".into()))
                        .send()
                        .await;
                    if sent.is_ok() {
                        ok = true;
                        break;
                    }
                }
                if ok {
                    pending.ok()
                } else {
                    pending.unknown()
                }
            }
        }
    };
    futures::future::join_all((0..6).map(naive)).await;
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let mut finals = BTreeMap::new();
    for k in STABLE {
        let r = direct
            .get(&Log::key(k).unwrap())
            .consistent()
            .await
            .unwrap();
        finals.insert(k.to_owned(), r.map(|r| r.elements));
    }
    let report = history.check(&finals);
    println!("planted on {:?}: {report}", faceteer_suite::engine());
    assert!(
        report
            .anomalies
            .iter()
            .any(|a| matches!(a, Anomaly::DuplicateElement { .. })),
        "the planted double apply is caught: {report}"
    );
}

/// Many writers on the same encrypted records, through a proxy that loses answers: plain
/// updates beside whole writes that encrypt again (`modify`, versioned puts). Each write is
/// reported done, not done or unknown; done ones are in the record once, not-done ones never,
/// and the encrypted field always holds a whole write's own value.
async fn encrypted_records_keep_exact_histories() {
    use crate::common::{said, Said};
    use crate::encryption::{install_test_cipher, Clinic, Ledger};
    install_test_cipher().await;
    let faults = faceteer::testing::FaultConfig {
        single_writes: true,
        fail_after: 0.15,
        reset_after: 0.15,
        late_share: 0.05,
        late_by: Duration::from_millis(1500),
        seed: 43,
        ..faceteer::testing::FaultConfig::default()
    };
    let timeouts = faceteer::Timeouts {
        attempt: Duration::from_secs(1),
        operation: Duration::from_secs(60),
        call: Duration::from_secs(120),
        ..faceteer::Timeouts::default()
    };
    let (_proxy, table, direct) =
        crate::common::lossy_table_with::<Clinic>("encrypted-history", faults, timeouts, 6).await;
    let ids = ["l0", "l1"];
    for id in ids {
        let start = Ledger {
            id: id.into(),
            elements: Vec::new(),
            count: 0,
            secret: "start".into(),
            version: 0,
        };
        direct.put(&start).await.unwrap();
    }
    let outcomes: Arc<Mutex<Vec<(String, u64, Said)>>> = Arc::default();
    let clients = (0..4u64).map(|c| {
        let table = table.clone();
        let outcomes = outcomes.clone();
        async move {
            let f = Ledger::fields();
            let mut rng = fastrand::Rng::with_seed(c);
            for i in 0..20u64 {
                let e = c * 1000 + i;
                let id = ids[rng.usize(..ids.len())];
                let key = Ledger::key(id).unwrap();
                let result = match rng.u8(..3) {
                    // An update of the plain fields: the signed item stays as it was.
                    0 => said(
                        &table
                            .update(&key, f.elements.append([e]) & f.count.add(1))
                            .await,
                    ),
                    // A whole write, encrypted again, on condition of the version read.
                    1 => said(
                        &table
                            .modify(&key, |l: &mut Ledger| {
                                l.elements.push(e);
                                l.count += 1;
                                l.secret = format!("secret {e}");
                            })
                            .await,
                    ),
                    // A versioned put of a consistent read.
                    _ => match table.get(&key).consistent().await {
                        Ok(Some(mut l)) => {
                            l.elements.push(e);
                            l.count += 1;
                            l.secret = format!("secret {e}");
                            said(&table.put(&l).await)
                        }
                        Ok(None) => panic!("{id} is never deleted"),
                        Err(_) => continue,
                    },
                };
                outcomes.lock().unwrap().push((id.to_owned(), e, result));
            }
        }
    });
    futures::future::join_all(clients).await;
    let outcomes = outcomes.lock().unwrap().clone();
    let mut unknown = 0;
    for id in ids {
        let stored = direct
            .get(&Ledger::key(id).unwrap())
            .consistent()
            .await
            .unwrap()
            .expect("stored and readable");
        let mut seen = stored.elements.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(
            seen.len(),
            stored.elements.len(),
            "{id}: an element applied twice"
        );
        assert_eq!(
            stored.count,
            stored.elements.len() as i64,
            "{id}: the count counts the list"
        );
        for (of, e, said) in outcomes.iter().filter(|(of, ..)| of == id) {
            let applied = stored.elements.contains(e);
            match said {
                Said::Applied => assert!(applied, "{of}: {e} was reported done and is missing"),
                Said::NotApplied => {
                    assert!(!applied, "{of}: {e} was reported not done and applied")
                }
                Said::Unknown => unknown += 1,
            }
        }
        // The encrypted field holds a whole write's own value.
        let last = stored.secret.trim_start_matches("secret ");
        assert!(
            stored.secret == "start"
                || last
                    .parse::<u64>()
                    .is_ok_and(|e| stored.elements.contains(&e)),
            "{id}: {}",
            stored.secret
        );
    }
    let done = outcomes.iter().filter(|o| o.2 == Said::Applied).count();
    assert!(done > 10, "{done} writes done of {}", outcomes.len());
    println!("{} writes: {done} done, {unknown} unknown", outcomes.len());
}

faceteer_suite::engines!(
    encrypted_records_keep_exact_histories,
    concurrent_histories_have_no_anomalies,
    a_planted_double_apply_is_caught
);
