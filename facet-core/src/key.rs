//! Composite key encoding.
//!
//! A key string is the prefix, then (when the key is sharded) the shard id, then each key
//! field's value, joined by the facet's delimiter (`_` by default). This is byte-compatible
//! with `@faceteer/facet` 6.0.0 (`buildKey`):
//!
//! * strings as they are, integers in decimal, booleans as `true` / `false`;
//! * timestamps as `Date.toISOString()`: UTC with milliseconds (`2024-01-01T00:00:00.000Z`);
//! * an absent optional field contributes nothing (not even a delimiter), so an index key
//!   whose fields are all absent is the prefix alone.
//!
//! # Keys never collide
//!
//! Faceteer's format loses information in three ways: a value containing the delimiter
//! (`a_b` + `c` and `a` + `b_c` both give `a_b_c`), a multi-character delimiter overlapping a
//! value (with `::`, `x:` + `y` and `x` + `:y` both give `x:::y`), and absent optional fields
//! (`None` + `y_x` and `y` + `x` both give `y_x`). Two records with such keys would silently
//! overwrite each other.
//!
//! [`KeyWriter`] therefore accepts a tuple of key values only when one fixed decoder reads
//! the key back as that same tuple; every other tuple is refused with a [`KeyError`]. The
//! decoder strips the prefix (and shard id), splits the rest at each delimiter from the left,
//! takes the first `n - 1` pieces as the first `n - 1` values and the remainder as the last
//! one when there are at least `n` pieces (`n` = number of key fields), and otherwise gives
//! the pieces, in order, to the required fields and the *earliest* optional fields. Because
//! that decoder is a left inverse of the encoder on every accepted tuple, two different
//! accepted tuples can never share a key. Spelled out, a tuple is refused when:
//!
//! 1. a value followed by another value contains the delimiter, or ends with the start of it
//!    ([`KeyError::DelimiterInValue`]);
//! 2. an optional field is absent and the last value present contains the delimiter
//!    ([`KeyError::DelimiterAfterAbsent`]);
//! 3. an optional field has a value while an earlier optional field has none
//!    ([`KeyError::OptionalAfterAbsent`]).
//!
//! Every key Faceteer writes for a tuple that passes these rules is written byte for byte
//! the same; the rules only refuse keys that would be ambiguous.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Why a key could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// A key value that is followed by another key value contains the delimiter (or, for a
    /// multi-character delimiter, ends with its start), so the key would be ambiguous and two
    /// records could overwrite each other.
    #[error(
        "the value {value:?} of key field `{field}` contains the key delimiter {delimiter:?} \
         (or ends with part of it); it is followed by another key value, so the key would be \
         ambiguous (move the field last in the key, or choose another delimiter)"
    )]
    DelimiterInValue {
        /// The Rust field name.
        field: &'static str,
        /// The offending value.
        value: String,
        /// The facet's delimiter.
        delimiter: &'static str,
    },
    /// An optional key field is absent and the last value of the key contains the delimiter,
    /// so the key would read as if the absent field had a value.
    #[error(
        "key field `{absent}` is absent and the value {value:?} of `{field}` contains the key \
         delimiter {delimiter:?}, so the key would read as if `{absent}` had a value \
         (Faceteer's key format leaves absent fields out); give `{absent}` a value, or keep \
         the delimiter out of `{field}`"
    )]
    DelimiterAfterAbsent {
        /// The absent optional field.
        absent: &'static str,
        /// The field whose value holds the delimiter.
        field: &'static str,
        /// Its value.
        value: String,
        /// The facet's delimiter.
        delimiter: &'static str,
    },
    /// An optional key field has a value while an earlier optional key field has none, so
    /// the key would read as if the earlier field held the value.
    #[error(
        "optional key field `{present}` has a value while the earlier optional key field \
         `{absent}` has none; the key would read as if `{absent}` held it (Faceteer's key \
         format leaves absent fields out); give `{absent}` a value or leave `{present}` empty"
    )]
    OptionalAfterAbsent {
        /// The earlier, absent optional field.
        absent: &'static str,
        /// The later optional field that has a value.
        present: &'static str,
    },
    /// A shard id outside `0..count` was asked for.
    #[error("shard {shard} is out of range: the key has {count} shards (0..{count})")]
    ShardOutOfRange {
        /// The shard asked for.
        shard: u32,
        /// The key's shard count.
        count: u32,
    },
    /// The partition is sharded and the operation needs one shard chosen.
    #[error(
        "the partition key `{attribute}` is sharded over {count} shards; \
         choose one with `.shard(n)`"
    )]
    ShardRequired {
        /// The key attribute (`PK`, `GSI1PK`, …).
        attribute: &'static str,
        /// The shard count.
        count: u32,
    },
    /// The facet's key data (`KEY_FIELDS`, `KEY_LAYOUT`, which `#[derive(Facet)]`
    /// generates) does not describe its schema's keys: a hand-written facet that has the
    /// schema-driven key writer write its keys without that data, or that names no key
    /// writer (`Facet::KEY_WRITER`) and does not write its keys itself.
    #[error(
        "the key data of facet `{facet}` does not describe its keys ({reason}): derive \
         `Facet`, or implement `Facet::primary_key` and `Facet::write_index_keys` by hand"
    )]
    NoKeyLayout {
        /// The facet's name.
        facet: &'static str,
        /// What is missing.
        reason: &'static str,
    },
    /// A value could not be rendered as key text (for example an enum variant with data).
    #[error("the value of key field `{field}` cannot be used in a key: {reason}")]
    Unrepresentable {
        /// The Rust field name.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// A key without a prefix (`no_prefix`) whose values are all absent or empty would be
    /// the empty string, which DynamoDB refuses as a key.
    #[error(
        "the key would be empty (it has no prefix, and its values are absent or empty, \
         `{absent}` first): DynamoDB refuses an empty key; give the key a value"
    )]
    Empty {
        /// The first absent field, or `(none)`.
        absent: &'static str,
    },
    /// The table partition key (`PK`) starts with
    /// [`GUARD_PREFIX`](crate::unique::GUARD_PREFIX) (`$unique`), which faceteer reserves for
    /// the guard items of unique values: a record there could overwrite a guard, or be read
    /// as one. The derive refuses such a prefix; this is a key whose delimiter, shard id or
    /// values spell it (an empty prefix with the delimiter `$` and a value `unique#..`).
    #[error(
        "the partition key {key:?} starts with `$unique`, which faceteer reserves for the \
         guard items of unique values (a record under it could overwrite a guard); give the \
         partition key a prefix, or keep its first key value from starting it so"
    )]
    ReservedPartition {
        /// The refused key.
        key: String,
    },
}

