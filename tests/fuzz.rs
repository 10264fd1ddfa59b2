//! Fuzz targets run in the suite for a bounded number of cases (proptest, fixed seed per
//! run of the file's regressions): decoding cursors and reading stored items must never
//! panic, only return typed errors, whatever the input.
//!
//! Raise the number of cases with `PROPTEST_CASES=100000 cargo test --test integration fuzz::`.

use crate::common;

use std::collections::HashMap;
use std::sync::OnceLock;

use aws_sdk_dynamodb::types::AttributeValue as AV;
use base64::Engine as _;
use common::*;
use faceteer::{Facet, Item};
use faceteer_core::cursor::{decode_shards_cursor, CursorScope};
use faceteer_core::limits::{check_item, significant_digits};
use proptest::prelude::*;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// A real cursor of `Note::query("book").list().limit(2)`, from the embedded engine.
fn real_cursor() -> &'static str {
    static CURSOR: OnceLock<String> = OnceLock::new();
    CURSOR.get_or_init(|| {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let table = faceteer::embedded::table::<TestTable>().await.unwrap();
            let written = table.put_many((0..5).map(|i| note("book", i))).await;
            assert!(written.is_complete());
            table
                .query(Note::query("book").list().limit(2))
                .await
                .unwrap()
                .cursor
                .expect("more pages")
        })
    })
}

fn cases() -> ProptestConfig {
    ProptestConfig {
        cases: 2_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Decode `cursor` the way a query does (no request is sent).
fn decode(cursor: &str) -> Result<(), faceteer::Error> {
    Note::query("book").list().cursor(cursor).plan().map(|_| ())
}

/// An item of the facet's shape, with any of its attributes replaced or removed.
fn note_item() -> impl Strategy<Value = Item> {
    let names = [
        "PK",
        "SK",
        "facet",
        "notebook",
        "noteId",
        "author",
        "status",
        "rank",
        "body",
        "expiresAt",
        "GSI1PK",
        "GSI1SK",
        "ttl",
    ];
    let changes = proptest::collection::vec(
        (0..names.len(), proptest::option::of(attribute_value())),
        0..6,
    );
    changes.prop_map(move |changes| {
        let mut item = faceteer::to_item(&note("book", 3)).unwrap();
        for (at, value) in changes {
            match value {
                Some(v) => item.insert(names[at].to_owned(), v),
                None => item.remove(names[at]),
            };
        }
        item
    })
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn any_text_as_a_cursor_is_an_error_not_a_panic(text in ".{0,300}") {
        prop_assert!(decode(&text).is_err());
    }

    #[test]
    fn any_bytes_as_a_cursor_are_an_error_not_a_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..400)
    ) {
        let _ = decode(&B64.encode(&bytes));
        let scope = CursorScope {
            facet: "EVENT".into(),
            index: None,
            partition: "#DAY_d".into(),
            condition: 0,
            reverse: false,
        };
        let _ = decode_shards_cursor(&scope, 4, &B64.encode(&bytes));
    }

    #[test]
    fn altered_cursors_are_refused_or_stay_in_the_query(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = B64.decode(real_cursor()).unwrap();
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= value | 1;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        let altered = B64.encode(&bytes);
        // Either refused, or (a change the cursor's checks cannot see, such as a flipped bit
        // in a sort key that still lies in the partition's range) a plan in this query.
        if let Ok(plan) = Note::query("book").list().cursor(&altered).plan() {
            let start = plan.exclusive_start_key.as_ref().expect("a start key");
            prop_assert!(plan.check_start_key(start).is_ok());
            prop_assert_eq!(start.get("PK"), Some(&AV::S("#BOOK_book".into())));
        }
    }

    #[test]
    fn any_stored_item_reads_as_a_record_or_an_error(item in note_item()) {
        let _ = faceteer::from_item::<Note>(item.clone());
        let _ = check_item(&item, Note::SCHEMA);
    }

    #[test]
    fn any_number_text_is_checked_without_panic(text in ".{0,60}") {
        let _ = significant_digits(&text);
    }

    #[test]
    fn any_map_is_checked_without_panic(
        map in proptest::collection::hash_map("[A-Za-z]{1,6}", attribute_value(), 0..6)
    ) {
        let item: HashMap<String, AV> = map;
        let _ = check_item(&item, Note::SCHEMA);
    }
}

/// The real cursor itself is accepted (so the alterations above start from a valid one).
#[test]
fn the_real_cursor_is_valid() {
    decode(real_cursor()).unwrap();
}
