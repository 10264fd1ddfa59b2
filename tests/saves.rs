//! Saves of what changed: `table.save(&before, &after)` writes only the attributes that
//! differ, with the index keys and TTL they move, keeps concurrent writers' changes of other
//! fields and refuses those of the same field.

use crate::common::spans::traced;
use crate::common::{get_raw, patient, Stock, TestTable};
use faceteer::write::Saved;
use faceteer::{Error, Table};
use faceteer_suite::catalogue::{task, Task, TaskStatus};

faceteer::table! {
    /// The README's tasks.
    pub struct Tasks { Task }
}

/// A facet whose rule spans two fields, validated on write.
#[derive(Debug, Clone, PartialEq, faceteer::Facet, serde::Serialize, serde::Deserialize)]
#[facet(name = "WINDOW", validator = check_window, validate_on_write)]
pub struct Window {
    #[pk(prefix = "#WINDOW")]
    #[sk(prefix = "#WINDOW")]
    pub id: String,
    pub start: u32,
    pub end: u32,
}

fn check_window(w: &Window) -> Result<(), String> {
    if w.end < w.start {
        return Err("a window ends after it starts".into());
    }
    Ok(())
}

faceteer::table! {
    /// Windows.
    pub struct Windows { Window }
}

/// Two saves of one read, each valid alone, would merge into a record its validator
/// refuses: a facet validated on write is saved on condition that every field is as read.
async fn merged_saves_never_break_a_validated_rule() {
    let table = faceteer_suite::fresh_table::<Windows>("saves-validated").await;
    let w = Window {
        id: "w1".into(),
        start: 1,
        end: 20,
    };
    table.put(&w).await.unwrap();
    let key = Window::key("w1").unwrap();
    let read: Window = table.get(&key).consistent().await.unwrap().unwrap();
    let later_start = Window {
        start: 10,
        ..read.clone()
    };
    let earlier_end = Window {
        end: 5,
        ..read.clone()
    };
    table.save(&read, &later_start).await.unwrap();
    let err = table.save(&read, &earlier_end).await.unwrap_err();
    assert!(
        matches!(err, Error::StoredValueDiffers { field: "start", .. }),
        "{err:?}"
    );
    let stored: Window = table.get(&key).consistent().await.unwrap().unwrap();
    assert_eq!((stored.start, stored.end), (10, 20));
}

async fn stored(table: &Table, t: &Task) -> Task {
    let key = Task::key(&t.team_id, &t.task_id).unwrap();
    table.get(&key).consistent().await.unwrap().unwrap()
}

/// What is stored is exactly what a put of the expected record stores: every index key and
/// the TTL follow the saved fields.
async fn assert_stored_as_put(table: &Table, expected: &Task) {
    let key = Task::key(&expected.team_id, &expected.task_id).unwrap();
    let raw = get_raw(table, key.to_item()).await.unwrap();
    assert_eq!(raw, faceteer::to_item(expected).unwrap());
}

async fn disjoint_saves_both_apply() {
    let table = faceteer_suite::fresh_table::<Tasks>("saves-disjoint").await;
    let t = task("team-1", 1);
    assert_eq!(t.status, TaskStatus::Open);
    table.put(&t).await.unwrap();
    // Two writers read the same record and change different fields.
    let (a, b) = (stored(&table, &t).await, stored(&table, &t).await);
    let mut a2 = a.clone();
    a2.status = TaskStatus::Completed;
    let mut b2 = b.clone();
    b2.date_due += chrono::Duration::days(1);
    let saved = table.save(&a, &a2).await.unwrap();
    assert_eq!(
        saved,
        Saved::Written {
            attributes: vec!["status", "GSI2PK"]
        }
    );
    let saved = table.save(&b, &b2).await.unwrap();
    assert_eq!(
        saved,
        Saved::Written {
            attributes: vec!["dateDue", "GSI1SK"]
        }
    );
    // Both changes are kept, and every key is what a put of the merged record writes.
    let mut merged = t.clone();
    merged.status = TaskStatus::Completed;
    merged.date_due = b2.date_due;
    assert_eq!(stored(&table, &t).await, merged);
    assert_stored_as_put(&table, &merged).await;
}

async fn a_clash_on_one_field_is_refused() {
    let table = faceteer_suite::fresh_table::<Tasks>("saves-clash").await;
    let t = task("team-1", 2);
    table.put(&t).await.unwrap();
    let (a, b) = (stored(&table, &t).await, stored(&table, &t).await);
    let mut a2 = a.clone();
    a2.status = TaskStatus::Completed;
    table.save(&a, &a2).await.unwrap();
    // `b` read the status `a` changed: its save would overwrite it.
    let mut b2 = b.clone();
    b2.status = TaskStatus::Completed;
    b2.assigned_user_id = Some("user-9".into());
    match table.save(&b, &b2).await {
        Err(Error::StoredValueDiffers { field, .. }) => {
            assert!(field == "status" || field == "assignedUserId", "{field}")
        }
        other => panic!("{other:?}"),
    }
    let mut expected = t.clone();
    expected.status = TaskStatus::Completed;
    assert_stored_as_put(&table, &expected).await;
}

