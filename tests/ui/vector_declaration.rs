use faceteer::Facet;
use serde::{Deserialize, Serialize};

// A vector is a list of numbers; 1 to 4096 dimensions; a distance DynamoDB knows; an index
// name it accepts; search-schema fields stored as attributes, not the vector itself.
#[derive(Facet, Serialize, Deserialize)]
struct Doc {
    #[pk(prefix = "#DOC")]
    #[sk(prefix = "#DOC")]
    id: String,
    #[vector(dimensions = 3, distance = cosine)]
    title: String,
    #[vector(dimensions = 5000, distance = cosine)]
    a: Vec<f32>,
    #[vector(dimensions = 3, distance = manhattan)]
    b: Vec<f32>,
    #[vector(dimensions = 3, distance = cosine, index = "x")]
    c: Vec<f32>,
    #[vector(dimensions = 3, distance = cosine, filters(d, hidden))]
    d: Vec<f32>,
    #[serde(skip)]
    hidden: String,
}

/// Two facets declaring one vector index differently.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "A")]
struct A {
    #[pk(prefix = "#A")]
    #[sk(prefix = "#A")]
    id: String,
    #[vector(dimensions = 3, distance = cosine, index = "Shared")]
    v: Vec<f32>,
}

#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "B")]
struct B {
    #[pk(prefix = "#B")]
    #[sk(prefix = "#B")]
    id: String,
    #[vector(dimensions = 4, distance = cosine, index = "Shared")]
    v: Vec<f32>,
}

faceteer::table! {
    struct App { A, B }
}

fn main() {}
