use chrono::{DateTime, Utc};
use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct NoTime {
    #[pk(prefix = "#SITE")]
    #[shard(count = 4, grow(from = "2027-01-01T00:00:00Z", count = 16))]
    site: String,
    #[sk(prefix = "#READING")]
    id: String,
}

#[derive(Facet, Serialize, Deserialize)]
struct Unordered {
    #[pk(prefix = "#SITE")]
    #[shard(
        count = 4,
        grow(from = "2028-01-01T00:00:00Z", count = 16),
        grow(from = "2027-01-01T00:00:00Z", count = 32),
        grow(from = "next year", count = 64),
        time = created
    )]
    site: String,
    #[sk(prefix = "#READING")]
    id: String,
    #[serde(with = "faceteer::timestamp")]
    created: DateTime<Utc>,
}

#[derive(Facet, Serialize, Deserialize)]
struct OptionalTime {
    #[pk(prefix = "#SITE")]
    #[shard(count = 4, grow(from = "2027-01-01T00:00:00Z", count = 16), time = created)]
    site: String,
    #[sk(prefix = "#READING")]
    id: String,
    created: Option<u64>,
}

fn main() {}
