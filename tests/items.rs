//! Single-item operations against a real DynamoDB-API server.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue as AV;
use common::*;
use faceteer::{error::ItemError, error::KeyError, Error};

async fn put_get_delete_round_trip() {
    let table = fresh_table::<TestTable>("round-trip").await;
    let mut n = note("book", 1);
    n.expires_at = Some(1_900_000_000);
    table.put(&n).await.unwrap();

    let key = Note::key("book", "n001").unwrap();
    assert_eq!(table.get(&key).await.unwrap(), Some(n.clone()));
    assert_eq!(table.get(&key).consistent().await.unwrap(), Some(n.clone()));

    // The stored item carries the keys, the facet name and the ttl.
    let raw = get_raw(&table, key.to_item()).await.unwrap();
    assert_eq!(raw["PK"], AV::S("#BOOK_book".into()));
    assert_eq!(raw["SK"], AV::S("#NOTE_n001".into()));
    assert_eq!(raw["GSI1PK"], AV::S("#AUTHOR_bob".into()));
    assert_eq!(raw["GSI1SK"], AV::S("#RANK_00000000000000000007".into()));
    assert_eq!(raw["GSI2PK"], AV::S("#AUTHOR_STATUS_bob_open".into()));
    assert_eq!(raw["GSI2SK"], AV::S("#NOTE_book_n001".into()));
    assert_eq!(raw["facet"], AV::S("NOTE".into()));
    assert_eq!(raw["ttl"], AV::N("1900000000".into()));
    assert_eq!(raw["noteId"], AV::S("n001".into()));

    table.delete(&key).await.unwrap();
    assert_eq!(table.get(&key).await.unwrap(), None);
    // Deleting what is not there is not an error.
    table.delete(&key).await.unwrap();
}

async fn missing_item_is_none() {
    let table = fresh_table::<TestTable>("missing").await;
    assert_eq!(
        table
            .get(&Note::key("book", "nope").unwrap())
            .await
            .unwrap(),
        None
    );
}

async fn conditional_put_fails_with_a_distinct_error_and_keeps_the_original() {
    let table = fresh_table::<TestTable>("conditional").await;
    let original = note("book", 2);
    table.put(&original).if_not_exists().await.unwrap();

    let mut other = original.clone();
    other.body = "overwritten?".into();
    let err = table.put(&other).if_not_exists().await.unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");
    match err {
        Error::ConditionFailed {
            operation,
            facet,
            pk,
            sk,
        } => {
            assert_eq!(operation, "PutItem");
            assert_eq!(facet, "NOTE");
            assert_eq!(pk, "#BOOK_book");
            assert_eq!(sk, "#NOTE_n002");
        }
        other => panic!("unexpected {other:?}"),
    }
    let stored = table
        .get(&Note::key("book", "n002").unwrap())
        .await
        .unwrap();
    assert_eq!(stored, Some(original));

    // A plain put overwrites.
    table.put(&other).await.unwrap();
    let stored = table
        .get(&Note::key("book", "n002").unwrap())
        .await
        .unwrap();
    assert_eq!(stored.unwrap().body, "overwritten?");
}

async fn conditional_delete_of_a_missing_item_fails() {
    let table = fresh_table::<TestTable>("conditional-delete").await;
    let key = Note::key("book", "n404").unwrap();
    let err = table.delete(&key).if_exists().await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::ConditionFailed {
                operation: "DeleteItem",
                ..
            }
        ),
        "{err:?}"
    );
    table.put(&note("book", 404)).await.unwrap();
    table
        .delete(&Note::key("book", "n404").unwrap())
        .if_exists()
        .await
        .unwrap();
    assert_eq!(table.get(&key).await.unwrap(), None);
}

async fn validator_runs_on_every_read() {
    let table = fresh_table::<TestTable>("validate-read").await;
    let mut bad = note("book", 3);
    bad.body = "INVALID body".into();
    // Validation on write is off for Note, so the record is stored...
    table.put(&bad).await.unwrap();
    // ...and refused when read: by get as the error, by a query as a failed record of its
    // page (the page's other records are still returned; see `faults.rs`).
    let err = table
        .get(&Note::key("book", "n003").unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Item(ItemError::Validation { facet: "NOTE", message }) if message.contains("n003")),
        "{err:?}"
    );
    let page = table.query(Note::query("book").list()).await.unwrap();
    assert!(page.records.is_empty());
    assert_eq!(page.failed.len(), 1);
    let failed = &page.failed[0];
    assert_eq!(
        (failed.pk.as_str(), failed.sk.as_str()),
        ("#BOOK_book", "#NOTE_n003")
    );
    assert!(
        matches!(*failed.error, ItemError::Validation { .. }),
        "{:?}",
        failed.error
    );
}

async fn validate_on_write_refuses_before_writing() {
    let table = fresh_table::<TestTable>("validate-write").await;
    let err = table
        .put(&Strict {
            id: "a".into(),
            value: -1,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Item(ItemError::Validation { message, .. }) if message == "value must not be negative"),
        "{err:?}"
    );
    assert_eq!(table.get(&Strict::key("a").unwrap()).await.unwrap(), None);
    table
        .put(&Strict {
            id: "a".into(),
            value: 1,
        })
        .await
        .unwrap();
    assert!(table
        .get(&Strict::key("a").unwrap())
        .await
        .unwrap()
        .is_some());
}

