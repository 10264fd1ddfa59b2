use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[serde(rename_all(serialize = "camelCase"))]
struct Doc {
    #[pk(prefix = "#DOC")]
    #[sk(prefix = "#DOC")]
    doc_id: String,
    #[serde(rename(serialize = "t", deserialize = "title"))]
    title: String,
}

fn main() {}
