//! Write sharding: spreading one logical partition over `count` physical partitions.
//!
//! Shard ids are computed exactly as `@faceteer/facet` 6.0.0 computes them (checked against
//! the conformance vectors produced by that library, and against its source,
//! `lib/hash/crc-shard.js`):
//!
//! 1. the shard-key values (absent ones skipped) are rendered as key text and joined with
//!    `"\0"`;
//! 2. the zlib CRC-32 (IEEE) is taken over the UTF-8 bytes of that string;
//! 3. the result is taken modulo `count` (no bit shift) and written as lowercase hex
//!    zero-padded to the width of `count - 1` in hex (4 → `0`..`3`, 256 → `00`..`ff`,
//!    1000 → `000`..`3e7`).

//!
//! ## Shard-count schedules
//!
//! A partition that outgrows its shards can get more from a given time on:
//! `#[shard(count = 4, grow(from = "2027-01-01T00:00:00Z", count = 16), time = created)]`.
//! A record's period is chosen by its `time` field (a creation time, which never changes), so
//! it keeps the shard it was written with; records of the first period have exactly
//! Faceteer's shard ids. A query over all shards reads every shard id any period uses
//! ([`shard_ids`]): for 4 then 16 shards, `0`…`f` (the first four are shared).

use crate::key::{key_text, KeyError, KeyPart};

/// A shard count that applies to records whose time is `from` (epoch seconds) or later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardPeriod {
    /// The first second of the period (epoch seconds).
    pub from: i64,
    /// The shard count of records of the period.
    pub count: u32,
}

/// The shard count of a record whose time is `time` (epoch seconds): `count`, or the count
/// of the last period of `schedule` that began at or before `time`.
pub fn count_at(count: u32, schedule: &[ShardPeriod], time: i64) -> u32 {
    schedule
        .iter()
        .take_while(|p| p.from <= time)
        .last()
        .map_or(count, |p| p.count)
}

/// Epoch seconds from a time field's key text: an RFC 3339 timestamp (how a `DateTime<Utc>`
/// is written) or an integer of epoch seconds.
pub fn time_seconds(text: &str) -> Option<i64> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(n);
    }
    #[cfg(feature = "chrono")]
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(t.timestamp());
    }
    None
}

