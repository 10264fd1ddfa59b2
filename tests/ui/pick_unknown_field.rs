use faceteer::{Facet, Pick};
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[facet(pick_validator = trust)]
struct Task {
    #[pk(prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#TASK")]
    task_id: String,
    title: String,
}

#[derive(Pick)]
#[pick(facet = Task)]
struct Title {
    titel: String,
}

fn main() {}