/// A value that can stand in a composite key.
///
/// Implemented for strings, integers, booleans, `chrono::DateTime<Utc>` (feature `chrono`),
/// [`Sortable`] integers, references and `Option`s of those (`None` contributes nothing).
/// For a unit-only enum, derive it with `#[derive(KeyPart)]`, which uses the enum's serde name.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a key value",
    label = "not a key value",
    note = "key values are strings, integers, booleans, `DateTime<Utc>`, `Sortable<integer>` \
            or `Option`s of those; for a unit-only enum add `#[derive(faceteer::KeyPart)]`"
)]
pub trait KeyPart {
    /// Append this value's key text to `out`.
    fn write_key(&self, out: &mut String) -> Result<(), String>;
    /// `false` for an absent optional value, which contributes nothing to the key.
    fn is_present(&self) -> bool {
        true
    }
    /// `true` for a value of an optional key field (an `Option`), present or not.
    fn is_optional(&self) -> bool {
        false
    }
    /// `true` for a value of a `#[sensitive]` field: errors show it masked.
    fn is_sensitive(&self) -> bool {
        false
    }
    /// Append this value's key text in the order-preserving encoding of a `sortable` key
    /// field (what [`Sortable`] of it writes); an error for a value without one (only
    /// integers have one). The schema-driven key writer calls it for `sortable` parts.
    #[doc(hidden)]
    fn write_sortable(&self, out: &mut String) -> Result<(), String> {
        let _ = out;
        Err("only an integer can be written sortable".into())
    }
}

impl KeyPart for str {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        out.push_str(self);
        Ok(())
    }
}

impl KeyPart for String {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        out.push_str(self);
        Ok(())
    }
}

impl KeyPart for Cow<'_, str> {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        out.push_str(self);
        Ok(())
    }
}

