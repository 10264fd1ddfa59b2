//! The path a user walks every day, on Entity Manager's user (the seeds' "evolving a schema"
//! guide): an update names only the change, whatever index keys it moves; write times are
//! stored as the application stores them (epoch seconds); a put over a stored record keeps
//! its creation time. Many writers change one record at once, and its index keys always
//! match its fields.

use crate::common;

use faceteer::{Facet, Table};
use faceteer_core::to_item;
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

/// Entity Manager's user: found by beneficiary in the order of creation or of the last
/// change, by name (last and first, in one key), and (sparse) by phone; `created` and
/// `updated` are epoch numbers.
#[allow(clippy::duplicated_attributes)]
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "USER",
    gsi(
        n = 1,
        alias = "BeneficiaryCreated",
        pk(prefix = "#BENEFICIARY", fields(beneficiary_id)),
        sk(prefix = "#CREATED", fields(created, user_id))
    ),
    gsi(
        n = 2,
        alias = "BeneficiaryUpdated",
        pk(prefix = "#BENEFICIARY", fields(beneficiary_id)),
        sk(prefix = "#UPDATED", fields(updated))
    ),
    gsi(
        n = 3,
        alias = "Name",
        pk(prefix = "#NAME", fields(last_name, first_name)),
        sk(prefix = "#USER", fields(user_id))
    ),
    gsi(
        n = 4,
        alias = "Phone",
        sparse,
        pk(prefix = "#PHONE", fields(phone)),
        sk(prefix = "#USER", fields(user_id))
    )
)]
#[serde(rename_all = "camelCase")]
struct User {
    #[pk(prefix = "#USER")]
    #[sk(prefix = "#USER")]
    user_id: String,
    beneficiary_id: String,
    first_name: String,
    last_name: String,
    phone: Option<String>,
    #[created(seconds)]
    created: u64,
    #[updated(millis)]
    updated: i64,
    /// How many times the user was renamed (an `add` beside a read-filled `set`).
    #[serde(default)]
    renames: u32,
}

/// A OneTable-style record: no version, a creation time, saved whole.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "NOTE")]
#[serde(rename_all = "camelCase")]
struct Note {
    #[pk(prefix = "#NOTE")]
    #[sk(prefix = "#NOTE")]
    id: String,
    text: String,
    #[created]
    created_at: chrono::DateTime<chrono::Utc>,
    #[updated]
    updated_at: chrono::DateTime<chrono::Utc>,
}

/// A reading of a sensor, keyed by a signed sortable time and listed by level in time
/// order: the index's sort key is the table key's field.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "READING",
    gsi(
        n = 1,
        alias = "Level",
        pk(prefix = "#LEVEL", fields(level)),
        sk(prefix = "#AT", fields(sensor, at), sortable(at))
    )
)]
struct Reading {
    #[pk(prefix = "#SENSOR")]
    sensor: String,
    #[sk(prefix = "#AT", sortable)]
    at: i64,
    level: String,
}

/// OneTable's repository guide: a post's sort key is `${createdAt}#${id}`, the values alone;
/// listed by title in creation order through an index whose sort key has no prefix either.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "Post",
    delimiter = "#",
    gsi(
        n = 1,
        alias = "Title",
        pk(prefix = "Title", fields(title)),
        sk(no_prefix, fields(created_at, id))
    )
)]
#[serde(rename_all = "camelCase")]
struct Post {
    #[pk(prefix = "Blog")]
    blog_id: String,
    #[sk(no_prefix)]
    created_at: chrono::DateTime<chrono::Utc>,
    #[sk]
    id: String,
    title: String,
}

/// Write times as `DateTime<Utc>` fields stored by their own serde codecs: epoch seconds,
/// and an optional epoch-milliseconds time.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "EVENT")]
struct Event {
    #[pk(prefix = "#EVENT")]
    #[sk(prefix = "#EVENT")]
    id: String,
    #[created]
    #[serde(with = "chrono::serde::ts_seconds")]
    created: chrono::DateTime<chrono::Utc>,
    #[updated]
    #[serde(with = "chrono::serde::ts_milliseconds_option", default)]
    updated: Option<chrono::DateTime<chrono::Utc>>,
    title: String,
}

faceteer::table! {
    struct Users { User, Note, Reading, Event }
}

faceteer::table! {
    struct Posts { Post }
}

