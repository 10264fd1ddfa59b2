//! The time of a write, read once per write and passed to its plans.

use faceteer_core::plan::stamp::WriteClock;

/// The time of a write, to the millisecond (as stored).
#[cfg(feature = "chrono")]
pub(crate) fn write_time() -> WriteClock {
    use faceteer_core::chrono::{SubsecRound, Utc};
    Utc::now().trunc_subsecs(3)
}

/// Without the `chrono` feature no field holds a write time.
#[cfg(not(feature = "chrono"))]
pub(crate) fn write_time() -> WriteClock {}
