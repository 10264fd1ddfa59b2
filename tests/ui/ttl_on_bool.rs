use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Session {
    #[pk(prefix = "#SESSION")]
    #[sk(prefix = "#SESSION")]
    id: String,
    #[ttl]
    expires: bool,
}

fn main() {}
