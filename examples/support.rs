//! A support desk in one table, on DynamoDB's 2025–2026 index kinds: tickets queued by team
//! and status in a native (multi-attribute) index — by priority as a number, then age —
//! and found by meaning through a vector index over an embedding of their text, within a
//! team. Tickets filed before embeddings existed get theirs from a backfill.
//!
//! ```text
//! cargo run --example support
//! ```
//!
//! It runs on the embedded engine (vector search included) unless
//! `FACETEER_DYNAMODB_ENDPOINT` points it at another server; moto has no vector search.

use chrono::{DateTime, Duration, TimeZone, Utc};
use faceteer::{Facet, KeyPart, Table};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Open,
    Pending,
    Closed,
}

/// The dimensions of the toy embedding (a real model gives hundreds).
pub const DIMENSIONS: usize = 16;

/// A ticket. `Ticket::by_queue(team, status)` reads a team's queue in priority order (1 is
/// the most urgent), oldest first within a priority; `Ticket::similar(team, vector)` finds
/// the team's tickets nearest in meaning.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "TICKET",
    gsi(
        n = 1,
        native,
        alias = "Queue",
        pk(fields(team, status)),
        sk(fields(priority, opened))
    )
)]
#[serde(rename_all = "camelCase")]
pub struct Ticket {
    #[pk(prefix = "#TEAM")]
    pub team: String,
    #[sk(prefix = "#TICKET")]
    pub id: String,
    pub status: Status,
    pub priority: u8,
    pub opened: DateTime<Utc>,
    pub title: String,
    #[vector(
        dimensions = 16,
        distance = cosine,
        index = "TicketText",
        partition = team
    )]
    pub embedding: Option<Vec<f32>>,
}

faceteer::table! {
    pub struct SupportDesk { Ticket }
}

/// A toy embedding of `text`: each word hashed into one of the dimensions, normalised. Words
/// in common make vectors near; a real application calls a model here.
pub fn embed(text: &str) -> Vec<f32> {
    let mut v = [0.0f32; DIMENSIONS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let h = word.to_lowercase().bytes().fold(2166136261u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(16777619)
        });
        v[h as usize % DIMENSIONS] += 1.0;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.iter().map(|x| x / norm).collect()
}

fn ticket(i: i64, team: &str, status: Status, priority: u8, title: &str) -> Ticket {
    let start = Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap();
    Ticket {
        team: team.into(),
        id: format!("T-{i:03}"),
        status,
        priority,
        opened: start + Duration::hours(i * 7),
        title: title.into(),
        // Filed before the desk had embeddings: the backfill gives them one.
        embedding: None,
    }
}

/// The desk's tickets, its queries and its searches on `table`.
pub async fn run(table: &Table) -> Result<(), Box<dyn std::error::Error>> {
    let titles = [
        (Status::Open, 2, "Login fails with an expired password"),
        (
            Status::Open,
            1,
            "Checkout page times out for every customer",
        ),
        (Status::Open, 10, "Typo in the footer of the login page"),
        (Status::Pending, 3, "Password reset email never arrives"),
        (Status::Open, 9, "Dark mode colours on the settings page"),
        (
            Status::Open,
            1,
            "Payments fail at checkout with card errors",
        ),
        (Status::Closed, 2, "Cannot login after changing password"),
        (Status::Open, 2, "Export to CSV drops the last column"),
    ];
    let tickets: Vec<Ticket> = titles
        .iter()
        .enumerate()
        .map(|(i, (status, priority, title))| ticket(i as i64, "web", *status, *priority, title))
        .collect();
    let report = table.put_many(tickets.iter().cloned()).await;
    assert!(report.is_complete());

    // The queue: every open ticket of the team, most urgent first, oldest first within a
    // priority. Priorities sort as numbers (2 before 10), with no key text to keep in step.
    let queue = table
        .query(Ticket::by_queue("web", Status::Open).list())
        .all()
        .await?;
    println!("web's open queue:");
    for t in &queue {
        println!("  P{:<2} {} {}", t.priority, t.id, t.title);
    }
    let priorities: Vec<u8> = queue.iter().map(|t| t.priority).collect();
    assert_eq!(priorities, [1, 1, 2, 2, 9, 10]);

    // Equality on the priority, a range on the age: the urgent tickets opened before noon
    // of 2 November.
    let cutoff = Utc.with_ymd_and_hms(2026, 11, 2, 12, 0, 0).unwrap();
    let urgent = table
        .query(Ticket::by_queue("web", Status::Open).eq(1).lt(cutoff))
        .all()
        .await?;
    println!("\nP1 opened before {cutoff}: {:?}", ids(&urgent));
    assert_eq!(ids(&urgent), ["T-001"]);

    // Moving a ticket in the queue is one attribute: no key to rebuild, nothing else read.
    let f = Ticket::fields();
    table
        .update(&Ticket::key("web", "T-004")?, f.priority.set(1u8))
        .await?;
    let top = table
        .query(Ticket::by_queue("web", Status::Open).list().first())
        .await?
        .expect("an open ticket");
    println!("\nthe queue's head now: {} (P{})", top.id, top.priority);

    // Embeddings for the tickets filed without one, from an async function (a model's
    // endpoint in a real desk), resumable and rate-limited like every backfill.
    let report = table
        .backfill_with(|mut t: Ticket| async move {
            if t.embedding.is_none() {
                t.embedding = Some(embed(&t.title));
            }
            Ok::<_, std::convert::Infallible>(t)
        })
        .capacity_per_second(100.0)
        .await?;
    println!(
        "\nembeddings backfilled: {} tickets",
        report.totals.rewritten
    );
    assert!(report.is_complete());
    assert_eq!(report.totals.rewritten, tickets.len() as u64);

    // Tickets like a new one, within the team: the password and login tickets come first.
    let found = table
        .search_vectors(
            Ticket::similar("web", embed("user cannot login: password expired")).top_k(3),
        )
        .await?;
    println!("\nlike \"user cannot login: password expired\":");
    for hit in &found.results {
        println!("  {:.3} {} {}", hit.score, hit.record.id, hit.record.title);
    }
    let nearest = &found.results[0].record;
    assert!(
        nearest.title.contains("Login") || nearest.title.contains("login"),
        "{nearest:?}"
    );
    Ok(())
}

fn ids(tickets: &[Ticket]) -> Vec<&str> {
    tickets.iter().map(|t| t.id.as_str()).collect()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-support-{}", std::process::id());
        let table = Table::from_env::<SupportDesk>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<SupportDesk>().await?
    };
    println!("faceteer support example: table {}\n", table.name());
    let result = run(&table).await;
    table.delete_table().await?;
    result
}
