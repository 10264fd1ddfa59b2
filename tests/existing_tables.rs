//! A table laid out by another library: OneTable's names (`pk`, `sk`, `gsi1pk`, `gsi1sk`,
//! `_type`, index `gsi1`; keys like `USER#<id>`), made and written by raw SDK calls as
//! OneTable makes and writes it, then opened, read, written and verified through facets.

use crate::common::get_raw;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement,
    KeyType, Projection, ProjectionType, ScalarAttributeType,
};
use faceteer::{schema::TableNames, Facet, Table, TableSchema};
use serde::{Deserialize, Serialize};

// OneTable's default names, as the `existing_table` example declares them.
use crate::examples::existing_table::ONETABLE;

/// OneTable's `Category` model (its repository guide): `pk: USER#${userId}`,
/// `sk: CATEGORY#category#${id}`, `gsi1pk: CATEGORY#${id}`, `gsi1sk: USER#${userId}`.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[facet(
    name = "Category",
    delimiter = "#",
    pk(prefix = "USER", fields(user_id)),
    sk(prefix = "CATEGORY#category", fields(id)),
    gsi(
        n = 1,
        alias = "ById",
        pk(prefix = "CATEGORY", fields(id)),
        sk(prefix = "USER", fields(user_id))
    )
)]
struct Category {
    id: String,
    user_id: String,
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    status: String,
    created_at: String,
    updated_at: String,
}

