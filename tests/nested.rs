//! Typed nested paths (`f.address.city`) and attribute references (`f.balance + f.pending`,
//! `f.updated.gt(f.created)`) in conditions, filters, updates and projections, on a real
//! DynamoDB-API server: after every step the stored item is exactly what a put of the
//! expected record stores.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeZone, Utc};
use faceteer::expr::ExprError;
use faceteer::{Error, Facet, Nested, Pick, Table};
use serde::{Deserialize, Serialize};

use crate::common::get_raw;

/// A map inside a map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Nested)]
pub struct Geo {
    pub lat: f64,
    pub lon: f64,
}

/// A struct stored as a map, with renamed members, an optional one, one with a codec of its
/// own and a nested map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Nested)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    pub city: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zip_code: Option<String>,
    #[serde(with = "chrono::serde::ts_seconds")]
    pub since: DateTime<Utc>,
    #[nested]
    #[serde(default)]
    pub geo: Option<Geo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Nested)]
pub struct Metrics {
    pub views: u64,
    pub likes: i64,
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "CUSTOMER", pick_validator = trust)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    #[pk(prefix = "#CUSTOMER")]
    pub team: String,
    #[sk(prefix = "#CUSTOMER")]
    pub id: String,
    #[nested]
    pub address: Address,
    #[nested]
    #[serde(default)]
    pub billing: Option<Address>,
    #[nested]
    pub metrics: Metrics,
    pub tags: Vec<String>,
    pub scores: BTreeMap<String, i64>,
    pub balance: i64,
    pub pending: i64,
    pub limit: i64,
    pub opened: DateTime<Utc>,
    pub checked: DateTime<Utc>,
    #[serde(with = "chrono::serde::ts_seconds")]
    pub settled: DateTime<Utc>,
}

faceteer::table! {
    /// Customers.
    pub struct Customers { Customer }
}

/// A projection of a whole nested field, and of members of others.
#[derive(Debug, Pick)]
#[pick(facet = Customer)]
struct Where {
    address: Address,
    #[pick(at = metrics.views)]
    views: u64,
    #[pick(at = billing.city)]
    billing_city: String,
}

fn at(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_700_000_000 + secs, 0).unwrap()
}

fn customer(team: &str, id: &str, city: &str) -> Customer {
    Customer {
        team: team.into(),
        id: id.into(),
        address: Address {
            city: city.into(),
            zip_code: Some("5003".into()),
            since: at(0),
            geo: Some(Geo {
                lat: 60.39,
                lon: 5.32,
            }),
        },
        billing: None,
        metrics: Metrics { views: 1, likes: 0 },
        tags: vec!["a".into(), "b".into()],
        scores: [("x".to_owned(), 1)].into(),
        balance: 100,
        pending: 25,
        limit: 500,
        opened: at(0),
        checked: at(60),
        settled: at(30),
    }
}

fn key(c: &Customer) -> faceteer::Key<Customer> {
    Customer::key(&c.team, &c.id).unwrap()
}

/// The stored item is what a put of `expected` stores, byte for byte.
async fn assert_stored(table: &Table, expected: &Customer) {
    let raw = get_raw(table, key(expected).to_item()).await.unwrap();
    assert_eq!(raw, faceteer::to_item(expected).unwrap());
}

async fn nested_updates_and_conditions() {
    let table = faceteer_suite::fresh_table::<Customers>("nested-updates").await;
    let mut c = customer("t1", "c1", "Bergen");
    table.put(&c).await.unwrap();
    let f = Customer::fields();

    // Members, elements and entries, each encoded as the member stores it, under a condition
    // on a member.
    table
        .update(
            &key(&c),
            f.address.city.set("Oslo")
                & f.address.since.set(at(86_400))
                & f.address.geo.lat.set(59.91)
                & f.address.zip_code.remove()
                & f.metrics.views.add(2)
                & f.metrics.likes.subtract(1)
                & f.tags.at(0).set("first")
                & f.scores.key("y").set(7)
                & f.scores.key("x").add(2),
        )
        .when(f.address.city.eq("Bergen") & f.address.geo.lon.gt(5.0) & f.address.exists())
        .await
        .unwrap();
    c.address.city = "Oslo".into();
    c.address.since = at(86_400);
    c.address.geo.as_mut().unwrap().lat = 59.91;
    c.address.zip_code = None;
    c.metrics.views = 3;
    c.metrics.likes = -1;
    c.tags[0] = "first".into();
    c.scores.insert("y".into(), 7);
    c.scores.insert("x".into(), 3);
    assert_stored(&table, &c).await;

    // A member compared with a value its codec encodes (seconds since 1970, as stored).
    table
        .update(&key(&c), f.metrics.likes.set(0))
        .when(f.address.since.eq(at(86_400)) & f.address.since.lt(at(86_401)))
        .await
        .unwrap();
    c.metrics.likes = 0;
    assert_stored(&table, &c).await;

    // A condition on a member that does not hold refuses the write.
    let refused = table
        .update(&key(&c), f.metrics.views.add(1))
        .when(f.address.city.eq("Paris"))
        .await
        .unwrap_err();
    assert!(
        matches!(refused, Error::ConditionFailed { .. }),
        "{refused:?}"
    );
    assert_stored(&table, &c).await;

    // The whole field stays reachable through the member handles.
    let moved = Address {
        city: "Tromsø".into(),
        zip_code: None,
        since: at(5),
        geo: None,
    };
    table
        .update(&key(&c), f.address.set(moved.clone()))
        .when(f.address.size().eq(3))
        .await
        .unwrap();
    c.address = moved;
    assert_stored(&table, &c).await;
}

