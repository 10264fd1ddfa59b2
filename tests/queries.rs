//! Typed queries against a real DynamoDB-API server: every operator, both directions,
//! pagination that ends exactly when exhausted, streams, cursors and shards.

use crate::common;

use common::*;
use faceteer::{error::CursorError, error::KeyError, pick::KeyFields, Error, Table};
use futures::TryStreamExt;

const N: usize = 30;

/// 30 notes in "book", plus neighbours sorting just before and after `#NOTE` in the same
/// partition, plus notes in another notebook.
async fn seeded(label: &str) -> (Table, Vec<Note>) {
    let table = fresh_table::<TestTable>(label).await;
    let notes: Vec<Note> = (0..N).map(|i| note("book", i)).collect();
    for n in &notes {
        table.put(n).await.unwrap();
    }
    for i in 0..3 {
        table.put(&note("other", i)).await.unwrap();
        table
            .put(&Neighbour {
                notebook: "book".into(),
                id: format!("x{i}"),
            })
            .await
            .unwrap();
        table
            .put(&Neighbour2 {
                notebook: "book".into(),
                id: format!("x{i}"),
            })
            .await
            .unwrap();
    }
    (table, notes)
}

fn ids(notes: &[Note]) -> Vec<String> {
    notes.iter().map(|n| n.note_id.clone()).collect()
}

fn expected(notes: &[Note], keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut v: Vec<String> = notes
        .iter()
        .map(|n| n.note_id.clone())
        .filter(|id| keep(id))
        .collect();
    v.sort();
    v
}

async fn every_operator_returns_exactly_the_matching_records_in_order() {
    let (table, notes) = seeded("operators").await;
    let b = "n010";
    let e = "n020";
    let cases: Vec<(&str, faceteer::query::Query<Note>, Vec<String>)> = vec![
        (
            "list",
            Note::query("book").list(),
            expected(&notes, |_| true),
        ),
        (
            "equals",
            Note::query("book").equals(b),
            expected(&notes, |id| id == b),
        ),
        (
            "greater_than",
            Note::query("book").greater_than(b),
            expected(&notes, |id| id > b),
        ),
        (
            "greater_than_or_equal",
            Note::query("book").greater_than_or_equal(b),
            expected(&notes, |id| id >= b),
        ),
        (
            "less_than",
            Note::query("book").less_than(b),
            expected(&notes, |id| id < b),
        ),
        (
            "less_than_or_equal",
            Note::query("book").less_than_or_equal(b),
            expected(&notes, |id| id <= b),
        ),
        (
            "begins_with",
            Note::query("book").begins_with("n01"),
            expected(&notes, |id| id.starts_with("n01")),
        ),
        (
            "between",
            Note::query("book").between(b, e),
            expected(&notes, |id| id >= b && id <= e),
        ),
        (
            "between reversed bounds",
            Note::query("book").between(e, b),
            vec![],
        ),
        ("equals missing", Note::query("book").equals("zzz"), vec![]),
    ];
    for (name, query, want) in cases {
        let got = table.query(query.clone()).all().await.unwrap();
        assert_eq!(ids(&got), want, "{name}");
        let mut reversed = want.clone();
        reversed.reverse();
        let got = table.query(query.reverse()).all().await.unwrap();
        assert_eq!(ids(&got), reversed, "{name} reversed");
    }
}

async fn first_and_last() {
    let (table, _) = seeded("first").await;
    let first = table
        .query(Note::query("book").list().first())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.note_id, "n000");
    let last = table
        .query(Note::query("book").list().first().reverse())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(last.note_id, format!("n{:03}", N - 1));
    let none = table
        .query(Note::query("empty").list().first())
        .await
        .unwrap();
    assert_eq!(none, None);
    let after = table
        .query(Note::query("book").greater_than("n027").first())
        .await
        .unwrap();
    assert_eq!(after.unwrap().note_id, "n028");
}

async fn walk<I: KeyFields + faceteer::pick::WholeRecords>(
    table: &Table,
    query: faceteer::query::Query<Note, I>,
) -> (Vec<String>, Vec<usize>) {
    let mut all = Vec::new();
    let mut sizes = Vec::new();
    let mut cursor = None;
    loop {
        let page = table.query(query.clone().cursor(cursor)).await.unwrap();
        sizes.push(page.records.len());
        all.extend(ids(&page.records));
        match page.cursor {
            Some(c) => {
                assert!(
                    !page.records.is_empty(),
                    "a page with a cursor holds records"
                );
                cursor = Some(c);
            }
            None => break,
        }
        assert!(sizes.len() < 100, "pagination does not end");
    }
    (all, sizes)
}

