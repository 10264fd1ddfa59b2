use faceteer::Facet;
use serde::{Deserialize, Serialize};

/// Key prefixes in the partition of the guard items of unique values (`PK = $unique#..`,
/// `SK = $unique`): a record there could overwrite a guard.
#[derive(Facet, Serialize, Deserialize)]
struct Sneaky {
    #[pk(prefix = "$unique")]
    id: String,
    #[sk(prefix = "$unique")]
    #[gsi(n = 1, pk, prefix = "$unique#email")]
    email: String,
}

fn main() {}
