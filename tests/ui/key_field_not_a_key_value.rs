use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Facet, Serialize, Deserialize)]
struct Place {
    #[pk(prefix = "#MAP")]
    map: String,
    #[sk(prefix = "#AT")]
    at: Point,
}

fn main() {}
