//! What a plain `tracing_subscriber::fmt()` shows of faceteer's work: a WARN event per failed
//! operation, inside the operation's span (and, at DEBUG, an event per request sent).
//!
//! `cargo run --example tracing` (the embedded engine; `FACETEER_DYNAMODB_ENDPOINT` for
//! another server).

use faceteer::{Facet, Table};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Facet, Serialize, Deserialize)]
#[facet(name = "NOTE")]
struct Note {
    #[pk(prefix = "#BOOK")]
    book: String,
    #[sk(prefix = "#NOTE")]
    id: String,
    text: String,
}

faceteer::table! { struct NotesTable { Note } }

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A plain subscriber: INFO and above, so faceteer's WARN events. Raise the level for
    // `faceteer` to DEBUG (for example with an `EnvFilter` of `faceteer=debug`) to see every
    // request it sends.
    tracing_subscriber::fmt().init();
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-tracing-{}", std::process::id());
        let table = Table::from_env::<NotesTable>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<NotesTable>().await?
    };
    let note = Note {
        book: "b1".into(),
        id: "n1".into(),
        text: "first".into(),
    };
    table.put(&note).await?;
    // A second create of the same record fails: one WARN event with the error.
    let again = table.put(&note).if_not_exists().await;
    assert!(again.is_err(), "the record exists");
    table.delete_table().await?;
    Ok(())
}
