//! Exact outcomes under faults: answers lost after the server applied a request, a server
//! stopped mid-run, a server that never answers, and invalid records among valid ones.

use crate::common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::*;

fn total() -> usize {
    fault_total()
}
use faceteer::testing::{FaultConfig, FaultProxy};
use faceteer::{error::FailureReason, error::ItemError, BatchOptions, Error, Key, Table, Timeouts};
use faceteer_core::limits::{item_size, LimitError, MAX_ITEM_BYTES};

type Keys = HashSet<(String, String)>;

/// A proxy with `faults` in front of the current engine, a fresh table reached through it,
/// and the same table reached directly (to check what is stored).
async fn proxied(faults: FaultConfig, label: &str) -> (FaultProxy, Table, Table) {
    let upstream = faceteer_suite::endpoint().expect("a local endpoint");
    let proxy = FaultProxy::start(&upstream, faults).await.unwrap();
    let client = faceteer::local_client(&proxy.endpoint()).expect("a local endpoint");
    let table = faceteer_suite::fresh_table_with::<TestTable>(client, label).await;
    let direct = faceteer_suite::patient(Table::declared::<TestTable>(
        faceteer_suite::client().await,
        table.name(),
    ));
    (proxy, table, direct)
}

/// How many answers `proxy` lost (shown when a test fails).
fn print_lost(proxy: &FaultProxy) {
    let lost = &proxy.stats().lost_answers;
    println!(
        "the proxy lost {} answers",
        lost.load(std::sync::atomic::Ordering::Relaxed)
    );
}

fn fast_retries(attempts: u32) -> BatchOptions {
    BatchOptions {
        concurrency: 8,
        write_attempts: attempts,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(10),
        ..BatchOptions::default()
    }
}

fn note_keys<'a>(notes: impl IntoIterator<Item = &'a Note>) -> Keys {
    notes
        .into_iter()
        .map(|n| key_pair(&Note::key(&n.notebook, &n.note_id).unwrap()))
        .collect()
}

/// A failure reported as "not done" must come from a request the server refused or that
/// never left, or from inputs left unprocessed: never from one that may have been applied.
fn assert_certainly_not_applied(reason: &FailureReason) {
    match reason {
        FailureReason::Unprocessed { .. } => {}
        FailureReason::Request(e) => {
            let d = e.dynamo_error().expect("a DynamoDB error");
            assert!(d.was_rejected() || d.was_not_sent(), "{e}");
        }
        other => panic!("unexpected reason: {other}"),
    }
}

/// The keys of a batch write's outcomes, and of what the table holds afterwards.
struct Outcomes {
    written: Keys,
    failed: Keys,
    unknown: Keys,
    stored: Keys,
}

/// Write `total()` notes (10,000 on the embedded engine) through `table`, and check the report against what `direct` finds
/// stored: one outcome per record, every record reported written is stored, none reported
/// failed is, and every failure is one that certainly was not applied.
async fn put_ten_thousand(table: &Table, direct: &Table) -> Outcomes {
    let notes: Vec<Note> = (0..total())
        .map(|i| note(&format!("b{}", i % 50), i))
        .collect();
    let put = table.put_many(notes).await;
    let written = note_keys(&put.written);
    let failed = note_keys(put.failed.iter().map(|f| &f.item));
    let unknown = note_keys(put.unknown.iter().map(|u| &u.item));
    println!(
        "put: {} written, {} failed, {} unknown",
        written.len(),
        failed.len(),
        unknown.len()
    );
    assert_eq!(written.len() + failed.len() + unknown.len(), total());
    assert_eq!(
        (&written | &failed).len() + unknown.len(),
        total(),
        "one outcome each"
    );
    for f in &put.failed {
        assert_certainly_not_applied(&f.reason);
    }
    for u in &put.unknown {
        let d = u.cause.dynamo_error().expect("a DynamoDB error");
        assert!(!d.was_rejected() && !d.was_not_sent(), "{}", u.cause);
    }
    let stored = stored_keys(direct).await;
    assert!(
        written.is_subset(&stored),
        "every record reported written is stored"
    );
    assert!(
        failed.is_disjoint(&stored),
        "no record reported failed is stored"
    );
    assert!(stored.is_subset(&(&written | &unknown)));
    Outcomes {
        written,
        failed,
        unknown,
        stored,
    }
}

