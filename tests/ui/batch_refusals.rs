use faceteer::{Facet, Table};
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Stock {
    #[pk(prefix = "#SKU")]
    #[sk(prefix = "#SKU")]
    sku: String,
    on_hand: u32,
    #[version]
    version: u64,
}

#[derive(Facet, Serialize, Deserialize)]
struct Member {
    #[pk(prefix = "#MEMBER")]
    #[sk(prefix = "#MEMBER")]
    id: String,
    team: String,
    #[unique(scope(team))]
    email: String,
}

async fn batches(table: &Table, stock: Stock, member: Member) {
    // A batch write carries no condition: it cannot check a version or a unique value.
    let _ = table.put_many([stock]).await;
    let _ = table.write_batch().put(&member).await;
    // Deleting a member removes its guards, in a transaction.
    let _ = table.delete_many([Member::key("m1").unwrap()]).await;
    // Deleting a versioned record in a batch is allowed.
    let _ = table.delete_many([Stock::key("s1").unwrap()]).await;
}

fn main() {}
