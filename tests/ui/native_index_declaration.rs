use faceteer::Facet;
use serde::{Deserialize, Serialize};

struct Opaque;

mod epoch {
    pub fn serialize<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(*v)
    }
}

// A native key has no prefix, shard or sortable encoding; a local index is never native;
// `sparse` says nothing more; a field appears once; five fields are too many.
#[derive(Facet, Serialize, Deserialize)]
#[facet(
    gsi(n = 1, native, pk(prefix = "#TEAM", fields(team))),
    gsi(n = 2, native, sparse, pk(fields(team)), sk(fields(team))),
    gsi(n = 3, native, pk(fields(a, b, c, d, e))),
    lsi(n = 1, native, sk(fields(a)))
)]
struct Ticket {
    #[pk(prefix = "#T")]
    id: String,
    #[sk(prefix = "#T")]
    team: String,
    a: String,
    b: String,
    c: String,
    d: String,
    e: String,
}

// A codec faceteer does not know, and a type with no DynamoDB key type.
#[derive(Facet, Serialize, Deserialize)]
#[facet(gsi(n = 1, native, pk(fields(at)), sk(fields(blob))))]
struct Event {
    #[pk(prefix = "#E")]
    #[sk(prefix = "#E")]
    id: String,
    #[serde(with = "epoch")]
    at: u64,
    #[serde(skip)]
    blob: Vec<Opaque>,
}

#[derive(Facet, Serialize, Deserialize)]
#[facet(gsi(n = 1, native, pk(fields(tags))))]
struct Tagged {
    #[pk(prefix = "#E")]
    #[sk(prefix = "#E")]
    id: String,
    tags: Vec<String>,
}

fn main() {}
