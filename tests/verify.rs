//! Verifying a live table against the declared facets.

use crate::common;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType,
};
use common::*;
use faceteer::{admin::Difference, Table};

fn attribute(name: &str, t: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(t)
        .build()
        .unwrap()
}

fn key(name: &str, kind: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .unwrap()
}

async fn a_table_made_by_create_table_verifies() {
    let table = fresh_table::<TestTable>("verify-ok").await;
    let v = table.verify().await.unwrap();
    assert!(v.is_ok(), "{:?}", v.differences);
    assert!(v.unused_indexes.is_empty());
}

async fn every_difference_is_reported() {
    let created = fresh_table::<TestTable>("verify-bad").await;
    let name = format!("{}-hand-made", created.name());
    // GSI1 projects keys only, GSI2 is missing, GSI3 is not used by any facet, and the sort
    // key is a number.
    let gsi = |n: u8, projection: ProjectionType| {
        GlobalSecondaryIndex::builder()
            .index_name(format!("GSI{n}"))
            .key_schema(key(&format!("GSI{n}PK"), KeyType::Hash))
            .key_schema(key(&format!("GSI{n}SK"), KeyType::Range))
            .projection(Projection::builder().projection_type(projection).build())
            .build()
            .unwrap()
    };
    created
        .client()
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute("PK", ScalarAttributeType::S))
        .attribute_definitions(attribute("SK", ScalarAttributeType::N))
        .attribute_definitions(attribute("GSI1PK", ScalarAttributeType::S))
        .attribute_definitions(attribute("GSI1SK", ScalarAttributeType::S))
        .attribute_definitions(attribute("GSI3PK", ScalarAttributeType::S))
        .attribute_definitions(attribute("GSI3SK", ScalarAttributeType::S))
        .key_schema(key("PK", KeyType::Hash))
        .key_schema(key("SK", KeyType::Range))
        .global_secondary_indexes(gsi(1, ProjectionType::KeysOnly))
        .global_secondary_indexes(gsi(3, ProjectionType::All))
        .send()
        .await
        .unwrap();
    let table = Table::declared::<TestTable>(created.client().clone(), &name);
    let v = table.verify().await.unwrap();
    assert!(!v.is_ok());
    assert!(
        v.differences.contains(&Difference::IndexProjection {
            index: "GSI1".into(),
            needed: None,
            found: "KEYS_ONLY".into(),
            missing: Vec::new(),
        }),
        "{:?}",
        v.differences
    );
    assert!(
        v.differences
            .iter()
            .any(|d| matches!(d, Difference::MissingIndex { index, used_by } if index == "GSI2" && used_by.contains(&"NOTE"))),
        "{:?}",
        v.differences
    );
    assert!(v.differences.contains(&Difference::AttributeType {
        attribute: "SK".into(),
        expected: "S".into(),
        found: "N".into()
    }));
    assert_eq!(v.unused_indexes, ["GSI3"]);
    for d in &v.differences {
        assert!(!d.to_string().is_empty());
    }

    let missing = Table::declared::<TestTable>(created.client().clone(), format!("{name}-none"));
    let v = missing.verify().await.unwrap();
    assert_eq!(v.differences, [Difference::MissingTable]);
}

faceteer_suite::engines!(
    a_table_made_by_create_table_verifies,
    every_difference_is_reported
);
