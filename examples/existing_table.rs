//! A table another library laid out: OneTable's names (`pk`, `sk`, `gsi1pk`, `gsi1sk`,
//! `_type`, index `gsi1`) and key formats (`USER#<id>`), opened and shared through facets.
//!
//! ```text
//! cargo run --example existing_table
//! ```
//!
//! The example makes the table and writes one item the way OneTable does, by raw SDK calls,
//! then reads and writes it through a facet. Runs on the embedded engine, or on
//! `FACETEER_DYNAMODB_ENDPOINT`'s server.

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer::{schema::IndexNames, schema::TableNames, Facet, Table};
use serde::{Deserialize, Serialize};

/// OneTable's default names.
pub const ONETABLE: TableNames = TableNames {
    pk: "pk",
    sk: "sk",
    facet: "_type",
    ttl: "expires",
    indexes: &[IndexNames {
        index: "GSI1",
        name: "gsi1",
        pk: "gsi1pk",
        sk: "gsi1sk",
    }],
};

/// OneTable's `Category` model: `pk: USER#${userId}`, `sk: CATEGORY#category#${id}`,
/// `gsi1pk: CATEGORY#${id}`, `gsi1sk: USER#${userId}`.
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
    status: String,
}

faceteer::table! {
    /// The OneTable application's table, under its own names.
    pub struct OneTableApp { Category }
    names = ONETABLE
}

pub async fn run(table: &Table) -> faceteer::Result<()> {
    // An item as OneTable writes it.
    let s = |v: &str| AttributeValue::S(v.to_owned());
    table
        .client()
        .put_item()
        .table_name(table.name())
        .item("pk", s("USER#u1"))
        .item("sk", s("CATEGORY#category#c1"))
        .item("gsi1pk", s("CATEGORY#c1"))
        .item("gsi1sk", s("USER#u1"))
        .item("_type", s("Category"))
        .item("id", s("c1"))
        .item("userId", s("u1"))
        .item("name", s("Books"))
        .item("status", s("active"))
        .send()
        .await
        .map_err(|e| faceteer::Error::InvalidRequest(e.to_string()))?;

    let v = table.verify().await?;
    println!(
        "1. verify: {}",
        if v.is_ok() {
            "the table is what the facet needs"
        } else {
            "differs"
        }
    );

    let read = table.get(&Category::key("u1", "c1")?).await?;
    println!("2. read through the facet: {read:?}");

    let films = Category {
        id: "c2".into(),
        user_id: "u1".into(),
        name: "Films".into(),
        status: "active".into(),
    };
    table.put(&films).await?;
    let by_id = table.query(Category::by_id("c2").list()).all().await?;
    println!(
        "3. written, then found through gsi1: {:?}",
        by_id.first().map(|c| &c.name)
    );

    let raw = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("pk", s("USER#u1"))
        .key("sk", s("CATEGORY#category#c2"))
        .send()
        .await
        .map_err(|e| faceteer::Error::InvalidRequest(e.to_string()))?
        .item
        .unwrap_or_default();
    let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
    names.sort_unstable();
    println!("4. stored under OneTable's names: {names:?}");
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `create_table` makes the table with its own names: `pk`/`sk` and index `gsi1`.
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-onetable-{}", std::process::id());
        let table = Table::from_env::<OneTableApp>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<OneTableApp>().await?
    };
    println!("faceteer existing-table example: table {}\n", table.name());
    let result = run(&table).await;
    table.delete_table().await?;
    result?;
    Ok(())
}