async fn pagination_ends_exactly_when_exhausted() {
    let (table, notes) = seeded("pages").await;
    let want = expected(&notes, |_| true);

    let (got, sizes) = walk(&table, Note::query("book").list().limit(7)).await;
    assert_eq!(got, want);
    assert_eq!(sizes, vec![7, 7, 7, 7, 2]);

    // A limit dividing the count exactly: the last full page has no cursor.
    let (got, sizes) = walk(&table, Note::query("book").list().limit(10)).await;
    assert_eq!(got, want);
    assert_eq!(sizes, vec![10, 10, 10]);

    let (got, sizes) = walk(&table, Note::query("book").list().limit(30)).await;
    assert_eq!(got, want);
    assert_eq!(sizes, vec![30]);

    let mut rev = want.clone();
    rev.reverse();
    let (got, sizes) = walk(&table, Note::query("book").list().limit(4).reverse()).await;
    assert_eq!(got, rev);
    assert_eq!(sizes, vec![4, 4, 4, 4, 4, 4, 4, 2]);

    // less_than drops its bound client-side; paging still walks every record once.
    let (got, _) = walk(&table, Note::query("book").less_than("n015").limit(4)).await;
    assert_eq!(got, expected(&notes, |id| id < "n015"));
    let (got, _) = walk(
        &table,
        Note::query("book").less_than("n015").limit(5).reverse(),
    )
    .await;
    let mut lt_rev = expected(&notes, |id| id < "n015");
    lt_rev.reverse();
    assert_eq!(got, lt_rev);

    // Without a limit, one page holds everything here and has no cursor.
    let page = table.query(Note::query("book").list()).await.unwrap();
    assert_eq!(page.records.len(), N);
    assert!(page.cursor.is_none());
}

async fn streams_walk_every_page() {
    let (table, notes) = seeded("streams").await;
    let pages: Vec<_> = table
        .query(Note::query("book").list().limit(8))
        .pages()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages.len(), 4);
    assert!(pages.last().unwrap().cursor.is_none());
    let records: Vec<Note> = table
        .query(Note::query("book").list().limit(8))
        .records()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids(&records), expected(&notes, |_| true));
}

async fn index_queries_are_typed_by_the_index_sort_key() {
    let (table, notes) = seeded("indexes").await;
    // GSI1: author, sorted by rank (sortable: 7 sorts before 42).
    let everywhere: Vec<Note> = notes
        .iter()
        .cloned()
        .chain((0..3).map(|i| note("other", i)))
        .collect();
    let ann: Vec<&Note> = everywhere.iter().filter(|n| n.author == "ann").collect();
    let mut want: Vec<(u64, String)> = ann.iter().map(|n| (n.rank, n.note_id.clone())).collect();
    want.sort();
    let got = table
        .query(Note::by_author_rank("ann").list())
        .all()
        .await
        .unwrap();
    let got_ranks: Vec<u64> = got.iter().map(|n| n.rank).collect();
    let want_ranks: Vec<u64> = want.iter().map(|(r, _)| *r).collect();
    assert_eq!(got_ranks, want_ranks);
    assert!(got
        .iter()
        .all(|n| n.notebook == "book" || n.notebook == "other"));

    let got = table
        .query(Note::gsi1("ann").less_than(20u64))
        .all()
        .await
        .unwrap();
    assert!(!got.is_empty());
    assert!(got.iter().all(|n| n.rank < 20 && n.author == "ann"));
    let got = table
        .query(Note::gsi1("ann").between(5u64, 30u64))
        .all()
        .await
        .unwrap();
    let mut want: Vec<u64> = ann
        .iter()
        .map(|n| n.rank)
        .filter(|r| (5..=30).contains(r))
        .collect();
    want.sort();
    assert_eq!(got.iter().map(|n| n.rank).collect::<Vec<_>>(), want);

    // GSI2: author + status, sorted by (notebook, note id); prefix queries on the tuple.
    let got = table
        .query(Note::by_author_status("bob", Status::Done).begins_with(("book",)))
        .all()
        .await
        .unwrap();
    let want = expected(&notes, |id| {
        let i: usize = id[1..].parse().unwrap();
        !i.is_multiple_of(2) && i.is_multiple_of(3)
    });
    assert_eq!(ids(&got), want);
    let got = table
        .query(Note::gsi2("bob", Status::Done).greater_than(("book", "n010")))
        .all()
        .await
        .unwrap();
    assert!(got
        .iter()
        .all(|n| n.note_id.as_str() > "n010" && n.notebook == "book"));

    // Cursors on an index resume correctly.
    let (walked, _) = walk(&table, Note::by_author_rank("bob").list().limit(3)).await;
    assert_eq!(
        walked.len(),
        everywhere.iter().filter(|n| n.author == "bob").count()
    );
}

