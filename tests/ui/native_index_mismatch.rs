use faceteer::Facet;
use serde::{Deserialize, Serialize};

/// GSI1 keyed natively by `team` and a numeric `priority`.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "TICKET", gsi(n = 1, native, pk(fields(team)), sk(fields(priority))))]
struct Ticket {
    #[pk(prefix = "#TICKET")]
    #[sk(prefix = "#TICKET")]
    id: String,
    team: String,
    priority: u8,
}

/// GSI1 keyed natively by `team` and a text `priority`: the table cannot have both.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "ALERT", gsi(n = 1, native, pk(fields(team)), sk(fields(priority))))]
struct Alert {
    #[pk(prefix = "#ALERT")]
    #[sk(prefix = "#ALERT")]
    id: String,
    team: String,
    priority: String,
}

faceteer::table! {
    struct Support { Ticket, Alert }
}

/// `level` keys GSI2 as a number here ...
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "PAGE", gsi(n = 2, native, pk(fields(level))))]
struct Page {
    #[pk(prefix = "#PAGE")]
    #[sk(prefix = "#PAGE")]
    id: String,
    level: u8,
}

/// ... and GSI3 as text here: the table defines `level` once.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "NOTICE", gsi(n = 3, native, pk(fields(level))))]
struct Notice {
    #[pk(prefix = "#NOTICE")]
    #[sk(prefix = "#NOTICE")]
    id: String,
    level: String,
}

faceteer::table! {
    struct Alerts { Page, Notice }
}

fn main() {}
