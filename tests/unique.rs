//! Unique fields: every value is owned by one record, through a guard item written in the
//! same transaction as the record. Checked after each scenario by a raw scan: every guard
//! belongs to a record that holds its value, every record's values have their guards, and
//! no value has two owners.

use crate::common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use faceteer::{write::Conditional, Error, Facet, Table};
use faceteer_core::unique::{guards, is_guard, OWNER_PK, OWNER_SK};
use faceteer_core::Item;
use faceteer_suite::fresh_table;
use futures::StreamExt;
use serde::{Deserialize, Serialize};

/// A team member: the email is unique within the team, the handle across every team.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "MEMBER")]
struct Member {
    #[pk(prefix = "#MEMBER")]
    #[sk(prefix = "#MEMBER")]
    id: String,
    team: String,
    #[unique(scope(team))]
    email: Option<String>,
    #[unique]
    handle: Option<String>,
    /// Neither unique nor a scope.
    bio: Option<String>,
    #[version]
    version: u64,
}

faceteer::table! {
    struct Members { Member }
}

fn member(id: &str, team: &str, email: Option<&str>, handle: Option<&str>) -> Member {
    Member {
        id: id.into(),
        team: team.into(),
        email: email.map(Into::into),
        handle: handle.map(Into::into),
        bio: None,
        version: 0,
    }
}

/// Check the guards against the records: returns (records, guards).
async fn check_guards(table: &Table) -> (usize, usize) {
    let items = common::raw_items(table).await;
    let s = |item: &Item, n: &str| item[n].as_s().unwrap().clone();
    // Guard key → owner, as stored.
    let stored: HashMap<String, (String, String)> = items
        .iter()
        .filter(|i| is_guard(i))
        .map(|g| (s(g, "PK"), (s(g, OWNER_PK), s(g, OWNER_SK))))
        .collect();
    let mut expected: HashMap<String, (String, String)> = HashMap::new();
    let records: Vec<&Item> = items.iter().filter(|i| !is_guard(i)).collect();
    for record in &records {
        for guard in guards(Member::SCHEMA, record).unwrap() {
            let owner = (s(record, "PK"), s(record, "SK"));
            if let Some(other) = expected.insert(guard.pk.clone(), owner.clone()) {
                panic!("`{}` is owned twice: by {other:?} and {owner:?}", guard.pk);
            }
        }
    }
    for (pk, owner) in &expected {
        assert_eq!(
            stored.get(pk),
            Some(owner),
            "the record {owner:?} holds a value without its guard {pk}"
        );
    }
    for (pk, owner) in &stored {
        assert_eq!(
            expected.get(pk),
            Some(owner),
            "a stray guard {pk} names {owner:?}, which does not hold its value"
        );
    }
    (records.len(), stored.len())
}

fn is_unique(e: &Error, field: &str, value: &str) -> bool {
    matches!(e, Error::Unique { facet: "MEMBER", field: f, value: v } if *f == field && v == value)
}

