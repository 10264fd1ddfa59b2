use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Facet, Serialize, Deserialize)]
struct Reading {
    #[pk(prefix = "#SENSOR")]
    sensor: String,
    #[sk(prefix = "#AT")]
    at: u64,
}

// A `sortable` field takes its plain integer; the error names the integer, not `Sortable`.
#[derive(Facet, Serialize, Deserialize)]
struct Event {
    #[pk(prefix = "#STREAM")]
    stream: String,
    #[sk(prefix = "#SEQ", sortable)]
    seq: u32,
}

fn main() {
    let _ = Reading::key("s-1", "yesterday");
    let _ = Reading::query(42).greater_than(7u64);
    let _ = Event::key("s-1", 7u32);
    let _ = Event::key("s-1", &7u32);
    let _ = Event::key("s-1", "seven");
    let _ = Event::query("s-1").greater_than(-1i64);
}
