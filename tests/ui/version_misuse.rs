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
struct Label {
    #[pk(prefix = "#LABEL")]
    #[sk(prefix = "#LABEL")]
    id: String,
    #[version]
    revision: String,
}

#[derive(Facet, Serialize, Deserialize)]
struct Plain {
    #[pk(prefix = "#PLAIN")]
    #[sk(prefix = "#PLAIN")]
    id: String,
}

async fn misuse(table: &Table) {
    let f = Stock::fields();
    let _ = f.version.set(3);
    let _ = table.modify(&Plain::key("p").unwrap(), |p: &mut Plain| drop(p));
}

fn main() {}