faceteer::table! {
    /// The OneTable application's table.
    struct OneTableApp { Category }
    names = ONETABLE
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn category(user: &str, id: &str, name: &str) -> Category {
    Category {
        id: id.into(),
        user_id: user.into(),
        name: name.into(),
        description: None,
        status: "active".into(),
        created_at: "2026-11-23T10:00:00.000Z".into(),
        updated_at: "2026-11-23T10:00:00.000Z".into(),
    }
}

/// The table as OneTable's schema makes it, by raw SDK calls.
async fn onetable_table(label: &str) -> Table {
    let declared = faceteer_suite::fresh_table::<OneTableApp>(label).await;
    declared.delete_table().await.unwrap();
    let attr = |n: &str| {
        AttributeDefinition::builder()
            .attribute_name(n)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    let key = |n: &str, t| {
        KeySchemaElement::builder()
            .attribute_name(n)
            .key_type(t)
            .build()
            .unwrap()
    };
    declared
        .client()
        .create_table()
        .table_name(declared.name())
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attr("pk"))
        .attribute_definitions(attr("sk"))
        .attribute_definitions(attr("gsi1pk"))
        .attribute_definitions(attr("gsi1sk"))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("gsi1")
                .key_schema(key("gsi1pk", KeyType::Hash))
                .key_schema(key("gsi1sk", KeyType::Range))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    declared
}

/// A category as OneTable writes it.
async fn put_as_onetable(table: &Table, c: &Category) {
    table
        .client()
        .put_item()
        .table_name(table.name())
        .item("pk", s(&format!("USER#{}", c.user_id)))
        .item("sk", s(&format!("CATEGORY#category#{}", c.id)))
        .item("gsi1pk", s(&format!("CATEGORY#{}", c.id)))
        .item("gsi1sk", s(&format!("USER#{}", c.user_id)))
        .item("_type", s("Category"))
        .item("id", s(&c.id))
        .item("userId", s(&c.user_id))
        .item("name", s(&c.name))
        .item("status", s(&c.status))
        .item("createdAt", s(&c.created_at))
        .item("updatedAt", s(&c.updated_at))
        .send()
        .await
        .unwrap();
}

async fn a_onetable_table_is_read_and_written_through_facets() {
    let table = onetable_table("onetable").await;
    let books = category("u1", "c1", "Books");
    let films = category("u1", "c2", "Films");
    let other = category("u2", "c3", "Games");
    for c in [&books, &films, &other] {
        put_as_onetable(&table, c).await;
    }
    // The live table is what the facets need, under its own names.
    let v = table.verify().await.unwrap();
    assert!(v.is_ok(), "{:?}", v.differences);
    assert!(v.unused_indexes.is_empty());

    // Reads: by key, the partition, the index, a count, a scan, a batch.
    let key = Category::key("u1", "c1").unwrap();
    assert_eq!(table.get(&key).await.unwrap(), Some(books.clone()));
    let listed = table
        .query(Category::query("u1").list())
        .all()
        .await
        .unwrap();
    assert_eq!(listed, [books.clone(), films.clone()]);
    let by_id = table
        .query(Category::by_id("c3").list())
        .all()
        .await
        .unwrap();
    assert_eq!(by_id, std::slice::from_ref(&other));
    assert_eq!(
        table
            .query(Category::query("u1").list())
            .count()
            .await
            .unwrap(),
        2
    );
    let mut scanned = table.scan::<Category>().all().await.unwrap();
    scanned.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(scanned, [books.clone(), films.clone(), other.clone()]);
    let mut scanned = table.scan::<Category>().index("gsi1").all().await;
    assert!(scanned.is_err(), "the index is named as facets declare it");
    scanned = table.scan::<Category>().index("ById").all().await;
    assert_eq!(scanned.unwrap().len(), 3);
    let got = table
        .get_many(vec![key.clone(), Category::key("u2", "c3").unwrap()])
        .await;
    assert_eq!(got.found, [books.clone(), other.clone()]);
    // Pages of one, resumed by cursor.
    let first = table
        .query(Category::query("u1").list().limit(1))
        .await
        .unwrap();
    assert_eq!(first.records, std::slice::from_ref(&books));
    let next = table
        .query(
            Category::query("u1")
                .list()
                .limit(1)
                .cursor(first.cursor.unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(next.records, std::slice::from_ref(&films));

    // Writes land under OneTable's names: a put, an update, a batch, a transaction.
    let music = category("u1", "c4", "Music");
    table.put(&music).await.unwrap();
    let f = Category::fields();
    table.update(&key, f.name.set("Old books")).await.unwrap();
    let report = table
        .put_many(vec![
            category("u3", "c5", "Tools"),
            category("u3", "c6", "Toys"),
        ])
        .await;
    assert!(report.is_complete(), "{:?}", report.failed.first());
    table
        .transact_write()
        .put(table.put(&category("u4", "c7", "Art")))
        .delete(table.delete(&Category::key("u1", "c2").unwrap()))
        .await
        .unwrap();
    let raw = get_raw(
        &table,
        faceteer::Item::from([
            ("pk".to_owned(), s("USER#u1")),
            ("sk".to_owned(), s("CATEGORY#category#c4")),
        ]),
    )
    .await
    .expect("the put item, under OneTable's key names");
    let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "_type",
            "createdAt",
            "gsi1pk",
            "gsi1sk",
            "id",
            "name",
            "pk",
            "sk",
            "status",
            "updatedAt",
            "userId"
        ]
    );
    assert_eq!(raw["gsi1pk"], s("CATEGORY#c4"));
    assert_eq!(raw["_type"], s("Category"));
    let raw = get_raw(
        &table,
        faceteer::Item::from([
            ("pk".to_owned(), s("USER#u1")),
            ("sk".to_owned(), s("CATEGORY#category#c1")),
        ]),
    )
    .await
    .unwrap();
    assert_eq!(raw["name"], s("Old books"));
    assert!(!raw.contains_key("PK") && !raw.contains_key("facet"));
    let listed = table
        .query(Category::query("u1").list())
        .all()
        .await
        .unwrap();
    let ids: Vec<&str> = listed.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["c1", "c4"], "c2 deleted by the transaction");
    assert_eq!(
        table
            .query(Category::by_id("c7").list())
            .count()
            .await
            .unwrap(),
        1
    );
    // A condition that fails reports the stored record, read back in faceteer's names.
    let err = table.put(&music).if_not_exists().await.unwrap_err();
    assert!(
        matches!(err, faceteer::Error::ConditionFailed { .. }),
        "{err:?}"
    );
    table.delete_table().await.unwrap();
}