impl KeyPart for bool {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        out.push_str(if *self { "true" } else { "false" });
        Ok(())
    }
}

macro_rules! int_key_part {
    ($($t:ty),*) => {$(
        impl KeyPart for $t {
            fn write_key(&self, out: &mut String) -> Result<(), String> {
                write!(out, "{}", self).map_err(|e| e.to_string())
            }
        }
    )*};
    (sortable: $($t:ty),*) => {$(
        impl KeyPart for $t {
            fn write_key(&self, out: &mut String) -> Result<(), String> {
                write!(out, "{}", self).map_err(|e| e.to_string())
            }
            fn write_sortable(&self, out: &mut String) -> Result<(), String> {
                Sortable(*self).write_key(out)
            }
        }
    )*};
}
int_key_part!(u128, i128);
int_key_part!(sortable: u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T: KeyPart + ?Sized> KeyPart for &T {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        (**self).write_key(out)
    }
    fn write_sortable(&self, out: &mut String) -> Result<(), String> {
        (**self).write_sortable(out)
    }
    fn is_present(&self) -> bool {
        (**self).is_present()
    }
    fn is_optional(&self) -> bool {
        (**self).is_optional()
    }
}

impl<T: KeyPart + ?Sized> KeyPart for Box<T> {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        (**self).write_key(out)
    }
    fn write_sortable(&self, out: &mut String) -> Result<(), String> {
        (**self).write_sortable(out)
    }
    fn is_present(&self) -> bool {
        (**self).is_present()
    }
    fn is_optional(&self) -> bool {
        (**self).is_optional()
    }
}

impl<T: KeyPart> KeyPart for Option<T> {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        match self {
            Some(v) => v.write_key(out),
            None => Ok(()),
        }
    }
    fn write_sortable(&self, out: &mut String) -> Result<(), String> {
        match self {
            Some(v) => v.write_sortable(out),
            None => Ok(()),
        }
    }
    fn is_present(&self) -> bool {
        self.as_ref().is_some_and(KeyPart::is_present)
    }
    fn is_optional(&self) -> bool {
        true
    }
}

#[cfg(feature = "chrono")]
impl KeyPart for chrono::DateTime<chrono::Utc> {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        crate::timestamp::write_iso(self, out);
        Ok(())
    }
}

/// An integer rendered so that string order equals numeric order.
///
/// Plain decimal keys sort as strings (`"9"` after `"42"`). Mark a key field
/// `#[sk(sortable)]` (or wrap a value in `Sortable`) to encode it as a fixed-width decimal:
/// unsigned integers are zero-padded to the width of their type's maximum, signed integers
/// are offset by the type's minimum first, so negative values sort before positive ones.
/// This encoding is not produced by Faceteer; use it for new facets only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Sortable<T>(pub T);

macro_rules! sortable_unsigned {
    ($($t:ty => $w:expr),*) => {$(
        impl KeyPart for Sortable<$t> {
            fn write_key(&self, out: &mut String) -> Result<(), String> {
                write!(out, "{:0width$}", self.0, width = $w).map_err(|e| e.to_string())
            }
        }
    )*};
}
sortable_unsigned!(u8 => 3, u16 => 5, u32 => 10, u64 => 20, usize => 20);

macro_rules! sortable_signed {
    ($($t:ty => $u:ty, $w:expr),*) => {$(
        impl KeyPart for Sortable<$t> {
            fn write_key(&self, out: &mut String) -> Result<(), String> {
                // Shift into the unsigned range: MIN → 0, 0 → 2^(n-1), MAX → 2^n - 1.
                let shifted = (self.0 as $u) ^ (1 << (<$u>::BITS - 1));
                write!(out, "{:0width$}", shifted, width = $w).map_err(|e| e.to_string())
            }
        }
    )*};
}
sortable_signed!(i8 => u8, 3, i16 => u16, 5, i32 => u32, 10, i64 => u64, 20, isize => usize, 20);

/// An integer read back from its [`Sortable`] key text (the caller checks that it writes the
/// same text again).
#[doc(hidden)]
pub trait SortableText: Sized {
    /// The integer whose sortable text `text` is.
    fn from_sortable_text(text: &str) -> Option<Self>;
}