fn user(id: &str) -> User {
    User {
        user_id: id.into(),
        beneficiary_id: "b1".into(),
        first_name: "Jason".into(),
        last_name: "Williscroft".into(),
        phone: None,
        created: 0,
        updated: 0,
        renames: 0,
    }
}

/// The stored record, after checking that its item is exactly what a put of it writes
/// (every index key built from its fields as they are).
async fn checked(table: &Table, id: &str) -> User {
    let key = User::key(id).unwrap();
    let item = common::get_record_item(table, key.to_item())
        .await
        .expect("stored");
    let record: User = faceteer::from_item(item.clone()).unwrap();
    assert_eq!(
        item,
        to_item(&record).unwrap(),
        "derived keys follow fields"
    );
    record
}

async fn an_update_names_only_the_change() {
    let table = fresh_table::<Users>("daily-update").await;
    let before = chrono::Utc::now().timestamp();
    let returned = table.put(&user("u1")).returning_stored().await.unwrap();
    let stored = checked(&table, "u1").await;
    assert_eq!(returned, stored);
    // Epoch numbers, set by the library.
    assert!(stored.created as i64 >= before, "{stored:?}");
    assert!(stored.updated / 1000 >= before, "{stored:?}");
    let raw = common::get_raw(&table, User::key("u1").unwrap().to_item())
        .await
        .unwrap();
    assert!(raw["created"].as_n().is_ok(), "{raw:?}");

    let key = User::key("u1").unwrap();
    let f = User::fields();
    // GSI1 also needs `created` and `user_id`, GSI2 `updated`: read, not asked for.
    table
        .update(&key, f.beneficiary_id.set("b2"))
        .await
        .unwrap();
    let moved = checked(&table, "u1").await;
    assert_eq!(moved.beneficiary_id, "b2");
    assert_eq!(moved.created, stored.created);
    let by_beneficiary = table
        .query(User::by_beneficiary_created("b2").list())
        .all()
        .await
        .unwrap();
    assert_eq!(by_beneficiary, std::slice::from_ref(&moved));
    // Into the sparse index and out of it, each one call.
    table.update(&key, f.phone.set("555-0100")).await.unwrap();
    let by_phone = table
        .query(User::by_phone("555-0100").list())
        .all()
        .await
        .unwrap();
    assert_eq!(by_phone.len(), 1);
    table.update(&key, f.phone.remove()).await.unwrap();
    checked(&table, "u1").await;
    // A value of the table key comes with the key: no read, the request is known.
    let plan = table.update(&key, f.phone.set("555-0101")).plan().unwrap();
    assert!(format!("{plan:?}").contains("GSI4SK"), "{plan:?}");
    table.update(&key, f.phone.remove()).await.unwrap();
    // A new last name moves GSI3PK, also built from the first name: read (so `plan()`
    // cannot show the request).
    let plan = table.update(&key, f.last_name.set("x")).plan();
    assert!(plan.is_err(), "{plan:?}");
    table.update(&key, f.last_name.set("Smith")).await.unwrap();
    let renamed = checked(&table, "u1").await;
    assert_eq!(renamed.last_name, "Smith");
    let by_name = table
        .query(User::by_name("Smith", "Jason").list())
        .all()
        .await
        .unwrap();
    assert_eq!(by_name, [renamed]);
    // A missing record is not created, and nothing is written for it.
    let missing = User::key("nobody").unwrap();
    let err = table
        .update(&missing, f.beneficiary_id.set("b3"))
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");
    assert!(common::get_raw(&table, missing.to_item()).await.is_none());
    // A value named unchanged is still checked, and skips the read.
    let err = table
        .update(
            &key,
            f.beneficiary_id.set("b4") & f.first_name.unchanged("Someone"),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            faceteer::Error::StoredValueDiffers {
                field: "firstName",
                ..
            }
        ),
        "{err:?}"
    );
}

