use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Entry {
    #[pk(prefix = "#LEDGER")]
    ledger: String,
    #[sk(prefix = "#ENTRY")]
    year: u16,
    #[sk(prefix = "#ITEM")]
    id: String,
}

fn main() {}
