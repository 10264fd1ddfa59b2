//! One value, one text: every value sent for a field — filter and condition operands, update
//! operands — is the text a put stores for it (the field's own codec included), so filters
//! find exactly the records they name, and an update that sets a record's values leaves the
//! item a put of that record writes, byte for byte.

use crate::common;
use crate::item_vectors::{self, Device, Event, Order};
use faceteer_suite::catalogue::{Task, TaskStatus};

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, TimeZone, Utc};
use common::{get_raw, get_record_item};
use faceteer::{Error, Expr, Facet, Table};
use serde::{Deserialize, Serialize};

/// A record with dates below its fields, none of them annotated, a date stored as epoch
/// seconds by a codec of its own, and a string set.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "JOURNAL")]
#[serde(rename_all = "camelCase")]
pub struct Journal {
    #[pk(prefix = "#JOURNAL")]
    #[sk(prefix = "#JOURNAL")]
    id: String,
    opened: DateTime<Utc>,
    entries: Vec<Entry>,
    latest: Option<Entry>,
    by_day: BTreeMap<String, DateTime<Utc>>,
    #[serde(with = "chrono::serde::ts_seconds")]
    checked: DateTime<Utc>,
    #[serde(with = "serde_dynamo::string_set")]
    tags: BTreeSet<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    at: DateTime<Utc>,
    note: String,
}

/// A tally: numbers, a list and a set an update that creates changes from a template's
/// values; a field left out when empty; a flattened part.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "TALLY")]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    #[pk(prefix = "#TALLY")]
    #[sk(prefix = "#TALLY")]
    name: String,
    total: i64,
    seen: Vec<String>,
    #[serde(with = "serde_dynamo::string_set")]
    tags: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    note: String,
}

/// A facet with a flattened part: its item holds attributes no field names.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "FLAT")]
pub struct Flat {
    #[pk(prefix = "#FLAT")]
    #[sk(prefix = "#FLAT")]
    id: String,
    #[serde(flatten)]
    extra: BTreeMap<String, String>,
}

faceteer::table! {
    struct OneTextTable { Task, Journal, Order, Device, Event, Tally, Flat }
}

fn base() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 10, 9, 0, 0).unwrap()
}

/// Instants around a whole second and a millisecond: what chrono's own text and
/// `toISOString()` write differently, and where text order must equal time order.
const OFFSETS_MS: [i64; 7] = [-1000, -1, 0, 1, 500, 999, 1000];

/// How long before the earliest due date tasks are created: the creation times fall on the
/// same whole-second and millisecond boundaries as the due dates, three seconds earlier.
const CREATED_BEFORE_MS: i64 = 3000;

fn at(ms: i64) -> DateTime<Utc> {
    base() + Duration::milliseconds(ms)
}

fn task(i: usize) -> Task {
    let n = OFFSETS_MS.len();
    Task {
        team_id: "apollo".into(),
        task_id: format!("t{i}"),
        date_due: at(OFFSETS_MS[i % n]),
        assigned_user_id: (!i.is_multiple_of(3)).then(|| ["ann", "bob"][i % 2].to_owned()),
        status: if i.is_multiple_of(2) {
            TaskStatus::Open
        } else {
            TaskStatus::Completed
        },
        // Before every due date (the README's validator), at the same boundaries.
        date_created: at(OFFSETS_MS[n - 1 - i % n] - CREATED_BEFORE_MS),
        expires_at: (i % 4 != 1).then(|| at(OFFSETS_MS[(i + 3) % n])),
    }
}

async fn ids(table: &Table, filter: Expr<Task>) -> BTreeSet<String> {
    table
        .query(Task::query("apollo").list().filter(filter))
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.task_id)
        .collect()
}

fn expected(tasks: &[Task], keep: impl Fn(&Task) -> bool) -> BTreeSet<String> {
    tasks
        .iter()
        .filter(|t| keep(t))
        .map(|t| t.task_id.clone())
        .collect()
}