/// A write time goes through its field's serde codec, on puts and updates alike.
async fn write_times_follow_their_codecs() {
    let table = fresh_table::<Users>("daily-codecs").await;
    let event = Event {
        id: "e1".into(),
        created: chrono::DateTime::<chrono::Utc>::UNIX_EPOCH,
        updated: None,
        title: "first".into(),
    };
    let before = chrono::Utc::now().timestamp();
    let stored = table.put(&event).returning_stored().await.unwrap();
    let key = Event::key("e1").unwrap();
    let raw = common::get_raw(&table, key.to_item()).await.unwrap();
    let created = raw["created"].as_n().unwrap().parse::<i64>().unwrap();
    assert!(created >= before, "{raw:?}");
    let updated = raw["updated"].as_n().unwrap().parse::<i64>().unwrap();
    assert!(updated / 1000 >= before, "{raw:?}");
    assert_eq!(stored.created.timestamp(), created);
    assert_eq!(stored, table.get(&key).await.unwrap().unwrap());
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let f = Event::fields();
    let after: Event = table
        .update(&key, f.title.set("second"))
        .returning_new()
        .await
        .unwrap();
    let raw = common::get_raw(&table, key.to_item()).await.unwrap();
    assert!(raw["updated"].as_n().is_ok(), "{raw:?}");
    assert_eq!(after.created, stored.created);
    assert!(after.updated > stored.updated, "{after:?} {stored:?}");
}

/// Key values read back from a key's text, sortable and negative ones included, give an
/// update all it needs without a read.
async fn key_values_come_with_the_key() {
    let table = fresh_table::<Users>("daily-key-values").await;
    for at in [-5_i64, 0, 1_700_000_000_000] {
        let reading = Reading {
            sensor: "s-1".into(),
            at,
            level: "low".into(),
        };
        table.put(&reading).await.unwrap();
        let key = Reading::key("s-1", at).unwrap();
        let r = Reading::fields();
        let update = table.update(&key, r.level.set("high"));
        update.plan().expect("no value to read");
        update.await.unwrap();
        let item = common::get_record_item(&table, key.to_item())
            .await
            .unwrap();
        let stored: Reading = faceteer::from_item(item.clone()).unwrap();
        assert_eq!(item, to_item(&stored).unwrap());
        assert_eq!(stored.level, "high");
    }
    let high = table
        .query(Reading::by_level("high").list())
        .all()
        .await
        .unwrap();
    let times: Vec<i64> = high.iter().map(|r| r.at).collect();
    assert_eq!(times, [-5, 0, 1_700_000_000_000]);
}

/// Writers changing the fields of one record's index keys at once: every update applies,
/// and the stored item's keys always match its fields (each update was conditioned on the
/// values it read, and planned again when another writer changed them).
async fn many_writers_keep_index_keys_true() {
    let table = fresh_table::<Users>("daily-writers").await;
    table.put(&user("u1")).await.unwrap();
    let key = User::key("u1").unwrap();
    let writers = (0..6).map(|w| {
        let (table, key) = (table.clone(), key.clone());
        tokio::spawn(async move {
            let f = User::fields();
            for i in 0..12 {
                // The two names each need the other (GSI3PK): each update reads it, and is
                // planned again when the other writer changed it first.
                let change = match (w + i) % 5 {
                    0 => f.beneficiary_id.set(format!("b{w}-{i}")),
                    1 => f.first_name.set(format!("f{w}-{i}")),
                    2 => f.last_name.set(format!("l{w}-{i}")),
                    3 => f.phone.set(format!("p{w}")),
                    _ => f.phone.remove(),
                };
                table.update(&key, change).await.unwrap();
            }
        })
    });
    for writer in futures::future::join_all(writers).await {
        writer.unwrap();
    }
    let last = checked(&table, "u1").await;
    let by_beneficiary = table
        .query(User::by_beneficiary_updated(&last.beneficiary_id).list())
        .all()
        .await
        .unwrap();
    assert_eq!(by_beneficiary, [last]);
}

