//! The DynamoDB type of a native index key field, as far as its codec decides it.

/// How the DynamoDB type of a native key field is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeType {
    /// From its Rust type, through `KeyScalar`.
    OfType,
    /// From its codec: `S`, `N` or `B`.
    Codec(&'static str),
    /// Its codec is one faceteer does not know: the type cannot be told.
    Unknown,
}

/// The DynamoDB type of a key field stored by `serializer` (its `serde(with)`, if any):
/// `chrono::serde::ts_*` codecs store epoch numbers, `serde_bytes` binary, faceteer's own
/// `timestamp` codecs what the type stores; any other codec is unknown.
pub fn native_type(serializer: Option<&syn::Path>) -> NativeType {
    let Some(path) = serializer else {
        return NativeType::OfType;
    };
    let mut words = crate::types::path_words(path);
    // `#[serde(with = "m")]` serializes with `m::serialize`.
    if words.len() > 1 && words.last().is_some_and(|w| w == "serialize") {
        words.pop();
    }
    let last = words.last().map(String::as_str).unwrap_or_default();
    if words.iter().any(|w| w == "serde_bytes") {
        NativeType::Codec("B")
    } else if last.starts_with("ts_") {
        NativeType::Codec("N")
    } else if words.iter().any(|w| w == "timestamp") {
        NativeType::OfType
    } else {
        NativeType::Unknown
    }
}
