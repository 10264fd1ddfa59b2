//! Vector indexes and `SearchVectors` on the embedded engine (moto has no vector search):
//! the table is created with them, searches return records nearest first with their
//! scores, decoded like every read, bad searches are refused before sending, a vector index
//! is added to a live table, and a backfill fills the embeddings of existing records from
//! an async function.

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer::admin::Difference;
use faceteer::backfill::Why;
use faceteer::vector::VectorError;
use faceteer::{Error, Facet, Table};
use faceteer_suite::{fresh_table, run, Engine};
use serde::{Deserialize, Serialize};

/// A document, searched by its embedding within its tenant, filtered by team.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "DOC")]
pub(crate) struct Doc {
    #[pk(prefix = "#TENANT")]
    tenant: String,
    #[sk(prefix = "#DOC")]
    id: String,
    team: String,
    text: String,
    #[vector(
        dimensions = 3,
        distance = cosine,
        index = "DocEmbedding",
        partition = tenant,
        filters(team)
    )]
    embedding: Option<Vec<f32>>,
}

/// Another facet in the same vector index: the index returns its items too, and searches
/// of `Doc` skip and count them.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "NOTE")]
struct Note {
    #[pk(prefix = "#TENANT")]
    tenant: String,
    #[sk(prefix = "#NOTE")]
    id: String,
    team: String,
    #[vector(
        dimensions = 3,
        distance = cosine,
        index = "DocEmbedding",
        partition = tenant,
        filters(team)
    )]
    embedding: Vec<f32>,
}

faceteer::table! {
    struct Library { Doc, Note }
}

/// The same documents before they had embeddings: no vector index.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "DOC")]
struct PlainDoc {
    #[pk(prefix = "#TENANT")]
    tenant: String,
    #[sk(prefix = "#DOC")]
    id: String,
    team: String,
    text: String,
}

faceteer::table! {
    struct PlainLibrary { PlainDoc }
}

/// A unit vector at `angle` degrees in the x-y plane.
pub(crate) fn at(angle: f32) -> Vec<f32> {
    let r = angle.to_radians();
    vec![r.cos(), r.sin(), 0.0]
}

fn doc(i: u32) -> Doc {
    Doc {
        tenant: "acme".into(),
        id: format!("d{i:02}"),
        team: if i.is_multiple_of(2) { "core" } else { "edge" }.into(),
        text: format!("document {i}"),
        embedding: Some(at(i as f32 * 10.0)),
    }
}

/// A table with the vector index, seeded with documents (and a note sharing the index).
pub(crate) async fn seeded() -> Table {
    let table = fresh_table::<Library>("vectors").await;
    for i in 0..9 {
        table.put(&doc(i)).await.unwrap();
    }
    let note = Note {
        tenant: "acme".into(),
        id: "n1".into(),
        team: "core".into(),
        embedding: at(1.0),
    };
    table.put(&note).await.unwrap();
    // Another tenant's document, nearest of all but in another partition of the index.
    let mut other = doc(0);
    other.tenant = "globex".into();
    table.put(&other).await.unwrap();
    table
}