/// Updates that read what their keys need, through a proxy that loses answers and resets
/// connections: each is reported exactly (done, not done, or unknown), a done one applied
/// once (a counter it adds to counts it), and the stored keys always match the fields.
async fn lost_answers_leave_read_filled_updates_exact() {
    use faceteer::testing::FaultConfig;
    let faults = FaultConfig {
        single_writes: true,
        fail_after: 0.15,
        reset_after: 0.15,
        seed: 38,
        ..FaultConfig::default()
    };
    let timeouts = faceteer::Timeouts {
        attempt: std::time::Duration::from_secs(60),
        operation: std::time::Duration::from_secs(120),
        call: std::time::Duration::from_secs(300),
        ..faceteer::Timeouts::default()
    };
    let (_proxy, table, direct) =
        common::lossy_table_with::<Users>("daily-lossy", faults, timeouts, 8).await;
    let choice = match faceteer_suite::server() {
        faceteer_suite::Server::Embedded(_) => faceteer::LostAnswers::Resend,
        _ => faceteer::LostAnswers::Report,
    };
    let table = table.with_lost_answers(choice);
    direct.put(&user("u1")).await.unwrap();
    let key = User::key("u1").unwrap();
    let (mut done, mut unknown) = (0u32, 0u32);
    let writers = (0..4).map(|w| {
        let (table, key) = (table.clone(), key.clone());
        tokio::spawn(async move {
            let f = User::fields();
            let mut said = (0u32, 0u32);
            for i in 0..15 {
                let rename = if (w + i) % 2 == 0 {
                    f.first_name.set(format!("f{w}-{i}"))
                } else {
                    f.last_name.set(format!("l{w}-{i}"))
                };
                match table.update(&key, rename & f.renames.add(1)).await {
                    Ok(()) => said.0 += 1,
                    Err(e) if e.is_outcome_unknown() => said.1 += 1,
                    Err(e) => panic!("an update neither done nor unknown: {e}"),
                }
            }
            said
        })
    });
    for writer in futures::future::join_all(writers).await {
        let (d, u) = writer.unwrap();
        done += d;
        unknown += u;
    }
    let last = checked(&direct, "u1").await;
    assert!(
        (done..=done + unknown).contains(&last.renames),
        "{} renames stored; {done} done, {unknown} unknown",
        last.renames
    );
    // One line per run (`--nocapture`): how the proxy's faults came out.
    eprintln!(
        "read-filled updates: {done} done, {unknown} unknown, {} stored",
        last.renames
    );
    assert!(done > 0, "no update got through");
}

