use faceteer::{Facet, Nested, Pick};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Nested)]
struct Address {
    city: String,
}

#[derive(Serialize, Deserialize)]
struct Plain {
    city: String,
}

#[derive(Serialize, Deserialize, Nested)]
struct Generic<T> {
    value: T,
}

#[derive(Facet, Serialize, Deserialize)]
struct Keyed {
    #[pk(prefix = "#K")]
    #[sk(prefix = "#K")]
    #[nested]
    id: String,
    #[nested]
    addresses: Vec<Address>,
    #[nested]
    #[serde(with = "serde_dynamo::string_set")]
    coded: Vec<String>,
}

#[derive(Facet, Serialize, Deserialize)]
struct Underived {
    #[pk(prefix = "#U")]
    #[sk(prefix = "#U")]
    id: String,
    #[nested]
    plain: Plain,
}

#[derive(Facet, Serialize, Deserialize)]
#[facet(pick_validator = trust)]
struct Whole {
    #[pk(prefix = "#W")]
    #[sk(prefix = "#W")]
    id: String,
    #[nested]
    address: Address,
}

async fn keep_a_member(table: &faceteer::Table, w: &Whole) {
    // `keep` takes a whole attribute.
    let _ = table.upsert(w).keep(Whole::fields().address.city).await;
}

/// A member read as another type than it holds.
#[derive(Pick)]
#[pick(facet = Whole)]
struct WrongMember {
    #[pick(at = address.city)]
    city: u32,
}

fn main() {}