macro_rules! sortable_text_unsigned {
    ($($t:ty),*) => {$(
        impl SortableText for $t {
            fn from_sortable_text(text: &str) -> Option<Self> {
                text.parse().ok()
            }
        }
    )*};
}
sortable_text_unsigned!(u8, u16, u32, u64, usize);

macro_rules! sortable_text_signed {
    ($($t:ty => $u:ty),*) => {$(
        impl SortableText for $t {
            fn from_sortable_text(text: &str) -> Option<Self> {
                let shifted: $u = text.parse().ok()?;
                Some((shifted ^ (1 << (<$u>::BITS - 1))) as $t)
            }
        }
    )*};
}
sortable_text_signed!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize);

/// [`SortableText::from_sortable_text`], for generated code.
#[doc(hidden)]
pub fn from_sortable_text<T: SortableText>(text: &str) -> Option<T> {
    T::from_sortable_text(text)
}

impl<T> KeyPart for Sortable<Option<T>>
where
    Sortable<T>: KeyPart,
    T: Copy,
{
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        match self.0 {
            Some(v) => Sortable(v).write_key(out),
            None => Ok(()),
        }
    }
    fn is_present(&self) -> bool {
        self.0.is_some()
    }
    fn is_optional(&self) -> bool {
        true
    }
}

impl<T> KeyPart for Sortable<&T>
where
    Sortable<T>: KeyPart,
    T: Copy,
{
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        Sortable(*self.0).write_key(out)
    }
    fn is_present(&self) -> bool {
        Sortable(*self.0).is_present()
    }
    fn is_optional(&self) -> bool {
        Sortable(*self.0).is_optional()
    }
}

/// A value accepted where a key field of type `T` is expected (key builders, queries).
///
/// `String` fields accept `&str`, `String` and `&String`; `sortable` integer fields accept
/// the plain integer; every other key type accepts itself and a reference to itself.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as the value of a `{T}` key field",
    label = "expected a value for a `{T}` key field",
    note = "pass a `{T}` (or a reference to one)"
)]
pub trait KeyArg<T: ?Sized> {
    /// The value as a key part.
    fn key_part(&self) -> impl KeyPart + '_;
}

/// `arg` as the key part of a field of type `T` (generated code: a key builder's or a
/// query's parameter, whose one `KeyArg` bound names `T`).
#[doc(hidden)]
#[inline]
pub fn key_arg<T: ?Sized, A: KeyArg<T>>(arg: &A) -> impl KeyPart + '_ {
    arg.key_part()
}

impl<T: KeyPart> KeyArg<T> for T {
    fn key_part(&self) -> impl KeyPart + '_ {
        self
    }
}

impl<T: KeyPart> KeyArg<T> for &T {
    fn key_part(&self) -> impl KeyPart + '_ {
        *self
    }
}

impl KeyArg<String> for &str {
    fn key_part(&self) -> impl KeyPart + '_ {
        *self
    }
}

impl KeyArg<String> for Cow<'_, str> {
    fn key_part(&self) -> impl KeyPart + '_ {
        self.as_ref()
    }
}

/// A value accepted where a `sortable` integer key field of type `T` is expected: the
/// integer itself or a reference to one (the key builder encodes it order-preservingly).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as the value of a `{T}` key field",
    label = "expected a value for a `{T}` key field",
    note = "pass a `{T}` (or a reference to one)"
)]
pub trait SortableArg<T> {
    /// The integer.
    fn integer(&self) -> T;
}