/// Every comparison of a date, at whole-second and millisecond boundaries, returns exactly
/// the records whose date compares so (an absent optional date matches no comparison).
async fn filters_compare_the_text_a_put_stores() {
    let table = faceteer_suite::fresh_table::<OneTextTable>("one-text-filters").await;
    let tasks: Vec<Task> = (0..14).map(task).collect();
    for t in &tasks {
        table.put(t).await.unwrap();
    }
    let f = Task::fields();
    for ms in OFFSETS_MS {
        let p = at(ms);
        let next = p + Duration::milliseconds(1);
        let c = at(ms - CREATED_BEFORE_MS);
        type Case<'a> = (&'a str, Expr<Task>, Box<dyn Fn(&Task) -> bool + 'a>);
        let cases: Vec<Case> = vec![
            (
                "due =",
                f.date_due.eq(p),
                Box::new(move |t| t.date_due == p),
            ),
            (
                "due <>",
                f.date_due.ne(p),
                Box::new(move |t| t.date_due != p),
            ),
            ("due <", f.date_due.lt(p), Box::new(move |t| t.date_due < p)),
            (
                "due <=",
                f.date_due.le(p),
                Box::new(move |t| t.date_due <= p),
            ),
            ("due >", f.date_due.gt(p), Box::new(move |t| t.date_due > p)),
            (
                "due >=",
                f.date_due.ge(p),
                Box::new(move |t| t.date_due >= p),
            ),
            (
                "due between",
                f.date_due.between(p, next),
                Box::new(move |t| p <= t.date_due && t.date_due <= next),
            ),
            (
                "due in",
                f.date_due.is_in([p, next]),
                Box::new(move |t| t.date_due == p || t.date_due == next),
            ),
            (
                "created =",
                f.date_created.eq(c),
                Box::new(move |t| t.date_created == c),
            ),
            (
                "created <",
                f.date_created.lt(c),
                Box::new(move |t| t.date_created < c),
            ),
            (
                "expires =",
                f.expires_at.eq(p),
                Box::new(move |t| t.expires_at == Some(p)),
            ),
            (
                "expires <",
                f.expires_at.lt(p),
                Box::new(move |t| t.expires_at.is_some_and(|e| e < p)),
            ),
            (
                "expires >=",
                f.expires_at.ge(p),
                Box::new(move |t| t.expires_at.is_some_and(|e| e >= p)),
            ),
        ];
        for (what, filter, keep) in cases {
            assert_eq!(
                ids(&table, filter).await,
                expected(&tasks, keep),
                "{what} {p:?}"
            );
        }
    }
    // Enums by their serde names, optional strings, and presence.
    assert_eq!(
        ids(&table, f.status.eq(TaskStatus::Completed)).await,
        expected(&tasks, |t| t.status == TaskStatus::Completed)
    );
    assert_eq!(
        ids(&table, f.status.is_in([TaskStatus::Open])).await,
        expected(&tasks, |t| t.status == TaskStatus::Open)
    );
    assert_eq!(
        ids(&table, f.assigned_user_id.eq("ann")).await,
        expected(&tasks, |t| t.assigned_user_id.as_deref() == Some("ann"))
    );
    assert_eq!(
        ids(&table, f.assigned_user_id.begins_with("b")).await,
        expected(&tasks, |t| t.assigned_user_id.as_deref() == Some("bob"))
    );
    assert_eq!(
        ids(&table, f.assigned_user_id.not_exists()).await,
        expected(&tasks, |t| t.assigned_user_id.is_none())
    );
    // Conditions use the same text: a put conditioned on the stored date holds.
    let t = &tasks[3];
    table
        .put(t)
        .when(f.date_due.eq(t.date_due) & f.expires_at.eq(t.expires_at.unwrap()))
        .await
        .unwrap();
}

/// The items a put of `record` writes and the server holds under its key.
async fn assert_stored_as_put<F: Facet + std::fmt::Debug>(table: &Table, record: &F, what: &str) {
    let item = faceteer::to_item(record).unwrap();
    let key = record.primary_key().unwrap();
    assert_eq!(
        get_record_item(table, key.to_item()).await,
        Some(item),
        "{what}: the stored item is not what a put of {record:?} writes"
    );
}

fn tour_update(t: &Task) -> faceteer::Update<Task> {
    let f = Task::fields();
    f.date_due.set(t.date_due)
        & match &t.assigned_user_id {
            Some(u) => f.assigned_user_id.set(u),
            None => f.assigned_user_id.remove(),
        }
        & f.status.set(t.status)
        & f.date_created.set(t.date_created)
        & match t.expires_at {
            Some(e) => f.expires_at.set(e),
            None => f.expires_at.remove(),
        }
}

