//! The types of write times (`#[created]`, `#[updated]`) and of the `#[ttl]` field.

use aws_sdk_dynamodb::types::AttributeValue;

/// A type a `#[created]` or `#[updated]` field can have (without `Option`):
/// `DateTime<Utc>`, stored through the field's codec (as Faceteer stores dates by default).
#[cfg(feature = "chrono")]
#[diagnostic::on_unimplemented(
    message = "a `#[created]` or `#[updated]` field cannot have the type `{Self}`",
    note = "the time of a write is a `chrono::DateTime<Utc>` (or an `Option` of one), stored \
            through the field's serde codec (Faceteer's date text by default)",
    note = "for an epoch number, use an `i64` or `u64` field and say its unit: \
            `#[created(seconds)]` or `#[created(millis)]`"
)]
pub trait WriteTime: Sized {
    /// The value of the field for a write at `now`.
    fn at(now: &chrono::DateTime<chrono::Utc>) -> Self;
}

#[cfg(feature = "chrono")]
impl WriteTime for chrono::DateTime<chrono::Utc> {
    fn at(now: &chrono::DateTime<chrono::Utc>) -> Self {
        *now
    }
}

/// A type an epoch-number `#[created(seconds)]` or `#[updated(millis)]` field can have
/// (without `Option`): `i64` or `u64`.
#[diagnostic::on_unimplemented(
    message = "an epoch write time cannot have the type `{Self}`",
    note = "`#[created(seconds)]` and `#[created(millis)]` store an epoch number: use an \
            `i64` or `u64` field (or an `Option` of one)"
)]
pub trait EpochTime: Sized {
    /// The value for `epoch` seconds or milliseconds.
    fn from_epoch(epoch: i64) -> Self;
}

impl EpochTime for i64 {
    fn from_epoch(epoch: i64) -> Self {
        epoch
    }
}

impl EpochTime for u64 {
    fn from_epoch(epoch: i64) -> Self {
        u64::try_from(epoch).unwrap_or(0)
    }
}

/// The attribute values a write stores in the `#[created]` and `#[updated]` fields, each
/// through the field's codec (`None`: no such field, or stored as nothing).
#[doc(hidden)]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteTimeAttributes {
    /// The `#[created]` field's.
    pub created: Option<AttributeValue>,
    /// The `#[updated]` field's.
    pub updated: Option<AttributeValue>,
}

/// Epoch seconds from text, as Faceteer reads a string `ttl` field (JavaScript's
/// `parseInt(text, 10)`): leading whitespace and an optional sign, then the leading decimal
/// digits; `None` when there are none (Faceteer then writes no `ttl`) or they overflow `i64`.
///
/// For a `#[ttl]` field of a type of your own that may hold text:
/// `impl TtlValue for Expiry { .. Expiry::Text(t) => ttl_from_text(t) .. }`.
pub fn ttl_from_text(text: &str) -> Option<i64> {
    let text = text.trim_start();
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let end = digits
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    let value: i64 = digits[..end].parse().ok()?;
    Some(if negative { -value } else { value })
}

/// A `#[ttl]` field's value: a time or an integer of epoch seconds.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[ttl]` field",
    label = "not a time or an integer",
    note = "a `#[ttl]` field holds epoch seconds: use `DateTime<Utc>`, `SystemTime`, an integer, \
            or an `Option` of one of those"
)]
pub trait TtlValue {
    /// The value as epoch seconds (`None` when absent).
    fn ttl_seconds(&self) -> Option<i64>;
}

macro_rules! int_ttl {
    ($($t:ty),*) => {$(
        impl TtlValue for $t {
            fn ttl_seconds(&self) -> Option<i64> {
                i64::try_from(*self).ok()
            }
        }
    )*};
}
int_ttl!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T: TtlValue> TtlValue for Option<T> {
    fn ttl_seconds(&self) -> Option<i64> {
        self.as_ref().and_then(TtlValue::ttl_seconds)
    }
}

impl TtlValue for std::time::SystemTime {
    fn ttl_seconds(&self) -> Option<i64> {
        match self.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).ok(),
            Err(e) => i64::try_from(e.duration().as_secs()).ok().map(|s| -s),
        }
    }
}

#[cfg(feature = "chrono")]
impl TtlValue for chrono::DateTime<chrono::Utc> {
    fn ttl_seconds(&self) -> Option<i64> {
        Some(self.timestamp())
    }
}

#[cfg(test)]
mod tests {
    use super::ttl_from_text;

    #[test]
    fn ttl_text_reads_like_parse_int() {
        assert_eq!(ttl_from_text("1800000000"), Some(1_800_000_000));
        assert_eq!(ttl_from_text("  42abc"), Some(42));
        assert_eq!(ttl_from_text("-7"), Some(-7));
        assert_eq!(ttl_from_text("abc"), None);
        assert_eq!(ttl_from_text(""), None);
        assert_eq!(ttl_from_text("99999999999999999999"), None);
    }
}