/// 10,000 records, then their 10,000 keys deleted, through a proxy that also loses answers
/// after the server applied the request (500, connection reset, no answer): every record
/// reported done is stored (deleted), every one reported not done is not, and only the
/// unknown ones may be either.
async fn lost_answers_leave_every_outcome_exact() {
    let faults = FaultConfig {
        throttle: 0.1,
        withhold_request: 0.2,
        withhold_item: 0.3,
        fail_after: 0.15,
        reset_after: 0.15,
        stall_after: 0.01,
        seed: 7,
        ..FaultConfig::default()
    };
    let (proxy, table, direct) = proxied(faults, "lost").await;
    // A stalled answer is given up after 2 s (an unknown outcome). The whole call has 20 s,
    // well beyond what its retries take, so that on a loaded machine a throttled request
    // still runs out of retries (a failed outcome) before the call runs out of time.
    let timeouts = Timeouts {
        attempt: Duration::from_secs(2),
        operation: Duration::from_secs(20),
        ..table.timeouts()
    };
    let table = table
        .with_batch_options(fast_retries(2))
        .with_timeouts(timeouts);

    let put = put_ten_thousand(&table, &direct).await;
    print_lost(&proxy);
    assert!(
        !put.failed.is_empty() && !put.unknown.is_empty(),
        "the faults reached every outcome"
    );
    let stored = put.stored;

    // Delete every key under the same faults.
    let keys: Vec<Key<Note>> = (0..total())
        .map(|i| Note::key(format!("b{}", i % 50), format!("n{i:03}")).unwrap())
        .collect();
    let deleted = table.delete_many(keys).await;
    let gone: Keys = deleted.deleted.iter().map(key_pair).collect();
    let kept: Keys = deleted.failed.iter().map(|f| key_pair(&f.item)).collect();
    let unsure: Keys = deleted.unknown.iter().map(|u| key_pair(&u.item)).collect();
    println!(
        "delete: {} deleted, {} failed, {} unknown",
        gone.len(),
        kept.len(),
        unsure.len()
    );
    assert_eq!(gone.len() + kept.len() + unsure.len(), total());
    for f in &deleted.failed {
        assert_certainly_not_applied(&f.reason);
    }
    let after = stored_keys(&direct).await;
    assert!(
        gone.is_disjoint(&after),
        "every key reported deleted is gone"
    );
    for key in &kept {
        assert_eq!(
            stored.contains(key),
            after.contains(key),
            "a key reported not deleted is as it was"
        );
    }
    assert!(after.is_subset(&stored));
}

/// The server stops (every connection closed, new ones refused) after 100 batch requests
/// (20 on moto, which is sent 2,000 records):
/// the records written before are reported written, those never sent are reported failed,
/// the ones in flight unknown, and the table agrees.
async fn a_server_stopped_mid_run_leaves_every_outcome_exact() {
    let stop = (total() / 100) as u64;
    let faults = FaultConfig {
        stop_after: Some(stop),
        seed: 3,
        ..FaultConfig::default()
    };
    let (_proxy, table, direct) = proxied(faults, "stopped").await;
    let table = table.with_batch_options(BatchOptions {
        concurrency: 4,
        ..fast_retries(3)
    });
    let put = put_ten_thousand(&table, &direct).await;
    assert!(
        put.written.len() as u64 >= 25 * (stop - 10),
        "the requests before the stop were written"
    );
    assert!(
        put.failed.len() >= total() / 2,
        "the requests after the stop were refused"
    );
    assert!(
        put.unknown.len() <= 25 * 8,
        "only requests in flight at the stop are unknown"
    );
}

/// A server that accepts connections and never answers: every kind of call ends with a
/// timeout error within the deadline, and batch writes report their records as unknown.
async fn a_server_that_never_answers_gives_timeouts() {
    let faults = FaultConfig {
        stall_all: true,
        ..FaultConfig::default()
    };
    let upstream = faceteer_suite::endpoint().expect("a local endpoint");
    let proxy = FaultProxy::start(&upstream, faults).await.unwrap();
    let timeouts = Timeouts {
        connect: Duration::from_secs(1),
        attempt: Duration::from_millis(300),
        operation: Duration::from_millis(800),
        call: Duration::from_secs(2),
    };
    let table = Table::declared::<TestTable>(
        faceteer::local_client(&proxy.endpoint()).expect("a local endpoint"),
        "silent",
    )
    .with_timeouts(timeouts)
    .with_batch_options(fast_retries(2));
    assert_eq!(table.timeouts(), timeouts);
    let deadline = Duration::from_secs(3);

    let start = Instant::now();
    let err = table.put(&note("b", 1)).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(err.to_string().contains("timed out"), "{err}");
    assert!(start.elapsed() < deadline, "{:?}", start.elapsed());

    let start = Instant::now();
    let err = table
        .query(Note::query("b").list())
        .await
        .expect_err("no answer");
    assert!(err.is_timeout(), "{err}");
    assert!(start.elapsed() < deadline, "{:?}", start.elapsed());

    let start = Instant::now();
    let put = table.put_many((0..30).map(|i| note("b", i))).await;
    assert!(put.written.is_empty() && put.failed.is_empty());
    assert_eq!(
        put.unknown.len(),
        30,
        "a request that timed out may have been applied"
    );
    assert!(put.unknown.iter().all(|u| u.cause.is_timeout()));
    assert!(start.elapsed() < 2 * deadline, "{:?}", start.elapsed());
}

