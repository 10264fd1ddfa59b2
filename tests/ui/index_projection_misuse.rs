use faceteer::{Facet, Pick, Table};
use serde::{Deserialize, Serialize};

#[derive(Debug, Facet, Serialize, Deserialize)]
#[facet(
    name = "CARD",
    pick_validator = trust,
    index(gsi = 1, keys_only),
    index(gsi = 2, include(title))
)]
struct Card {
    #[pk(prefix = "#BOARD")]
    board: String,
    #[sk(prefix = "#CARD")]
    #[gsi(n = 1, sk, prefix = "#CARD")]
    #[gsi(n = 2, sk, prefix = "#CARD")]
    id: String,
    #[gsi(n = 1, pk, prefix = "#OWNER")]
    owner: String,
    #[gsi(n = 2, pk, prefix = "#LANE")]
    lane: String,
    title: String,
    body: String,
}

#[derive(Debug, Pick)]
#[pick(facet = Card)]
struct CardBody {
    title: String,
    body: String,
}

async fn reads(table: &Table) {
    // GSI2 projects `title` but not `body`.
    let _ = table.query(Card::gsi2("todo").list().select::<CardBody>()).await;
    // GSI1 projects keys only: whole records need `.fetch_records()`.
    let _ = table.query(Card::gsi1("ann").list()).await;
}

#[derive(Debug, faceteer::Collection)]
enum BoardItems {
    Card(Card),
}

async fn collection(table: &Table) {
    // A collection reads whole records: not through a keys-only index.
    let _ = table.collection::<BoardItems>(Card::gsi1("ann")).await;
}

fn main() {
    let _ = reads;
    let _ = collection;
}
