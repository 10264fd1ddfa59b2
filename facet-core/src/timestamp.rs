//! `#[serde(with = "faceteer::timestamp")]`: a `DateTime<Utc>` stored as JavaScript's
//! `Date.toISOString()` writes it.
//!
//! Faceteer stores every `Date` as `toISOString()`: UTC, always three fractional digits
//! (`2026-03-01T10:00:00.000Z`). chrono's own serde form drops zero fractions and keeps
//! sub-millisecond digits (`2026-03-01T10:00:00Z`), so a `DateTime<Utc>` attribute written
//! by chrono differs from the one a TypeScript service writes, and sorts differently.
//!
//! faceteer's marshalling stores every `DateTime<Utc>` as `toISOString()` writes it, at any
//! depth (a field, a nested struct, a list, a map) and with no serde attribute: chrono's
//! `Serialize` hands the serializer its RFC 3339 text through `collect_str` with a display
//! type of its own, which faceteer recognizes and rewrites to the millisecond form. This
//! adapter gives the same text explicitly, for other serializers too.
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

use chrono::{DateTime, Datelike, Timelike, Utc};
use serde::{Deserialize, Deserializer, Serializer};

/// `Date.toISOString()`'s format.
pub const FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.3fZ";

/// The `toISOString()` text of a timestamp.
pub fn display(value: &DateTime<Utc>) -> impl fmt::Display + '_ {
    Iso(value)
}

/// Append the `toISOString()` text of `value` to `out`.
///
/// Years 0 to 9999 (every timestamp JavaScript writes with four digits) are written digit by
/// digit; others go through chrono's [`FORMAT`], which signs them.
pub fn write_iso(value: &DateTime<Utc>, out: &mut String) {
    match iso_digits(value) {
        Some(buf) => out.push_str(ascii(&buf)),
        None => {
            use fmt::Write;
            let _ = write!(out, "{}", value.format(FORMAT));
        }
    }
}

/// `toISOString()`'s form for years 0 to 9999: a digit where each `0` stands, the rest as
/// it is. The writer fills it in; the reader reads text of this shape digit by digit.
const ISO_FORM: &[u8; 24] = b"0000-00-00T00:00:00.000Z";

/// The text as ASCII bytes, for years 0 to 9999.
fn iso_digits(value: &DateTime<Utc>) -> Option<[u8; 24]> {
    // The UTC fields, read once (a `DateTime`'s accessors each apply the offset).
    let value = value.naive_utc();
    let year = value.year();
    if !(0..=9999).contains(&year) {
        return None;
    }
    // Up to 999 ms: a leap second (nanosecond ≥ 1e9) is shown as chrono shows it, 60 s.
    let (second, nanos) = match value.nanosecond() {
        n if n >= 1_000_000_000 => (value.second() + 1, n - 1_000_000_000),
        n => (value.second(), n),
    };
    let millis = nanos / 1_000_000;
    let mut buf = *ISO_FORM;
    let year = year as u32;
    put_pair(&mut buf, 0, year / 100);
    put_pair(&mut buf, 2, year % 100);
    put_pair(&mut buf, 5, value.month());
    put_pair(&mut buf, 8, value.day());
    put_pair(&mut buf, 11, value.hour());
    put_pair(&mut buf, 14, value.minute());
    put_pair(&mut buf, 17, second);
    buf[20] = b'0' + (millis / 100) as u8;
    put_pair(&mut buf, 21, millis % 100);
    Some(buf)
}

/// The two-digit numbers 00 to 99, as text.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Write `n` (below 100) as two digits at `at`, read from [`PAIRS`].
#[inline]
fn put_pair(buf: &mut [u8; 24], at: usize, n: u32) {
    let i = 2 * (n as usize % 100);
    buf[at] = PAIRS[i];
    buf[at + 1] = PAIRS[i + 1];
}

/// Digits written into an ASCII template are text.
fn ascii(buf: &[u8; 24]) -> &str {
    std::str::from_utf8(buf).unwrap_or_default()
}

/// The `toISOString()` text of a timestamp, as a `String`.
pub fn to_iso(value: &DateTime<Utc>) -> String {
    let mut out = String::with_capacity(24);
    write_iso(value, &mut out);
    out
}

struct Iso<'a>(&'a DateTime<Utc>);

impl fmt::Display for Iso<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match iso_digits(self.0) {
            Some(buf) => f.write_str(ascii(&buf)),
            None => write!(f, "{}", self.0.format(FORMAT)),
        }
    }
}

/// Whether `T` is the display type chrono's `Serialize` of a `DateTime<Utc>` hands to
/// `collect_str` (a type of the `chrono` crate displaying a `Utc` time).
pub(crate) fn is_chrono_utc_display<T: ?Sized>() -> bool {
    let name = std::any::type_name::<T>();
    name.starts_with("chrono::")
        && name.contains("DateTime")
        && name.ends_with("chrono::offset::utc::Utc>")
}

