//! The design lock: a table's design written to a file, and the check that classifies
//! each change of real derived facets against it — and, on the embedded engine, the
//! stranded records a "breaks stored records" change means until its backfill runs.

use faceteer::lock::{Bless, Check, CheckError, Class, DesignLock, Outcome};
use faceteer::{Facet, Table, TableSchema};
use serde::{Deserialize, Serialize};

/// A facet declared by `$facet` (its attributes) and `$body` (its fields), in a module
/// with its table `Shop`.
macro_rules! shop {
    ($name:ident, [$($facet:meta),*], { $($body:tt)* }) => {
        mod $name {
            use super::*;

            /// An order.
            #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
            #[facet(name = "ORDER" $(, $facet)*)]
            pub struct Order {
                $($body)*
            }

            faceteer::table! {
                pub struct Shop { Order }
            }
        }
    };
}

shop!(v1, [], {
    #[pk(prefix = "#CUSTOMER")]
    pub customer: String,
    #[sk(prefix = "#ORDER")]
    pub id: String,
    pub amount: u32,
    pub status: String,
});

// An optional field: nothing stored breaks; strict TypeScript models must declare it.
shop!(optional_field, [], {
    #[pk(prefix = "#CUSTOMER")]
    pub customer: String,
    #[sk(prefix = "#ORDER")]
    pub id: String,
    pub amount: u32,
    pub status: String,
    #[serde(default)]
    pub note: Option<String>,
});

// A new index: created on the live table, then filled by a backfill.
shop!(new_index, [gsi(n = 1, alias = "ByStatus", pk(prefix = "#STATUS", fields(status)), sk(prefix = "#ORDER", fields(id)))], {
    #[pk(prefix = "#CUSTOMER")]
    pub customer: String,
    #[sk(prefix = "#ORDER")]
    pub id: String,
    pub amount: u32,
    pub status: String,
});

// The index's sort key changed: the keys stored for it are rewritten by a backfill.
shop!(new_index_key, [gsi(n = 1, alias = "ByStatus", pk(prefix = "#STATUS", fields(status)), sk(prefix = "#O", fields(id)))], {
    #[pk(prefix = "#CUSTOMER")]
    pub customer: String,
    #[sk(prefix = "#ORDER")]
    pub id: String,
    pub amount: u32,
    pub status: String,
});

// A new local index: only a new table has it.
shop!(new_local_index, [lsi(n = 1, sk(prefix = "#STATUS", fields(status)))], {
    #[pk(prefix = "#CUSTOMER")]
    pub customer: String,
    #[sk(prefix = "#ORDER")]
    pub id: String,
    pub amount: u32,
    pub status: String,
});

// A changed sort-key prefix: every stored order is missed until moved.
shop!(new_prefix, [], {
    #[pk(prefix = "#CUSTOMER")]
    pub customer: String,
    #[sk(prefix = "#PURCHASE")]
    pub id: String,
    pub amount: u32,
    pub status: String,
});

// A removed field, without an upgrade: the next write drops what is stored.
shop!(removed_field, [], {
    #[pk(prefix = "#CUSTOMER")]
    pub customer: String,
    #[sk(prefix = "#ORDER")]
    pub id: String,
    pub amount: u32,
});

// A field's type changed: the checker cannot judge whether stored values still read.
shop!(new_type, [], {
    #[pk(prefix = "#CUSTOMER")]
    pub customer: String,
    #[sk(prefix = "#ORDER")]
    pub id: String,
    pub amount: f64,
    pub status: String,
});

/// A fresh lock file of v1's design.
fn locked_v1(label: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "faceteer-lock-{label}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("design.lock.json");
    let out = Check::<v1::Shop>::new(&path)
        .bless(Bless::Safe)
        .run()
        .unwrap();
    assert!(matches!(out, Outcome::Blessed(_)));
    path
}

/// The report of `S` against v1's lock: its class, and its text.
fn judged<S: TableSchema>(label: &str) -> (Class, String) {
    let path = locked_v1(label);
    let report = Check::<S>::new(&path).report().unwrap().expect("a lock");
    let class = report.class().expect("a change");
    // Unblessed, the check fails, with the same report.
    match Check::<S>::new(&path).run() {
        Err(CheckError::Changed { report: r, .. }) => assert_eq!(r, report),
        other => panic!("{other:?}"),
    }
    (class, report.to_string())
}

#[test]
fn an_unchanged_design_is_current_and_the_file_is_stable() {
    let path = locked_v1("same");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, DesignLock::of::<v1::Shop>().to_json());
    assert!(matches!(
        Check::<v1::Shop>::new(&path).run().unwrap(),
        Outcome::Current
    ));
    // The file records keys with their templates, fields with their types.
    assert!(text.contains("#CUSTOMER_{customer}"), "{text}");
    assert!(text.contains("\"u32\""), "{text}");
}

