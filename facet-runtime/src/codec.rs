//! Checkpoints as text: CBOR, then URL-safe base64 without padding.

use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// `value` as URL-safe text.
pub(crate) fn to_text<T: Serialize>(value: &T) -> String {
    let mut bytes = Vec::new();
    // Writing plain data to a vector cannot fail.
    let _ = ciborium::into_writer(value, &mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A value written by [`to_text`], or why `text` is not one.
pub(crate) fn from_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text.trim())
        .map_err(|e| e.to_string())?;
    ciborium::from_reader(bytes.as_slice()).map_err(|e| e.to_string())
}
