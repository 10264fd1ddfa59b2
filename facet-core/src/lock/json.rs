//! The lock file: pretty JSON, one key per line, fields in a fixed order, so the same design
//! always writes the same bytes and a change reads as a small diff.

use super::types::{DesignLock, LOCK_FORMAT};

/// Why a lock file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The text is not a design lock.
    #[error("the file is not a design lock: {0}")]
    Json(#[from] serde_json::Error),
    /// The file was written by a newer faceteer, in a format this one does not read.
    #[error(
        "the design lock has format {found}, newer than this faceteer reads ({supported}): \
         update faceteer"
    )]
    Format {
        /// The file's format.
        found: u32,
        /// The newest format this crate reads ([`LOCK_FORMAT`]).
        supported: u32,
    },
}

impl DesignLock {
    /// The lock as the file holds it: pretty JSON (two-space indents, fields in declaration
    /// order), ending with a newline.
    pub fn to_json(&self) -> String {
        let mut out = serde_json::to_string_pretty(self).expect("a design lock is plain data");
        out.push('\n');
        out
    }

    /// Read a lock file's text.
    pub fn from_json(text: &str) -> Result<DesignLock, LockError> {
        let lock: DesignLock = serde_json::from_str(text)?;
        if lock.format > LOCK_FORMAT {
            return Err(LockError::Format {
                found: lock.format,
                supported: LOCK_FORMAT,
            });
        }
        Ok(lock)
    }
}