async fn an_item_of_another_facet_is_skipped() {
    let table = fresh_table::<TestTable>("wrong-facet").await;
    // Neighbour and Note share a partition; forge a key collision by writing a Neighbour
    // item under a Note key.
    let key = Note::key("book", "n001").unwrap();
    let mut item = faceteer::to_item(&Neighbour {
        notebook: "book".into(),
        id: "x".into(),
    })
    .unwrap();
    item.insert("SK".into(), AV::S(key.sk().into()));
    put_raw(&table, item).await.unwrap();
    // Reads of one facet skip items of another: the key holds no note.
    assert!(table.get(&key).await.unwrap().is_none());
    let notes = table.query(Note::query("book").list()).await.unwrap();
    assert!(notes.records.is_empty(), "{:?}", notes.records);
    let many = table.get_many([key]).await;
    assert_eq!((many.found.len(), many.missing.len()), (0, 1));
}

async fn ambiguous_keys_are_refused_before_any_request() {
    let table = fresh_table::<TestTable>("ambiguous").await;
    // `notebook` is followed by `note_id` in GSI2SK: a delimiter in it is ambiguous.
    let mut n = note("a_b", 1);
    let err = table.put(&n).await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Item(ItemError::Key {
                source: KeyError::DelimiterInValue {
                    field: "notebook",
                    ..
                },
                ..
            })
        ),
        "{err:?}"
    );
    // In the last position the delimiter is harmless.
    n.notebook = "ab".into();
    n.note_id = "x_y".into();
    table.put(&n).await.unwrap();
    assert!(table
        .get(&Note::key("ab", "x_y").unwrap())
        .await
        .unwrap()
        .is_some());
    // Key builders check too.
    let err = Entry::key("ledger", 2024u16, "0_1", "id").unwrap_err();
    assert!(
        matches!(
            err,
            faceteer::Error::Key(KeyError::DelimiterInValue { field: "month", .. })
        ),
        "{err:?}"
    );
}

faceteer_suite::engines!(
    put_get_delete_round_trip,
    missing_item_is_none,
    conditional_put_fails_with_a_distinct_error_and_keeps_the_original,
    conditional_delete_of_a_missing_item_fails,
    validator_runs_on_every_read,
    validate_on_write_refuses_before_writing,
    an_item_of_another_facet_is_skipped,
    ambiguous_keys_are_refused_before_any_request,
);

/// Reads pass over exactly the attributes the library adds (keys, `facet`, `ttl`), found by
/// their names' first byte: checked against every attribute of a stored item.
#[test]
fn reads_pass_over_exactly_the_added_attributes() {
    use faceteer::Facet;
    let mut n = note("book", 1);
    n.expires_at = Some(1_900_000_000);
    let item = faceteer::to_item(&n).unwrap();
    let schema = Note::SCHEMA;
    let added: Vec<&str> = schema.key_attributes().chain(["facet", "ttl"]).collect();
    assert_eq!(added.len(), 8);
    for name in item.keys() {
        assert_eq!(
            schema.is_stored_only(name),
            added.contains(&name.as_str()),
            "{name}"
        );
    }
    for name in ["P", "PKX", "GSI3PK", "GSI1", "facets", "t", "", "SKU"] {
        assert!(!schema.is_stored_only(name), "{name}");
    }
    assert_eq!(faceteer::from_item::<Note>(item).unwrap(), n);
}

/// Key lengths are checked as each key is built: the first key attribute over its limit, in
/// the order PK, SK, then each index's, is reported by name with its limit.
#[test]
fn the_first_key_over_its_limit_is_reported() {
    use faceteer::error::ItemError;
    use faceteer_core::limits::LimitError;
    let too_long = |n: &Note| match faceteer::to_item(n) {
        Err(ItemError::Limit {
            source:
                LimitError::KeyTooLong {
                    attribute,
                    max,
                    role,
                    ..
                },
            ..
        }) => (attribute, max, role),
        other => panic!("expected a key over its limit, got {other:?}"),
    };
    let mut n = note("book", 1);
    n.author = "a".repeat(2040);
    // GSI1PK is `#AUTHOR_` + 2040 bytes (2048) and fits; GSI2PK, `#AUTHOR_STATUS_…_open`,
    // is over.
    assert_eq!(too_long(&n), ("GSI2PK".to_owned(), 2048, "partition"));
    n.author = "a".repeat(2100);
    assert_eq!(too_long(&n), ("GSI1PK".to_owned(), 2048, "partition"));
    n.note_id = "n".repeat(1020);
    assert_eq!(too_long(&n), ("SK".to_owned(), 1024, "sort"));
    n.notebook = "b".repeat(2100);
    assert_eq!(too_long(&n), ("PK".to_owned(), 2048, "partition"));
    let mut n = note("book", 1);
    n.note_id = "n".repeat(1015);
    // SK is `#NOTE_` + 1015 bytes (1021); GSI2SK is `#NOTE_book_` + 1015 (1026), over.
    assert_eq!(too_long(&n), ("GSI2SK".to_owned(), 1024, "sort"));
}