/// For each integer: the integer and a reference to one are its [`SortableArg`]s, and a
/// `sortable` field of it takes any of them. An unfit value is reported as `SortableArg`'s
/// error, which names the integer type, not the `Sortable` wrapper.
macro_rules! sortable_arg {
    ($($t:ty),*) => {$(
        impl SortableArg<$t> for $t {
            fn integer(&self) -> $t {
                *self
            }
        }
        impl SortableArg<$t> for &$t {
            fn integer(&self) -> $t {
                **self
            }
        }
        impl<X: SortableArg<$t>> KeyArg<Sortable<$t>> for X {
            fn key_part(&self) -> impl KeyPart + '_ {
                Sortable(self.integer())
            }
        }
    )*};
}
sortable_arg!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// Builds one composite key string, refusing every tuple of values whose key would be
/// ambiguous (see the [module documentation](self) for the rules and why they make keys
/// injective).
#[derive(Debug)]
pub struct KeyWriter {
    buf: String,
    delimiter: &'static str,
    /// The next segment is the key's first (a key without a prefix writes no delimiter
    /// before it).
    first: bool,
    /// A key without a prefix: it must not be empty.
    bare: bool,
    /// The last value written, when it contains the delimiter: an error if another value
    /// follows it, or if an optional field is absent.
    /// The last value that clashes with the delimiter: its field, its text as errors show
    /// it (masked for a sensitive field), and whether it holds the whole delimiter.
    last_with_delimiter: Option<(&'static str, String, bool)>,
    /// The first optional field found absent.
    absent: Option<&'static str>,
    error: Option<KeyError>,
}

impl KeyWriter {
    /// Start a key with its prefix.
    pub fn new(prefix: &str, delimiter: &'static str) -> Self {
        let mut buf = String::with_capacity(prefix.len() + 48);
        buf.push_str(prefix);
        KeyWriter {
            buf,
            delimiter,
            first: false,
            bare: false,
            last_with_delimiter: None,
            absent: None,
            error: None,
        }
    }

    /// Start a key without a prefix (`no_prefix`): its values alone, joined by
    /// `delimiter`, with none before the first (OneTable's `${a}#${b}`).
    pub fn bare(delimiter: &'static str) -> Self {
        KeyWriter {
            first: true,
            bare: true,
            ..KeyWriter::new("", delimiter)
        }
    }

    /// The delimiter before a segment (none before the first of a key without a prefix).
    fn separate(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.buf.push_str(self.delimiter);
        }
    }

    /// Append a shard id segment.
    pub fn shard(&mut self, shard_id: &str) -> &mut Self {
        self.separate();
        self.buf.push_str(shard_id);
        self
    }

    /// Append one key field's value (nothing when it is an absent optional value).
    pub fn part(&mut self, field: &'static str, value: &(impl KeyPart + ?Sized)) -> &mut Self {
        if self.error.is_some() {
            return self;
        }
        if !value.is_present() {
            self.absent.get_or_insert(field);
            return self;
        }
        if let (true, Some(absent)) = (value.is_optional(), self.absent) {
            self.error = Some(KeyError::OptionalAfterAbsent {
                absent,
                present: field,
            });
            return self;
        }
        if let Some((field, value, _)) = self.last_with_delimiter.take() {
            self.error = Some(KeyError::DelimiterInValue {
                field,
                value,
                delimiter: self.delimiter,
            });
            return self;
        }
        self.separate();
        let start = self.buf.len();
        let sensitive = value.is_sensitive();
        if let Err(reason) = value.write_key(&mut self.buf) {
            let reason = if sensitive {
                format!("{} (the reason holds the value)", REDACTED)
            } else {
                reason
            };
            self.error = Some(KeyError::Unrepresentable { field, reason });
            return self;
        }
        let written = &self.buf[start..];
        if clashes_with_delimiter(written, self.delimiter) {
            let holds = written.contains(self.delimiter);
            let shown = if sensitive {
                REDACTED.to_owned()
            } else {
                written.to_owned()
            };
            self.last_with_delimiter = Some((field, shown, holds));
        }
        self
    }

    /// Append a key argument's value.
    pub fn arg<T: ?Sized>(&mut self, field: &'static str, value: &impl KeyArg<T>) -> &mut Self {
        self.part(field, &value.key_part())
    }

    /// The finished key.
    pub fn finish(self) -> Result<String, KeyError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.bare && self.buf.is_empty() {
            return Err(KeyError::Empty {
                absent: self.absent.unwrap_or("(none)"),
            });
        }
        if let (Some(absent), Some((field, value, holds))) = (self.absent, self.last_with_delimiter)
        {
            // Only a delimiter inside the last value matters here: a value that merely ends
            // with part of a multi-character delimiter splits nowhere.
            if holds {
                return Err(KeyError::DelimiterAfterAbsent {
                    absent,
                    field,
                    value,
                    delimiter: self.delimiter,
                });
            }
        }
        Ok(self.buf)
    }
}

