use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Order {
    #[pk(prefix = "#ORDER")]
    id: String,
    #[sk(prefix = "#ORDER")]
    sk: String,
    facet: String,
    #[serde(rename = "GSI3PK")]
    lookup: String,
}

fn main() {}
