//! `#[sensitive]` fields never reach what a program prints: the record's `Debug`, keys,
//! error texts (`Display` and `Debug`), items carried by errors, expressions, and the
//! events and spans faceteer emits, on a real DynamoDB-API server. Every secret here holds
//! `SECRET`, and no text may.
//!
//! The facets' names and key prefixes are their own: masking is process-wide and goes by a
//! key's prefix, so another test's facet with the same prefix would print masked too.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer::{Error, Facet, Key};
use serde::{Deserialize, Serialize};

use crate::common::put_raw;

/// No `#[derive(Debug)]`: the Facet derive writes it, masking the sensitive fields.
#[derive(Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "VAULT_HOLDER")]
pub struct Account {
    #[pk(prefix = "#VAULTORG")]
    pub org: String,
    #[sk(prefix = "#VAULTHOLDER")]
    #[sensitive]
    pub email: String,
    #[sensitive]
    #[unique]
    pub phone: String,
    #[sensitive]
    pub ssn: String,
    pub plan: String,
    #[version]
    pub version: u64,
}

/// A facet without unique fields, for transactions.
#[derive(Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "VAULT_PROFILE")]
pub struct Profile {
    #[pk(prefix = "#VAULTORG")]
    pub org: String,
    #[sk(prefix = "#VAULTPROFILE")]
    #[sensitive]
    pub email: String,
    #[sensitive]
    pub ssn: String,
}

faceteer::table! {
    /// Accounts.
    pub struct Accounts { Account, Profile }
}

fn account(n: u32) -> Account {
    Account {
        org: "acme".into(),
        email: format!("SECRET-mail-{n}@example.com"),
        phone: format!("SECRET-phone-{n}"),
        ssn: format!("SECRET-ssn-{n}"),
        plan: "gold".into(),
        version: 0,
    }
}

fn key(a: &Account) -> Key<Account> {
    Account::key(&a.org, &a.email).unwrap()
}

/// `text` holds no secret.
#[track_caller]
fn clean(what: &str, text: &str) {
    assert!(!text.contains("SECRET"), "{what} shows a secret: {text}");
}

/// An error's `Display`, `Debug` and source chain hold no secret.
#[track_caller]
fn clean_error(what: &str, e: &Error) {
    clean(what, &e.to_string());
    clean(what, &format!("{e:?}"));
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        clean(what, &s.to_string());
        source = s.source();
    }
}

/// Every event faceteer emits while `f` runs, formatted as a subscriber prints them.
async fn events_of<T>(f: impl std::future::IntoFuture<Output = T>) -> (T, String) {
    use tracing::instrument::WithSubscriber;
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer::default();
    let writer = buffer.clone();
    // faceteer's own events, at every level (the AWS SDK's trace-level logging of requests is
    // the SDK's: see the README's "Sensitive fields").
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::Layer;
    let layer = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .with_filter(
            tracing_subscriber::filter::Targets::new()
                .with_target("faceteer", tracing::Level::TRACE),
        );
    let subscriber = tracing_subscriber::registry().with(layer);
    let out = f.into_future().with_subscriber(subscriber).await;
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    (out, text)
}

async fn sensitive_values_stay_out_of_every_text() {
    let table = faceteer_suite::fresh_table::<Accounts>("sensitive").await;
    let a = account(1);
    // The record and its key.
    let shown = format!("{a:?}");
    clean("a record's Debug", &shown);
    assert!(
        shown.contains("gold") && shown.contains("‹redacted›"),
        "{shown}"
    );
    clean("a key's Debug", &format!("{:?}", key(&a)));
    table.put(&a).await.unwrap();

    // A failed condition, logged as it fails.
    let (result, events) = events_of(table.put(&a).if_not_exists()).await;
    let e = result.unwrap_err();
    assert!(e.is_condition_failed(), "{e}");
    clean_error("a failed condition", &e);
    assert!(events.contains("WARN"), "the failure is logged: {events}");
    clean("the events of a failed write", &events);
    // The key is still there for code that needs it.
    match &e {
        Error::ConditionFailed { sk, .. } => assert!(sk.as_str().contains("SECRET-mail-1")),
        other => panic!("{other:?}"),
    }

    // A version conflict.
    let mut stale = a.clone();
    stale.version = 7;
    let e = table.put(&stale).await.unwrap_err();
    assert!(matches!(e, Error::VersionConflict { .. }), "{e}");
    clean_error("a version conflict", &e);

    // A unique value another record holds.
    let mut b = account(2);
    b.phone = a.phone.clone();
    let (result, events) = events_of(table.put(&b)).await;
    let e = result.unwrap_err();
    assert!(e.is_unique(), "{e}");
    clean_error("a unique violation", &e);
    clean("the events of a unique violation", &events);

    // A transaction canceled by a failed condition returns the stored item.
    let profile = Profile {
        org: "acme".into(),
        email: "SECRET-profile@example.com".into(),
        ssn: "SECRET-ssn-p".into(),
    };
    table.put(&profile).await.unwrap();
    let e = table
        .transact_write()
        .put(table.put(&profile).if_not_exists())
        .await
        .unwrap_err();
    match &e {
        Error::TransactionCanceled { canceled } => {
            assert!(canceled.iter().any(|c| c.stored_item.is_some()), "{e:?}");
        }
        other => panic!("a canceled transaction, got {other:?}"),
    }
    clean_error("a canceled transaction", &e);

    // Expressions.
    let f = Account::fields();
    clean(
        "a condition",
        &format!("{:?}", f.ssn.eq("SECRET-x".to_string())),
    );
    let shown = format!(
        "{:?}",
        f.plan.eq("silver".to_string()) & f.ssn.begins_with("SECRET")
    );
    clean("a condition", &shown);
    assert!(shown.contains("silver"), "{shown}");
    let shown = format!(
        "{:?}",
        f.plan.set("platinum".to_string()) & f.ssn.set("SECRET-y".to_string())
    );
    clean("an update", &shown);
    assert!(shown.contains("platinum"), "{shown}");

    // A stored item that does not read: serde's message quotes the bad value.
    let mut item = faceteer::to_item(&account(3)).unwrap();
    item.insert("version".into(), AttributeValue::S("SECRET-version".into()));
    put_raw(&table, item).await.unwrap();
    let (result, events) = events_of(table.get(&key(&account(3)))).await;
    let e = result.unwrap_err();
    clean_error("a record that does not read", &e);
    clean("the events of a bad record", &events);
    let page = table.query(Account::query("acme").list()).await.unwrap();
    assert_eq!(page.failed.len(), 1);
    clean("a page's failed record", &format!("{:?}", page.failed));
    clean("a page's records", &format!("{:?}", page.records));
}

faceteer_suite::engines!(sensitive_values_stay_out_of_every_text);
