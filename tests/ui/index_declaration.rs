use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[facet(
    index(gsi = 1, include(titel)),
    index(gsi = 3, keys_only),
    index(gsi = 1, keys_only)
)]
struct Card {
    #[pk(prefix = "#BOARD")]
    board: String,
    #[sk(prefix = "#CARD")]
    #[gsi(n = 1, sk, prefix = "#CARD")]
    id: String,
    #[gsi(n = 1, pk, prefix = "#OWNER")]
    owner: String,
    title: String,
}

#[derive(Facet, Serialize, Deserialize)]
#[facet(index(gsi = 1, keys_only, include(title)), index(gsi = 2))]
struct Lane {
    #[pk(prefix = "#BOARD")]
    board: String,
    #[sk(prefix = "#LANE")]
    #[gsi(n = 1, sk, prefix = "#LANE")]
    #[gsi(n = 2, sk, prefix = "#LANE")]
    id: String,
    #[gsi(n = 1, pk, prefix = "#OWNER")]
    #[gsi(n = 2, pk, prefix = "#OWNER")]
    owner: String,
    title: String,
}

fn main() {}