/// Whether appending `delimiter` to `value` would not put the delimiter's first occurrence
/// right after the value: the value contains the delimiter, or ends with the start of an
/// occurrence that runs into the appended delimiter (`x:` followed by `::`).
fn clashes_with_delimiter(value: &str, delimiter: &str) -> bool {
    // The usual one-byte delimiter: a byte search (no substring searcher to set up).
    if let [byte] = delimiter.as_bytes() {
        return holds_byte(value.as_bytes(), *byte);
    }
    if value.contains(delimiter) {
        return true;
    }
    // An occurrence starting `m` bytes before the end of the value: the value ends with the
    // delimiter's first `m` bytes, and the delimiter's remaining bytes repeat its start.
    // (Byte-wise matching of UTF-8 equals character-wise matching.)
    let (v, d) = (value.as_bytes(), delimiter.as_bytes());
    (1..d.len()).any(|m| v.ends_with(&d[..m]) && d[m..] == d[..d.len() - m])
}

/// Whether `bytes` holds `byte`, eight bytes at a time (keys are short: no searcher to set
/// up, and no byte-by-byte loop).
fn holds_byte(bytes: &[u8], byte: u8) -> bool {
    const LOW: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let pattern = LOW * u64::from(byte);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        // A zero byte of `x` (a byte equal to `byte`) sets its high bit here.
        let x = u64::from_ne_bytes(w) ^ pattern;
        if x.wrapping_sub(LOW) & !x & HIGH != 0 {
            return true;
        }
    }
    words.remainder().contains(&byte)
}

#[doc(hidden)]
/// A key value as a key part; generated code calls it so that a field type that is not a
/// key value is reported once, at the field.
pub fn key_part<T: KeyPart>(value: &T) -> &dyn KeyPart {
    value
}

#[doc(hidden)]
/// One key of a facet, as its schema describes it: `prefix` (none for a key without one,
/// `bare`), the shard id when the key is sharded, then each field's value: [`plain_key`]'s
/// common case written straight, any other key by [`KeyWriter`]'s full rules. The key
/// writer ([`key_writer`](crate::key_writer)) calls it for every key it does not write
/// straight itself.
pub fn write_key(
    prefix: &str,
    delimiter: &'static str,
    bare: bool,
    shard: Option<&str>,
    fields: &[&'static str],
    values: &[&dyn KeyPart],
) -> Result<String, KeyError> {
    if let Some(key) = plain_key(prefix, delimiter, bare, shard, values) {
        return Ok(key);
    }
    let mut w = if bare {
        KeyWriter::bare(delimiter)
    } else {
        KeyWriter::new(prefix, delimiter)
    };
    if let Some(id) = shard {
        w.shard(id);
    }
    for (field, value) in fields.iter().zip(values) {
        w.part(field, *value);
    }
    w.finish()
}

/// [`write_key`]'s common case, written straight: a key with a prefix whose every value is
/// present, writable and free of the delimiter. `None` for any other key, which
/// [`KeyWriter`] then writes (or refuses) with the full rules.
#[inline]
pub(crate) fn plain_key(
    prefix: &str,
    delimiter: &'static str,
    bare: bool,
    shard: Option<&str>,
    values: &[&dyn KeyPart],
) -> Option<String> {
    if bare {
        return None;
    }
    let mut buf = String::with_capacity(prefix.len() + 48);
    buf.push_str(prefix);
    if let Some(id) = shard {
        buf.push_str(delimiter);
        buf.push_str(id);
    }
    for value in values {
        if !value.is_present() {
            return None;
        }
        buf.push_str(delimiter);
        let start = buf.len();
        value.write_key(&mut buf).ok()?;
        if clashes_with_delimiter(&buf[start..], delimiter) {
            return None;
        }
    }
    Some(buf)
}

#[doc(hidden)]
/// A complete key: `prefix`, the shard id (when the key is sharded) and the key values
/// written by a [`KeyWriter`] started with an empty prefix (`tail`, each value preceded by
/// the delimiter). Faceteer's `buildKey` joins the same segments with the delimiter.
pub fn compose_key(prefix: &str, delimiter: &str, shard_id: Option<&str>, tail: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + tail.len() + 8);
    out.push_str(prefix);
    if let Some(id) = shard_id {
        out.push_str(delimiter);
        out.push_str(id);
    }
    out.push_str(tail);
    out
}

