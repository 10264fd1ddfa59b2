use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Reading {
    #[pk(prefix = "#SENSOR")]
    sensor: String,
    #[sk(prefix = "#AT")]
    at: u64,
}

fn main() {
    let _ = Reading::key("s-1", "yesterday");
    let _ = Reading::query(42).greater_than(7u64);
}
