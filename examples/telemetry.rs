//! Telemetry by OpenTelemetry's conventions, exported to standard output: every operation's
//! span with its attributes (printed when it closes), then the metrics it recorded
//! (`db.client.operation.duration`, consumed capacity, requests).
//!
//! `cargo run --example telemetry` (the embedded engine; `FACETEER_DYNAMODB_ENDPOINT` for
//! another server).
//!
//! An application installs its own exporters: `tracing-opentelemetry` (or any `tracing`
//! subscriber) for the spans, and a `metrics` recorder (`metrics-exporter-prometheus`, an
//! OpenTelemetry bridge, …) for the metrics. Here a plain `fmt` subscriber prints each span
//! as it closes, and a recorder from this repository's test kit keeps the samples and
//! prints them.

use faceteer::{Facet, Table};
use serde::{Deserialize, Serialize};
use tracing_subscriber::fmt::format::FmtSpan;

/// A note of a book.
#[derive(Debug, Clone, Facet, Serialize, Deserialize)]
#[facet(
    name = "NOTE",
    gsi(
        n = 1,
        alias = "ByAuthor",
        pk(prefix = "#AUTHOR", fields(author)),
        sk(prefix = "#NOTE", fields(id))
    )
)]
pub struct Note {
    #[pk(prefix = "#BOOK")]
    pub book: String,
    #[sk(prefix = "#NOTE")]
    pub id: String,
    pub author: String,
    pub text: String,
}

faceteer::table! {
    /// The notes.
    pub struct NotesTable { Note }
}

/// A few operations of each kind: writes, reads, a query by index, a batch, a failure.
pub async fn run(table: &Table) -> faceteer::Result<()> {
    let notes: Vec<Note> = (0..5)
        .map(|i| Note {
            book: "b1".into(),
            id: format!("n{i}"),
            author: "ada".into(),
            text: format!("note {i}"),
        })
        .collect();
    table.put(&notes[0]).await?;
    let report = table.put_many(notes[1..].to_vec()).await;
    assert!(report.is_complete(), "{report:?}");
    table.get(&Note::key("b1", "n0")?).consistent().await?;
    let page = table.query(Note::query("b1").list().limit(2)).await?;
    assert_eq!(page.records.len(), 2);
    let by_author = table.query(Note::by_author("ada").list()).await?;
    assert_eq!(by_author.records.len(), 5);
    // A refused write: its span has `error.type`, its duration the same label.
    let refused = table.put(&notes[0]).if_not_exists().await;
    assert!(refused.is_err());
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_span_events(FmtSpan::CLOSE)
        .with_writer(std::io::stdout)
        .init();
    let samples = faceteer_suite::metrics_recorder::global();
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-telemetry-{}", std::process::id());
        let table = Table::from_env::<NotesTable>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<NotesTable>().await?
    };
    run(&table).await?;
    println!("\nmetrics recorded:");
    print!("{}", samples.summary());
    Ok(())
}
