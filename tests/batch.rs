//! Batches, conditions and filters against a real DynamoDB-API server, and batches under
//! injected faults: nothing is ever lost.

use crate::common;

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use faceteer::testing::{FaultConfig, FaultProxy};
use faceteer::{error::FailureReason, BatchOptions, Error, Key};

fn quiet_faults() -> FaultConfig {
    FaultConfig {
        seed: 1,
        ..FaultConfig::default()
    }
}

async fn requests_are_chunked_at_25_writes_and_100_reads() {
    let upstream = faceteer_suite::endpoint().expect("a local endpoint");
    let proxy = FaultProxy::start(&upstream, quiet_faults()).await.unwrap();
    let client = faceteer::local_client(&proxy.endpoint()).expect("a local endpoint");
    let table = faceteer_suite::fresh_table_with::<common::TestTable>(client, "chunks").await;

    let notes: Vec<Note> = (0..60).map(|i| note("book", i)).collect();
    let put = table.put_many(notes.clone()).await;
    assert!(put.is_complete());
    assert_eq!(put.written.len(), 60);
    assert_eq!(
        proxy.stats().batch_requests.load(Ordering::Relaxed),
        3,
        "25 + 25 + 10"
    );

    let keys: Vec<Key<Note>> = (0..250)
        .map(|i| Note::key("book", format!("n{i:03}")).unwrap())
        .collect();
    let got = table.get_many(keys).await;
    assert_eq!(
        proxy.stats().batch_requests.load(Ordering::Relaxed),
        6,
        "+ 100 + 100 + 50"
    );
    assert_eq!(got.found.len(), 60);
    assert_eq!(got.missing.len(), 190);
    assert!(got.failed.is_empty());
    // Found records come back in the order their keys were given.
    assert_eq!(got.found, notes);
}

async fn a_thousand_items_round_trip() {
    let table = fresh_table::<TestTable>("thousand").await;
    let notes: Vec<Note> = (0..1000).map(|i| note(&format!("b{}", i % 7), i)).collect();
    let put = table.put_many(notes.clone()).await;
    assert!(put.is_complete(), "{:?}", put.failed.first());
    assert_eq!(put.written.len(), 1000);
    assert_eq!(stored_keys(&table).await.len(), 1000);

    let keys: Vec<Key<Note>> = notes
        .iter()
        .map(|n| Note::key(&n.notebook, &n.note_id).unwrap())
        .collect();
    let got = table.get_many(keys.clone()).await;
    assert!(got.is_complete());
    assert_eq!(got.found, notes);
    assert!(got.missing.is_empty());

    let in_b3 = table.query(Note::query("b3").list()).all().await.unwrap();
    assert_eq!(
        in_b3.len(),
        notes.iter().filter(|n| n.notebook == "b3").count()
    );

    let deleted = table.delete_many(keys.clone()).await;
    assert!(deleted.is_complete());
    assert_eq!(deleted.deleted.len(), 1000);
    assert!(stored_keys(&table).await.is_empty());
    let got = table.get_many(keys).await;
    assert_eq!(got.missing.len(), 1000);
}

async fn repeated_keys_and_invalid_records_in_one_batch() {
    let table = fresh_table::<TestTable>("repeats").await;
    let mut first = note("book", 1);
    first.body = "first".into();
    let mut second = first.clone();
    second.body = "second".into();
    let invalid = note("a_b", 2); // ambiguous GSI2 sort key
    let put = table
        .put_many(vec![first, note("book", 3), invalid, second])
        .await;
    assert_eq!(put.written.len(), 3);
    assert_eq!(put.failed.len(), 1);
    assert_eq!(put.failed[0].item.notebook, "a_b");
    assert!(matches!(put.failed[0].reason, FailureReason::Item(_)));
    // The later write to the same key wins.
    let stored = table
        .get(&Note::key("book", "n001").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.body, "second");

    // A key asked for twice is read once.
    let k = Note::key("book", "n001").unwrap();
    let got = table
        .get_many(vec![
            k.clone(),
            k.clone(),
            Note::key("book", "zzz").unwrap(),
        ])
        .await;
    assert_eq!(got.found.len(), 1);
    assert_eq!(got.missing.len(), 1);

    // A record failing validation on read is reported failed, the others are returned.
    let mut bad = note("book", 9);
    bad.body = "INVALID".into();
    table.put(&bad).await.unwrap();
    let got = table
        .get_many(vec![
            Note::key("book", "n009").unwrap(),
            Note::key("book", "n003").unwrap(),
        ])
        .await;
    assert_eq!(got.found.len(), 1);
    assert_eq!(got.failed.len(), 1);
    assert!(matches!(got.failed[0].reason, FailureReason::Item(_)));
}

