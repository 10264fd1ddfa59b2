use faceteer::{Facet, Pick};
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[facet(pick_validator = trust)]
struct Task {
    #[pk(prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#TASK")]
    task_id: String,
    points: u32,
}

#[derive(Pick)]
#[pick(facet = Task)]
struct Points {
    points: String,
}

fn main() {}