async fn nested_filters_and_projections() {
    let table = faceteer_suite::fresh_table::<Customers>("nested-filters").await;
    for (i, city) in ["Oslo", "Bergen", "Oslo", "Bodø"].into_iter().enumerate() {
        let mut c = customer("t1", &format!("c{i}"), city);
        c.metrics.views = i as u64;
        c.billing = Some(Address {
            city: format!("Billing {i}"),
            ..c.address.clone()
        });
        table.put(&c).await.unwrap();
    }
    let f = Customer::fields();
    let found = table
        .query(
            Customer::query("t1")
                .list()
                .filter(f.address.city.eq("Oslo") & f.metrics.views.ge(1)),
        )
        .all()
        .await
        .unwrap();
    let ids: Vec<&str> = found.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["c2"]);
    let picked = table
        .query(
            Customer::query("t1")
                .list()
                .filter(f.address.geo.exists())
                .select::<Where>(),
        )
        .all()
        .await
        .unwrap();
    assert_eq!(picked.len(), 4);
    assert_eq!(picked[1].address.city, "Bergen");
    assert_eq!(picked[3].views, 3);
    assert_eq!(picked[2].billing_city, "Billing 2");
    assert_eq!(picked[3].keys.id, "c3");
}

async fn attribute_references() {
    let table = faceteer_suite::fresh_table::<Customers>("nested-references").await;
    let mut c = customer("t1", "r1", "Oslo");
    table.put(&c).await.unwrap();
    let f = Customer::fields();

    // Assignments computed on the server from the record's own attributes.
    table
        .update(
            &key(&c),
            f.balance.set(f.balance + f.pending)
                & f.pending.set(0)
                & f.metrics.likes.set(f.metrics.likes.or(0) - 3)
                & f.checked.set(f.opened),
        )
        .when(f.checked.gt(f.opened) & f.balance.between(f.pending, f.limit))
        .await
        .unwrap();
    c.balance = 125;
    c.pending = 0;
    c.metrics.likes = -3;
    c.checked = c.opened;
    assert_stored(&table, &c).await;

    // Attribute against attribute, refused when it does not hold.
    let refused = table
        .update(&key(&c), f.balance.add(1))
        .when(f.balance.gt(f.limit))
        .await
        .unwrap_err();
    assert!(
        matches!(refused, Error::ConditionFailed { .. }),
        "{refused:?}"
    );

    // Two dates stored differently (text and epoch seconds) are not compared: nothing is
    // sent, and the error names both.
    let err = table
        .update(&key(&c), f.balance.add(1))
        .when(f.settled.lt(f.opened))
        .await
        .unwrap_err();
    match err {
        Error::Expr(ExprError::CodecMismatch { left, right, .. }) => {
            assert_eq!((left.as_str(), right.as_str()), ("settled", "opened"));
        }
        other => panic!("expected a codec mismatch, got {other:?}"),
    }
    let err = table
        .update(&key(&c), f.settled.set(f.opened))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Expr(ExprError::CodecMismatch { .. })),
        "{err:?}"
    );
    assert_stored(&table, &c).await;

    // An update that may create the record reads the references from the record it would
    // create when none is stored.
    let fresh = customer("t1", "r2", "Bergen");
    let created: Customer = table
        .update(&key(&fresh), f.balance.set(f.balance + f.pending))
        .or_create(&fresh)
        .returning_new()
        .await
        .unwrap();
    assert_eq!(created.balance, 125);
    let mut expected = fresh.clone();
    expected.balance = 125;
    assert_stored(&table, &expected).await;
}

async fn a_missing_parent_is_reported() {
    let table = faceteer_suite::fresh_table::<Customers>("nested-missing").await;
    let c = customer("t1", "m1", "Oslo");
    table.put(&c).await.unwrap();
    let f = Customer::fields();
    // `billing` is absent: its member has no map to go in.
    let err = table
        .update(&key(&c), f.billing.city.set("Oslo"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::NoSuchPath {
                root: "billing",
                ..
            }
        ),
        "expected the refusal named, got {err:?}"
    );
    assert!(err.to_string().contains("billing"), "{err}");
    assert_stored(&table, &c).await;
    // Setting the whole optional field works, and then its members.
    let billing = c.address.clone();
    table
        .update(&key(&c), f.billing.set(billing.clone()))
        .when(f.billing.not_exists())
        .await
        .unwrap();
    table
        .update(&key(&c), f.billing.city.set("Narvik"))
        .await
        .unwrap();
    let mut expected = c.clone();
    expected.billing = Some(Address {
        city: "Narvik".into(),
        ..billing
    });
    assert_stored(&table, &expected).await;
}

faceteer_suite::engines!(
    nested_updates_and_conditions,
    nested_filters_and_projections,
    attribute_references,
    a_missing_parent_is_reported,
);
