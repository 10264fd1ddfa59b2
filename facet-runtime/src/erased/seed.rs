//! Writing records given as JSON, exactly reported.

use faceteer_core::Facet;

use super::record::parse_record;
use crate::table::Table;

/// What became of one record given to a seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedOutcome {
    /// Written.
    Written,
    /// Certainly not written: why.
    Failed(String),
    /// Perhaps written: the last error.
    Unknown(String),
}

/// Each record's outcome, in the order given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeedReport {
    /// The outcomes.
    pub outcomes: Vec<SeedOutcome>,
}

impl SeedReport {
    /// How many were written, failed and unknown.
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for o in &self.outcomes {
            match o {
                SeedOutcome::Written => c.0 += 1,
                SeedOutcome::Failed(_) => c.1 += 1,
                SeedOutcome::Unknown(_) => c.2 += 1,
            }
        }
        c
    }
}

/// Parse every value, or fail each as it stands (nothing is written when one is invalid:
/// the caller checked them first).
fn records<F: Facet>(values: Vec<serde_json::Value>) -> Result<Vec<F>, SeedReport> {
    let parsed: Vec<Result<F, String>> = values.into_iter().map(parse_record::<F>).collect();
    if parsed.iter().all(Result::is_ok) {
        return Ok(parsed.into_iter().filter_map(Result::ok).collect());
    }
    Err(SeedReport {
        outcomes: parsed
            .into_iter()
            .map(|r| match r {
                Ok(_) => SeedOutcome::Failed("another record of the batch is invalid".into()),
                Err(e) => SeedOutcome::Failed(e),
            })
            .collect(),
    })
}

/// `put_many`: written, failed and unknown records, matched back to their positions by key.
pub(super) async fn batched<F>(table: &Table, values: Vec<serde_json::Value>) -> SeedReport
where
    F: faceteer_core::facet::BatchWritable,
{
    let records = match records::<F>(values) {
        Ok(r) => r,
        Err(report) => return report,
    };
    let keys: Vec<Option<(String, String)>> = records.iter().map(key_of).collect();
    let report = table.put_many(records).await;
    let mut outcomes = vec![SeedOutcome::Unknown("not reported".into()); keys.len()];
    let mut place = |record: &F, outcome: SeedOutcome| {
        let key = key_of(record);
        if let Some(i) = keys.iter().enumerate().position(|(i, k)| {
            *k == key && outcomes[i] == SeedOutcome::Unknown("not reported".into())
        }) {
            outcomes[i] = outcome;
        }
    };
    for r in &report.written {
        place(r, SeedOutcome::Written);
    }
    for f in &report.failed {
        place(&f.item, SeedOutcome::Failed(f.reason.to_string()));
    }
    for u in &report.unknown {
        place(&u.item, SeedOutcome::Unknown(u.cause.to_string()));
    }
    SeedReport { outcomes }
}

/// One put per record, in order (a facet with `#[unique]` fields: each put writes its guards
/// in one transaction).
pub(super) async fn one_by_one<F>(table: &Table, values: Vec<serde_json::Value>) -> SeedReport
where
    F: Facet,
{
    let records = match records::<F>(values) {
        Ok(r) => r,
        Err(report) => return report,
    };
    // In the file's order: of two records claiming one unique value, the first one given
    // takes it, whatever the timing.
    let mut outcomes = Vec::with_capacity(records.len());
    for record in &records {
        outcomes.push(match table.put(record).await {
            Ok(_) => SeedOutcome::Written,
            Err(e) if e.is_outcome_unknown() => SeedOutcome::Unknown(e.to_string()),
            Err(e) => SeedOutcome::Failed(e.to_string()),
        });
    }
    SeedReport { outcomes }
}

fn key_of<F: Facet>(record: &F) -> Option<(String, String)> {
    let key = record.primary_key().ok()?;
    Some((key.pk().to_owned(), key.sk().to_owned()))
}
