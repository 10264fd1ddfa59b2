use chrono::{DateTime, Utc};
use faceteer::{Facet, Nullable};
use serde::{Deserialize, Serialize};

// A `DateTime<Utc>` needs no attribute (faceteer stores it as Faceteer does); a `Nullable`
// needs `#[serde(default)]`.
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
