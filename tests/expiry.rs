//! Time to live, end to end: `create_table` switches expiry on for the `ttl` attribute,
//! `verify` reports a table where it is off, and a table that hides expired records passes
//! over those whose time has passed but which DynamoDB has not deleted yet, on every read.

use aws_sdk_dynamodb::types::GlobalSecondaryIndex;
use chrono::{DateTime, Duration, Utc};
use faceteer::{admin::Difference, Facet};
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

/// A login session, deleted by DynamoDB some time after it expires.
#[allow(clippy::duplicated_attributes)]
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "SESSION",
    gsi(
        n = 1,
        alias = "ByUser",
        pk(prefix = "#USER", fields(user)),
        sk(prefix = "#SESSION", fields(id))
    ),
    gsi(
        n = 2,
        alias = "UserKeys",
        keys_only,
        pk(prefix = "#USER_KEYS", fields(user)),
        sk(prefix = "#SESSION", fields(id))
    )
)]
struct Session {
    #[pk(prefix = "#ACCOUNT")]
    account: String,
    #[sk(prefix = "#SESSION")]
    id: String,
    user: String,
    #[ttl]
    expires: Option<DateTime<Utc>>,
}

/// No `#[ttl]`: a field named like the attribute is its own.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "ACCOUNT")]
struct Account {
    #[pk(prefix = "#ACCOUNT")]
    id: String,
    #[sk(prefix = "#ACCOUNT")]
    name: String,
}

faceteer::table! {
    struct Sessions { Session, Account }
}

fn session(id: &str, expires: Option<DateTime<Utc>>) -> Session {
    Session {
        account: "a1".into(),
        id: id.into(),
        user: "ann".into(),
        expires,
    }
}

async fn create_table_switches_expiry_on() {
    let table = fresh_table::<Sessions>("expiry-on").await;
    let ttl = table
        .client()
        .describe_time_to_live()
        .table_name(table.name())
        .send()
        .await
        .unwrap()
        .time_to_live_description
        .unwrap();
    assert_eq!(ttl.attribute_name(), Some("ttl"));
    assert_eq!(
        ttl.time_to_live_status().map(|s| s.as_str()),
        Some("ENABLED")
    );
    let v = table.verify().await.unwrap();
    assert!(v.is_ok(), "{:?}", v.differences);
    table.delete_table().await.unwrap();
}

async fn verify_reports_expiry_switched_off() {
    let declared = fresh_table::<Sessions>("expiry-off").await;
    // The same table made again without expiry.
    let described = declared
        .client()
        .describe_table()
        .table_name(declared.name())
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    declared.delete_table().await.unwrap();
    let indexes: Vec<GlobalSecondaryIndex> = described
        .global_secondary_indexes()
        .iter()
        .map(|gsi| {
            GlobalSecondaryIndex::builder()
                .index_name(gsi.index_name().unwrap())
                .set_key_schema(Some(gsi.key_schema().to_vec()))
                .set_projection(gsi.projection().cloned())
                .build()
                .unwrap()
        })
        .collect();
    declared
        .client()
        .create_table()
        .table_name(declared.name())
        .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
        .set_attribute_definitions(Some(described.attribute_definitions().to_vec()))
        .set_key_schema(Some(described.key_schema().to_vec()))
        .set_global_secondary_indexes(Some(indexes))
        .send()
        .await
        .unwrap();
    let v = declared.verify().await.unwrap();
    assert_eq!(v.differences.len(), 1, "{:?}", v.differences);
    let Difference::TimeToLive {
        used_by, status, ..
    } = &v.differences[0]
    else {
        panic!("{:?}", v.differences);
    };
    assert_eq!(
        (used_by.as_slice(), status.as_str()),
        (&["SESSION"][..], "DISABLED")
    );
    assert_eq!(
        v.differences[0].to_string(),
        "time to live is DISABLED; `SESSION` write expiry times to `ttl`, so expired records \
         are never swept (enable TTL on `ttl`)"
    );
    declared.delete_table().await.unwrap();
}

