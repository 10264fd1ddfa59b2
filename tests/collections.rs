//! Collections: several facets of one partition read together, each to its variant.

use crate::common;

use common::*;
use faceteer::Collection;

#[derive(Debug, Clone, PartialEq, Collection)]
enum BookItems {
    Note(Note),
    Neighbour(Neighbour),
}

async fn book(label: &str) -> faceteer::Table {
    let table = fresh_table::<TestTable>(label).await;
    assert!(table
        .put_many((0..12).map(|i| note("b", i)))
        .await
        .is_complete());
    assert!(table
        .put_many((0..5).map(|i| Neighbour {
            notebook: "b".into(),
            id: format!("x{i}"),
        }))
        .await
        .is_complete());
    // A facet outside the collection, in the same partition: skipped and counted.
    assert!(table
        .put_many((0..4).map(|i| Neighbour2 {
            notebook: "b".into(),
            id: format!("y{i}"),
        }))
        .await
        .is_complete());
    table
}

fn label(item: &BookItems) -> String {
    match item {
        BookItems::Note(n) => n.note_id.clone(),
        BookItems::Neighbour(n) => n.id.clone(),
    }
}

async fn a_partition_reads_as_its_facets() {
    let table = book("collection").await;
    let page = table
        .collection::<BookItems>(Note::query("b"))
        .await
        .unwrap();
    assert_eq!(page.records.len(), 17);
    assert_eq!(page.skipped, 4);
    assert!(page.failed.is_empty());
    assert!(page.cursor.is_none());
    // Sort-key order: #NOTD (neighbours) before #NOTE (notes).
    let labels: Vec<String> = page.records.iter().map(label).collect();
    assert_eq!(labels[0], "x0");
    assert_eq!(labels[5], "n000");

    // Pages of 5: every record once, every skipped item counted once, and the last cursor
    // is None.
    let mut all = Vec::new();
    let mut skipped = 0;
    let mut cursor: Option<String> = None;
    loop {
        let page = table
            .collection::<BookItems>(Note::query("b"))
            .reverse()
            .limit(5)
            .cursor(cursor.clone())
            .await
            .unwrap();
        assert!(page.records.len() <= 5);
        all.extend(page.records.iter().map(label));
        skipped += page.skipped;
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    let mut expected = labels.clone();
    expected.reverse();
    assert_eq!(all, expected);
    assert_eq!(skipped, 4);

    // A sort-key condition on the raw key; `all`.
    let notes = table
        .collection::<BookItems>(Note::query("b"))
        .begins_with("#NOTE")
        .all()
        .await
        .unwrap();
    assert_eq!(notes.len(), 12);
    assert!(notes.iter().all(|n| matches!(n, BookItems::Note(_))));

    // A cursor of another direction is refused.
    let page = table
        .collection::<BookItems>(Note::query("b"))
        .limit(3)
        .await
        .unwrap();
    let err = table
        .collection::<BookItems>(Note::query("b"))
        .reverse()
        .cursor(page.cursor)
        .await
        .unwrap_err();
    assert!(matches!(err, faceteer::Error::Cursor(_)), "{err}");
}

async fn a_bad_member_is_reported_with_its_key() {
    let table = book("collection-bad").await;
    let mut bad = note("b", 3);
    bad.body = "INVALID".into();
    table.put(&bad).await.unwrap();
    let page = table
        .collection::<BookItems>(Note::query("b"))
        .await
        .unwrap();
    assert_eq!(page.records.len(), 16);
    assert_eq!(page.failed.len(), 1);
    assert_eq!(page.failed[0].sk, "#NOTE_n003");
}

async fn a_collection_scans_as_its_facets() {
    let table = book("collection-scan").await;
    // Other partitions too: a scan reads the whole table.
    assert!(table
        .put_many((0..6).map(|i| note("c", i)))
        .await
        .is_complete());
    for segments in [1, 3] {
        let mut labels = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = table
                .scan_collection::<BookItems>()
                .segments(segments)
                .limit(4)
                .cursor(cursor.clone())
                .await
                .unwrap();
            assert!(page.failed.is_empty());
            labels.extend(page.records.iter().map(label));
            cursor = page.cursor;
            if cursor.is_none() {
                break;
            }
        }
        labels.sort();
        let mut expected: Vec<String> = (0..12)
            .map(|i| note("b", i).note_id)
            .chain((0..6).map(|i| note("c", i).note_id))
            .chain((0..5).map(|i| format!("x{i}")))
            .collect();
        expected.sort();
        // Each record of the collection's facets once; Neighbour2 is not read.
        assert_eq!(labels, expected, "{segments} segments");
    }
}

faceteer_suite::engines!(
    a_partition_reads_as_its_facets,
    a_bad_member_is_reported_with_its_key,
    a_collection_scans_as_its_facets,
);