async fn a_value_has_one_owner_through_every_write() {
    let table = fresh_table::<Members>("unique").await;
    let f = Member::fields();
    table
        .put(&member("m1", "red", Some("a@x"), Some("ann")))
        .if_not_exists()
        .await
        .unwrap();
    assert_eq!(check_guards(&table).await, (1, 2));

    // The same email in the same team is refused; in another team it is free.
    let err = table
        .put(&member("m2", "red", Some("a@x"), None))
        .await
        .unwrap_err();
    assert!(is_unique(&err, "email", "a@x"), "{err}");
    assert!(err.to_string().contains("already holds `email`"), "{err}");
    table
        .put(&member("m2", "blue", Some("a@x"), None))
        .await
        .unwrap();
    let err = table
        .put(&member("m3", "green", None, Some("ann")))
        .await
        .unwrap_err();
    assert!(is_unique(&err, "handle", "ann"), "{err}");
    assert_eq!(check_guards(&table).await, (2, 3));

    // Changing a value swaps its guards: the old value is free again.
    let key = Member::key("m1").unwrap();
    table.update(&key, f.email.set("b@x")).await.unwrap();
    table
        .put(&member("m3", "red", Some("a@x"), None))
        .await
        .unwrap();
    assert_eq!(check_guards(&table).await, (3, 4));

    // Moving to another team moves the scoped guard: m2's email clashes in red.
    let err = table
        .update(&Member::key("m2").unwrap(), f.team.set("red"))
        .await
        .unwrap_err();
    assert!(is_unique(&err, "email", "a@x"), "{err}");

    // Removing the value, without naming the old one, removes its guard.
    table.update(&key, f.email.remove()).await.unwrap();
    assert_eq!(check_guards(&table).await, (3, 3));

    // A put over the record gives up the values it no longer holds.
    let m1 = table.get(&key).await.unwrap().unwrap();
    table
        .put(&Member {
            handle: Some("annie".into()),
            ..m1
        })
        .await
        .unwrap();
    table
        .put(&member("m4", "green", None, Some("ann")))
        .await
        .unwrap();
    assert_eq!(check_guards(&table).await, (4, 4));

    // An upsert takes and gives up values as the put it stands for.
    table
        .upsert(&member("m4", "green", Some("g@x"), None))
        .await
        .unwrap();
    assert_eq!(check_guards(&table).await, (4, 4));

    // A delete frees the values; so does a move, which keeps them.
    table.delete(&Member::key("m3").unwrap()).await.unwrap();
    assert_eq!(check_guards(&table).await, (3, 3));
    let m4 = table
        .get(&Member::key("m4").unwrap())
        .await
        .unwrap()
        .unwrap();
    let moved = Member {
        id: "m5".into(),
        ..m4.clone()
    };
    table
        .move_to(&Member::key("m4").unwrap(), &moved)
        .await
        .unwrap();
    assert_eq!(table.get(&Member::key("m4").unwrap()).await.unwrap(), None);
    let m5 = table
        .get(&Member::key("m5").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((m5.email, m5.version), (m4.email, m4.version + 1));
    assert_eq!(check_guards(&table).await, (3, 3));
    // A stale version, a missing record and a taken key are refused, changing nothing.
    let err = table
        .move_to(&Member::key("m4").unwrap(), &moved)
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err}");
    let err = table
        .move_to(
            &Member::key("m5").unwrap(),
            &Member {
                id: "m6".into(),
                ..moved.clone()
            },
        )
        .await
        .unwrap_err();
    assert!(err.is_version_conflict(), "{err}");
    let err = table
        .move_to(
            &Member::key("m5").unwrap(),
            &Member {
                id: "m1".into(),
                version: m4.version + 1,
                ..moved
            },
        )
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err}");
    assert_eq!(check_guards(&table).await, (3, 3));

    // A condition of the caller's that fails gives back the stored record when asked.
    let f = Member::fields();
    let answer = table
        .delete(&Member::key("m5").unwrap())
        .when(f.team.eq("red"))
        .stored_on_failure()
        .await
        .unwrap();
    match answer {
        Conditional::Failed { error, stored } => {
            assert!(error.is_condition_failed(), "{error}");
            assert_eq!(stored.unwrap().team, "green");
        }
        Conditional::Applied(()) => panic!("the condition does not hold"),
    }
    // Changing a unique field through a transaction of the caller's is refused: its
    // guards need the record's own transaction.
    let err = table
        .transact_write()
        .put(table.put(&member("m9", "red", None, None)))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("`#[unique]` fields"), "{err}");
}

