use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
#[facet(gsi(n = 1, native, pk(fields(team, status)), sk(fields(priority, due))))]
struct Ticket {
    #[pk(prefix = "#T")]
    #[sk(prefix = "#T")]
    id: String,
    team: String,
    status: String,
    priority: u8,
    due: String,
}

fn main() {
    // Every partition field is given.
    let _ = Ticket::gsi1("core");
    // Sort conditions in key order: `priority` comes first.
    let _ = Ticket::gsi1("core", "open").eq("2026-12-01");
    // No field is left after equalities on both.
    let _ = Ticket::gsi1("core", "open").eq(1).eq("2026-12-01").gt("x");
    // A range ends the condition.
    let _ = Ticket::gsi1("core", "open").gt(1).eq("2026-12-01");
}