async fn a_table_hiding_expired_records_passes_over_them_on_every_read() {
    let table = fresh_table::<Sessions>("expiry-hide").await;
    // Whole seconds: stored dates keep milliseconds.
    let now = DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap();
    let expired = session("s1", Some(now - Duration::hours(1)));
    let alive = session("s2", Some(now + Duration::hours(1)));
    let forever = session("s3", None);
    let account = Account {
        id: "a1".into(),
        name: "acme".into(),
    };
    for s in [&expired, &alive, &forever] {
        table.put(s).await.unwrap();
    }
    table.put(&account).await.unwrap();
    let keys: Vec<_> = [&expired, &alive, &forever]
        .iter()
        .map(|s| s.primary_key().unwrap())
        .collect();

    // By default, reads return what is stored, expired or not.
    assert!(table.get(&keys[0]).await.unwrap().is_some());
    let all = table
        .query(Session::query("a1").list())
        .all()
        .await
        .unwrap();
    assert_eq!(all.len(), 3);

    let hiding = table.clone().hiding_expired();
    assert_eq!(hiding.get(&keys[0]).await.unwrap(), None);
    assert_eq!(hiding.get(&keys[1]).await.unwrap(), Some(alive.clone()));
    let listed = hiding
        .query(Session::query("a1").list())
        .all()
        .await
        .unwrap();
    assert_eq!(listed, [alive.clone(), forever.clone()]);
    let by_user = hiding
        .query(Session::by_user("ann").list())
        .all()
        .await
        .unwrap();
    assert_eq!(by_user, [alive.clone(), forever.clone()]);
    assert_eq!(
        hiding
            .query(Session::query("a1").list())
            .count()
            .await
            .unwrap(),
        2
    );
    // With a filter of the caller's too, in a query, a count and a scan.
    let f = Session::fields();
    let filtered = || Session::query("a1").list().filter(f.user.eq("ann"));
    assert_eq!(hiding.query(filtered()).all().await.unwrap().len(), 2);
    assert_eq!(hiding.query(filtered()).count().await.unwrap(), 2);
    let scan = hiding
        .scan::<Session>()
        .filter(f.user.eq("ann"))
        .all()
        .await;
    assert_eq!(scan.unwrap().len(), 2);
    // A keys-only index holds `ttl` too, so its reads hide expired records as well.
    let index_keys = Session::by_user_keys("ann").list();
    assert_eq!(hiding.count(index_keys).await.unwrap(), 2);
    let fetched = hiding
        .query(Session::by_user_keys("ann").list().fetch_records())
        .all()
        .await
        .unwrap();
    assert_eq!(fetched, [alive.clone(), forever.clone()]);
    let mut scanned = hiding.scan::<Session>().all().await.unwrap();
    scanned.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(scanned, [alive.clone(), forever.clone()]);
    let got = hiding.get_many(keys.clone()).await;
    assert_eq!(got.found, [alive.clone(), forever.clone()]);
    assert_eq!(got.missing, [keys[0].clone()]);
    let mut read = hiding.transact_get();
    let first = read.get(&keys[0]);
    let second = read.get(&keys[1]);
    let mut got = read.await.unwrap();
    assert_eq!(got.take(first).unwrap(), None);
    assert_eq!(got.take(second).unwrap(), Some(alive.clone()));
    // A facet without `#[ttl]` is never hidden.
    assert_eq!(
        hiding
            .get(&Account::key("a1", "acme").unwrap())
            .await
            .unwrap(),
        Some(account)
    );
    // Writes still see the stored item: creating over the expired record fails.
    let err = hiding.put(&expired).if_not_exists().await.unwrap_err();
    assert!(
        matches!(err, faceteer::Error::ConditionFailed { .. }),
        "{err:?}"
    );
    table.delete_table().await.unwrap();
}

faceteer_suite::engines!(
    create_table_switches_expiry_on,
    verify_reports_expiry_switched_off,
    a_table_hiding_expired_records_passes_over_them_on_every_read,
);