async fn multi_field_sort_keys() {
    let table = fresh_table::<TestTable>("multi-field").await;
    for (year, month, id) in [
        (2023, "12", "a"),
        (2024, "01", "b"),
        (2024, "02", "c"),
        (2024, "02", "d"),
        (2025, "01", "e"),
    ] {
        table
            .put(&Entry {
                ledger: "l".into(),
                year,
                month: month.into(),
                id: id.into(),
            })
            .await
            .unwrap();
    }
    let in_2024 = table
        .query(Entry::query("l").begins_with((2024u16,)))
        .all()
        .await
        .unwrap();
    assert_eq!(
        in_2024.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["b", "c", "d"]
    );
    let feb = table
        .query(Entry::query("l").begins_with((2024u16, "02")))
        .all()
        .await
        .unwrap();
    assert_eq!(feb.len(), 2);
    let one = table
        .query(Entry::query("l").equals((2024u16, "02", "d")))
        .all()
        .await
        .unwrap();
    assert_eq!(one[0].id, "d");
    let got = table
        .get(&Entry::key("l", 2023u16, "12", "a").unwrap())
        .await
        .unwrap();
    assert_eq!(got.unwrap().id, "a");
}

async fn cursors_are_checked() {
    let (table, _) = seeded("cursors").await;
    let page = table
        .query(Note::query("book").list().limit(5))
        .await
        .unwrap();
    let cursor = page.cursor.unwrap();

    for bad in ["@@not-a-cursor", "AAAA", ""] {
        let err = query_error(&table, Note::query("book").list().cursor(bad)).await;
        assert!(
            matches!(err, Error::Cursor(CursorError::Malformed(_))),
            "{bad:?}: {err:?}"
        );
    }
    // A cursor from another partition, or another index, is refused.
    let other_partition =
        query_error(&table, Note::query("other").list().cursor(cursor.clone())).await;
    let other_index = query_error(&table, Note::gsi1("book").list().cursor(cursor.clone())).await;
    for err in [other_partition, other_index] {
        assert!(
            matches!(err, Error::Cursor(CursorError::Foreign { .. })),
            "{err:?}"
        );
    }
    // The right one resumes.
    let next = table
        .query(Note::query("book").list().limit(5).cursor(cursor))
        .await
        .unwrap();
    assert_eq!(next.records[0].note_id, "n005");
}

async fn invalid_options_are_typed_errors() {
    let table = fresh_table::<TestTable>("invalid").await;
    let err = query_error(&table, Note::query("book").list().limit(0)).await;
    assert!(matches!(err, Error::InvalidRequest(_)), "{err:?}");
    let err = query_error(&table, Note::gsi1("ann").list().consistent()).await;
    assert!(matches!(err, Error::InvalidRequest(_)), "{err:?}");
    let err = query_error(&table, Note::query("book").list().shard(1)).await;
    assert!(matches!(err, Error::Key(_)), "{err:?}");
    // Ambiguous partition values are refused before any request.
    let err = query_error(&table, Note::gsi2("a_b", Status::Open).list()).await;
    assert!(
        matches!(
            err,
            Error::Key(KeyError::DelimiterInValue {
                field: "author",
                ..
            })
        ),
        "{err:?}"
    );
}

faceteer_suite::engines!(
    every_operator_returns_exactly_the_matching_records_in_order,
    first_and_last,
    pagination_ends_exactly_when_exhausted,
    streams_walk_every_page,
    index_queries_are_typed_by_the_index_sort_key,
    multi_field_sort_keys,
    cursors_are_checked,
    invalid_options_are_typed_errors,
);
