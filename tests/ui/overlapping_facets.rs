use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "ORDER")]
struct Order {
    #[pk(prefix = "#CUSTOMER")]
    customer: String,
    #[sk(prefix = "#ORDER")]
    id: String,
}

#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "ORDER_LINE")]
struct OrderLine {
    #[pk(prefix = "#CUSTOMER")]
    customer: String,
    #[sk(prefix = "#ORDER_LINE")]
    line: String,
}

faceteer::table! {
    struct Shop { Order, OrderLine }
}

fn main() {}