/// Keys over several requests, given again within a request and across requests, some
/// holding nothing: the awaited report holds each distinct key once, records in the order
/// their keys were first given; the streamed outcomes settle every key given, each time.
async fn keys_given_again_across_requests_are_read_once() {
    let table = fresh_table::<TestTable>("regiven").await;
    let stored: Vec<Note> = (0..240).map(|i| note("far", i)).collect();
    assert!(table.put_many(stored.clone()).await.is_complete());
    // 0..260 in a scattered order (260 keys: three requests), 240.. holding nothing, then
    // every tenth key again, late (another request than its first).
    let order: Vec<usize> = (0..260).map(|i| (i * 97) % 260).collect();
    let key = |i: usize| Note::key("far", format!("n{i:03}")).unwrap();
    let mut keys: Vec<Key<Note>> = order.iter().map(|&i| key(i)).collect();
    keys.insert(5, key(order[4]));
    keys.extend(order.iter().step_by(10).map(|&i| key(i)));
    let got = table.get_many(keys.clone()).await;
    assert!(got.failed.is_empty(), "{:?}", got.failed);
    let found: Vec<usize> = got
        .found
        .iter()
        .map(|n| n.note_id[1..].parse().unwrap())
        .collect();
    let want: Vec<usize> = order.iter().copied().filter(|&i| i < 240).collect();
    assert_eq!(found, want, "each record once, in the order first given");
    assert_eq!(got.found[0], stored[order[0]]);
    let mut missing: Vec<String> = got.missing.iter().map(|k| k.sk().to_owned()).collect();
    missing.sort();
    let want: Vec<String> = (240..260).map(|i| key(i).sk().to_owned()).collect();
    assert_eq!(missing, want, "each empty key once");

    let outcomes: Vec<_> = futures::StreamExt::collect(table.get_many(keys.clone()).stream()).await;
    assert_eq!(outcomes.len(), keys.len(), "one outcome per key given");
    let found = outcomes
        .iter()
        .filter(|o| matches!(o, faceteer::batch::GetOutcome::Found(_)))
        .count();
    let first_empty = key(240);
    let given_stored = keys.iter().filter(|k| k.sk() < first_empty.sk()).count();
    assert_eq!(found, given_stored);
}

async fn typed_conditions_on_put_and_delete() {
    let table = fresh_table::<TestTable>("conditions").await;
    let f = Note::fields();
    let mut n = note("book", 5);
    n.rank = 10;
    // attribute_not_exists: create only.
    table.put(&n).when(f.note_id.not_exists()).await.unwrap();
    let err = table
        .put(&n)
        .when(f.note_id.not_exists())
        .await
        .unwrap_err();
    assert!(err.is_condition_failed());

    // Optimistic update: only from rank 10.
    let mut next = n.clone();
    next.rank = 11;
    table.put(&next).when(f.rank.eq(10u64)).await.unwrap();
    let err = table.put(&next).when(f.rank.eq(10u64)).await.unwrap_err();
    assert!(err.is_condition_failed());

    // Every operator, each one both holding and failing.
    let holds = [
        f.rank.between(5u64, 20u64),
        f.body.begins_with("body"),
        f.body.contains("dy 5"),
        f.body.size().eq(6),
        f.status.is_in([Status::Open, Status::Done]),
        f.rank.gt(3u64) & f.author.ne("zed"),
        f.rank.lt(3u64) | f.author.eq(n.author.clone()),
        !f.rank.ge(100u64),
        f.expires_at.not_exists(),
        f.body.exists(),
    ];
    for cond in holds {
        table
            .put(&next)
            .when(cond.clone())
            .await
            .unwrap_or_else(|e| panic!("{cond:?}: {e}"));
    }
    let fails = [
        f.rank.between(50u64, 60u64),
        f.body.begins_with("nobody"),
        f.body.size().gt(100),
        f.status.is_in([Status::Done]),
        f.rank.gt(3u64) & f.author.eq("zed"),
        !f.rank.le(100u64),
        f.expires_at.exists(),
    ];
    for cond in fails {
        let err = table.put(&next).when(cond.clone()).await.unwrap_err();
        assert!(err.is_condition_failed(), "{cond:?}: {err:?}");
    }

    let key = Note::key("book", "n005").unwrap();
    let err = table.delete(&key).when(f.rank.eq(99u64)).await.unwrap_err();
    assert!(matches!(
        err,
        Error::ConditionFailed {
            operation: "DeleteItem",
            ..
        }
    ));
    assert!(table.get(&key).await.unwrap().is_some());
    table.delete(&key).when(f.rank.eq(11u64)).await.unwrap();
    assert!(table.get(&key).await.unwrap().is_none());

    // An IN list that DynamoDB would refuse is a typed error before any request.
    let err = table
        .put(&next)
        .when(f.status.is_in(Vec::<Status>::new()))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Expr(_)), "{err:?}");
}

