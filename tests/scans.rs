//! Scans of one facet against a real DynamoDB-API server: every record of the facet once,
//! none of the others, with exact pages, cursors and parallel segments.

use crate::common;

use std::collections::HashSet;

use common::*;
use faceteer::Error;

async fn stocked_table(label: &str) -> faceteer::Table {
    let table = fresh_table::<TestTable>(label).await;
    let notes = table
        .put_many((0..60).map(|i| note(&format!("b{}", i % 7), i)))
        .await;
    assert!(notes.is_complete());
    let samples = table.put_many((0..25).map(|i| sample("g", i))).await;
    assert!(samples.is_complete());
    let neighbours = table
        .put_many((0..10).map(|i| Neighbour {
            notebook: "b1".into(),
            id: format!("x{i}"),
        }))
        .await;
    assert!(neighbours.is_complete());
    table
}

fn ids(notes: &[Note]) -> HashSet<String> {
    notes.iter().map(|n| n.note_id.clone()).collect()
}

async fn scans_return_every_record_of_the_facet_once() {
    let table = stocked_table("scan").await;
    let all = table.scan::<Note>().all().await.unwrap();
    assert_eq!(all.len(), 60);
    assert_eq!(ids(&all).len(), 60);

    // Pages of 7, one segment and four: exact pages, nothing twice, nothing missed.
    for segments in [1, 4] {
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let page = table
                .scan::<Note>()
                .segments(segments)
                .limit(7)
                .cursor(cursor.clone())
                .await
                .unwrap();
            assert!(page.records.len() <= 7);
            seen.extend(page.records);
            pages += 1;
            cursor = page.cursor;
            if cursor.is_none() {
                break;
            }
            assert!(pages < 40, "the scan ends");
        }
        assert_eq!(seen.len(), 60, "{segments} segments");
        assert_eq!(ids(&seen).len(), 60, "{segments} segments: nothing twice");
    }

    // A filter, and the streams.
    let f = Note::fields();
    let done = table
        .scan::<Note>()
        .filter(f.status.eq(Status::Done))
        .segments(3)
        .all()
        .await
        .unwrap();
    assert_eq!(done.len(), 20);
    assert!(done.iter().all(|n| n.status == Status::Done));
    let samples = table.scan::<Sample>().limit(10).all().await.unwrap();
    assert_eq!(samples.len(), 25);

    // A cursor of another scan shape is refused.
    let page = table.scan::<Note>().limit(5).await.unwrap();
    let err = table
        .scan::<Note>()
        .segments(2)
        .cursor(page.cursor)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Cursor(_)), "{err}");
    let err = table.scan::<Note>().segments(0).await.unwrap_err();
    assert!(matches!(err, Error::InvalidRequest(_)));
}

async fn a_bad_record_does_not_stop_a_scan() {
    let table = stocked_table("scan-bad").await;
    let mut item = faceteer::to_item(&note("b0", 0)).unwrap();
    item.insert(
        "rank".into(),
        aws_sdk_dynamodb::types::AttributeValue::S("high".into()),
    );
    put_raw(&table, item).await.unwrap();
    let all = table
        .scan::<Note>()
        .segments(2)
        .limit(9)
        .all_with_failures()
        .await
        .unwrap();
    assert_eq!(all.records.len(), 59);
    assert_eq!(all.failed.len(), 1);
    assert_eq!(all.failed[0].sk, "#NOTE_n000");
    let err = table.scan::<Note>().all().await.unwrap_err();
    assert!(matches!(err, Error::Record { .. }), "{err}");
}

faceteer_suite::engines!(
    scans_return_every_record_of_the_facet_once,
    a_bad_record_does_not_stop_a_scan,
);
