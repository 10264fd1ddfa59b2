use faceteer::settings::{Capacity, IndexSettings, Recovery, TableSettings};
use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "Item")]
struct Item {
    #[pk(prefix = "ITEM")]
    #[gsi(n = 1, pk, prefix = "OWNER")]
    id: String,
    #[sk(prefix = "ITEM")]
    name: String,
}

// DynamoDB keeps 1 to 35 days of point-in-time recovery.
faceteer::table! {
    struct TooLong { Item }
    settings = TableSettings::DEFAULT.point_in_time_recovery(Recovery::On { days: 40 })
}

// A table's indexes are billed as it is.
faceteer::table! {
    struct Mixed { Item }
    settings = TableSettings::DEFAULT
        .capacity(Capacity::ON_DEMAND)
        .indexes(&[IndexSettings::new("GSI1").capacity(Capacity::provisioned(5, 5))])
}

// Settings of an index no facet uses.
faceteer::table! {
    struct Unknown { Item }
    settings = TableSettings::DEFAULT
        .indexes(&[IndexSettings::new("GSI4").capacity(Capacity::ON_DEMAND)])
}

fn main() {}