/// Put a record, then update it to another record's values (and to its own): the item
/// stored is byte-identical to what a put of the updated record writes, index keys and TTL
/// included — for the README's `Task`, the facets of Faceteer's item vectors and a facet
/// with nested dates.
async fn updates_store_what_a_put_stores() {
    let table = faceteer_suite::fresh_table::<OneTextTable>("one-text-updates").await;

    // The README's Task: every field but the key changes.
    for (from, to) in [(0, 7), (1, 12), (2, 2), (4, 9)] {
        let (a, mut b) = (task(from), task(to));
        b.task_id = a.task_id.clone();
        table.put(&a).await.unwrap();
        let key = Task::key(&a.team_id, &a.task_id).unwrap();
        let after: Task = table
            .update(&key, tour_update(&b))
            .returning_new()
            .await
            .unwrap();
        assert_eq!(after, b);
        assert_stored_as_put(&table, &b, "Task").await;
    }

    // Faceteer's own records (the item vectors): updated to their own values, then to
    // another record's values under their key.
    let (orders, devices, events) = item_vectors::vector_models();
    let o = Order::fields();
    let order_update = |x: &Order, key_of: &Order| {
        o.status.set(&x.status)
            & o.region.set(&x.region)
            & o.placed_at.set(x.placed_at)
            & o.customer_id.unchanged(&key_of.customer_id)
            & o.order_id.unchanged(&key_of.order_id)
            & match x.shipped_at {
                Some(s) => o.shipped_at.set(s),
                None => o.shipped_at.remove(),
            }
            & o.total.set(x.total)
            & o.items.set(x.items)
            & o.gift.set(x.gift)
            & o.note.set(&x.note)
            & o.lines.set(x.lines.clone())
            & o.shipping.set(x.shipping.clone())
    };
    for (i, a) in orders.iter().enumerate() {
        table.put(a).await.unwrap();
        let key = Order::key(&a.customer_id, &a.order_id).unwrap();
        table.update(&key, order_update(a, a)).await.unwrap();
        assert_stored_as_put(&table, a, "Order, same values").await;
        let other = &orders[(i + 1) % orders.len()];
        let b = Order {
            customer_id: a.customer_id.clone(),
            order_id: a.order_id.clone(),
            ..other.clone()
        };
        table.update(&key, order_update(&b, a)).await.unwrap();
        assert_stored_as_put(&table, &b, "Order, another's values").await;
    }
    let d = Device::fields();
    for (i, a) in devices.iter().enumerate() {
        table.put(a).await.unwrap();
        let other = &devices[(i + 1) % devices.len()];
        let b = Device {
            owner_id: a.owner_id.clone(),
            kind: a.kind.clone(),
            device_id: a.device_id.clone(),
            ..other.clone()
        };
        let key = Device::key(&a.owner_id, &a.kind, &a.device_id).unwrap();
        let change = match &b.serial {
            Some(s) => d.serial.set(s),
            None => d.serial.remove(),
        } & d.owner_id.unchanged(&a.owner_id)
            & d.expires.set(b.expires.clone())
            & d.enrolled.set(b.enrolled)
            & match b.last_seen {
                Some(t) => d.last_seen.set(t),
                None => d.last_seen.remove(),
            }
            & d.tags.set(b.tags.clone())
            & d.battery.set(b.battery)
            & d.active.set(b.active)
            & match &b.meta {
                Some(m) => d.meta.set(m.clone()),
                None => d.meta.remove(),
            };
        table.update(&key, change).await.unwrap();
        assert_stored_as_put(&table, &b, "Device").await;
    }
    let e = Event::fields();
    for a in &events {
        table.put(a).await.unwrap();
        let key = Event::key(&a.stream_id, a.seq).unwrap();
        let later = a.at + Duration::milliseconds(1);
        table
            .update(&key, e.payload.set(a.payload.clone()) & e.at.set(later))
            .await
            .unwrap();
        let b = Event {
            at: later,
            ..a.clone()
        };
        assert_stored_as_put(&table, &b, "Event").await;
    }
}

fn journal() -> Journal {
    Journal {
        id: "j1".into(),
        opened: base(),
        entries: vec![
            Entry {
                at: at(0),
                note: "whole second".into(),
            },
            Entry {
                at: at(1),
                note: "one millisecond".into(),
            },
        ],
        latest: Some(Entry {
            at: at(1000),
            note: "latest".into(),
        }),
        by_day: BTreeMap::from([("mon".to_owned(), at(-1000))]),
        checked: at(2000),
        tags: BTreeSet::from(["a".to_owned()]),
    }
}