async fn filters_narrow_queries_and_paging_stays_exact() {
    let table = fresh_table::<TestTable>("filters").await;
    let notes: Vec<Note> = (0..40).map(|i| note("book", i)).collect();
    assert!(table.put_many(notes.clone()).await.is_complete());
    let f = Note::fields();

    let want: Vec<String> = notes
        .iter()
        .filter(|n| n.status == Status::Done && n.rank >= 10)
        .map(|n| n.note_id.clone())
        .collect();
    let filter = || f.status.eq(Status::Done).and(f.rank.ge(10u64));
    let got = table
        .query(Note::query("book").list().filter(filter()))
        .all()
        .await
        .unwrap();
    assert_eq!(
        got.iter().map(|n| n.note_id.clone()).collect::<Vec<_>>(),
        want
    );

    // Pages of 2 over the filtered records: every one once, the last page without cursor.
    let mut cursor = None;
    let mut seen = Vec::new();
    loop {
        let page = table
            .query(
                Note::query("book")
                    .list()
                    .filter(filter())
                    .limit(2)
                    .cursor(cursor),
            )
            .await
            .unwrap();
        assert!(!page.records.is_empty());
        seen.extend(page.records.iter().map(|n| n.note_id.clone()));
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seen, want);

    // Two filter calls combine with AND; index queries take filters too.
    let got = table
        .query(
            Note::by_author_rank("ann")
                .list()
                .filter(f.status.eq(Status::Open))
                .filter(f.body.contains("1")),
        )
        .all()
        .await
        .unwrap();
    assert!(!got.is_empty());
    assert!(got
        .iter()
        .all(|n| n.author == "ann" && n.status == Status::Open && n.body.contains('1')));
    let none = table
        .query(Note::query("book").list().filter(f.author.eq("nobody")))
        .await
        .unwrap();
    assert!(none.records.is_empty() && none.cursor.is_none());
}

