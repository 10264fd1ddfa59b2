use faceteer::Facet;
use serde::{Deserialize, Serialize};

/// GSI1 with a sort key.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "USER", gsi(n = 1, pk(prefix = "#EMAIL", fields(email)), sk(prefix = "#USER", fields(id))))]
struct User {
    #[pk(prefix = "#USER")]
    #[sk(prefix = "#USER")]
    id: String,
    email: String,
}

/// GSI1 without one: the table cannot have both.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "TEAM", gsi(n = 1, pk(prefix = "#EMAIL", fields(contact))))]
struct Team {
    #[pk(prefix = "#TEAM")]
    #[sk(prefix = "#TEAM")]
    id: String,
    contact: String,
}

faceteer::table! {
    struct App { User, Team }
}

fn main() {}