/// Dates below a record's fields are stored as Faceteer stores dates, with no attribute to
/// remember; nested update operands, list elements and set members are sent in the same
/// text; a field with a codec of its own (epoch seconds) is compared in its stored form.
async fn nested_dates_and_codecs() {
    let table = faceteer_suite::fresh_table::<OneTextTable>("one-text-nested").await;
    let j = journal();
    table.put(&j).await.unwrap();
    let key = Journal::key("j1").unwrap();
    let raw = get_raw(&table, key.to_item()).await.unwrap();
    let s = |v: &str| aws_sdk_dynamodb::types::AttributeValue::S(v.to_owned());
    assert_eq!(raw["opened"], s("2026-11-10T09:00:00.000Z"));
    let entries = raw["entries"].as_l().unwrap();
    assert_eq!(
        entries[0].as_m().unwrap()["at"],
        s("2026-11-10T09:00:00.000Z")
    );
    assert_eq!(
        entries[1].as_m().unwrap()["at"],
        s("2026-11-10T09:00:00.001Z")
    );
    assert_eq!(
        raw["byDay"].as_m().unwrap()["mon"],
        s("2026-11-10T08:59:59.000Z")
    );
    assert_eq!(
        raw["checked"],
        aws_sdk_dynamodb::types::AttributeValue::N(at(2000).timestamp().to_string())
    );
    assert_eq!(table.get(&key).await.unwrap(), Some(j.clone()));

    let f = Journal::fields();
    let found = |filter: Expr<Journal>| {
        let table = &table;
        async move {
            table
                .query(Journal::query("j1").list().filter(filter))
                .await
                .unwrap()
                .records
                .len()
        }
    };
    assert_eq!(found(f.opened.eq(base())).await, 1);
    assert_eq!(found(f.opened.lt(base())).await, 0);
    assert_eq!(found(f.checked.eq(at(2000))).await, 1);
    assert_eq!(found(f.checked.gt(at(1000))).await, 1);
    assert_eq!(found(f.checked.gt(at(3000))).await, 0);
    assert_eq!(found(f.tags.contains_element("a".to_owned())).await, 1);
    assert_eq!(found(f.tags.contains_element("z".to_owned())).await, 0);
    assert_eq!(
        found(f.entries.contains_element(j.entries[1].clone())).await,
        1
    );

    // Update operands: a nested date, a list element, appended elements, set members.
    let added = Entry {
        at: at(3000),
        note: "added".into(),
    };
    table
        .update(
            &key,
            f.opened.set(at(1))
                & f.entries.at(0).member::<DateTime<Utc>>("at").set(at(-1))
                & f.latest.member::<DateTime<Utc>>("at").set(at(999))
                & f.by_day.member::<DateTime<Utc>>("tue").set(at(86_400_000))
                & f.checked.set(at(5000))
                & f.tags.add_to_set(["b".to_owned()]),
        )
        .await
        .unwrap();
    table
        .update(&key, f.entries.append([added.clone()]))
        .await
        .unwrap();
    let mut want = j.clone();
    want.opened = at(1);
    want.entries[0].at = at(-1);
    want.entries.push(added);
    want.latest.as_mut().unwrap().at = at(999);
    want.by_day.insert("tue".into(), at(86_400_000));
    want.checked = at(5000);
    want.tags.insert("b".into());
    assert_stored_as_put(&table, &want, "Journal").await;
}

/// An update that may create: on a missing record it writes the template with the update
/// applied; on an existing one it changes only what the update says, and a key it rebuilds
/// from the template's values is checked against the stored record.
async fn updates_that_create_and_upserts() {
    let table = faceteer_suite::fresh_table::<OneTextTable>("one-text-create").await;
    let f = Task::fields();
    let template = task(2); // assigned to ann, open
    let key = Task::key(&template.team_id, &template.task_id).unwrap();

    // Missing: created from the template, with the change.
    let created: Task = table
        .update(&key, f.status.set(TaskStatus::Completed))
        .or_create(&template)
        .returning_new()
        .await
        .unwrap();
    let want = Task {
        status: TaskStatus::Completed,
        ..template.clone()
    };
    assert_eq!(created, want);
    assert_stored_as_put(&table, &want, "created").await;

    // Existing: the template's other values are not written over the stored ones...
    let other = Task {
        date_due: at(5000),
        ..template.clone()
    };
    table
        .update(&key, f.status.set(TaskStatus::Open))
        .or_create(&other)
        .await
        .unwrap();
    let want = Task {
        status: TaskStatus::Open,
        ..template.clone()
    };
    assert_stored_as_put(&table, &want, "existing, template ignored").await;
    // ...and a key rebuilt from a template value the stored record does not hold is rebuilt
    // from the stored value: the template only says what a missing record is created as.
    let reassigned = Task {
        assigned_user_id: Some("zed".into()),
        ..template.clone()
    };
    table
        .update(&key, f.status.set(TaskStatus::Completed))
        .or_create(&reassigned)
        .await
        .unwrap();
    let want = Task {
        status: TaskStatus::Completed,
        ..want
    };
    assert_stored_as_put(&table, &want, "existing, stored values kept").await;
    // The record before an update that may have created it cannot be returned: refused
    // before sending, never a write reported as an error.
    let err = table
        .update(&key, f.status.set(TaskStatus::Completed))
        .or_create(&template)
        .returning_old()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidRequest(_)), "{err:?}");
    assert_stored_as_put(&table, &want, "returning_old refused").await;
    // A template under another key is refused before sending.
    let err = table
        .update(&key, f.status.set(TaskStatus::Completed))
        .or_create(&task(3))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidRequest(_)), "{err:?}");

    // Upsert: creates a missing record as a put does.
    let fresh = task(5);
    table.upsert(&fresh).await.unwrap();
    assert_stored_as_put(&table, &fresh, "upsert created").await;
    // Merges, keeping the creation time and its index key, removing absent fields.
    let newer = Task {
        date_due: at(-1),
        date_created: at(-7777),
        expires_at: None,
        assigned_user_id: None,
        ..fresh.clone()
    };
    let merged: Task = table
        .upsert(&newer)
        .keep(f.date_created)
        .returning_new()
        .await
        .unwrap();
    let want = Task {
        date_created: fresh.date_created,
        ..newer.clone()
    };
    assert_eq!(merged, want);
    assert_stored_as_put(&table, &want, "upsert merged").await;
    // Keeping a field an index key shares with a written field is refused.
    let err = table.upsert(&newer).keep(f.status).await.unwrap_err();
    assert!(matches!(err, Error::InvalidRequest(_)), "{err:?}");
}