/// chrono's RFC 3339 text of a UTC time, rewritten as `toISOString()` writes it (text that
/// does not parse is kept as it is).
pub(crate) fn normalize(text: String) -> String {
    // chrono's `FromStr` reads what its `Display` writes, years beyond 9999 and before 0
    // included (RFC 3339 parsing would refuse those).
    match text.parse::<DateTime<Utc>>() {
        Ok(t) => to_iso(&t),
        Err(_) => text,
    }
}

/// Serialize as `toISOString()` text.
pub fn serialize<S: Serializer>(value: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    // The usual years as text from the stack (no formatter, one allocation at most);
    // others through chrono's format.
    match iso_digits(value) {
        Some(buf) => serializer.serialize_str(ascii(&buf)),
        None => serializer.collect_str(&display(value)),
    }
}

/// Deserialize from any RFC 3339 text.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    deserializer.deserialize_str(TimeVisitor)
}

/// Parse RFC 3339 text: `toISOString()`'s own form digit by digit, other RFC 3339 text
/// through chrono's RFC 3339 parser, anything else the way chrono's `FromStr` does (which
/// also takes signed and extended years, and offsets without a colon).
fn parse(text: &str) -> Result<DateTime<Utc>, chrono::ParseError> {
    if let Some(t) = from_iso_digits(text) {
        return Ok(t);
    }
    match DateTime::parse_from_rfc3339(text) {
        Ok(t) => Ok(t.with_timezone(&Utc)),
        Err(_) => text.parse::<DateTime<Utc>>(),
    }
}

/// The time `toISOString()` wrote as `text` (`2026-03-01T10:00:00.000Z`: four-digit year,
/// milliseconds, `Z`), read digit by digit; `None` for any other text, or a date or time
/// that does not exist, which chrono's parsers then read or refuse. Where this answers,
/// chrono's RFC 3339 parser gives the same time (a leap second, `60`, is left to chrono).
fn from_iso_digits(text: &str) -> Option<DateTime<Utc>> {
    let b: &[u8; 24] = text.as_bytes().try_into().ok()?;
    let shaped = b.iter().zip(ISO_FORM).all(|(&c, &form)| match form {
        b'0' => c.is_ascii_digit(),
        _ => c == form,
    });
    if !shaped {
        return None;
    }
    let digit = |at: usize| u32::from(b[at] - b'0');
    let pair = |at: usize| digit(at) * 10 + digit(at + 1);
    let year = pair(0) * 100 + pair(2);
    let millis = digit(20) * 100 + pair(21);
    let (hour, minute, second) = (pair(11), pair(14), pair(17));
    // A leap second: chrono's constructor refuses `60` too; its parser reads it.
    if second > 59 {
        return None;
    }
    let day = chrono::NaiveDate::from_ymd_opt(year as i32, pair(5), pair(8))?;
    Some(
        day.and_hms_milli_opt(hour, minute, second, millis)?
            .and_utc(),
    )
}

struct TimeVisitor;

