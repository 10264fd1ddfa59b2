use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Counter {
    #[pk(prefix = "#COUNTER")]
    #[sk(prefix = "#COUNTER")]
    id: String,
    total: u128,
    deltas: Option<Vec<i128>>,
}

fn main() {}
