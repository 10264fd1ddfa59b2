use chrono::{DateTime, Utc};
use faceteer::Facet;
use serde::{Deserialize, Serialize};

// 4 shards, then 32: shard ids grow from one hex digit to two, and the delimiter "a" could
// be read as one more digit.
#[derive(Facet, Serialize, Deserialize)]
#[facet(delimiter = "a")]
struct Ping {
    #[pk(prefix = "#G")]
    #[shard(count = 4, grow(from = "2027-01-01T00:00:00Z", count = 32), time = created)]
    #[sk(prefix = "#P")]
    id: String,
    created: DateTime<Utc>,
}

fn main() {}
