use faceteer::{Facet, Pick};
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
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
    title: String,
}

fn main() {
    let _ = Task::query("t").list().select::<Title>();
}