async fn nothing_changed_sends_nothing_and_keys_stay() {
    let table = faceteer_suite::fresh_table::<Tasks>("saves-refused").await;
    let t = task("team-1", 3);
    table.put(&t).await.unwrap();
    let read = stored(&table, &t).await;
    assert_eq!(
        table.save(&read, &read.clone()).await.unwrap(),
        Saved::Unchanged
    );
    // A save keeps the key: moving is `move_to`'s.
    let mut moved = read.clone();
    moved.task_id = "elsewhere".into();
    match table.save(&read, &moved).await {
        Err(Error::InvalidRequest(why)) => assert!(why.contains("move_to"), "{why}"),
        other => panic!("{other:?}"),
    }
    // The TTL follows its field: set, then removed.
    let mut expiring = read.clone();
    expiring.expires_at = Some(read.date_created + chrono::Duration::days(30));
    let saved = table.save(&read, &expiring).await.unwrap();
    assert_eq!(
        saved,
        Saved::Written {
            attributes: vec!["expiresAt", "ttl"]
        }
    );
    assert_stored_as_put(&table, &expiring).await;
    let mut kept = expiring.clone();
    kept.expires_at = None;
    table.save(&expiring, &kept).await.unwrap();
    assert_stored_as_put(&table, &kept).await;
    // A record that was never stored: the update finds nothing, and nothing is created.
    let ghost = task("team-1", 99);
    let mut ghost2 = ghost.clone();
    ghost2.status = TaskStatus::Completed;
    assert!(table.save(&ghost, &ghost2).await.is_err());
    let key = Task::key(&ghost.team_id, &ghost.task_id).unwrap();
    assert_eq!(table.get(&key).await.unwrap(), None);
}

async fn a_stale_version_is_a_conflict() {
    let table = faceteer_suite::fresh_table::<TestTable>("saves-version").await;
    let s = Stock {
        sku: "sku-1".into(),
        on_hand: 5,
        version: 0,
    };
    table.put(&s).await.unwrap();
    let key = Stock::key("sku-1").unwrap();
    let read = table.get(&key).consistent().await.unwrap().unwrap();
    let mut taken = read.clone();
    taken.on_hand -= 1;
    table.save(&read, &taken).await.unwrap();
    let now = table.get(&key).consistent().await.unwrap().unwrap();
    assert_eq!((now.on_hand, now.version), (4, read.version + 1));
    // The same read again: another write (ours) came first.
    match table.save(&read, &taken).await {
        Err(Error::VersionConflict { .. }) => {}
        other => panic!("{other:?}"),
    }
    // The counter is the save's to move.
    let mut bumped = now.clone();
    bumped.version += 1;
    match table.save(&now, &bumped).await {
        Err(Error::InvalidRequest(why)) => assert!(why.contains("version"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// A modify sends only the attributes its change changed (one `UpdateItem`), nothing when it
/// changes nothing, and the whole record when the stored item is not the one a put of the
/// record as read writes, which brings it to that shape.
async fn modify_sends_only_what_changed() {
    let table = faceteer_suite::fresh_table::<TestTable>("saves-modify").await;
    let stock = Stock {
        sku: "s1".into(),
        on_hand: 5,
        version: 0,
    };
    table.put(&stock).await.unwrap();
    let key = Stock::key("s1").unwrap();
    let raw = || get_raw(&table, key.to_item());

    let (got, spans) = traced(async { table.modify(&key, |s| s.on_hand -= 1).await }).await;
    let expected = Stock {
        on_hand: 4,
        version: 2,
        ..stock.clone()
    };
    assert_eq!(got.unwrap(), Some(expected.clone()));
    assert_eq!(spans.of("UpdateItem").len(), 1, "{:#?}", spans.closed());
    assert!(spans.of("PutItem").is_empty() && spans.of("TransactWriteItems").is_empty());
    assert_eq!(raw().await.unwrap(), faceteer::to_item(&expected).unwrap());

    // A change that changes nothing sends nothing, and the record stays at its version.
    let (got, spans) = traced(async { table.modify(&key, |_| {}).await }).await;
    assert_eq!(got.unwrap(), Some(expected.clone()));
    assert_eq!(spans.of("GetItem").len(), 1);
    assert!(spans.of("UpdateItem").is_empty() && spans.of("PutItem").is_empty());

    // An item holding an attribute no field names is put whole, which drops it.
    let mut odd = faceteer::to_item(&expected).unwrap();
    odd.insert(
        "legacy".into(),
        aws_sdk_dynamodb::types::AttributeValue::S("x".into()),
    );
    patient(&table)
        .put_item()
        .table_name(table.name())
        .set_item(Some(odd))
        .send()
        .await
        .unwrap();
    let (got, spans) = traced(async { table.modify(&key, |s| s.on_hand += 10).await }).await;
    let expected = Stock {
        on_hand: 14,
        version: 3,
        ..stock
    };
    assert_eq!(got.unwrap(), Some(expected.clone()));
    assert_eq!(spans.of("PutItem").len(), 1);
    assert_eq!(raw().await.unwrap(), faceteer::to_item(&expected).unwrap());

    // Concurrent modifies of one record each apply once.
    let runs = (0..4).map(|_| {
        std::future::IntoFuture::into_future(table.modify(&key, |s| s.on_hand += 1).attempts(50))
    });
    for got in futures::future::join_all(runs).await {
        got.unwrap();
    }
    let now: Stock = table.get(&key).consistent().await.unwrap().unwrap();
    assert_eq!((now.on_hand, now.version), (18, 7));
}

faceteer_suite::engines!(
    disjoint_saves_both_apply,
    a_clash_on_one_field_is_refused,
    nothing_changed_sends_nothing_and_keys_stay,
    a_stale_version_is_a_conflict,
    modify_sends_only_what_changed,
    merged_saves_never_break_a_validated_rule,
);