/// Invalid records among valid ones fail alone, with errors naming the field or key: the
/// client checks DynamoDB's limits before sending, and what only the server refuses (an
/// empty string set) is isolated by splitting the request. moto stores empty sets sent in a batch (see
/// `engines.rs`) in a batch, so there the empty set is written.
async fn invalid_records_fail_alone() {
    let refuses_empty_sets = !matches!(faceteer_suite::server(), faceteer_suite::Server::Moto(_));
    let table = fresh_table::<TestTable>("limits").await;
    let mut samples: Vec<Sample> = (0..20).map(|i| sample("g", i)).collect();
    let big = Sample {
        payload: "x".repeat(MAX_ITEM_BYTES),
        ..sample("g", 100)
    };
    let long_key = Sample {
        group: "g".repeat(2100),
        ..sample("g", 101)
    };
    let nan = Sample {
        score: f64::NAN,
        ..sample("g", 102)
    };
    let huge = Sample {
        score: 1e300,
        ..sample("g", 103)
    };
    let empty_set = Sample {
        tags: Vec::new(),
        ..sample("g", 104)
    };
    for (at, bad) in [big, long_key, nan, huge, empty_set]
        .into_iter()
        .enumerate()
    {
        samples.insert(at * 4 + 1, bad);
    }
    let report = table.put_many(samples).await;
    let summary: Vec<String> = report
        .failed
        .iter()
        .map(|f| format!("{}: {}", f.item.id, f.reason))
        .collect();
    let valid = if refuses_empty_sets { 20 } else { 21 };
    assert_eq!(report.written.len(), valid, "{summary:#?}");
    assert!(report.unknown.is_empty());
    let reason = |id: &str| {
        let f = report
            .failed
            .iter()
            .find(|f| f.item.id == id)
            .unwrap_or_else(|| panic!("{id} is reported failed"));
        match &f.reason {
            FailureReason::Item(e) => e.to_string(),
            FailureReason::Refused(e) => {
                let d = e.dynamo_error().expect("the server's refusal");
                assert_eq!(d.code(), Some("ValidationException"), "{e}");
                format!("refused: {e}")
            }
            other => panic!("{id}: {other}"),
        }
    };
    let text = reason("s100");
    assert!(
        text.contains("409600") && text.contains("`payload`"),
        "{text}"
    );
    let text = reason("s101");
    assert!(text.contains("`PK`") && text.contains("2048"), "{text}");
    let text = reason("s102");
    assert!(text.contains("`score`") && text.contains("NaN"), "{text}");
    let text = reason("s103");
    assert!(text.contains("`score`") && text.contains("E+125"), "{text}");
    if refuses_empty_sets {
        let text = reason("s104");
        assert!(text.starts_with("refused:"), "{text}");
    }
    assert_eq!(report.failed.len(), 25 - valid);
    let stored = stored_keys(&table).await;
    for s in &report.written {
        assert!(stored.contains(&key_pair(&Sample::key(&s.group, &s.id).unwrap())));
    }
    assert_eq!(stored.len(), valid);

    // Reads: a key over DynamoDB's length fails alone, the others are read.
    let mut keys: Vec<Key<Sample>> = (0..20)
        .map(|i| Sample::key("g", format!("s{i:03}")).unwrap())
        .collect();
    keys.insert(7, Sample::key("g", "s".repeat(1100)).unwrap());
    let got = table.get_many(keys).await;
    assert_eq!(got.found.len(), 20);
    assert_eq!(got.failed.len(), 1);
    let text = got.failed[0].reason.to_string();
    assert!(text.contains("`SK`") && text.contains("1024"), "{text}");

    // A single write of an invalid record: the same typed error, nothing sent.
    let err = table
        .put(&Sample {
            score: f64::INFINITY,
            ..sample("g", 105)
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Item(_)), "{err}");
}

