//! The pause before a request is tried again: full-jitter exponential backoff, shared by
//! faceteer's batch tries and the tries of the requests it sends itself.

use std::time::Duration;

/// A random pause before retry number `attempt` (1-based): up to `base × 2^(attempt-1)`,
/// at most `max`, in whole milliseconds.
pub(crate) fn full_jitter(base: Duration, max: Duration, attempt: u32) -> Duration {
    let exp = base.saturating_mul(
        1u32.checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u32::MAX),
    );
    let cap = exp.min(max);
    let millis = cap.as_millis().min(u64::MAX as u128) as u64;
    Duration::from_millis(fastrand::u64(0..=millis))
}
