//! Signed cursors: with `Table::with_cursor_key`, every
//! cursor a query returns carries an HMAC-SHA256 tag, and a cursor given back is used only
//! when its tag matches, so a client holding cursors cannot forge or alter one.

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use faceteer_core::cursor::CursorError;
use hmac::{KeyInit, Mac};

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The separator between a cursor and its tag (not in the base64url alphabet).
const SEPARATOR: char = '.';

/// A secret key that signs cursors. Its `Debug` does not show it.
#[derive(Clone)]
pub(crate) struct CursorKey(Arc<[u8]>);

impl std::fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorKey(..)")
    }
}

impl CursorKey {
    pub(crate) fn new(key: &[u8]) -> Self {
        CursorKey(key.into())
    }

    fn mac(&self, cursor: &str) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes keys of any length");
        mac.update(cursor.as_bytes());
        mac
    }

    /// `cursor` with its tag.
    pub(crate) fn seal(&self, cursor: String) -> String {
        let tag = URL_SAFE_NO_PAD.encode(self.mac(&cursor).finalize().into_bytes());
        format!("{cursor}{SEPARATOR}{tag}")
    }

    /// The cursor inside a sealed one, when its tag matches (compared in constant time).
    pub(crate) fn open<'a>(&self, sealed: &'a str) -> Result<&'a str, CursorError> {
        let (cursor, tag) = sealed
            .rsplit_once(SEPARATOR)
            .ok_or(CursorError::BadSignature)?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| CursorError::BadSignature)?;
        self.mac(cursor)
            .verify_slice(&tag)
            .map_err(|_| CursorError::BadSignature)?;
        Ok(cursor)
    }
}

/// `run` as a page reads it: when the table signs cursors with `key`, a copy holding the cursor opened
/// (its signature checked) by `with`; otherwise `run` itself.
pub(crate) fn opened<'a, Q: Clone>(
    key: Option<&CursorKey>,
    run: &'a Q,
    cursor: Option<&str>,
    with: impl FnOnce(Q, String) -> Q,
) -> Result<std::borrow::Cow<'a, Q>, CursorError> {
    match (key, cursor) {
        (Some(key), Some(cursor)) => {
            let inner = key.open(cursor)?.to_owned();
            Ok(std::borrow::Cow::Owned(with(run.clone(), inner)))
        }
        _ => Ok(std::borrow::Cow::Borrowed(run)),
    }
}

/// A page's cursor as handed out: sealed when the table signs cursors with `key`.
pub(crate) fn sealed(key: Option<&CursorKey>, cursor: Option<String>) -> Option<String> {
    match key {
        Some(key) => cursor.map(|c| key.seal(c)),
        None => cursor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_cursors_open_with_their_key_only() {
        let key = CursorKey::new(b"secret");
        let sealed = key.seal("abc".into());
        assert_eq!(key.open(&sealed), Ok("abc"));
        assert_eq!(
            CursorKey::new(b"other").open(&sealed),
            Err(CursorError::BadSignature)
        );
        assert_eq!(key.open("abc"), Err(CursorError::BadSignature));
        let altered = sealed.replacen("abc", "abd", 1);
        assert_eq!(key.open(&altered), Err(CursorError::BadSignature));
        assert!(!format!("{key:?}").contains("secret"));
    }
}
