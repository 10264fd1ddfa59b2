//! Multi-source search against real DynamoDB-API servers: several indexes and every shard
//! read at once, merged in order, each record once, pages of exactly `limit` records and one
//! cursor that resumes every source.

use faceteer::{error::CursorError, Error, Facet, Table};
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "TICKET")]
struct Ticket {
    #[pk(prefix = "#PROJECT")]
    project: String,
    #[sk(prefix = "#TICKET")]
    #[gsi(n = 1, sk, prefix = "#TICKET")]
    #[gsi(n = 2, sk, prefix = "#TICKET")]
    #[gsi(n = 3, sk, prefix = "#TICKET")]
    #[shard(count = 4, gsi = 3)]
    id: String,
    #[gsi(n = 1, pk, prefix = "#ASSIGNEE")]
    assignee: String,
    #[gsi(n = 2, pk, prefix = "#REVIEWER")]
    reviewer: String,
    #[gsi(n = 3, pk, prefix = "#STATE")]
    #[gsi(n = 4, pk, prefix = "#STATE")]
    state: String,
    #[gsi(n = 4, sk, prefix = "#POINTS", sortable)]
    points: u32,
}

faceteer::table! {
    struct TicketTable { Ticket }
}

const PEOPLE: [&str; 3] = ["ann", "bob", "cy"];

fn tickets() -> Vec<Ticket> {
    (0..60u32)
        .map(|i| Ticket {
            project: format!("p{}", i % 2),
            id: format!("t{i:03}"),
            assignee: PEOPLE[(i % 3) as usize].into(),
            reviewer: PEOPLE[((i / 3) % 3) as usize].into(),
            state: if i % 4 == 0 { "open" } else { "closed" }.into(),
            points: i,
        })
        .collect()
}

/// Walk every page of a search made by `search`, checking that each page but the last holds
/// exactly `limit` records.
async fn walk<'t>(
    limit: u32,
    search: impl Fn() -> faceteer::query::Search<'t, Ticket>,
) -> Vec<Ticket> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = search().limit(limit).cursor(cursor.clone()).await.unwrap();
        assert!(page.failed.is_empty());
        let full = page.records.len() == limit as usize;
        all.extend(page.records);
        match page.cursor {
            Some(c) => {
                assert!(full, "a page before the last holds exactly {limit}");
                cursor = Some(c);
            }
            None => return all,
        }
    }
}

async fn two_indexes_merge_with_each_record_once() {
    let table = fresh_table::<TicketTable>("search-two-indexes").await;
    let all = tickets();
    assert!(table.put_many(all.clone()).await.is_complete());
    let mut expected: Vec<Ticket> = all
        .iter()
        .filter(|t| t.assignee == "ann" || t.reviewer == "ann")
        .cloned()
        .collect();
    let both = all
        .iter()
        .filter(|t| t.assignee == "ann" && t.reviewer == "ann")
        .count();
    assert!(both > 0, "some tickets are in both indexes");
    for limit in [1, 2, 3, 5, 7, 100] {
        let got = walk(limit, || {
            table
                .search(Ticket::gsi1("ann").list())
                .or(Ticket::gsi2("ann").list())
        })
        .await;
        assert_eq!(got, expected, "limit {limit}");
    }
    expected.reverse();
    let got = walk(4, || {
        table
            .search(Ticket::gsi1("ann").list())
            .or(Ticket::gsi2("ann").list())
            .reverse()
    })
    .await;
    assert_eq!(got, expected, "descending");

    // The same with a sort condition on each source, and `all()`.
    let got = table
        .search(Ticket::gsi1("ann").greater_than("t030"))
        .or(Ticket::gsi2("ann").greater_than("t030"))
        .limit(3)
        .all()
        .await
        .unwrap();
    let mut expected: Vec<Ticket> = all
        .iter()
        .filter(|t| (t.assignee == "ann" || t.reviewer == "ann") && t.id.as_str() > "t030")
        .cloned()
        .collect();
    assert_eq!(got, expected);

    // The base table is a source too (project p0, ordered by id like the indexes).
    let got = walk(6, || {
        table
            .search(Ticket::query("p0").list())
            .or(Ticket::gsi1("ann").list())
    })
    .await;
    expected = all
        .iter()
        .filter(|t| t.project == "p0" || t.assignee == "ann")
        .cloned()
        .collect();
    assert_eq!(got, expected);
}

async fn every_shard_and_another_index() {
    let table = fresh_table::<TicketTable>("search-shards").await;
    let all = tickets();
    assert!(table.put_many(all.clone()).await.is_complete());
    // GSI3 is sharded over 4 shards: the search reads all 4 and GSI1 at once.
    let expected: Vec<Ticket> = all
        .iter()
        .filter(|t| t.state == "open" || t.assignee == "bob")
        .cloned()
        .collect();
    for limit in [1, 4, 9, 50] {
        let got = walk(limit, || {
            table
                .search(Ticket::gsi3("open").list())
                .or(Ticket::gsi1("bob").list())
        })
        .await;
        assert_eq!(got, expected, "limit {limit}");
    }
    // Sources read one at a time give the same pages.
    let got = walk(5, || {
        table
            .search(Ticket::gsi3("open").list())
            .or(Ticket::gsi1("bob").list())
            .concurrency(1)
    })
    .await;
    assert_eq!(got, expected);
}

async fn searches_that_cannot_be_merged_are_refused() {
    let table: Table = fresh_table::<TicketTable>("search-refused").await;
    assert!(table.put_many(tickets()).await.is_complete());
    // GSI4 sorts by points, GSI1 by id.
    let e = table
        .search(Ticket::gsi1("ann").list())
        .or(Ticket::gsi4("open").list())
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidRequest(m) if m.contains("same fields")),
        "{e}"
    );
    // Options of the search belong on the search.
    let e = table
        .search(Ticket::gsi1("ann").list().limit(3))
        .or(Ticket::gsi2("ann").list())
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidRequest(m) if m.contains("on the search")),
        "{e}"
    );
    // A cursor of another search is refused.
    let page = table
        .search(Ticket::gsi1("ann").list())
        .or(Ticket::gsi2("ann").list())
        .limit(2)
        .await
        .unwrap();
    let e = table
        .search(Ticket::gsi1("bob").list())
        .or(Ticket::gsi2("bob").list())
        .limit(2)
        .cursor(page.cursor.clone())
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::Cursor(CursorError::Foreign { .. })),
        "{e}"
    );
    // ... and so is a single query's cursor.
    let q = table
        .query(Ticket::gsi1("ann").list().limit(2))
        .await
        .unwrap();
    let e = table
        .search(Ticket::gsi1("ann").list())
        .limit(2)
        .cursor(q.cursor)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Cursor(_)), "{e}");
}

faceteer_suite::engines!(
    two_indexes_merge_with_each_record_once,
    every_shard_and_another_index,
    searches_that_cannot_be_merged_are_refused,
);
