use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct User {
    #[pk(prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#USER")]
    user_id: String,
    #[gsi(n = 2, alias = "ByEmail", pk, prefix = "#EMAIL")]
    email: String,
}

fn main() {}
