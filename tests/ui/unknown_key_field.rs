use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[facet(pk(prefix = "#TEAM", fields(team_id)), sk(prefix = "#USER", fields(user_idd)))]
struct User {
    team_id: String,
    user_id: String,
}

fn main() {}