/// Render one key value to its key text (used for shard inputs).
pub fn key_text(field: &'static str, value: &(impl KeyPart + ?Sized)) -> Result<String, KeyError> {
    let mut out = String::new();
    value
        .write_key(&mut out)
        .map_err(|reason| KeyError::Unrepresentable { field, reason })?;
    Ok(out)
}

/// What a masked value prints as (`#[sensitive]` values in errors and `Debug`).
pub const REDACTED: &str = "‹redacted›";

/// A key part of a `#[sensitive]` field: writing it registers its facet, so that the keys it
/// is written into print masked (the derive passes one for each such part).
pub struct Registering<'a> {
    /// Registers the facet (`faceteer_core::facet::register_sensitive::<F>`).
    pub register: fn(),
    /// The field's value.
    pub value: &'a dyn KeyPart,
}

impl KeyPart for Registering<'_> {
    fn write_key(&self, out: &mut String) -> Result<(), String> {
        (self.register)();
        self.value.write_key(out)
    }

    fn is_present(&self) -> bool {
        self.value.is_present()
    }

    fn is_optional(&self) -> bool {
        self.value.is_optional()
    }

    fn is_sensitive(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_prefix_and_values() {
        let mut w = KeyWriter::new("#TASK", "_");
        w.part("a", "x").part("b", &42u32).part("c", &true);
        assert_eq!(w.finish().unwrap(), "#TASK_x_42_true");
    }

    #[test]
    fn absent_optional_contributes_nothing() {
        let mut w = KeyWriter::new("#P", "_");
        w.part("a", &None::<String>).part("b", "v");
        assert_eq!(w.finish().unwrap(), "#P_v");
    }

    #[test]
    fn delimiter_in_final_value_is_allowed() {
        let mut w = KeyWriter::new("#P", "_");
        w.part("a", "x").part("b", "y_z");
        assert_eq!(w.finish().unwrap(), "#P_x_y_z");
    }

    #[test]
    fn delimiter_in_non_final_value_is_an_error() {
        let mut w = KeyWriter::new("#P", "_");
        w.part("a", "x_y").part("b", "z");
        let err = w.finish().unwrap_err();
        assert!(matches!(err, KeyError::DelimiterInValue { field: "a", .. }));
        assert!(err.to_string().contains("x_y"));
    }

    #[test]
    fn a_byte_is_found_wherever_it_sits() {
        // Every length across the word boundaries, the byte at every position and nowhere,
        // among bytes one bit apart from it and multi-byte characters.
        for byte in [b'_', b'#', 0x00, 0x7f] {
            for len in 0..=33 {
                let fill: Vec<u8> = (0..len)
                    .map(|i| [byte ^ 1, byte ^ 0x80, 0xc3][i % 3])
                    .collect();
                assert!(!holds_byte(&fill, byte), "{byte} in {fill:?}");
                for at in 0..len {
                    let mut bytes = fill.clone();
                    bytes[at] = byte;
                    assert!(holds_byte(&bytes, byte), "{byte} at {at} of {len}");
                }
            }
        }
        assert!(clashes_with_delimiter("2026-01-01T00:00:00.000Z_", "_"));
        assert!(!clashes_with_delimiter("2026-01-01T00:00:00.000Z", "_"));
    }

    #[test]
    fn sortable_integers_sort_as_strings() {
        let mut values = [-5i64, 42, 9, 0, i64::MIN, i64::MAX, -42];
        let mut keys: Vec<String> = values
            .iter()
            .map(|v| key_text("v", &Sortable(*v)).unwrap())
            .collect();
        values.sort();
        keys.sort();
        let sorted: Vec<String> = values
            .iter()
            .map(|v| key_text("v", &Sortable(*v)).unwrap())
            .collect();
        assert_eq!(keys, sorted);
        assert_eq!(
            key_text("v", &Sortable(9u64)).unwrap(),
            "00000000000000000009"
        );
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn timestamps_use_iso_millis() {
        use chrono::TimeZone;
        let t = chrono::Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
        assert_eq!(key_text("t", &t).unwrap(), "2024-01-01T00:00:00.000Z");
    }
}