/// A transaction's update step that needs a stored value reads it when the transaction is
/// sent, and is planned again while other writers change it; one on a missing record is
/// canceled as the server cancels it.
async fn transaction_steps_read_what_they_need() {
    let table = fresh_table::<Users>("daily-tx").await;
    table.put(&user("u1")).await.unwrap();
    let key = User::key("u1").unwrap();
    let f = User::fields();
    table
        .transact_write()
        .update(table.update(&key, f.last_name.set("Jones")))
        .put(table.put(&user("u2")))
        .await
        .unwrap();
    assert_eq!(checked(&table, "u1").await.last_name, "Jones");
    let err = table
        .transact_write()
        .update(table.update(&User::key("nobody").unwrap(), f.last_name.set("x")))
        .put(table.put(&user("u3")))
        .await
        .unwrap_err();
    match &err {
        faceteer::Error::TransactionCanceled { canceled } => {
            assert_eq!(canceled.len(), 1, "{err:?}");
            assert_eq!(
                canceled[0].reason,
                faceteer::error::CancelReason::ConditionFailed
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(common::get_raw(&table, User::key("u3").unwrap().to_item())
        .await
        .is_none());
    // Racing writers, each a transaction changing one name (reading the other).
    let writers = (0..4).map(|w| {
        let (table, key) = (table.clone(), key.clone());
        tokio::spawn(async move {
            let f = User::fields();
            for i in 0..8 {
                let change = if (w + i) % 2 == 0 {
                    f.first_name.set(format!("f{w}-{i}"))
                } else {
                    f.last_name.set(format!("l{w}-{i}"))
                };
                table
                    .transact_write()
                    .update(table.update(&key, change))
                    .await
                    .unwrap();
            }
        })
    });
    for writer in futures::future::join_all(writers).await {
        writer.unwrap();
    }
    let last = checked(&table, "u1").await;
    let by_name = table
        .query(User::by_name(&last.last_name, &last.first_name).list())
        .all()
        .await
        .unwrap();
    assert_eq!(by_name, [last]);
}

/// A put over a stored record keeps its `#[created]` (a OneTable-style save), a new one gets
/// the time of the write, and `created_now` sets it whatever is stored.
async fn a_save_keeps_the_creation_time() {
    let table = fresh_table::<Users>("daily-save").await;
    let epoch = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
    let note = Note {
        id: "n1".into(),
        text: "first".into(),
        created_at: epoch,
        updated_at: epoch,
    };
    let before = chrono::Utc::now() - chrono::Duration::seconds(1);
    table.put(&note).await.unwrap();
    let key = Note::key("n1").unwrap();
    let first = table.get(&key).await.unwrap().unwrap();
    assert!(first.created_at > before, "{first:?}");
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    // Saved as given (its own creation time wrong): the stored one is kept.
    table
        .put(&Note {
            text: "second".into(),
            ..note.clone()
        })
        .await
        .unwrap();
    let second = table.get(&key).await.unwrap().unwrap();
    assert_eq!(second.created_at, first.created_at);
    assert!(second.updated_at > first.updated_at);
    assert_eq!(second.text, "second");
    // Told so, the time of the write; the put returns the times it stored.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let returned = table
        .put(&second)
        .created_now()
        .returning_stored()
        .await
        .unwrap();
    let third = table.get(&key).await.unwrap().unwrap();
    assert!(third.created_at > second.created_at);
    assert_eq!(returned, third);
    // A kept time is returned as kept.
    let kept = table
        .put(&Note {
            text: "fourth".into(),
            ..note.clone()
        })
        .returning_stored()
        .await
        .unwrap();
    assert_eq!(kept.created_at, third.created_at);
    assert_eq!(Some(kept), table.get(&key).await.unwrap());
    // A condition of the caller's is still the put's own: refused, nothing written.
    let n = Note::fields();
    let err = table
        .put(&third)
        .when(n.text.eq("not this"))
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");
    // Saves racing each other all apply, and the creation time stays the first one.
    let saves = (0..6).map(|i| {
        let (table, note) = (table.clone(), note.clone());
        tokio::spawn(async move {
            let text = format!("save {i}");
            table.put(&Note { text, ..note }).await.unwrap();
        })
    });
    for save in futures::future::join_all(saves).await {
        save.unwrap();
    }
    let last = table.get(&key).await.unwrap().unwrap();
    assert_eq!(last.created_at, third.created_at);
}

/// A sort key written as OneTable writes it: no prefix, no leading delimiter; its queries
/// are typed like any other, and an update reads its values back from the key.
async fn keys_as_onetable_writes_them() {
    use chrono::TimeZone;
    let table = fresh_table::<Posts>("daily-onetable").await;
    let at = |d: u32| chrono::Utc.with_ymd_and_hms(2026, 1, d, 0, 0, 0).unwrap();
    let post = |d: u32, id: &str| Post {
        blog_id: "b1".into(),
        created_at: at(d),
        id: id.into(),
        title: "hello".into(),
    };
    let key = Post::key("b1", at(2), "p2").unwrap();
    assert_eq!(key.pk(), "Blog#b1");
    assert_eq!(key.sk(), "2026-01-02T00:00:00.000Z#p2");
    for (d, id) in [(1, "p1"), (2, "p2"), (3, "p3")] {
        table.put(&post(d, id)).await.unwrap();
        let raw = common::get_raw(&table, Post::key("b1", at(d), id).unwrap().to_item())
            .await
            .unwrap();
        let sk = format!("2026-01-0{d}T00:00:00.000Z#{id}");
        assert_eq!(raw["SK"].as_s().unwrap(), &sk);
        assert_eq!(raw["GSI1SK"].as_s().unwrap(), &sk);
    }
    let ids = |posts: Vec<Post>| posts.into_iter().map(|p| p.id).collect::<Vec<_>>();
    let all = table.query(Post::query("b1").list()).all().await.unwrap();
    assert_eq!(ids(all), ["p1", "p2", "p3"]);
    let before = table
        .query(Post::query("b1").less_than((at(2), "p2")))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(before), ["p1"]);
    let after = table
        .query(Post::query("b1").greater_than((at(2), "p2")))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(after), ["p3"]);
    let on_day = table
        .query(Post::query("b1").begins_with((at(2),)))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(on_day), ["p2"]);
    let titled = table
        .query(Post::by_title("hello").list().reverse())
        .all()
        .await
        .unwrap();
    assert_eq!(ids(titled), ["p3", "p2", "p1"]);
    // A new title moves GSI1, whose sort key needs the table key's values: read back from
    // the key, no read.
    let p = Post::fields();
    let update = table.update(&key, p.title.set("renamed"));
    update.plan().expect("the key holds every value");
    update.await.unwrap();
    let renamed = table
        .query(Post::by_title("renamed").list())
        .all()
        .await
        .unwrap();
    assert_eq!(ids(renamed), ["p2"]);
    let item = common::get_record_item(&table, key.to_item())
        .await
        .unwrap();
    let stored: Post = faceteer::from_item(item.clone()).unwrap();
    assert_eq!(item, to_item(&stored).unwrap());
}

faceteer_suite::engines!(
    an_update_names_only_the_change,
    key_values_come_with_the_key,
    write_times_follow_their_codecs,
    many_writers_keep_index_keys_true,
    lost_answers_leave_read_filled_updates_exact,
    transaction_steps_read_what_they_need,
    a_save_keeps_the_creation_time,
    keys_as_onetable_writes_them,
);
