//! `#[created]` and `#[updated]`: set by every write as documented, stored as Faceteer
//! stores dates, and the index key built from `updated` always matches the stored record.

use crate::common;

use std::time::Duration;

use chrono::{DateTime, Utc};
use faceteer::{Facet, Table};
use faceteer_core::{from_item, to_item, Item};
use faceteer_suite::fresh_table;
use futures::StreamExt;
use serde::{Deserialize, Serialize};

/// A document, listed by team in the order of its last change.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "DOC",
    gsi(
        n = 1,
        alias = "ByChange",
        pk(prefix = "#TEAM", fields(team)),
        sk(prefix = "#CHANGED", fields(updated))
    )
)]
struct Doc {
    #[pk(prefix = "#DOC")]
    #[sk(prefix = "#DOC")]
    id: String,
    team: String,
    title: String,
    #[created]
    created: DateTime<Utc>,
    #[updated]
    updated: DateTime<Utc>,
    #[version]
    version: u64,
}

/// A jotting, listed by team in the order of its last change and in the order of creation,
/// both keys also built from the title.
#[allow(clippy::duplicated_attributes)]
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "JOT",
    gsi(
        n = 1,
        alias = "Changed",
        pk(prefix = "#TEAM", fields(team)),
        sk(prefix = "#CHANGED", fields(updated, title))
    ),
    gsi(
        n = 2,
        alias = "Age",
        pk(prefix = "#TEAM", fields(team)),
        sk(prefix = "#CREATED", fields(created, title))
    )
)]
struct Jot {
    #[pk(prefix = "#JOT")]
    #[sk(prefix = "#JOT")]
    id: String,
    team: String,
    title: String,
    #[created]
    created: DateTime<Utc>,
    #[updated]
    updated: DateTime<Utc>,
    #[version]
    version: u64,
}

faceteer::table! {
    struct Docs { Doc, Jot, Errand, Chore }
}

/// An errand, due by a date: a validator run on every write refuses one created after it
/// is due. Its creation time is in no key.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "ERRAND", validator = created_before_due, validate_on_write)]
struct Errand {
    #[pk(prefix = "#ERRAND")]
    #[sk(prefix = "#ERRAND")]
    id: String,
    due: DateTime<Utc>,
    #[created]
    created: DateTime<Utc>,
}

/// A chore: an errand whose index lists it by creation time (a key built from a write
/// time).
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "CHORE",
    validator = chore_created_before_due,
    validate_on_write,
    gsi(n = 1, alias = "ByAge", pk(prefix = "#CHORES", fields()), sk(prefix = "#CREATED", fields(created)))
)]
struct Chore {
    #[pk(prefix = "#CHORE")]
    #[sk(prefix = "#CHORE")]
    id: String,
    due: DateTime<Utc>,
    #[created]
    created: DateTime<Utc>,
}

fn created_before_due(e: &Errand) -> Result<(), String> {
    (e.created <= e.due)
        .then_some(())
        .ok_or_else(|| "created after it is due".to_owned())
}

fn chore_created_before_due(c: &Chore) -> Result<(), String> {
    (c.created <= c.due)
        .then_some(())
        .ok_or_else(|| "created after it is due".to_owned())
}

fn doc(id: &str, title: &str) -> Doc {
    let long_ago = DateTime::parse_from_rfc3339("2001-01-01T00:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    Doc {
        id: id.into(),
        team: "t1".into(),
        title: title.into(),
        created: long_ago,
        updated: long_ago,
        version: 0,
    }
}

/// The stored item under `id`, read straight from the engine.
async fn raw(table: &Table, id: &str) -> Item {
    let key = Doc::key(id).unwrap().to_item();
    common::patient(table)
        .get_item()
        .table_name(table.name())
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .expect("stored")
}

