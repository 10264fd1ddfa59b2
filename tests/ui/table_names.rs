use faceteer::{Facet, schema::TableNames};
use serde::{Deserialize, Serialize};

/// A field stored as `pk`, in a table whose partition key is named `pk`.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "Item")]
struct Item {
    #[pk(prefix = "ITEM")]
    id: String,
    #[sk(prefix = "ITEM")]
    pk: String,
}

const NAMES: TableNames = TableNames {
    pk: "pk",
    sk: "sk",
    facet: "_type",
    ttl: "ttl",
    indexes: &[],
};

faceteer::table! {
    struct App { Item }
    names = NAMES
}

fn main() {}
