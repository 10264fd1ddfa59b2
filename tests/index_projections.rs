//! Index projections (`#[facet(index(gsi = n, keys_only | include(..)))]`) against real
//! DynamoDB-API servers: the table is created with them, projections read what the index
//! holds, whole records are fetched by key, and a table that projects too little is reported.

use aws_sdk_dynamodb::types::ProjectionType;
use faceteer::{admin::Difference, Error, Facet, Pick, Table};
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "CARD",
    pick_validator = trust,
    index(gsi = 1, keys_only),
    index(gsi = 2, include(title))
)]
struct Card {
    #[pk(prefix = "#BOARD")]
    board: String,
    #[sk(prefix = "#CARD")]
    #[gsi(n = 1, sk, prefix = "#CARD")]
    #[gsi(n = 2, sk, prefix = "#CARD")]
    id: String,
    #[gsi(n = 1, pk, prefix = "#OWNER")]
    owner: String,
    #[gsi(n = 2, pk, prefix = "#LANE")]
    lane: String,
    title: String,
    body: String,
    points: u32,
}

/// Shares GSI2 and reads whole records from it: the table's GSI2 must project everything.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "LANE")]
struct Lane {
    #[pk(prefix = "#BOARD")]
    board: String,
    #[sk(prefix = "#LANE")]
    #[gsi(n = 3, sk, prefix = "#LANE")]
    id: String,
    #[gsi(n = 3, pk, prefix = "#LANES")]
    owner: String,
}

#[derive(Debug, Pick)]
#[pick(facet = Card)]
struct CardTitle {
    title: String,
}

faceteer::table! {
    struct CardTable { Card, Lane }
}

fn card(i: u32) -> Card {
    Card {
        board: "b1".into(),
        id: format!("c{i:03}"),
        owner: if i.is_multiple_of(2) { "ann" } else { "bob" }.into(),
        lane: if i.is_multiple_of(3) { "done" } else { "todo" }.into(),
        title: format!("title {i}"),
        body: "x".repeat(200),
        points: i,
    }
}

async fn the_table_is_created_with_the_declared_projections() {
    let table = fresh_table::<CardTable>("index-projections-create").await;
    let description = crate::common::describe(&table).await;
    let projection = |name: &str| {
        let index = description
            .global_secondary_indexes()
            .iter()
            .find(|i| i.index_name() == Some(name))
            .unwrap_or_else(|| panic!("{name} exists"));
        let p = index.projection().unwrap();
        let mut attrs = p.non_key_attributes().to_vec();
        attrs.sort();
        (p.projection_type().cloned(), attrs)
    };
    let strings = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        projection("GSI1"),
        (
            Some(ProjectionType::Include),
            strings(&["board", "facet", "id", "owner"])
        )
    );
    assert_eq!(
        projection("GSI2"),
        (
            Some(ProjectionType::Include),
            strings(&["board", "facet", "id", "lane", "title"])
        )
    );
    assert_eq!(projection("GSI3"), (Some(ProjectionType::All), Vec::new()));
    let v = table.verify().await.unwrap();
    assert!(v.is_ok(), "{:?}", v.differences);
}

