//! Key text in errors: the key as stored, printed with sensitive values masked.

use std::borrow::Borrow;
use std::ops::Deref;

/// A key (`PK`, `SK`, an index key) as an error carries it: [`KeyText::as_str`] gives the
/// key as stored; `Display` and `Debug` print it through [`key`](crate::redact::key), with the values of
/// `#[sensitive]` fields masked.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyText(String);

impl KeyText {
    /// The key as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key as stored.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl std::fmt::Display for KeyText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::registry::mask_key(&self.0))
    }
}

impl std::fmt::Debug for KeyText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*super::registry::mask_key(&self.0), f)
    }
}

impl Deref for KeyText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for KeyText {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for KeyText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<String> for KeyText {
    fn from(s: String) -> Self {
        KeyText(s)
    }
}

impl From<&str> for KeyText {
    fn from(s: &str) -> Self {
        KeyText(s.to_owned())
    }
}

impl From<KeyText> for String {
    fn from(k: KeyText) -> Self {
        k.0
    }
}

impl PartialEq<str> for KeyText {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for KeyText {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for KeyText {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}
