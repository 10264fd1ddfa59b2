use faceteer::KeyPart;
use serde::{Deserialize, Serialize};

// Two variants written as "open": two statuses would give one key.
#[derive(Clone, Copy, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    #[serde(rename = "open")]
    Reopened,
    Closed,
}

// Distinct names under a rule: fine.
#[derive(Clone, Copy, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Stage {
    InReview,
    Done,
}

fn main() {}
