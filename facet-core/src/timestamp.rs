//! `#[serde(with = "faceteer::timestamp")]`: a `DateTime<Utc>` stored as JavaScript's
//! `Date.toISOString()` writes it.
//!
//! Faceteer stores every `Date` as `toISOString()`: UTC, always three fractional digits
//! (`2026-03-01T10:00:00.000Z`). chrono's own serde form drops zero fractions and keeps
//! sub-millisecond digits (`2026-03-01T10:00:00Z`), so a `DateTime<Utc>` attribute written
//! by chrono differs from the one a TypeScript service writes, and sorts differently.
//! `#[derive(Facet)]` requires this adapter on its `DateTime` fields; use it on dates in
//! nested types too.
//!
//! Reading accepts any RFC 3339 timestamp. Like a JavaScript `Date`, the stored form keeps
//! milliseconds: finer digits are cut off when written.
//!
//! ```
//! use chrono::{DateTime, Utc};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Line {
//!     #[serde(with = "faceteer_core::timestamp")]
//!     shipped: DateTime<Utc>,
//!     #[serde(default, with = "faceteer_core::timestamp::option")]
//!     delivered: Option<DateTime<Utc>>,
//! }
//! ```

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serializer};

/// `Date.toISOString()`'s format.
pub const FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.3fZ";

/// The `toISOString()` text of a timestamp.
pub fn display(value: &DateTime<Utc>) -> impl fmt::Display + '_ {
    value.format(FORMAT)
}

/// Serialize as `toISOString()` text.
pub fn serialize<S: Serializer>(value: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&display(value))
}

/// Deserialize from any RFC 3339 text.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    DateTime::<Utc>::deserialize(deserializer)
}

/// The same for an `Option<DateTime<Utc>>` (`None` is left out of the item). Add
/// `default` too: `#[serde(default, with = "faceteer::timestamp::option")]`.
pub mod option {
    use super::*;

    /// Serialize as `toISOString()` text, or nothing.
    pub fn serialize<S: Serializer>(
        value: &Option<DateTime<Utc>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => serializer.collect_str(&display(v)),
            None => serializer.serialize_none(),
        }
    }

    /// Deserialize from RFC 3339 text or `NULL`.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        Option::<DateTime<Utc>>::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    #[test]
    fn always_three_fractional_digits() {
        let t = chrono::Utc.with_ymd_and_hms(2026, 3, 1, 10, 0, 0).unwrap();
        assert_eq!(super::display(&t).to_string(), "2026-03-01T10:00:00.000Z");
        let t = t + chrono::Duration::nanoseconds(7_654_321);
        assert_eq!(super::display(&t).to_string(), "2026-03-01T10:00:00.007Z");
    }
}
