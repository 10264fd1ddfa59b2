use chrono::{DateTime, Utc};
use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Member {
    #[pk(prefix = "#MEMBER")]
    #[sk(prefix = "#MEMBER")]
    id: String,
    #[unique(scope(group))]
    email: String,
    #[unique(scope(handle))]
    handle: String,
    #[updated]
    changed: DateTime<Utc>,
    #[updated]
    touched: DateTime<Utc>,
}

fn main() {}