async fn the_table_is_created_with_its_vector_index() {
    let table = seeded().await;
    let description = crate::common::describe(&table).await;
    let vectors = description.vector_indexes();
    assert_eq!(vectors.len(), 1, "one index, shared by both facets");
    let v = &vectors[0];
    assert_eq!(v.index_name(), Some("DocEmbedding"));
    assert_eq!(v.dimensions(), Some(3));
    assert_eq!(v.distance_function().map(|d| d.as_str()), Some("COSINE"));
    assert_eq!(
        v.vector_attribute().map(|a| a.attribute_name.as_str()),
        Some("embedding")
    );
    let schema: Vec<(String, String)> = v
        .search_schema()
        .iter()
        .map(|e| {
            (
                e.attribute_name.clone(),
                e.search_schema_element_type.as_str().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        schema,
        [("tenant", "HASH"), ("team", "INLINE_FILTER")].map(|(a, b)| (a.into(), b.into()))
    );
    let verification = table.verify().await.unwrap();
    assert!(verification.is_ok(), "{:?}", verification.differences);
    table.delete_table().await.unwrap();
}

async fn searches_return_the_nearest_records_decoded() {
    let table = seeded().await;
    // Nearest to 35°: d03 (30°) and d04 (40°), then d02 and d05, ...
    let found = table
        .search_vectors(Doc::similar("acme", at(35.0)).top_k(4))
        .await
        .unwrap();
    let ids: Vec<&str> = found.results.iter().map(|s| s.record.id.as_str()).collect();
    assert_eq!(ids.len(), 4);
    let mut first_two = ids[..2].to_vec();
    first_two.sort_unstable();
    assert_eq!(first_two, ["d03", "d04"]);
    // Cosine distance: nearest first, so scores grow down the results.
    assert!(found
        .results
        .windows(2)
        .all(|w| w[0].score <= w[1].score + 1e-9));
    assert!(found.results[0].score < 0.01, "{:?}", found.results[0]);
    assert!(found.results.iter().all(|s| s.record.tenant == "acme"));
    // Nearest to 0°: d00, then the note (1°) is skipped and counted.
    let found = table
        .search_vectors(Doc::similar("acme", at(0.0)).top_k(3))
        .await
        .unwrap();
    assert_eq!(found.results[0].record.id, "d00");
    assert_eq!(found.skipped, 1, "the note shares the index");
    assert_eq!(found.results.len(), 2);
    // A filter on a search-schema attribute.
    let f = Doc::fields();
    let found = table
        .search_vectors(
            Doc::similar("acme", at(35.0))
                .top_k(3)
                .filter(f.team.eq("edge")),
        )
        .await
        .unwrap();
    assert!(!found.results.is_empty());
    assert!(found.results.iter().all(|s| s.record.team == "edge"));
    // An item of the facet that is not a valid record is listed apart.
    let mut raw = faceteer::to_item(&doc(9)).unwrap();
    raw.insert("text".into(), AttributeValue::N("9".into()));
    table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(raw))
        .send()
        .await
        .unwrap();
    let found = table
        .search_vectors(Doc::similar("acme", at(90.0)).top_k(2))
        .await
        .unwrap();
    assert_eq!(found.failed.len(), 1, "{found:?}");
    assert_eq!(found.failed[0].sk, "#DOC_d09");
    table.delete_table().await.unwrap();
}

async fn bad_searches_are_refused_before_sending() {
    let table = seeded().await;
    let refused = table.search_vectors(Doc::similar("acme", [1.0, 0.0])).await;
    assert!(
        matches!(
            refused,
            Err(Error::Vector(VectorError::Dimensions {
                expected: 3,
                found: 2,
                ..
            }))
        ),
        "{refused:?}"
    );
    let refused = table
        .search_vectors(Doc::similar("acme", [1.0, f32::NAN, 0.0]))
        .await;
    assert!(
        matches!(
            refused,
            Err(Error::Vector(VectorError::NotFinite { position: 1, .. }))
        ),
        "{refused:?}"
    );
    for k in [0, 101] {
        let refused = table
            .search_vectors(Doc::similar("acme", at(0.0)).top_k(k))
            .await;
        assert!(
            matches!(refused, Err(Error::Vector(VectorError::TopK(n))) if n == k),
            "{refused:?}"
        );
    }
    // A vector DynamoDB would refuse is refused at the put and the update.
    let mut wrong = doc(1);
    wrong.embedding = Some(vec![1.0, 0.0]);
    let refused = table.put(&wrong).await;
    assert!(
        matches!(&refused, Err(Error::Item(e)) if e.to_string().contains("3 dimensions, not 2")),
        "{refused:?}"
    );
    let f = Doc::fields();
    let key = Doc::key("acme", "d01").unwrap();
    let refused = table
        .update(&key, f.embedding.set(vec![1.0, 0.0, 0.0, 0.0]))
        .await;
    assert!(
        matches!(&refused, Err(Error::Item(e)) if e.to_string().contains("3 dimensions, not 4")),
        "{refused:?}"
    );
    let refused = table
        .update(&key, f.embedding.set(vec![1.0, f32::INFINITY, 0.0]))
        .await;
    assert!(matches!(&refused, Err(Error::Expr(_))), "{refused:?}");
    let refused = table
        .search_vectors(Doc::similar("acme", at(0.0)).filter(f.text.eq("x")))
        .await;
    assert!(
        matches!(&refused, Err(Error::Vector(VectorError::FilterAttribute { attribute, .. })) if attribute == "text"),
        "{refused:?}"
    );
    table.delete_table().await.unwrap();
}

async fn a_vector_index_is_added_live_and_embeddings_backfilled() {
    // The table as it was: documents without embeddings, no vector index.
    let old = fresh_table::<PlainLibrary>("vectors-live").await;
    for i in 0..24 {
        let d = doc(i);
        let plain = PlainDoc {
            tenant: d.tenant,
            id: d.id,
            team: d.team,
            text: d.text,
        };
        old.put(&plain).await.unwrap();
    }
    let table = Table::declared::<Library>(old.client().clone(), old.name().to_owned());
    let before = table.verify().await.unwrap();
    assert!(before
        .differences
        .iter()
        .any(|d| matches!(d, Difference::MissingIndex { index, .. } if index == "DocEmbedding")));
    let created = table.create_missing_indexes().await.unwrap();
    assert_eq!(created, ["DocEmbedding"]);
    assert!(table.verify().await.unwrap().is_ok());
    // Fill the embeddings from an async function; it refuses one record the first time.
    let embed = |refuse: bool| {
        move |mut d: Doc| async move {
            let i: u32 = d.id[1..].parse().unwrap();
            if refuse && i == 5 {
                return Err("the embedding service is busy".to_owned());
            }
            if d.embedding.is_none() {
                tokio::task::yield_now().await;
                d.embedding = Some(at(i as f32 * 10.0));
            }
            Ok(d)
        }
    };
    let report = table
        .backfill_with(embed(true))
        .segments(2)
        .page_size(5)
        .capacity_per_second(500.0)
        .await
        .unwrap();
    assert_eq!(report.totals.rewritten, 23, "{report}");
    assert_eq!(report.failed.len(), 1, "{report}");
    assert!(matches!(&report.failed[0].why, Why::Transform(m) if m.contains("busy")));
    let again = table.backfill_with(embed(false)).await.unwrap();
    assert!(again.is_complete(), "{again}");
    assert_eq!(
        again.totals.rewritten, 1,
        "only the refused record is left: {again}"
    );
    assert_eq!(again.totals.already_right, 23);
    let found = table
        .search_vectors(Doc::similar("acme", at(50.0)).top_k(1))
        .await
        .unwrap();
    assert_eq!(found.results[0].record.id, "d05");
    table.delete_table().await.unwrap();
}

macro_rules! embedded {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn embedded() {
                super::run(super::Engine::Embedded, super::$name())
            }
        }
    )*};
}