/// The stored record, after checking that its index keys are what a put of it writes.
async fn stored(table: &Table, id: &str) -> Doc {
    let item = raw(table, id).await;
    let record: Doc = from_item(item.clone()).unwrap();
    let put = to_item(&record).unwrap();
    for attribute in ["GSI1PK", "GSI1SK", "created", "updated"] {
        assert_eq!(
            item.get(attribute),
            put.get(attribute),
            "{attribute} of {id}"
        );
    }
    let text = item["updated"].as_s().unwrap();
    assert!(
        text.len() == 24 && text.ends_with('Z'),
        "stored as toISOString(): {text}"
    );
    record
}

/// A short pause, so that the next write's time is later.
async fn tick() {
    tokio::time::sleep(Duration::from_millis(5)).await;
}

async fn every_write_sets_the_times_it_documents() {
    let table = fresh_table::<Docs>("write-times").await;
    let f = Doc::fields();
    let before = Utc::now() - chrono::Duration::seconds(1);

    // A create sets both.
    table.put(&doc("d1", "a")).if_not_exists().await.unwrap();
    let d1 = stored(&table, "d1").await;
    assert!(d1.created > before, "{d1:?}");
    assert_eq!(d1.created, d1.updated);

    // An update moves `updated` (and the index key built from it), never `created`.
    tick().await;
    let key = Doc::key("d1").unwrap();
    table.update(&key, f.title.set("b")).await.unwrap();
    let after_update = stored(&table, "d1").await;
    assert_eq!(after_update.created, d1.created);
    assert!(after_update.updated > d1.updated);

    // A read-modify-write keeps `created`; a put over a stored record too.
    tick().await;
    let modified = table
        .modify(&key, |d: &mut Doc| d.title = "c".into())
        .await
        .unwrap();
    let after_modify = stored(&table, "d1").await;
    assert_eq!(after_modify.created, d1.created);
    assert!(after_modify.updated > after_update.updated);
    assert_eq!(modified.unwrap().title, "c");
    tick().await;
    table
        .put(&Doc {
            title: "d".into(),
            ..after_modify.clone()
        })
        .await
        .unwrap();
    let kept = stored(&table, "d1").await;
    assert_eq!(kept.created, d1.created);
    assert!(kept.updated > after_modify.updated);

    // A put told so sets the time of the write.
    tick().await;
    table
        .put(&Doc {
            title: "e".into(),
            ..kept.clone()
        })
        .created_now()
        .await
        .unwrap();
    let replaced = stored(&table, "d1").await;
    assert!(replaced.created > d1.created);
    assert_eq!(replaced.created, replaced.updated);

    // An upsert keeps `created` of an existing record and sets both on a new one.
    tick().await;
    table
        .upsert(&Doc {
            title: "f".into(),
            ..doc("d1", "")
        })
        .await
        .unwrap();
    let upserted = stored(&table, "d1").await;
    assert_eq!(upserted.created, replaced.created);
    assert!(upserted.updated > replaced.updated);
    table.upsert(&doc("d2", "new")).await.unwrap();
    let d2 = stored(&table, "d2").await;
    assert!(d2.created > before);
    assert_eq!(d2.created, d2.updated);

    // A move keeps `created`.
    tick().await;
    let moved = Doc {
        id: "d3".into(),
        ..upserted.clone()
    };
    table.move_to(&key, &moved).await.unwrap();
    let d3 = stored(&table, "d3").await;
    assert_eq!(d3.created, upserted.created);
    assert!(d3.updated > upserted.updated);

    // The index lists records in the order of their last change.
    let listed: Vec<String> = table
        .query(Doc::by_change("t1").list())
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert_eq!(listed, ["d2", "d3"]);

    // A transaction's steps set them too.
    tick().await;
    table
        .transact_write()
        .update(table.update(&Doc::key("d2").unwrap(), f.title.set("g")))
        .await
        .unwrap();
    let d2_later = stored(&table, "d2").await;
    assert_eq!(d2_later.created, d2.created);
    assert!(d2_later.updated > d2.updated);
}

/// The stored jot under `id`, after checking that every key is what a put of it writes.
async fn stored_jot(table: &Table, id: &str) -> Option<Jot> {
    let key = Jot::key(id).unwrap().to_item();
    let item = common::get_raw(table, key).await?;
    let record: Jot = from_item(item.clone()).unwrap();
    let put = to_item(&record).unwrap();
    for attribute in ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"] {
        assert_eq!(
            item.get(attribute),
            put.get(attribute),
            "{attribute} of {id}"
        );
    }
    Some(record)
}

