//! Queries by a `#[beacon]` field: the records whose beacon merely collides with the one
//! asked for are dropped after decryption, and what cannot drop them is refused.

use faceteer_core::partition::PartitionKey;
use faceteer_core::Facet;

use crate::error::{Error, Result};

/// Refuse `what` (a count, a projection, a merged search) of a query by a beacon: it cannot
/// tell the records asked for from those whose beacon collides.
pub(crate) fn refuse_unchecked(partition: &PartitionKey, what: &str) -> Result<()> {
    match partition.beacon_checks().first() {
        None => Ok(()),
        Some((attribute, _)) => Err(Error::InvalidRequest(format!(
            "this query finds records by the beacon of `{attribute}`, and beacons collide by \
             design: {what} cannot drop the records whose beacon merely collides (they are \
             told apart only after decryption, on whole records). Read whole records \
             (`.list()` with `.all()` or `.pages()`)"
        ))),
    }
}

/// Keep the records that hold the beaconed values asked for: a record whose beacon only
/// collides with the one queried is another record, never returned.
pub(crate) fn keep_asked<F: Facet, T>(
    partition: &PartitionKey,
    records: &mut Vec<T>,
    record: fn(&mut T) -> Option<&mut F>,
) {
    let checks = partition.beacon_checks();
    if checks.is_empty() {
        return;
    }
    records.retain_mut(|r| match record(r) {
        Some(f) => {
            checks.iter().all(
                |(attribute, expected)| match (expected, f.beacon_text(attribute)) {
                    (Ok(expected), Some(Ok(found))) => *expected == found,
                    _ => false,
                },
            )
        }
        None => false,
    });
}