#[test]
fn an_optional_field_is_safe_but_strict_readers_must_learn_it() {
    let (class, text) = judged::<optional_field::Shop>("optional");
    assert_eq!(class, Class::BreaksReaders, "{text}");
    assert!(text.contains("note"), "{text}");
    let path = locked_v1("optional-no-readers");
    let report = Check::<optional_field::Shop>::new(&path)
        .no_other_readers()
        .report()
        .unwrap()
        .unwrap();
    assert_eq!(report.class(), Some(Class::Safe), "{report}");
}

#[test]
fn a_new_index_needs_creating_and_a_backfill() {
    let (class, text) = judged::<new_index::Shop>("index");
    assert_eq!(class, Class::NeedsIndex, "{text}");
    assert!(text.contains("GSI1"), "{text}");
    assert!(text.contains("create_missing_indexes"), "{text}");
    assert!(text.to_lowercase().contains("backfill"), "{text}");
}

#[test]
fn a_changed_index_key_needs_a_backfill() {
    let report = faceteer::lock::compare(
        &DesignLock::of::<new_index::Shop>(),
        &DesignLock::of::<new_index_key::Shop>(),
        0,
    );
    let text = report.to_string();
    assert_eq!(report.class(), Some(Class::NeedsBackfill), "{text}");
    assert!(text.contains("backfill"), "{text}");
    assert!(text.contains("#O_{id}"), "{text}");
}

#[test]
fn a_new_local_index_needs_a_new_table() {
    let (class, text) = judged::<new_local_index::Shop>("lsi");
    assert!(class >= Class::NeedsIndex, "{text}");
    assert!(text.contains("LSI1"), "{text}");
    assert!(text.contains("new table"), "{text}");
}

#[test]
fn a_changed_prefix_breaks_stored_records() {
    let (class, text) = judged::<new_prefix::Shop>("prefix");
    assert_eq!(class, Class::BreaksStored, "{text}");
    assert!(text.contains("#ORDER_{id} → #PURCHASE_{id}"), "{text}");
    // Not blessed as safe; blessed only when breaking changes are accepted.
    let path = locked_v1("prefix-bless");
    assert!(Check::<new_prefix::Shop>::new(&path)
        .bless(Bless::Safe)
        .run()
        .is_err());
    let out = Check::<new_prefix::Shop>::new(&path)
        .bless(Bless::Breaking)
        .run()
        .unwrap();
    assert!(matches!(out, Outcome::Blessed(r) if r.class() == Some(Class::BreaksStored)));
    assert!(matches!(
        Check::<new_prefix::Shop>::new(&path).run().unwrap(),
        Outcome::Current
    ));
}

#[test]
fn a_removed_field_breaks_stored_records() {
    let (class, text) = judged::<removed_field::Shop>("removed");
    assert_eq!(class, Class::BreaksStored, "{text}");
    assert!(text.contains("status"), "{text}");
}

#[test]
fn a_changed_type_needs_a_review() {
    let (class, text) = judged::<new_type::Shop>("type");
    assert_eq!(class, Class::Review, "{text}");
    assert!(text.contains("amount"), "{text}");
}

#[test]
fn a_missing_or_foreign_file_is_a_typed_error() {
    let dir = std::env::temp_dir().join(format!("faceteer-lock-missing-{}", std::process::id()));
    let path = dir.join("none.json");
    assert!(matches!(
        Check::<v1::Shop>::new(&path).run(),
        Err(CheckError::Missing { .. })
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("garbage.json");
    std::fs::write(&garbage, "{\"format\": 99}").unwrap();
    assert!(matches!(
        Check::<v1::Shop>::new(&garbage).run(),
        Err(CheckError::Unreadable { .. })
    ));
}

/// What "breaks stored records" means on a live table: after the prefix change, v2 misses
/// every order v1 stored, until the backfill the report names moves them.
async fn a_changed_prefix_strands_records_until_backfilled() {
    let table = faceteer_suite::fresh_table::<v1::Shop>("lock-prefix").await;
    let order = v1::Order {
        customer: "c1".into(),
        id: "o1".into(),
        amount: 3,
        status: "open".into(),
    };
    table.put(&order).await.unwrap();
    let v2 = Table::declared::<new_prefix::Shop>(table.client().clone(), table.name());
    let key = new_prefix::Order::key("c1", "o1").unwrap();
    assert_eq!(v2.get(&key).await.unwrap(), None);
    let report = v2.backfill_table::<new_prefix::Shop>().await.unwrap();
    assert!(report.is_complete(), "{report:?}");
    let moved = v2.get(&key).await.unwrap().expect("moved by the backfill");
    assert_eq!(moved.amount, 3);
}

faceteer_suite::engines!(a_changed_prefix_strands_records_until_backfilled);