impl serde::de::Visitor<'_> for TimeVisitor {
    type Value = DateTime<Utc>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an RFC 3339 timestamp")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<DateTime<Utc>, E> {
        parse(text).map_err(|e| E::custom(format!("{text:?} is not an RFC 3339 timestamp: {e}")))
    }
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
            Some(v) => super::serialize(v, serializer),
            None => serializer.serialize_none(),
        }
    }

    /// Deserialize from RFC 3339 text or `NULL`.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        Option::<Iso8601>::deserialize(deserializer).map(|t| t.map(|t| t.0))
    }

    /// A `DateTime<Utc>` read with [`super::deserialize`].
    struct Iso8601(DateTime<Utc>);

    impl<'de> Deserialize<'de> for Iso8601 {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            super::deserialize(deserializer).map(Iso8601)
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    /// A plain chrono date, at any depth, is stored as `toISOString()`; other chrono types
    /// and offsets keep chrono's text.
    #[test]
    fn plain_chrono_dates_are_stored_as_faceteer_stores_them() {
        use aws_sdk_dynamodb::types::AttributeValue as A;
        #[derive(serde::Serialize)]
        struct Event {
            at: chrono::DateTime<chrono::Utc>,
            all: Vec<chrono::DateTime<chrono::Utc>>,
            maybe: Option<chrono::DateTime<chrono::Utc>>,
            offset: chrono::DateTime<chrono::FixedOffset>,
            naive: chrono::NaiveDate,
        }
        let t = chrono::Utc.with_ymd_and_hms(2026, 11, 10, 9, 0, 0).unwrap();
        let fine = t + chrono::Duration::nanoseconds(123_456_789);
        let e = Event {
            at: t,
            all: vec![t, fine],
            maybe: Some(fine),
            offset: t.with_timezone(&chrono::FixedOffset::east_opt(7200).unwrap()),
            naive: t.date_naive(),
        };
        let item = crate::marshal::to_attributes(&e).unwrap();
        let s = |v: &str| A::S(v.to_owned());
        assert_eq!(item["at"], s("2026-11-10T09:00:00.000Z"));
        assert_eq!(
            item["all"],
            A::L(vec![
                s("2026-11-10T09:00:00.000Z"),
                s("2026-11-10T09:00:00.123Z")
            ])
        );
        assert_eq!(item["maybe"], s("2026-11-10T09:00:00.123Z"));
        assert_eq!(item["offset"], s("2026-11-10T11:00:00+02:00"));
        assert_eq!(item["naive"], s("2026-11-10"));
        // Years beyond 9999 and before 0: the same text as the adapter's.
        for far in [
            chrono::Utc.with_ymd_and_hms(10_000, 1, 1, 0, 0, 0).unwrap(),
            chrono::Utc.with_ymd_and_hms(-1, 6, 1, 0, 0, 0).unwrap(),
        ] {
            #[derive(serde::Serialize)]
            struct Far(#[serde(with = "crate::timestamp")] chrono::DateTime<chrono::Utc>);
            assert_eq!(
                crate::marshal::to_attribute_value(&far).unwrap(),
                crate::marshal::to_attribute_value(&Far(far)).unwrap(),
            );
        }
        // The adapter writes the same text.
        #[derive(serde::Serialize)]
        struct Adapted(#[serde(with = "crate::timestamp")] chrono::DateTime<chrono::Utc>);
        assert_eq!(
            crate::marshal::to_attribute_value(&Adapted(fine)).unwrap(),
            Some(s("2026-11-10T09:00:00.123Z"))
        );
    }

    #[test]
    fn always_three_fractional_digits() {
        let t = chrono::Utc.with_ymd_and_hms(2026, 3, 1, 10, 0, 0).unwrap();
        assert_eq!(super::display(&t).to_string(), "2026-03-01T10:00:00.000Z");
        let t = t + chrono::Duration::nanoseconds(7_654_321);
        assert_eq!(super::display(&t).to_string(), "2026-03-01T10:00:00.007Z");
    }

    proptest::proptest! {
        /// Every time written with four year digits reads back through the digit reader as
        /// the same time (the writer is checked against chrono's format below).
        #[test]
        fn the_fast_reader_reads_what_the_writer_writes(
            millis in -62_167_219_200_000i64..253_402_300_800_000i64,
        ) {
            let t = chrono::DateTime::from_timestamp_millis(millis).unwrap();
            let text = super::to_iso(&t);
            proptest::prop_assert_eq!(super::from_iso_digits(&text), Some(t));
            proptest::prop_assert_eq!(super::parse(&text), Ok(t));
        }

        /// On any text of the shape, its fields just past their ranges too (months 0 and
        /// 13, the 30th of February, hour 24, second 60…) and any one byte swapped, the digit
        /// reader answers only where chrono's RFC 3339 parser does, and as it does; it leaves
        /// only leap seconds to chrono.
        #[test]
        fn the_fast_reader_agrees_with_chrono(
            date in (0u32..10_000, 0u32..14, 0u32..33),
            time in (0u32..26, 0u32..62, 0u32..62, 0u32..1000),
            swap in proptest::option::of((0usize..24, proptest::sample::select(
                b"0123456789-T:.Zt z+".to_vec(),
            ))),
        ) {
            let ((y, mo, d), (h, mi, s, ms)) = (date, time);
            let text = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z");
            let mut text = text.into_bytes();
            if let Some((at, c)) = swap {
                text[at] = c;
            }
            let text = std::str::from_utf8(&text).unwrap();
            let chrono = chrono::DateTime::parse_from_rfc3339(text)
                .ok()
                .map(|t| t.with_timezone(&chrono::Utc));
            // Still `toISOString()`'s shape after the swap: digits, and its separators.
            let shaped = text.bytes().zip(b"0000-00-00T00:00:00.000Z").all(|(c, form)| {
                if *form == b'0' { c.is_ascii_digit() } else { c == *form }
            });
            match super::from_iso_digits(text) {
                Some(t) => proptest::prop_assert_eq!(Some(t), chrono, "{}", text),
                None => proptest::prop_assert!(
                    !shaped || chrono.is_none() || &text[17..19] == "60",
                    "{} is left to chrono, which reads it", text
                ),
            }
        }
    }

    #[test]
    fn the_fast_reader_leaves_other_forms_to_chrono() {
        for text in [
            "2026-03-01T10:00:00Z",
            "2026-03-01T10:00:00.000000Z",
            "2026-03-01T10:00:00.000+00:00",
            "2026-03-01 10:00:00.000Z",
            "2026-03-01t10:00:00.000z",
            "+02026-03-01T10:00:00.000Z",
            "2016-12-31T23:59:60.500Z",
        ] {
            assert_eq!(super::from_iso_digits(text), None, "{text}");
            assert!(super::parse(text).is_ok(), "{text}");
        }
        // Dates and times that do not exist, and text of 24 bytes that is not ASCII.
        for text in [
            "2026-02-29T10:00:00.000Z",
            "1900-02-29T00:00:00.000Z",
            "2026-03-01T24:00:00.000Z",
            "2026-03-01T23:60:00.000Z",
            "２026-03-01T10:00:00.0Z",
            "2026-03-01T10:00:00.0éZ",
        ] {
            assert_eq!(text.len(), 24);
            assert_eq!(super::from_iso_digits(text), None, "{text}");
            assert!(
                chrono::DateTime::parse_from_rfc3339(text).is_err(),
                "{text}"
            );
        }
        // The calendar's edges, read as chrono reads them.
        for text in [
            "0000-01-01T00:00:00.000Z",
            "0000-02-29T12:00:00.000Z",
            "2000-02-29T00:00:00.000Z",
            "2024-12-31T23:59:59.999Z",
            "9999-12-31T23:59:59.999Z",
        ] {
            let chrono = chrono::DateTime::parse_from_rfc3339(text).unwrap();
            assert_eq!(
                super::from_iso_digits(text),
                Some(chrono.to_utc()),
                "{text}"
            );
        }
        assert_eq!(
            super::parse("2016-12-31T23:59:60.500Z")
                .unwrap()
                .to_string(),
            "2016-12-31 23:59:60.500 UTC"
        );
    }

    #[test]
    fn the_fast_writer_agrees_with_chrono() {
        let check = |t: chrono::DateTime<chrono::Utc>| {
            assert_eq!(
                super::to_iso(&t),
                t.format(super::FORMAT).to_string(),
                "{t:?}"
            );
        };
        let mut t = chrono::Utc.with_ymd_and_hms(1970, 1, 1, 0, 0, 0).unwrap();
        // About 3,000 instants spread over years 1970..~2940, with varied milliseconds.
        for i in 0..3000i64 {
            t +=
                chrono::Duration::seconds(10_337_171 + i) + chrono::Duration::microseconds(i * 977);
            check(t);
        }
        check(chrono::Utc.with_ymd_and_hms(0, 1, 1, 0, 0, 0).unwrap());
        check(
            chrono::Utc
                .with_ymd_and_hms(9999, 12, 31, 23, 59, 59)
                .unwrap(),
        );
        check(chrono::Utc.with_ymd_and_hms(-1, 6, 1, 0, 0, 0).unwrap());
        check(chrono::Utc.with_ymd_and_hms(10000, 6, 1, 0, 0, 0).unwrap());
        // Across the calendar: every day of 1900..2100, every 13th of years 0..9999
        // (every month, leap day and century over the years), at times that move.
        let (first, last) = (
            chrono::NaiveDate::from_ymd_opt(0, 1, 1).unwrap(),
            chrono::NaiveDate::from_ymd_opt(9999, 12, 31).unwrap(),
        );
        let (dense_from, dense_to) = (
            chrono::NaiveDate::from_ymd_opt(1900, 1, 1).unwrap(),
            chrono::NaiveDate::from_ymd_opt(2100, 1, 1).unwrap(),
        );
        let (mut day, mut n) = (first, 0u32);
        while day <= last {
            let time =
                chrono::NaiveTime::from_hms_milli_opt(n % 24, n * 7 % 60, n * 13 % 60, n % 1000)
                    .unwrap();
            check(day.and_time(time).and_utc());
            let step = if (dense_from..dense_to).contains(&day) {
                1
            } else {
                13
            };
            day = day + chrono::Days::new(step);
            n += 1;
        }
        for (y, m, d) in [(2024, 2, 29), (2000, 2, 29), (1600, 2, 29), (1969, 12, 31)] {
            let day = chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
            check(day.and_hms_milli_opt(23, 59, 59, 999).unwrap().and_utc());
            check(day.and_hms_opt(0, 0, 0).unwrap().and_utc());
        }
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_hms_milli_opt(23, 59, 59, 1_500)
            .unwrap()
            .and_utc();
        check(leap);
        assert_eq!(super::to_iso(&leap), "2016-12-31T23:59:60.500Z");
    }
}