/// The item-size limit at its boundary, on the embedded engine (moto refuses items above
/// 405,000 bytes; see `engines.rs`): 409,600 bytes are stored, 409,601 refused before sending.
async fn the_item_size_limit_is_exact() {
    let table = fresh_table::<TestTable>("size").await;
    let base = sample("g", 1);
    let base_size = item_size(&faceteer::to_item(&base).unwrap()).unwrap();
    let fill = |extra: usize| Sample {
        payload: format!("{}{}", base.payload, "x".repeat(extra)),
        ..base.clone()
    };
    let exact = fill(MAX_ITEM_BYTES - base_size);
    assert_eq!(
        item_size(&faceteer::to_item(&exact).unwrap_or_else(|e| panic!("{e}"))).unwrap(),
        MAX_ITEM_BYTES
    );
    let over = fill(MAX_ITEM_BYTES - base_size + 1);
    match faceteer::to_item(&over) {
        Err(ItemError::Limit {
            source: LimitError::ItemTooLarge { size, largest, .. },
            ..
        }) => {
            assert_eq!(size, MAX_ITEM_BYTES + 1);
            assert_eq!(largest, "payload");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(table.put(&over).await, Err(Error::Item(_))));
    if matches!(
        faceteer_suite::server(),
        faceteer_suite::Server::Embedded(_)
    ) {
        table.put(&exact).await.expect("409,600 bytes are stored");
        let back = table
            .get(&Sample::key("g", "s001").unwrap())
            .await
            .unwrap()
            .expect("stored");
        assert_eq!(back.payload.len(), exact.payload.len());
    }
}

/// A stored item that is not a valid record does not hide the others: pages return it apart,
/// with its key, and the cursor continues past it.
async fn bad_records_do_not_hide_the_rest() {
    let table = fresh_table::<TestTable>("bad-records").await;
    let mut notes: Vec<Note> = (0..32).map(|i| note("book", i)).collect();
    // Fails the facet's validator on read.
    notes[5].body = "INVALID body".into();
    let written = table.put_many(notes).await;
    assert!(written.is_complete());
    // Does not deserialize: `rank` is text.
    for id in ["n017", "n030"] {
        let mut item = faceteer::to_item(&note("book", 0)).unwrap();
        item.insert(
            "SK".into(),
            aws_sdk_dynamodb::types::AttributeValue::S(format!("#NOTE_{id}")),
        );
        item.insert(
            "noteId".into(),
            aws_sdk_dynamodb::types::AttributeValue::S(id.into()),
        );
        item.insert(
            "rank".into(),
            aws_sdk_dynamodb::types::AttributeValue::S("high".into()),
        );
        put_raw(&table, item).await.unwrap();
    }
    let bad = ["#NOTE_n005", "#NOTE_n017", "#NOTE_n030"];

    // Page by page.
    let mut good = 0;
    let mut failed = Vec::new();
    let mut cursor = None;
    loop {
        let page = table
            .query(Note::query("book").list().limit(10).cursor(cursor))
            .await
            .unwrap();
        good += page.records.len();
        for f in &page.failed {
            assert_eq!(f.pk, "#BOOK_book");
            failed.push(f.sk.clone());
        }
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(good, 29);
    assert_eq!(failed, bad);

    // `all` stops at the first; `all_with_failures` collects past them.
    match table.query(Note::query("book").list().limit(7)).all().await {
        Err(Error::Record { pk, sk, .. }) => {
            assert_eq!((pk.as_str(), sk.as_str()), ("#BOOK_book", bad[0]))
        }
        other => panic!("{other:?}"),
    }
    let all = table
        .query(Note::query("book").list().limit(7))
        .all_with_failures()
        .await
        .unwrap();
    assert_eq!(all.records.len(), 29);
    let skipped: Vec<&str> = all.failed.iter().map(|f| f.sk.as_str()).collect();
    assert_eq!(skipped, bad);

    // The stream yields the bad ones as errors and goes on.
    use futures::StreamExt;
    let items: Vec<_> = table
        .query(Note::query("book").list().limit(4))
        .records()
        .collect()
        .await;
    assert_eq!(items.len(), 32);
    assert_eq!(items.iter().filter(|r| r.is_err()).count(), 3);

    // `first` on a bad first record is the error, with its key.
    let err = table
        .query(Note::query("book").equals("n005").first())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("#NOTE_n005"), "{err}");
}

/// Cursors are bound to their query's direction and condition, their keys are checked, an
/// oversized one is refused unread, and a signing table takes only its own.
async fn cursors_are_bound_checked_and_signed() {
    let table = fresh_table::<TestTable>("cursors").await;
    let written = table.put_many((0..30).map(|i| note("book", i))).await;
    assert!(written.is_complete());
    let page = table
        .query(Note::query("book").list().limit(5))
        .await
        .unwrap();
    let cursor = page.cursor.expect("more pages");

    let foreign = |e: Error| {
        matches!(
            e,
            Error::Cursor(faceteer::error::CursorError::Foreign { .. })
        )
    };
    let err = query_error(&table, Note::query("book").list().reverse().cursor(&cursor)).await;
    assert!(foreign(err));
    let err = query_error(
        &table,
        Note::query("book").greater_than("n001").cursor(&cursor),
    )
    .await;
    assert!(foreign(err));

    // A forged cursor: the same query, its key moved to another partition.
    let forged = {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let bytes = b64.decode(&cursor).unwrap();
        let mut doc: ciborium::Value = ciborium::from_reader(bytes.as_slice()).unwrap();
        let key = doc
            .as_map_mut()
            .unwrap()
            .iter_mut()
            .find(|(k, _)| k.as_text() == Some("k"))
            .map(|(_, v)| v)
            .unwrap();
        for (name, value) in key.as_map_mut().unwrap() {
            if name.as_text() == Some("PK") {
                *value = ciborium::Value::Map(vec![(
                    ciborium::Value::Text("s".into()),
                    ciborium::Value::Text("#BOOK_other".into()),
                )]);
            }
        }
        let mut out = Vec::new();
        ciborium::into_writer(&doc, &mut out).unwrap();
        b64.encode(out)
    };
    let err = query_error(&table, Note::query("book").list().cursor(&forged)).await;
    assert!(
        matches!(
            err,
            Error::Cursor(faceteer::error::CursorError::ForeignKey(_))
        ),
        "{err}"
    );

    // An oversized cursor is refused before it is decoded.
    let start = Instant::now();
    let err = query_error(
        &table,
        Note::query("book").list().cursor("A".repeat(2_600_000)),
    )
    .await;
    assert!(
        matches!(
            err,
            Error::Cursor(faceteer::error::CursorError::TooLong { .. })
        ),
        "{err}"
    );
    assert!(start.elapsed() < Duration::from_secs(1));

    // `limit(u32::MAX)`: every record, no cursor.
    let page = table
        .query(Note::query("book").list().limit(u32::MAX))
        .await
        .unwrap();
    assert_eq!(page.records.len(), 30);
    assert!(page.cursor.is_none());

    // A signing table: its cursors page through everything; others' are refused.
    let signing = table.clone().with_cursor_key(b"a secret of the service");
    let mut seen = 0;
    let mut next: Option<String> = None;
    loop {
        let page = signing
            .query(Note::query("book").list().limit(7).cursor(next.clone()))
            .await
            .unwrap();
        seen += page.records.len();
        next = page.cursor;
        match &next {
            Some(c) => assert!(c.contains('.'), "signed"),
            None => break,
        }
    }
    assert_eq!(seen, 30);
    let bad_signature =
        |e: Error| matches!(e, Error::Cursor(faceteer::error::CursorError::BadSignature));
    let err = query_error(&signing, Note::query("book").list().cursor(&cursor)).await;
    assert!(bad_signature(err));
    let sealed = signing
        .query(Note::query("book").list().limit(5))
        .await
        .unwrap()
        .cursor
        .unwrap();
    let (inner, tag) = sealed.rsplit_once('.').unwrap();
    let altered = format!("{}A.{tag}", &inner[..inner.len() - 1]);
    let err = query_error(&signing, Note::query("book").list().cursor(&altered)).await;
    assert!(bad_signature(err));
}

/// One deadline per call: against a server that never answers, every batch call of 3 and
/// of 2,000 inputs — `put_many`, `delete_many`, `get_many`, `write_batch` — returns within
/// `Timeouts::call` plus a margin, with every input accounted for: failed (never sent) or
/// unknown (sent). So do `modify`, a page walk and a search.
async fn every_call_ends_by_its_deadline() {
    let faults = FaultConfig {
        stall_all: true,
        ..FaultConfig::default()
    };
    let upstream = faceteer_suite::endpoint().expect("a local endpoint");
    let proxy = FaultProxy::start(&upstream, faults).await.unwrap();
    let call = Duration::from_secs(3);
    let table = Table::declared::<TestTable>(
        faceteer::local_client(&proxy.endpoint()).expect("a local endpoint"),
        "stalled",
    )
    .with_timeouts(Timeouts {
        connect: Duration::from_secs(1),
        attempt: Duration::from_secs(1),
        operation: Duration::from_secs(2),
        call,
    });
    // The margin covers a loaded machine; the bound is what a call without one would miss
    // by minutes (10 tries of 10 s each for a `get_many`).
    let bound = call + Duration::from_secs(5);
    let timed = |what: String, start: Instant| {
        let took = start.elapsed();
        println!("{what}: {took:?}");
        assert!(took < bound, "{what} took {took:?}");
    };
    for n in [3, 2000] {
        let notes: Vec<Note> = (0..n).map(|i| note(&format!("b{}", i % 7), i)).collect();
        let keys: Vec<Key<Note>> = notes
            .iter()
            .map(|n| Note::key(&n.notebook, &n.note_id).unwrap())
            .collect();

        let start = Instant::now();
        let put = table.put_many(notes.clone()).await;
        timed(format!("put_many({n})"), start);
        assert!(put.written.is_empty());
        assert_eq!(put.failed.len() + put.unknown.len(), n);
        assert!(!put.unknown.is_empty(), "the first requests were sent");
        for f in &put.failed {
            assert_certainly_not_applied_or_late(&f.reason);
        }

        let start = Instant::now();
        let deleted = table.delete_many(keys.clone()).await;
        timed(format!("delete_many({n})"), start);
        assert!(deleted.deleted.is_empty());
        assert_eq!(deleted.failed.len() + deleted.unknown.len(), n);

        let start = Instant::now();
        let got = table.get_many(keys.clone()).await;
        timed(format!("get_many({n})"), start);
        assert!(got.found.is_empty() && got.missing.is_empty());
        assert_eq!(got.failed.len(), n);

        let start = Instant::now();
        let batch = notes
            .iter()
            .take(n / 2)
            .fold(table.write_batch(), |b, r| b.put(r));
        let batch = keys[n / 2..].iter().fold(batch, |b, k| b.delete(k));
        let report = batch.await;
        timed(format!("write_batch({n})"), start);
        assert!(report.done.is_empty());
        assert_eq!(report.failed.len() + report.unknown.len(), n);
    }

    let start = Instant::now();
    let err = table
        .modify(&Stock::key("s").unwrap(), |s| s.on_hand += 1)
        .await
        .unwrap_err();
    timed("modify".into(), start);
    assert!(err.is_timeout(), "{err}");

    let start = Instant::now();
    let err = table
        .query(Note::query("b").list())
        .all()
        .await
        .unwrap_err();
    timed("page walk".into(), start);
    assert!(err.is_timeout(), "{err}");

    let start = Instant::now();
    let err = table.put(&note("b", 1)).await.unwrap_err();
    timed("put".into(), start);
    assert!(err.is_outcome_unknown(), "{err}");

    // A stream read whose streams server never answers ends by the call's deadline too.
    let streamed = faceteer_suite::fresh_streamed_table::<TestTable>(
        "stalled-stream",
        faceteer::stream::StreamView::NewImage,
    )
    .await
    .with_timeouts(table.timeouts());
    let streams = faceteer::stream::local_client(&proxy.endpoint()).unwrap();
    let mut reader = faceteer::stream::StreamReader::new(streams, &streamed)
        .await
        .unwrap();
    let start = Instant::now();
    let err = reader.next_records().await.unwrap_err();
    timed("stream read".into(), start);
    assert!(err.is_timeout(), "{err}");
}

/// A failure reported as "not done" by a call that ran out of time: a request the server
/// refused or that never left, or the deadline before it was sent.
fn assert_certainly_not_applied_or_late(reason: &FailureReason) {
    match reason {
        FailureReason::Request(e) if matches!(**e, Error::DeadlineExceeded { sent: false, .. }) => {
        }
        other => assert_certainly_not_applied(other),
    }
}

/// A proxy holds a quarter of the batch write requests past their try's deadline and lets
/// the server apply them 1.5 s later. Writes of one key in one call (`put_many` of two
/// versions, `write_batch` of a put and a delete) are never reported done when a held try
/// of an earlier one can still land over them: 0 false `Done`.
async fn late_writes_never_pass_for_done() {
    let faults = FaultConfig {
        late_share: 0.25,
        late_by: Duration::from_millis(1500),
        seed: 5,
        ..FaultConfig::default()
    };
    let (proxy, table, direct) = proxied(faults, "late").await;
    let table = table
        .with_batch_options(fast_retries(6))
        .with_timeouts(Timeouts {
            attempt: Duration::from_millis(500),
            call: Duration::from_secs(120),
            ..Timeouts::default()
        });
    let mut false_done = Vec::new();
    for round in 0..8 {
        // Two versions of each of 40 records, in one call: the second must win, or not be
        // reported done.
        let first: Vec<Note> = (0..40).map(|i| note(&format!("r{round}"), i)).collect();
        let second: Vec<Note> = first
            .iter()
            .map(|n| Note {
                body: format!("{} v2", n.body),
                ..n.clone()
            })
            .collect();
        let put = table
            .put_many(first.iter().cloned().chain(second.iter().cloned()))
            .await;
        // And a put then a delete of 40 other keys, in one call.
        let gone: Vec<Note> = (100..140).map(|i| note(&format!("r{round}"), i)).collect();
        let batch = gone.iter().fold(table.write_batch(), |b, r| b.put(r));
        let batch = gone.iter().fold(batch, |b, r| {
            b.delete(&Note::key(&r.notebook, &r.note_id).unwrap())
        });
        let report = batch.await;
        // Every held request has landed by now.
        tokio::time::sleep(Duration::from_millis(2500)).await;
        for v2 in put.written.iter().filter(|n| n.body.ends_with(" v2")) {
            let key = Note::key(&v2.notebook, &v2.note_id).unwrap();
            let stored = direct.get(&key).consistent().await.unwrap();
            if stored.as_ref() != Some(v2) {
                false_done.push(format!("put_many: {key:?} done, table holds {stored:?}"));
            }
        }
        let stored = stored_keys(&direct).await;
        for entry in &report.done {
            let deleted = entry.index >= gone.len();
            if deleted
                && stored.contains(&(entry.pk.as_str().to_owned(), entry.sk.as_str().to_owned()))
            {
                false_done.push(format!(
                    "write_batch: delete {} done, key present",
                    entry.pk
                ));
            }
        }
    }
    let held = proxy
        .stats()
        .held_back
        .load(std::sync::atomic::Ordering::Relaxed);
    println!("held back and applied late: {held}");
    assert!(held > 0, "the proxy held requests back");
    assert!(false_done.is_empty(), "{false_done:#?}");
}

/// Stamps each note's body and refuses the notes whose id ends in 7; around requests, sends
/// a call id with each.
struct Stamp;

impl faceteer::hook::FacetHook<Note> for Stamp {
    fn name(&self) -> &'static str {
        "stamp"
    }

    async fn before_write(
        &self,
        write: &mut faceteer::hook::Write<'_, Note>,
    ) -> Result<(), faceteer::hook::Veto> {
        if let Some(note) = write.record() {
            if note.note_id.ends_with('7') {
                return Err(faceteer::hook::Veto::because("stamp", "ends in 7"));
            }
            note.body = format!("stamped {}", note.body);
        }
        Ok(())
    }
}

