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

fn main() {}