/// 10,000 items through a proxy that throttles 30% of batch requests and withholds half the
/// items of half the others, all before forwarding: every item is either written or
/// reported failed (no outcome is unknown: the server answered every request), and the
/// table holds exactly the written ones. `faults.rs` adds answers lost after forwarding.
async fn ten_thousand_items_under_faults_are_all_accounted_for() {
    let upstream = faceteer_suite::endpoint().expect("a local endpoint");
    let faults = FaultConfig {
        throttle: 0.3,
        withhold_request: 0.5,
        withhold_item: 0.5,
        seed: 42,
        ..FaultConfig::default()
    };
    let proxy = FaultProxy::start(&upstream, faults).await.unwrap();
    let client = faceteer_suite::client_without_sdk_retries(&proxy.endpoint());
    let options = BatchOptions {
        concurrency: 8,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(20),
        ..BatchOptions::default()
    };
    let table = faceteer_suite::fresh_table_with::<common::TestTable>(client, "faults")
        .await
        .with_batch_options(options);

    let total = common::fault_total();
    let notes: Vec<Note> = (0..total)
        .map(|i| note(&format!("b{}", i % 50), i))
        .collect();
    let put = table.put_many(notes).await;
    assert_eq!(
        put.written.len() + put.failed.len(),
        total,
        "every item accounted for"
    );
    assert!(put.unknown.is_empty(), "every answer arrived");
    assert!(
        !put.failed.is_empty(),
        "the faults were heavy enough to exhaust some retries"
    );
    assert!(put.written.len() > total / 2);
    for failed in &put.failed {
        assert!(
            matches!(
                failed.reason,
                FailureReason::Unprocessed { attempts: 5 } | FailureReason::Request(_)
            ),
            "{:?}",
            failed.reason
        );
    }
    let stats = proxy.stats();
    assert!(stats.throttled.load(Ordering::Relaxed) > 0);
    assert!(stats.withheld.load(Ordering::Relaxed) > 0);

    // The table holds exactly the items reported written.
    let written: HashSet<(String, String)> = put
        .written
        .iter()
        .map(|n| key_pair(&Note::key(&n.notebook, &n.note_id).unwrap()))
        .collect();
    let failed: HashSet<(String, String)> = put
        .failed
        .iter()
        .map(|f| key_pair(&Note::key(&f.item.notebook, &f.item.note_id).unwrap()))
        .collect();
    assert_eq!(
        written.len() + failed.len(),
        total,
        "no item is reported twice"
    );
    assert_eq!(stored_keys(&table).await, written);

    // Reads under the same faults (10 tries each): every key found, missing or failed,
    // and found exactly when written.
    let keys: Vec<Key<Note>> = (0..total)
        .map(|i| Note::key(format!("b{}", i % 50), format!("n{i:03}")).unwrap())
        .collect();
    let got = table.get_many(keys).await;
    assert_eq!(
        got.found.len() + got.missing.len() + got.failed.len(),
        total
    );
    for n in &got.found {
        assert!(written.contains(&key_pair(&Note::key(&n.notebook, &n.note_id).unwrap())));
    }
    for k in &got.missing {
        assert!(
            failed.contains(&key_pair(k)),
            "missing only when never written"
        );
    }
}

/// One batch of puts and deletes of several facets: each entry ends in one outcome, invalid
/// and versioned records are refused alone, and the table holds exactly the writes done.
async fn facets_mix_in_one_batch() {
    use faceteer::{batch::BatchAction, error::FailureReason};
    let table = fresh_table::<TestTable>("mixed").await;
    let written = table.put_many((0..5).map(|i| note("book", i))).await;
    assert!(written.is_complete());

    let mut batch = table.write_batch();
    for i in 10..40 {
        batch = batch.put(&note("book", i));
    }
    for i in 0..20 {
        batch = batch.put(&sample("g", i));
    }
    for i in 0..10 {
        batch = batch.put(&account(&format!("a{i}")));
    }
    for i in 0..5 {
        batch = batch.delete(&Note::key("book", format!("n{i:03}")).unwrap());
    }
    let bad = Sample {
        score: f64::NAN,
        ..sample("g", 99)
    };
    // A versioned facet (`Stock`) is refused at compile time: `tests/ui/batch_refusals.rs`.
    let report = batch.put(&bad).await;
    assert_eq!(report.done.len(), 65);
    assert!(report.unknown.is_empty());
    let failed: Vec<(usize, &str)> = report
        .failed
        .iter()
        .map(|(e, _)| (e.index, e.facet))
        .collect();
    assert_eq!(failed, [(65, "SAMPLE")]);
    assert!(matches!(report.failed[0].1, FailureReason::Item(_)));
    assert_eq!(
        report
            .done
            .iter()
            .filter(|e| e.action == BatchAction::Delete)
            .count(),
        5
    );
    let stored = common::stored_keys(&table).await;
    let done: HashSet<(String, String)> = report
        .done
        .iter()
        .filter(|e| e.action == BatchAction::Put)
        .map(|e| (e.pk.as_str().to_owned(), e.sk.as_str().to_owned()))
        .collect();
    assert_eq!(
        stored, done,
        "the puts done, and nothing the deletes removed"
    );
}

faceteer_suite::engines!(
    facets_mix_in_one_batch,
    requests_are_chunked_at_25_writes_and_100_reads,
    a_thousand_items_round_trip,
    repeated_keys_and_invalid_records_in_one_batch,
    keys_given_again_across_requests_are_read_once,
    typed_conditions_on_put_and_delete,
    filters_narrow_queries_and_paging_stays_exact,
    ten_thousand_items_under_faults_are_all_accounted_for,
);