/// One random sequence of writes to one jot: after each, the stored item's keys are true,
/// its fields are the model's, `created` moves only when the write creates or replaces, and
/// `updated` moves on every write.
async fn jot_sequence(table: &Table, seed: u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let f = Jot::fields();
    let id = format!("j{seed}");
    let key = Jot::key(&id).unwrap();
    let epoch = chrono::SubsecRound::trunc_subsecs(Utc::now(), 3);
    let fresh = |title: &str, team: &str, last: &Option<Jot>| Jot {
        id: id.clone(),
        team: team.into(),
        title: title.into(),
        created: epoch,
        updated: epoch,
        version: last.as_ref().map_or(0, |l| l.version),
    };
    // (team, title) of the stored record, and the stored record itself.
    let mut model: Option<(String, String)> = None;
    let mut last: Option<Jot> = None;
    for step in 0..8 {
        let title = format!("t{}", rng.usize(..3));
        let team = if rng.bool() { "red" } else { "blue" };
        let start = Utc::now() - chrono::Duration::milliseconds(2);
        let op = rng.usize(..9);
        // What the write does to the model, and whether it keeps `created`.
        let (result, next, keeps): (faceteer::Result<()>, Option<(String, String)>, bool) = match op
        {
            0 => {
                let r = table.put(&fresh(&title, team, &last)).if_not_exists().await;
                let next = match &model {
                    Some(m) => Some(m.clone()),
                    None => Some((team.to_owned(), title.clone())),
                };
                (r, next, model.is_some())
            }
            1 => {
                let r = table.put(&fresh(&title, team, &last)).created_now().await;
                (r, Some((team.to_owned(), title.clone())), false)
            }
            2 => {
                let r = table.put(&fresh(&title, team, &last)).await;
                (r, Some((team.to_owned(), title.clone())), true)
            }
            3 => {
                let change = match &last {
                    Some(l) => f.title.set(title.clone()) & f.created.unchanged(l.created),
                    None => f.title.set(title.clone()) & f.created.unchanged(epoch),
                };
                let r = table.update(&key, change).await;
                let next = model.clone().map(|(t, _)| (t, title.clone()));
                (r, next, true)
            }
            4 => {
                let current = model.as_ref().map_or("t0".to_owned(), |m| m.1.clone());
                let r = table
                    .update(&key, f.team.set(team) & f.title.unchanged(current))
                    .await;
                let next = model.clone().map(|(_, t)| (team.to_owned(), t));
                (r, next, true)
            }
            5 => {
                let r = table.upsert(&fresh(&title, team, &last)).await;
                (r, Some((team.to_owned(), title.clone())), true)
            }
            6 => {
                let r = table
                    .modify(&key, |j: &mut Jot| j.title = format!("{}!", j.title))
                    .await
                    .map(|_| ());
                let next = model.clone().map(|(t, old)| (t, format!("{old}!")));
                (r, next, true)
            }
            7 => (table.delete(&key).await, None, false),
            _ => {
                let template = Jot {
                    created: last.as_ref().map_or(epoch, |l| l.created),
                    ..fresh(&title, team, &last)
                };
                let change = match &last {
                    Some(l) => f.title.set(title.clone()) & f.created.unchanged(l.created),
                    None => f.title.set(title.clone()) & f.created.unchanged(epoch),
                };
                let r = table.update(&key, change).or_create(&template).await;
                let next = match &model {
                    Some((t, _)) => Some((t.clone(), title.clone())),
                    None => Some((team.to_owned(), title.clone())),
                };
                (r, next, model.is_some())
            }
        };
        let context = format!("seed {seed} step {step} op {op}");
        let refused = match &result {
            Ok(()) => false,
            Err(e) if e.is_condition_failed() => true,
            Err(e) => panic!("{context}: {e}"),
        };
        // An update or a create refused changes nothing: only where the model says so.
        let expect_refused = match op {
            0 => model.is_some(),
            3 | 4 => model.is_none(),
            _ => false,
        };
        assert_eq!(refused, expect_refused, "{context}: {result:?}");
        let stored = stored_jot(table, &id).await;
        if refused {
            assert_eq!(stored, last, "{context}: a refused write changes nothing");
            continue;
        }
        let next = if op == 6 && model.is_none() {
            None
        } else {
            next
        };
        match (&next, &stored) {
            (None, None) => {}
            (Some((team, title)), Some(now)) => {
                assert_eq!((&now.team, &now.title), (team, title), "{context}");
                assert!(
                    now.updated >= start,
                    "{context}: `updated` is the write's time"
                );
                match &last {
                    Some(before) if keeps => {
                        assert_eq!(now.created, before.created, "{context}: `created` kept")
                    }
                    // An update that creates writes the template's.
                    None if op == 8 => assert_eq!(now.created, epoch, "{context}"),
                    _ => assert!(now.created >= start, "{context}: `created` is set"),
                }
                if let Some(before) = &last {
                    assert!(now.updated >= before.updated, "{context}");
                }
            }
            _ => panic!("{context}: expected {next:?}, stored {stored:?}"),
        }
        model = next;
        last = stored;
    }
}