async fn create_table_makes_the_tables_own_names() {
    let declared = faceteer_suite::fresh_table::<OneTableApp>("onetable-create").await;
    let description = declared
        .client()
        .describe_table()
        .table_name(declared.name())
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    let keys: Vec<&str> = description
        .key_schema()
        .iter()
        .map(|k| k.attribute_name())
        .collect();
    assert_eq!(keys, ["pk", "sk"]);
    let index = &description.global_secondary_indexes()[0];
    assert_eq!(index.index_name(), Some("gsi1"));
    let keys: Vec<&str> = index
        .key_schema()
        .iter()
        .map(|k| k.attribute_name())
        .collect();
    assert_eq!(keys, ["gsi1pk", "gsi1sk"]);
    assert!(declared.verify().await.unwrap().is_ok());
    // The same table opened without the names is not what the facets need.
    let plain = Table::with_facets(
        declared.client().clone(),
        declared.name(),
        OneTableApp::FACETS.iter().copied(),
    )
    .unwrap();
    let v = plain.verify().await.unwrap();
    assert!(!v.is_ok());
    // Names chosen at run time, checked.
    let bad = TableNames {
        sk: "pk",
        ..ONETABLE
    };
    let err = plain.clone().with_names(bad).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the table's names: the table names both `PK` and `SK` `pk`: each needs its own attribute"
    );
    let renamed = plain.with_names(ONETABLE).unwrap();
    assert!(renamed.verify().await.unwrap().is_ok());
    declared.delete_table().await.unwrap();
}

/// One transaction and one batch write to two tables: a table of faceteer's own names and
/// the OneTable one; each step is written in its table's names, checked against its
/// table's facets, and named with its table when it fails.
async fn transactions_and_batches_span_tables() {
    use crate::common::{account, TestTable};
    use faceteer::{batch::BatchAction, error::CancelReason, Error};
    let onetable = onetable_table("across-one").await;
    let plain = faceteer_suite::fresh_table::<TestTable>("across-plain").await;

    plain
        .transact_write()
        .put(plain.put(&account("a1")).if_not_exists())
        .put(onetable.put(&category("u1", "c1", "Books")).if_not_exists())
        .await
        .unwrap();
    assert_eq!(
        plain
            .get(&crate::common::Account::key("a1").unwrap())
            .await
            .unwrap(),
        Some(account("a1"))
    );
    let raw = get_raw(
        &onetable,
        [("pk", s("USER#u1")), ("sk", s("CATEGORY#category#c1"))]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
    .await
    .expect("written in the OneTable names");
    assert_eq!(raw.get("_type"), Some(&s("Category")));

    // A step that fails names its table; nothing is applied in either.
    let err = plain
        .transact_write()
        .put(plain.put(&account("a2")).if_not_exists())
        .put(onetable.put(&category("u1", "c1", "Again")).if_not_exists())
        .await
        .unwrap_err();
    let Error::TransactionCanceled { canceled } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(canceled.len(), 1, "{err}");
    assert_eq!(canceled[0].step.index, 1);
    assert_eq!(canceled[0].step.table, onetable.name());
    assert_eq!(canceled[0].reason, CancelReason::AlreadyExists);
    // The stored record the failed step saw, typed.
    let seen: Category = canceled[0].stored().unwrap().expect("the stored category");
    assert_eq!(seen.name, "Books");
    assert!(err.to_string().contains(onetable.name()), "{err}");
    assert_eq!(
        plain
            .get(&crate::common::Account::key("a2").unwrap())
            .await
            .unwrap(),
        None
    );
    // Each table checks its own facets.
    let err = plain
        .transact_write()
        .put(onetable.put(&account("a3")).if_not_exists())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("ACCOUNT"), "{err}");

    // A batch across both tables.
    let mut batch = plain.write_batch();
    for i in 0..30 {
        batch = batch.put(&account(&format!("b{i}")));
    }
    batch = batch.on(&onetable);
    for i in 0..30 {
        batch = batch.put(&category("u2", &format!("c{i}"), "x"));
    }
    let report = batch
        .delete(&Category::key("u1", "c1").unwrap())
        .on(&plain)
        .delete(&crate::common::Account::key("a1").unwrap())
        .await;
    assert!(report.is_complete(), "{:?}", report.failed);
    assert_eq!(report.done.len(), 62);
    let in_onetable = report
        .done
        .iter()
        .filter(|e| e.table == onetable.name())
        .count();
    assert_eq!(in_onetable, 31);
    assert!(report
        .done
        .iter()
        .any(|e| e.action == BatchAction::Delete && e.table == plain.name()));
    let users = onetable
        .query(Category::query("u2").list())
        .all()
        .await
        .unwrap();
    assert_eq!(users.len(), 30);
    assert_eq!(
        onetable
            .get(&Category::key("u1", "c1").unwrap())
            .await
            .unwrap(),
        None
    );
}

faceteer_suite::engines!(
    a_onetable_table_is_read_and_written_through_facets,
    create_table_makes_the_tables_own_names,
    transactions_and_batches_span_tables,
);
