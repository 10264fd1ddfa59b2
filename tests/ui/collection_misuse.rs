use faceteer::{Collection, Facet};
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Team {
    #[pk(prefix = "#TEAM")]
    #[sk(prefix = "#TEAM")]
    id: String,
}

#[derive(Collection)]
enum TeamItems {
    Team(Team),
    Nothing,
    Two(Team, Team),
}

#[derive(Collection)]
struct NotAnEnum {
    team: Team,
}

fn main() {}