/// Updates that create (`or_create`) and `modify` take and keep the guards of the record
/// they write, whichever branch they take: the guards are scanned after each.
async fn updates_that_create_take_their_guards() {
    let table = fresh_table::<Members>("unique-create").await;
    let f = Member::fields();
    // An update that creates a missing record claims the template's values, though the
    // change touches none of them.
    let template = member("c1", "red", Some("c@x"), Some("cat"));
    let key = Member::key("c1").unwrap();
    table
        .update(&key, f.bio.set("hi"))
        .or_create(&template)
        .await
        .unwrap();
    assert_eq!(check_guards(&table).await, (1, 2));
    // Another record can no longer take them.
    let err = table
        .put(&member("c2", "blue", None, Some("cat")))
        .await
        .unwrap_err();
    assert!(is_unique(&err, "handle", "cat"), "{err}");
    // An update that creates from a template whose value is taken creates nothing.
    let err = table
        .update(&Member::key("c3").unwrap(), f.bio.set("hi"))
        .or_create(&member("c3", "red", None, Some("cat")))
        .await
        .unwrap_err();
    assert!(is_unique(&err, "handle", "cat"), "{err}");
    assert_eq!(table.get(&Member::key("c3").unwrap()).await.unwrap(), None);
    assert_eq!(check_guards(&table).await, (1, 2));
    // On an existing record, the same write changes it and keeps its guards (nothing of the
    // template is written: its values are not claimed).
    table
        .update(&key, f.bio.set("hi"))
        .or_create(&member("c1", "red", Some("other@x"), Some("other")))
        .await
        .unwrap();
    let stored = table.get(&key).await.unwrap().unwrap();
    assert_eq!(stored.handle.as_deref(), Some("cat"));
    assert_eq!(check_guards(&table).await, (1, 2));
    table
        .put(&member("c4", "red", None, Some("other")))
        .await
        .unwrap();
    assert_eq!(check_guards(&table).await, (2, 3));
    // `modify` changing a value moves its guard.
    let changed = table
        .modify(&key, |m: &mut Member| m.handle = Some("kit".into()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(changed.handle.as_deref(), Some("kit"));
    table
        .put(&member("c5", "red", None, Some("cat")))
        .await
        .unwrap();
    assert_eq!(check_guards(&table).await, (3, 4));
    // An update that creates and returns the new record cannot: a guarded write is a
    // transaction, which returns nothing; refused before anything is written.
    let err = table
        .update(&Member::key("c6").unwrap(), f.bio.set("hi"))
        .or_create(&member("c6", "red", None, Some("six")))
        .returning_new()
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("read the record after it"),
        "{err}"
    );
    assert_eq!(check_guards(&table).await, (3, 4));
}

/// Records written without their guards (by a writer that takes none, or before a field
/// was made unique) get them from a backfill; a value two records hold is reported, and
/// left to the application.
async fn a_backfill_takes_missing_guards() {
    let table = fresh_table::<Members>("unique-backfill").await;
    let client = common::patient(&table);
    let records = [
        member("b1", "red", Some("a@x"), Some("h1")),
        member("b2", "red", Some("b@x"), None),
        member("b3", "blue", None, Some("h1")),
        member("b4", "blue", None, None),
    ];
    for r in &records {
        let item = table.put(r).plan().unwrap().item;
        client
            .put_item()
            .table_name(table.name())
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
    let dry = table.backfill::<Member>().dry_run().await.unwrap();
    // Nothing is taken in a dry run: b1, b2 and b3 lack guards.
    assert_eq!(dry.totals.rewritten, 3, "{dry}");
    let report = table.backfill::<Member>().await.unwrap();
    // b1 or b3 takes `h1` first; the other is reported, and takes none of its guards.
    assert_eq!(report.totals.rewritten, 2, "{report}");
    assert_eq!(report.totals.already_right, 1, "{report}");
    assert_eq!(report.failed.len(), 1, "{report}");
    let loser = report.failed[0].sk.clone();
    assert!(
        matches!(
            &report.failed[0].why,
            faceteer::backfill::Why::UniqueTaken { field: "handle", value, .. } if value == "h1"
        ),
        "{report}"
    );
    assert!(report.to_string().contains("owns it"), "{report}");
    // With the loser gone, every value has its guard and every guard its record.
    let loser = if loser.contains("b1") { "b1" } else { "b3" };
    client
        .delete_item()
        .table_name(table.name())
        .set_key(Some(Member::key(loser).unwrap().to_item()))
        .send()
        .await
        .unwrap();
    // b1 owns two values, b2 and b3 one each.
    let guards = if loser == "b1" { 2 } else { 3 };
    assert_eq!(check_guards(&table).await, (3, guards));
    // Run again: nothing to do.
    let again = table.backfill::<Member>().await.unwrap();
    assert_eq!(again.totals.rewritten, 0, "{again}");
    assert!(again.failed.is_empty(), "{again}");
}

/// Version 1 stored handles as typed; version 2 stores them lowercased.
mod tags {
    use super::*;

    pub mod v1 {
        use super::*;
        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        #[facet(name = "TAG")]
        pub struct Tag {
            #[pk(prefix = "#TAG")]
            #[sk(prefix = "#TAG")]
            pub id: String,
            #[unique]
            pub handle: String,
        }
        faceteer::table! { pub struct Tags { Tag } }
    }

    pub mod v2 {
        use super::*;
        #[derive(Deserialize)]
        pub struct TagV1 {
            pub id: String,
            pub handle: String,
        }
        pub fn from_v1(t: TagV1) -> Tag {
            Tag {
                id: t.id,
                handle: t.handle.to_lowercase(),
            }
        }
        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        #[facet(name = "TAG", schema_version = 2, upgrade = from_v1)]
        pub struct Tag {
            #[pk(prefix = "#TAG")]
            #[sk(prefix = "#TAG")]
            pub id: String,
            #[unique]
            pub handle: String,
        }
        faceteer::table! { pub struct Tags { Tag } }
    }
}

/// An upgrade that changes a unique value: the backfill gives up the old value's guard and
/// takes the new one's, with the rewrite, in one transaction.
async fn a_backfill_moves_the_guards_of_upgraded_values() {
    use tags::{v1, v2};
    let old = fresh_table::<v1::Tags>("unique-upgrade").await;
    for (id, handle) in [("t1", "Ann"), ("t2", "Bob")] {
        let tag = v1::Tag {
            id: id.into(),
            handle: handle.into(),
        };
        old.put(&tag).await.unwrap();
    }
    let table = faceteer_suite::patient(Table::declared::<v2::Tags>(
        faceteer_suite::client().await,
        old.name(),
    ));
    let report = table.backfill::<v2::Tag>().await.unwrap();
    assert_eq!(report.totals.rewritten, 2, "{report}");
    let guard_pks: Vec<String> = common::raw_items(&table)
        .await
        .into_iter()
        .filter(is_guard)
        .map(|g| g["PK"].as_s().unwrap().clone())
        .collect();
    let mut guard_pks = guard_pks;
    guard_pks.sort();
    assert_eq!(
        guard_pks,
        vec!["$unique#TAG#handle#3:ann", "$unique#TAG#handle#3:bob"],
        "the old values' guards are given up, the new ones' taken"
    );
    // The old value is free, the new one owned.
    let free = v2::Tag {
        id: "t3".into(),
        handle: "Ann".into(),
    };
    table.put(&free).await.unwrap();
    let taken = v2::Tag {
        id: "t4".into(),
        handle: "bob".into(),
    };
    let err = table.put(&taken).await.unwrap_err();
    assert!(err.is_unique(), "{err}");
}

async fn concurrent_creates_of_one_value_make_one_owner() {
    let table = fresh_table::<Members>("unique-race").await;
    let applied = AtomicUsize::new(0);
    futures::stream::iter(0..50)
        .for_each_concurrent(50, |i| {
            let table = &table;
            let applied = &applied;
            async move {
                let m = member(&format!("m{i}"), "red", Some("same@x"), None);
                match table.put(&m).if_not_exists().await {
                    Ok(()) => {
                        applied.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(e) => assert!(e.is_unique() && is_unique(&e, "email", "same@x"), "{e}"),
                }
            }
        })
        .await;
    assert_eq!(applied.load(Ordering::SeqCst), 1);
    assert_eq!(check_guards(&table).await, (1, 1));
}

/// One random write of the random sequences: on one of 8 records, with one of 4 emails, 2
/// teams and 4 handles.
async fn random_write(table: &Table, rng: &mut fastrand::Rng, tolerate_unknown: bool) {
    let f = Member::fields();
    let id = format!("m{}", rng.usize(..8));
    let key = Member::key(&id).unwrap();
    let pick = |rng: &mut fastrand::Rng, n: usize, p: &str| {
        (rng.usize(..n + 1) < n).then(|| format!("{p}{}", rng.usize(..n)))
    };
    let email = pick(rng, 4, "e");
    let handle = pick(rng, 4, "h");
    let team = if rng.bool() { "red" } else { "blue" };
    let result = match rng.usize(..7) {
        0 => {
            table
                .put(&member(&id, team, email.as_deref(), handle.as_deref()))
                .if_not_exists()
                .await
        }
        1 => match table.get(&key).await.unwrap() {
            Some(stored) => {
                table
                    .put(&Member {
                        email,
                        handle,
                        ..stored
                    })
                    .await
            }
            None => Ok(()),
        },
        2 => {
            let change = match email {
                Some(e) => f.email.set(e),
                None => f.email.remove(),
            };
            table.update(&key, change).await
        }
        3 => {
            let handle = match handle {
                Some(h) => f.handle.set(h),
                None => f.handle.remove(),
            };
            table.update(&key, f.team.set(team) & handle).await
        }
        4 => {
            let m = member(&id, team, email.as_deref(), handle.as_deref());
            table.upsert(&m).await
        }
        5 => table.delete(&key).await,
        _ => match table.get(&key).await.unwrap() {
            Some(stored) => {
                let to = Member {
                    id: format!("m{}", rng.usize(..8)),
                    ..stored
                };
                table.move_to(&key, &to).await
            }
            None => Ok(()),
        },
    };
    match result {
        Ok(()) => {}
        Err(Error::Unique { .. }) => {}
        Err(e) if e.is_condition_failed() || e.is_version_conflict() => {}
        Err(Error::InvalidRequest(m)) if m.contains("nothing to move") => {}
        Err(e) if tolerate_unknown && e.is_outcome_unknown() => {}
        Err(e) => panic!("unexpected: {e}"),
    }
}

async fn random_concurrent_writes_keep_guards_exact() {
    let table = fresh_table::<Members>("unique-random").await;
    run_random(&table, 200, false).await;
    let (records, _) = check_guards(&table).await;
    assert!(records > 0, "some records remain");
}

async fn run_random(table: &Table, writes: u64, tolerate_unknown: bool) {
    futures::stream::iter(0..writes)
        .for_each_concurrent(8, |seed| async move {
            let mut rng = fastrand::Rng::with_seed(seed);
            random_write(table, &mut rng, tolerate_unknown).await;
        })
        .await;
}

async fn lost_answers_keep_guards_exact() {
    let (proxy, table, direct) = common::lossy_table::<Members>("unique-lossy", 26).await;
    run_random(&table, 200, true).await;
    assert!(
        proxy.stats().lost_answers.load(Ordering::SeqCst) > 0,
        "answers were lost"
    );
    check_guards(&direct).await;
}

faceteer_suite::engines!(
    a_value_has_one_owner_through_every_write,
    updates_that_create_take_their_guards,
    a_backfill_takes_missing_guards,
    a_backfill_moves_the_guards_of_upgraded_values,
    concurrent_creates_of_one_value_make_one_owner,
    random_concurrent_writes_keep_guards_exact,
    lost_answers_keep_guards_exact,
);
