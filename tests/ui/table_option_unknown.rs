use faceteer::settings::TableSettings;
use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "Item")]
struct Item {
    #[pk(prefix = "ITEM")]
    id: String,
    #[sk(prefix = "ITEM")]
    name: String,
}

// An option the table does not have.
faceteer::table! {
    struct Misspelt { Item }
    setting = TableSettings::DEFAULT
}

fn main() {}
