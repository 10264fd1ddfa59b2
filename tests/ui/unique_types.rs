use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Member {
    #[pk(prefix = "#MEMBER")]
    #[sk(prefix = "#MEMBER")]
    id: String,
    #[unique]
    tags: Vec<String>,
    #[created]
    joined: String,
}

fn main() {}
