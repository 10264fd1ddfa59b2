//! The time of a write, read once per write and passed to its plans.

use faceteer_core::plan::stamp::{write_clock_now, WriteClock};

/// The time of a write, to the millisecond (as stored).
pub(crate) fn write_time() -> WriteClock {
    write_clock_now()
}