/// An update that creates applies its change to the template (`add` to its total, `append`
/// to its list, `add_to_set` to its set); a value a put leaves out (`skip_serializing_if`)
/// is removed by `set` and compared as absent; a flattened part cannot be merged.
async fn changes_apply_to_the_template() {
    let table = faceteer_suite::fresh_table::<OneTextTable>("one-text-template").await;
    let t = Tally::fields();
    let template = Tally {
        name: "visits".into(),
        total: 10,
        seen: vec!["a".into()],
        tags: BTreeSet::from(["x".to_owned()]),
        note: "first".into(),
    };
    let key = Tally::key("visits").unwrap();
    let change = || {
        t.total.add(1)
            & t.seen.append(["b".to_owned()])
            & t.tags.add_to_set(["y".to_owned()])
            & t.note.set(String::new())
    };
    let created: Tally = table
        .update(&key, change())
        .or_create(&template)
        .returning_new()
        .await
        .unwrap();
    let want = Tally {
        name: "visits".into(),
        total: 11,
        seen: vec!["a".into(), "b".into()],
        tags: BTreeSet::from(["x".to_owned(), "y".to_owned()]),
        note: String::new(),
    };
    assert_eq!(created, want);
    assert_stored_as_put(&table, &want, "created from the template").await;
    // Existing: the change applies to the stored record.
    table
        .update(&key, change())
        .or_create(&template)
        .await
        .unwrap();
    let want = Tally {
        total: 12,
        seen: vec!["a".into(), "b".into(), "b".into()],
        ..want
    };
    assert_stored_as_put(&table, &want, "changed").await;
    // The empty note is stored as nothing, and compared as nothing.
    let found = table
        .query(Tally::query("visits").list().filter(t.note.not_exists()))
        .await
        .unwrap();
    assert_eq!(found.records.len(), 1);
    let err = table
        .query(Tally::query("visits").list().filter(t.note.eq("")))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Expr(_)), "{err:?}");
    // A change inside a template's value applies to the record created: the element is
    // changed in the template's list, stored as a put of the result stores it.
    table
        .update(&Tally::key("other").unwrap(), t.seen.at(0).set("z"))
        .or_create(&Tally {
            name: "other".into(),
            ..template.clone()
        })
        .await
        .unwrap();
    let other = Tally {
        name: "other".into(),
        seen: vec!["z".into()],
        ..template.clone()
    };
    assert_stored_as_put(&table, &other, "changed inside the template").await;

    let flat = Flat {
        id: "f".into(),
        extra: BTreeMap::from([("colour".to_owned(), "red".to_owned())]),
    };
    let err = table.upsert(&flat).await.unwrap_err();
    assert!(matches!(err, Error::InvalidRequest(_)), "{err:?}");
}

faceteer_suite::engines!(
    changes_apply_to_the_template,
    filters_compare_the_text_a_put_stores,
    updates_store_what_a_put_stores,
    nested_dates_and_codecs,
    updates_that_create_and_upserts,
);