/// Every shard id any period uses, each once: the ids of `count` shards, then those of each
/// period that are new.
pub fn shard_ids(count: u32, schedule: &[ShardPeriod]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in std::iter::once(count).chain(schedule.iter().map(|p| p.count)) {
        for bucket in 0..c.max(1) {
            let id = format_shard(bucket, c);
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// The separator Faceteer puts between shard-key values before hashing them.
const SHARD_INPUT_SEPARATOR: &[u8] = b"\0";

/// The shard bucket (`0..count`) for already-rendered shard-key texts.
///
/// A `count` of 0 is treated as 1, as Faceteer does.
pub fn shard_bucket<S: AsRef<str>>(inputs: &[S], count: u32) -> u32 {
    let count = count.max(1);
    let mut hasher = crc32fast::Hasher::new();
    for (i, input) in inputs.iter().enumerate() {
        if i > 0 {
            hasher.update(SHARD_INPUT_SEPARATOR);
        }
        hasher.update(input.as_ref().as_bytes());
    }
    hasher.finalize() % count
}

/// Width in hex digits of shard ids for `count` shards.
pub fn shard_width(count: u32) -> usize {
    let max = count.max(1) - 1;
    if max == 0 {
        1
    } else {
        (32 - max.leading_zeros()).div_ceil(4) as usize
    }
}

/// Format a shard bucket as its id text.
pub fn format_shard(bucket: u32, count: u32) -> String {
    format!("{:0width$x}", bucket, width = shard_width(count))
}

/// The shard id text for already-rendered shard-key texts.
pub fn shard_id<S: AsRef<str>>(inputs: &[S], count: u32) -> String {
    format_shard(shard_bucket(inputs, count), count)
}

/// Check that `shard` is a valid bucket for `count` shards and format it.
pub fn explicit_shard(shard: u32, count: u32) -> Result<String, KeyError> {
    if shard >= count.max(1) {
        return Err(KeyError::ShardOutOfRange { shard, count });
    }
    Ok(format_shard(shard, count))
}

#[doc(hidden)]
/// Collects shard-key values for one sharded key.
#[derive(Debug, Default)]
pub struct ShardInputs {
    texts: Vec<String>,
    error: Option<KeyError>,
}

impl ShardInputs {
    /// No inputs yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one shard-key field's value (absent values are skipped, as in Faceteer).
    pub fn push(&mut self, field: &'static str, value: &(impl KeyPart + ?Sized)) -> &mut Self {
        if self.error.is_some() || !value.is_present() {
            return self;
        }
        match key_text(field, value) {
            Ok(text) => self.texts.push(text),
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// The shard id for `count` shards.
    pub fn shard_id(&self, count: u32) -> Result<String, KeyError> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(shard_id(&self.texts, count)),
        }
    }

    /// The shard id of a record whose time field `field` holds `time`: the shard count is
    /// that of the record's period ([`count_at`]).
    pub fn scheduled_shard_id(
        &self,
        count: u32,
        schedule: &[ShardPeriod],
        field: &'static str,
        time: &(impl KeyPart + ?Sized),
    ) -> Result<String, KeyError> {
        let text = key_text(field, time)?;
        let seconds = time_seconds(&text).ok_or_else(|| KeyError::Unrepresentable {
            field,
            reason: format!(
                "the shard period is chosen by this time, but {text:?} is not a time or \
                     epoch seconds"
            ),
        })?;
        self.shard_id(count_at(count, schedule, seconds))
    }
}

#[doc(hidden)]
/// The shard id of a key sharded `count` ways over the fields `fields` holding `values`; with
/// a schedule, the count of the period of `time` (the time field's name and value).
pub fn shard_of(
    count: u32,
    schedule: Option<(&[ShardPeriod], &'static str, &dyn KeyPart)>,
    fields: &[&'static str],
    values: &[&dyn KeyPart],
) -> Result<String, KeyError> {
    let mut inputs = ShardInputs::new();
    for (field, value) in fields.iter().zip(values) {
        inputs.push(field, *value);
    }
    match schedule {
        None => inputs.shard_id(count),
        Some((schedule, field, time)) => inputs.scheduled_shard_id(count, schedule, field, time),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(shard_width(1), 1);
        assert_eq!(shard_width(4), 1);
        assert_eq!(shard_width(16), 1);
        assert_eq!(shard_width(17), 2);
        assert_eq!(shard_width(256), 2);
        assert_eq!(shard_width(257), 3);
        assert_eq!(shard_width(1000), 3);
    }

    #[test]
    fn matches_zlib_crc32() {
        // zlib.crc32(b"a") = 0xe8b7be43
        assert_eq!(shard_id(&["a"], 256), "43");
        assert_eq!(shard_id(&[""], 1000), "000");
        // Inputs are joined with "\0", so the split between them matters.
        assert_eq!(
            shard_bucket(&["ab", "c"], u32::MAX),
            crc32fast::hash(b"ab\0c") % u32::MAX
        );
        assert_ne!(shard_id(&["ab", "c"], 256), shard_id(&["a", "bc"], 256));
    }

    #[test]
    fn schedules_pick_the_period_and_list_every_id() {
        const GROW: &[ShardPeriod] = &[
            ShardPeriod {
                from: 100,
                count: 16,
            },
            ShardPeriod {
                from: 200,
                count: 32,
            },
        ];
        assert_eq!(count_at(4, GROW, 99), 4);
        assert_eq!(count_at(4, GROW, 100), 16);
        assert_eq!(count_at(4, GROW, 10_000), 32);
        let ids = shard_ids(4, GROW);
        // 0..f once (4 and 16 shards share one-digit ids), then 00..1f.
        assert_eq!(ids.len(), 16 + 32);
        assert_eq!(&ids[..4], ["0", "1", "2", "3"]);
        assert_eq!(ids[16], "00");
        assert_eq!(shard_ids(4, &[]), ["0", "1", "2", "3"]);
    }

    #[test]
    fn explicit_shard_is_range_checked() {
        assert_eq!(explicit_shard(3, 4).unwrap(), "3");
        assert!(explicit_shard(4, 4).is_err());
    }
}