struct CallId;

impl faceteer::hook::RequestHook for CallId {
    fn name(&self) -> &'static str {
        "call-id"
    }

    async fn before_call(
        &self,
        call: &mut faceteer::hook::Call<'_>,
    ) -> Result<(), faceteer::hook::Veto> {
        call.header("x-call-id", "c-1")
    }
}

/// Hooked writes through a proxy that loses answers after the server applied them: a batch's
/// refused inputs fail alone and are never stored, every stored record is as the hook left
/// it, every outcome is exact; every try of every request (resent single writes included)
/// carries what the request hook asked.
async fn hooked_writes_stay_exact_under_lost_answers() {
    let faults = FaultConfig {
        fail_after: 0.15,
        reset_after: 0.15,
        seed: 17,
        ..FaultConfig::default()
    };
    let (proxy, table, direct) = proxied(faults, "hooked-lost").await;
    let seen = HeaderLog::new("x-call-id");
    let hooks = faceteer::hook::Hooks::new()
        .facet::<Note, _>(Stamp)
        .requests(CallId);
    let table = seen
        .on::<TestTable>(&table)
        .with_batch_options(fast_retries(4))
        .with_hooks(hooks)
        .unwrap();
    let n = total().min(2_000);
    let notes: Vec<Note> = (0..n).map(|i| note(&format!("b{}", i % 20), i)).collect();
    let put = table.put_many(notes).await;
    assert_eq!(put.written.len() + put.failed.len() + put.unknown.len(), n);
    let refused: Keys = note_keys(
        put.failed
            .iter()
            .filter(|f| matches!(f.reason, FailureReason::Item(ItemError::Refused { .. })))
            .map(|f| &f.item),
    );
    assert_eq!(refused.len(), (0..n).filter(|i| i % 10 == 7).count());
    for f in &put.failed {
        if !matches!(f.reason, FailureReason::Item(ItemError::Refused { .. })) {
            assert_certainly_not_applied(&f.reason);
        }
    }
    assert!(put.written.iter().all(|w| w.body.starts_with("stamped ")));
    let stored = stored_keys(&direct).await;
    assert!(note_keys(&put.written).is_subset(&stored));
    assert!(
        refused.is_disjoint(&stored),
        "a refused input is never stored"
    );
    let all = direct.scan::<Note>().all().await.unwrap();
    assert!(all.iter().all(|r| r.body.starts_with("stamped ")));

    // Single writes resent under tokens: every try carries the call id.
    let table = table.with_lost_answers(faceteer::LostAnswers::Resend);
    for i in 0..60 {
        let note = note("single", i * 10 + 1);
        match table.put(&note).await {
            Ok(()) => assert!(direct
                .get(&Note::key(&note.notebook, &note.note_id).unwrap())
                .consistent()
                .await
                .unwrap()
                .is_some_and(|r| r.body.starts_with("stamped "))),
            Err(e) => assert!(e.is_outcome_unknown() || e.dynamo_error().is_some(), "{e}"),
        }
    }
    let seen = seen.seen();
    assert!(seen.len() > 60, "{}", seen.len());
    assert!(
        seen.iter().all(|(_, id)| id.as_deref() == Some("c-1")),
        "{:?}",
        seen.iter().find(|(_, id)| id.as_deref() != Some("c-1"))
    );
    print_lost(&proxy);
}

