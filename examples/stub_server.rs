//! A stub DynamoDB server holding the README's tasks, for measuring other clients against
//! the same answers as faceteer's benchmarks (`scripts/faceteer-ts/measure.sh` runs
//! Faceteer for TypeScript against it). It prints its endpoint, then serves until killed.
//!
//! `cargo run --release --example stub_server -- 10000`

use faceteer::testing::{StubConfig, StubServer};
use faceteer_suite::bench_task::task;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 10_000,
    };
    let stub = StubServer::start(StubConfig::default()).await?;
    let items = (0..count).map(|i| faceteer::to_item(&task("team-bench", i)));
    stub.load(items.collect::<Result<Vec<_>, _>>()?);
    println!("{}", stub.endpoint());
    std::future::pending::<()>().await;
    Ok(())
}
