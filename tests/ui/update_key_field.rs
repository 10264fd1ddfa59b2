use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Task {
    #[pk(prefix = "#TEAM")]
    team: String,
    #[sk(prefix = "#TASK")]
    id: String,
    #[gsi(n = 1, pk, prefix = "#USER")]
    user: String,
    #[gsi(n = 1, sk, prefix = "#TASK")]
    due: String,
    title: String,
}

fn main() {
    let f = Task::fields();
    let _fine = f.title.set("ok");
    let _key = f.team.set("other");
    let _indexed = f.user.set("someone");
    let _not_known = f.user.set_if_not_exists("someone");
}