embedded!(
    the_table_is_created_with_its_vector_index,
    searches_return_the_nearest_records_decoded,
    bad_searches_are_refused_before_sending,
    a_vector_index_is_added_live_and_embeddings_backfilled,
);

/// The design exports spell vector indexes as DynamoDB's templates do.
#[test]
fn designs_show_vector_indexes() {
    use faceteer::design;
    use faceteer::TableSchema;
    let d = Library::design("library");
    let cfn: serde_json::Value = serde_json::from_str(&design::cloudformation(&d)).unwrap();
    let props = &cfn["Resources"]["Library"]["Properties"];
    let v = &props["VectorIndexes"][0];
    assert_eq!(v["IndexName"], "DocEmbedding");
    assert_eq!(v["Dimensions"], 3);
    assert_eq!(v["DistanceFunction"], "COSINE");
    assert_eq!(v["VectorAttribute"]["AttributeName"], "embedding");
    assert_eq!(v["SearchSchema"][0]["SearchSchemaElementType"], "HASH");
    assert_eq!(v["SearchSchema"][1]["AttributeName"], "team");
    let defined: Vec<&str> = props["AttributeDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["AttributeName"].as_str().unwrap())
        .collect();
    assert!(defined.contains(&"team") && defined.contains(&"tenant"));
    assert!(
        !defined.contains(&"embedding"),
        "the vector is not a key attribute"
    );
    let tf = design::terraform(&d);
    assert!(
        tf.contains(r#"resource "aws_dynamodb_vector_index" "doc_embedding""#),
        "{tf}"
    );
    assert!(
        tf.contains("table_name        = aws_dynamodb_table.library.name"),
        "{tf}"
    );
    assert!(tf.contains(r#"type           = "INLINE_FILTER""#), "{tf}");
    let md = design::access_patterns_markdown(&d);
    assert!(md.contains("embedding (3 dimensions, COSINE)"), "{md}");
}
