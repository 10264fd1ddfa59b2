//! Typed nested paths, attribute references and saves of what changed: a customer profile
//! with an address map, counters inside a map, and a balance moved on the server.
//!
//! `cargo run --example profiles` (the embedded engine; `FACETEER_DYNAMODB_ENDPOINT` for
//! another server).

use faceteer::write::Saved;
use faceteer::{Facet, Nested, Table};
use serde::{Deserialize, Serialize};

/// A postal address, stored as a map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Nested)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    pub city: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_code: Option<String>,
}

/// Counters, stored as a map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Nested)]
pub struct Stats {
    pub visits: u64,
    pub orders: u64,
}

/// A customer.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "CUSTOMER")]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    #[pk(prefix = "#CUSTOMER")]
    #[sk(prefix = "#CUSTOMER")]
    pub id: String,
    pub name: String,
    #[nested]
    pub address: Address,
    #[nested]
    pub stats: Stats,
    pub balance: i64,
    pub pending: i64,
    pub tags: Vec<String>,
}

faceteer::table! {
    /// The customers.
    pub struct Shop { Customer }
}

/// Change members, move a balance on the server, and save a record read and changed.
pub async fn run(table: &Table) -> faceteer::Result<()> {
    let ada = Customer {
        id: "c1".into(),
        name: "Ada".into(),
        address: Address {
            city: "Bergen".into(),
            post_code: Some("5003".into()),
        },
        stats: Stats {
            visits: 0,
            orders: 0,
        },
        balance: 100,
        pending: 25,
        tags: vec!["new".into()],
    };
    table.put(&ada).await?;
    let key = Customer::key("c1")?;
    let f = Customer::fields();

    // Members of maps, an element of a list, each value encoded as a put stores it; a
    // condition on a member.
    table
        .update(
            &key,
            f.address.city.set("Oslo")
                & f.address.post_code.remove()
                & f.stats.visits.add(1)
                & f.tags.at(0).set("regular"),
        )
        .when(f.address.city.eq("Bergen"))
        .await?;

    // Attribute against attribute, computed on the server: the pending amount is credited.
    table
        .update(
            &key,
            f.balance.set(f.balance + f.pending) & f.pending.set(0),
        )
        .when(f.pending.gt(0) & f.balance.ge(f.pending))
        .await?;

    // A save writes only what changed (here `name`), conditioned on the value read.
    let before = table.get(&key).consistent().await?.expect("stored");
    let mut after = before.clone();
    after.name = "Ada L.".into();
    assert_eq!(
        table.save(&before, &after).await?,
        Saved::Written {
            attributes: vec!["name"]
        }
    );

    let now = table.get(&key).consistent().await?.expect("stored");
    assert_eq!(now.address.city, "Oslo");
    assert_eq!(now.address.post_code, None);
    assert_eq!((now.stats.visits, now.balance, now.pending), (1, 125, 0));
    assert_eq!(
        (now.name.as_str(), now.tags[0].as_str()),
        ("Ada L.", "regular")
    );
    println!("{now:?}");
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-profiles-{}", std::process::id());
        let table = Table::from_env::<Shop>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<Shop>().await?
    };
    run(&table).await?;
    Ok(())
}
