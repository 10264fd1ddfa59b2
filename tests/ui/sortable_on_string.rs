use faceteer::{Facet, Table};
use serde::{Deserialize, Serialize};

// One mistake gives one error: the derive refuses `sortable` on a string, and the facet is
// still usable below without further errors.
#[derive(Facet, Serialize, Deserialize)]
struct Event {
    #[pk(prefix = "#STREAM")]
    stream: String,
    #[sk(prefix = "#EVENT", sortable)]
    name: String,
}

async fn store(table: &Table, event: &Event) -> faceteer::Result<()> {
    table.put(event).await
}

fn main() {
    let _ = store;
}
