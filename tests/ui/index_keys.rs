use faceteer::Facet;
use serde::{Deserialize, Serialize};

/// `sparse` on an index whose key fields are all required.
#[derive(Facet, Serialize, Deserialize)]
#[facet(gsi(n = 1, sparse, pk(prefix = "#EMAIL", fields(email))))]
struct Sparse {
    #[pk(prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#USER")]
    user_id: String,
    email: String,
}

/// A local index with a partition key of its own, one without a sort key, and one out of
/// range.
#[derive(Facet, Serialize, Deserialize)]
#[facet(
    lsi(n = 1, pk(prefix = "#X", fields(email)), sk(prefix = "#Y", fields(email))),
    lsi(n = 2),
    lsi(n = 6, sk(prefix = "#Y", fields(email)))
)]
struct Local {
    #[pk(prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#USER")]
    user_id: String,
    email: String,
}

/// An index declared on the struct and on a field; one with a sort key only.
#[derive(Facet, Serialize, Deserialize)]
#[facet(
    gsi(n = 1, pk(prefix = "#EMAIL", fields(email))),
    gsi(n = 2, sk(prefix = "#EMAIL", fields(email)))
)]
struct Twice {
    #[pk(prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#USER")]
    user_id: String,
    #[gsi(n = 1, sk, prefix = "#AT")]
    email: String,
}

fn main() {}
