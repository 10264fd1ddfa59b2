use chrono::{DateTime, Utc};
use faceteer::{Facet, Nullable};
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Doc {
    #[pk(prefix = "#DOC")]
    #[sk(prefix = "#DOC")]
    id: String,
    created: DateTime<Utc>,
    deleted: Option<DateTime<Utc>>,
    note: Nullable<String>,
}

fn main() {}