async fn random_writes_keep_time_keys_true() {
    let table = fresh_table::<Docs>("write-times-random").await;
    let sequences = match faceteer_suite::server() {
        faceteer_suite::Server::Embedded(_) => 200,
        _ => 30,
    };
    futures::stream::iter(0..sequences)
        .for_each_concurrent(8, |seed| jot_sequence(&table, seed))
        .await;
}

/// A facet that validates on write is validated as it is stored, with the time of the
/// write in its `#[created]` field, whether or not a key is built from it: a record the
/// validator would refuse on every read is never written. The time given in the record is
/// not the one validated.
async fn the_validator_sees_the_stamped_times() {
    let table = fresh_table::<Docs>("write-times-validator").await;
    let long_ago = DateTime::parse_from_rfc3339("2001-01-01T00:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let far_ahead = DateTime::parse_from_rfc3339("2999-01-01T00:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let validation = |err: &faceteer::Error| {
        matches!(
            err,
            faceteer::Error::Item(faceteer::error::ItemError::Validation { message, .. })
                if message == "created after it is due"
        )
    };
    // Due long ago: created now, it is refused, though the record says it was created before.
    let errand = Errand {
        id: "e1".into(),
        due: long_ago,
        created: DateTime::parse_from_rfc3339("2000-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc),
    };
    let err = table.put(&errand).await.unwrap_err();
    assert!(validation(&err), "{err:?}");
    assert_eq!(table.get(&Errand::key("e1").unwrap()).await.unwrap(), None);
    let chore = Chore {
        id: "c1".into(),
        due: long_ago,
        created: errand.created,
    };
    let err = table.put(&chore).await.unwrap_err();
    assert!(validation(&err), "{err:?}");
    assert_eq!(table.get(&Chore::key("c1").unwrap()).await.unwrap(), None);
    // Due far ahead: written, with the time of the write, though the record's own time
    // (after the due date) would be refused.
    let errand = Errand {
        due: far_ahead,
        created: DateTime::parse_from_rfc3339("3000-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc),
        ..errand
    };
    table.put(&errand).await.unwrap();
    let stored = table
        .get(&Errand::key("e1").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(
        stored.created < far_ahead && stored.created > long_ago,
        "{stored:?}"
    );
    let chore = Chore {
        due: far_ahead,
        created: errand.created,
        ..chore
    };
    table.put(&chore).await.unwrap();
    let stored = table
        .get(&Chore::key("c1").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(
        stored.created < far_ahead && stored.created > long_ago,
        "{stored:?}"
    );
}

faceteer_suite::engines!(
    every_write_sets_the_times_it_documents,
    random_writes_keep_time_keys_true,
    the_validator_sees_the_stamped_times,
);