/// Batches of an encrypted facet under lost answers: every input is done, not done or
/// unknown, exactly; what is stored is encrypted and decrypts; deletes are exact too.
async fn encrypted_batches_stay_exact_under_lost_answers() {
    use crate::encryption::{install_test_cipher, patient_record, Clinic, Patient};
    install_test_cipher().await;
    let faults = FaultConfig {
        throttle: 0.1,
        fail_after: 0.15,
        reset_after: 0.15,
        seed: 23,
        ..FaultConfig::default()
    };
    let upstream = faceteer_suite::endpoint().expect("a local endpoint");
    let proxy = FaultProxy::start(&upstream, faults).await.unwrap();
    let client = faceteer::local_client(&proxy.endpoint()).expect("a local endpoint");
    let table = faceteer_suite::fresh_table_with::<Clinic>(client, "encrypted-lost")
        .await
        .with_batch_options(fast_retries(3));
    let direct = faceteer_suite::patient(Table::declared::<Clinic>(
        faceteer_suite::client().await,
        table.name(),
    ));
    let n = total().min(1_000) as u32;
    let patients: Vec<Patient> = (0..n)
        .map(|i| patient_record(i, &format!("lost{i}@example.com")))
        .collect();
    let put = table.put_many(patients.clone()).await;
    assert_eq!(
        put.written.len() + put.failed.len() + put.unknown.len(),
        n as usize
    );
    for f in &put.failed {
        assert_certainly_not_applied(&f.reason);
    }
    let key_of = |p: &Patient| key_pair(&Patient::key(&p.clinic, &p.id).unwrap());
    let stored: Vec<Patient> = direct.scan::<Patient>().all().await.unwrap();
    let stored_keys: Keys = stored.iter().map(key_of).collect();
    let written: Keys = put.written.iter().map(key_of).collect();
    let failed: Keys = put.failed.iter().map(|f| key_of(&f.item)).collect();
    assert!(
        written.is_subset(&stored_keys),
        "every input reported done is stored"
    );
    assert!(
        failed.is_disjoint(&stored_keys),
        "no input reported not done is stored"
    );
    // What is stored decrypted to exactly what was written.
    for p in &stored {
        assert!(patients.contains(p), "{:?} was never written", p.id);
    }
    print_lost(&proxy);
    assert!(
        !put.failed.is_empty() || !put.unknown.is_empty(),
        "the faults reached the batch"
    );
}

faceteer_suite::engines!(
    encrypted_batches_stay_exact_under_lost_answers,
    hooked_writes_stay_exact_under_lost_answers,
    every_call_ends_by_its_deadline,
    late_writes_never_pass_for_done,
    lost_answers_leave_every_outcome_exact,
    a_server_stopped_mid_run_leaves_every_outcome_exact,
    a_server_that_never_answers_gives_timeouts,
    invalid_records_fail_alone,
    the_item_size_limit_is_exact,
    bad_records_do_not_hide_the_rest,
    cursors_are_bound_checked_and_signed,
);
