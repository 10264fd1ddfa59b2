use chrono::{DateTime, Utc};
use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Account {
    #[pk(prefix = "#ACCOUNT")]
    #[sk(prefix = "#ACCOUNT")]
    id: String,
    name: String,
    #[created]
    created: u64,
    #[updated]
    updated: DateTime<Utc>,
}

#[derive(Facet, Serialize, Deserialize)]
struct Stamped {
    #[pk(prefix = "#STAMPED")]
    #[sk(prefix = "#STAMPED")]
    id: String,
    #[created(minutes)]
    created: i64,
}

#[derive(Facet, Serialize, Deserialize)]
struct Epoch {
    #[pk(prefix = "#EPOCH")]
    #[sk(prefix = "#EPOCH")]
    id: String,
    #[updated(seconds)]
    updated: String,
}

fn main() {
    let f = Account::fields();
    let _ = f.updated.set(Utc::now());
    let _ = f.name.set("x") & f.created.set(1u64);
}
