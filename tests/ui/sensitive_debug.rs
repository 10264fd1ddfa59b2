use faceteer::Facet;
use serde::{Deserialize, Serialize};

// A facet with `#[sensitive]` fields gets its `Debug` from `#[derive(Facet)]` (which masks
// them): a derived `Debug` of its own conflicts with it, wherever it is written.
#[derive(Facet, Debug, Serialize, Deserialize)]
#[facet(name = "A")]
struct DerivedAfter {
    #[pk(prefix = "A")]
    id: String,
    #[sk(prefix = "A")]
    #[sensitive]
    email: String,
}

#[derive(Debug)]
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "B")]
struct DerivedBefore {
    #[pk(prefix = "B")]
    id: String,
    #[sk(prefix = "B")]
    #[sensitive]
    email: String,
}

// A key without a prefix cannot be told apart in a log line, so its sensitive value could not
// be masked.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "C")]
struct Bare {
    #[pk(prefix = "C")]
    id: String,
    #[sk(no_prefix)]
    #[sensitive]
    email: String,
}

fn main() {}