async fn reads_through_narrow_indexes() {
    let table = fresh_table::<CardTable>("index-projections-read").await;
    let cards: Vec<Card> = (0..24).map(card).collect();
    assert!(table.put_many(cards.clone()).await.is_complete());

    // The index holds only what was declared: no `body` in GSI2.
    let raw = table
        .client()
        .query()
        .table_name(table.name())
        .index_name("GSI2")
        .key_condition_expression("GSI2PK = :p")
        .expression_attribute_values(
            ":p",
            aws_sdk_dynamodb::types::AttributeValue::S("#LANE_todo".into()),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(raw.items().len(), 16);
    assert!(raw
        .items()
        .iter()
        .all(|i| i.contains_key("title") && !i.contains_key("body")));

    // A projection the index holds.
    let titles = table
        .query(Card::gsi2("todo").list().select::<CardTitle>())
        .all()
        .await
        .unwrap();
    let expected: Vec<String> = cards
        .iter()
        .filter(|c| c.lane == "todo")
        .map(|c| c.title.clone())
        .collect();
    assert_eq!(
        titles.iter().map(|t| t.title.clone()).collect::<Vec<_>>(),
        expected
    );
    assert_eq!(titles[0].keys.id, "c001");

    // Whole records through a keys-only index, fetched by key, page by page.
    let mut got = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = table
            .query(
                Card::gsi1("ann")
                    .list()
                    .reverse()
                    .limit(5)
                    .fetch_records()
                    .cursor(cursor.clone()),
            )
            .await
            .unwrap();
        assert!(page.failed.is_empty());
        pages += 1;
        got.extend(page.records);
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    let mut expected: Vec<Card> = cards.iter().filter(|c| c.owner == "ann").cloned().collect();
    expected.reverse();
    assert_eq!(got, expected, "whole records, in index order");
    assert_eq!(pages, 3);

    // A record deleted after the index was read is left out, not reported as an error.
    table
        .delete(&cards[2].primary_key().unwrap())
        .await
        .unwrap();
    let all = table
        .query(Card::gsi1("ann").list().fetch_records())
        .all()
        .await
        .unwrap();
    assert_eq!(all.len(), 11);
    assert!(all.iter().all(|c| c.id != "c002"));

    // A filter on an attribute the index does not hold could never match: refused.
    let f = Card::fields();
    let refused = table
        .query(
            Card::gsi1("ann")
                .list()
                .fetch_records()
                .filter(f.points.ge(10)),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, Error::InvalidRequest(m) if m.contains("`points`") && m.contains("GSI1")),
        "{refused}"
    );
    // A filter on what it holds runs.
    let kept = table
        .query(
            Card::gsi2("todo")
                .list()
                .select::<CardTitle>()
                .filter(f.title.eq("title 4")),
        )
        .await
        .unwrap();
    assert_eq!(kept.records.len(), 1);
}

async fn a_table_projecting_too_little_is_reported() {
    let created = fresh_table::<CardTable>("index-projections-verify").await;
    let name = format!("{}-narrow", created.name());
    // The same table, but GSI2 projects only `facet` and `title`.
    let declared = Table::declared::<CardTable>(created.client().clone(), &name);
    let described = created
        .client()
        .describe_table()
        .table_name(created.name())
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    let mut request = created
        .client()
        .create_table()
        .table_name(&name)
        .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
        .set_attribute_definitions(Some(described.attribute_definitions().to_vec()))
        .set_key_schema(Some(described.key_schema().to_vec()));
    for index in described.global_secondary_indexes() {
        let mut projection = index.projection().unwrap().clone();
        if index.index_name() == Some("GSI2") {
            projection = aws_sdk_dynamodb::types::Projection::builder()
                .projection_type(ProjectionType::Include)
                .non_key_attributes("facet")
                .non_key_attributes("title")
                .build();
        }
        request = request.global_secondary_indexes(
            aws_sdk_dynamodb::types::GlobalSecondaryIndex::builder()
                .index_name(index.index_name().unwrap())
                .set_key_schema(Some(index.key_schema().to_vec()))
                .projection(projection)
                .build()
                .unwrap(),
        );
    }
    request.send().await.unwrap();
    let v = declared.verify().await.unwrap();
    assert_eq!(
        v.differences,
        vec![Difference::IndexProjection {
            index: "GSI2".into(),
            needed: Some(vec!["board", "facet", "id", "lane", "title"]),
            found: "INCLUDE facet, title".into(),
            missing: vec!["board", "id", "lane"],
        }]
    );
    assert_eq!(
        v.differences[0].to_string(),
        "index GSI2 projects INCLUDE facet, title; the facets read `board`, `id`, `lane` from it too"
    );
    declared.delete_table().await.unwrap();
}

faceteer_suite::engines!(
    the_table_is_created_with_the_declared_projections,
    reads_through_narrow_indexes,
    a_table_projecting_too_little_is_reported,
);
