//! The process's one cipher: installed once, used wherever a facet's items are encrypted,
//! decrypted or its keys beaconed.

use std::sync::{Arc, RwLock};

use super::schema::{BeaconSpec, CryptoSchema};
use crate::item::Item;

/// Encrypts, decrypts and beacons the items of facets with encrypted fields.
///
/// `faceteer::encryption::install` installs the one implementation (AWS's Database
/// Encryption SDK); the trait is the seam between the core, which knows the facets, and the
/// runtime, which holds the keys.
pub trait Cipher: Send + Sync + 'static {
    /// Encrypt and sign a whole plaintext item of the facet `schema` describes.
    fn encrypt(&self, schema: &CryptoSchema, item: Item) -> Result<Item, CipherError>;
    /// Verify and decrypt a whole stored item of the facet `schema` describes.
    fn decrypt(&self, schema: &CryptoSchema, item: Item) -> Result<Item, CipherError>;
    /// The beacon of `text` (a field's key text) for `beacon`, as lower-case hex.
    fn beacon(&self, beacon: &BeaconSpec, text: &str) -> Result<String, CipherError>;
    /// Whether a plaintext item of the encrypted facet `facet` may be read (while a
    /// backfill encrypts the facet's existing records).
    fn allows_plaintext_reads(&self, facet: &str) -> bool {
        let _ = facet;
        false
    }
}

/// Why an item could not be encrypted, decrypted or beaconed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum CipherError {
    /// No cipher is installed, and the facet has encrypted fields.
    #[error(
        "`{facet}` has encrypted fields and no cipher is installed: call \
         `faceteer::encryption::install(..)` once at startup, before building its keys \
         or reading and writing its records"
    )]
    NotInstalled {
        /// The facet name.
        facet: &'static str,
    },
    /// The item could not be encrypted and signed (nothing was sent).
    #[error("cannot encrypt a `{facet}` item: {message}")]
    Encrypt {
        /// The facet name.
        facet: &'static str,
        /// What the encryption SDK said.
        message: String,
    },
    /// The stored item could not be verified or decrypted: another key, another logical
    /// table, or an item changed outside the library.
    #[error("cannot decrypt a stored `{facet}` item: {message}")]
    Decrypt {
        /// The facet name.
        facet: &'static str,
        /// What the encryption SDK said.
        message: String,
    },
    /// A stored item of an encrypted facet is not encrypted, and plaintext reads are not
    /// allowed.
    #[error(
        "a stored `{facet}` item is not encrypted: encrypt the facet's existing records with \
         a backfill while the cipher allows plaintext reads (`Encryption::allow_plaintext_reads`)"
    )]
    Plaintext {
        /// The facet name.
        facet: &'static str,
    },
    /// A projection picks an encrypted or signed attribute: it is decrypted and verified
    /// only with its whole item. Read whole records.
    #[error(
        "a projection of `{facet}` picks `{attribute}`, which is encrypted or signed: it is \
         decrypted and verified only with its whole item; read whole records"
    )]
    Projection {
        /// The facet name.
        facet: &'static str,
        /// The picked attribute.
        attribute: &'static str,
    },
    /// A beacon could not be computed.
    #[error("cannot compute the beacon `{beacon}`: {message}")]
    Beacon {
        /// The beacon's name.
        beacon: &'static str,
        /// Why.
        message: String,
    },
}

/// [`install_cipher`] found a cipher installed already.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("a cipher is installed already: install one, once, at startup")]
pub struct InstallError;

static CIPHER: RwLock<Option<Arc<dyn Cipher>>> = RwLock::new(None);

/// Install the process's cipher. The first install wins; a second is refused (swap one in
/// with [`replace_cipher`]).
pub fn install_cipher(cipher: Box<dyn Cipher>) -> Result<(), InstallError> {
    let mut slot = CIPHER.write().unwrap_or_else(|e| e.into_inner());
    if slot.is_some() {
        return Err(InstallError);
    }
    *slot = Some(Arc::from(cipher));
    Ok(())
}

/// Put `cipher` in place of the process's (or install it): each item is encrypted,
/// decrypted or beaconed by the cipher in place when it is, so the new one must decrypt
/// what the old one wrote (a rotation's multi-keyring).
pub fn replace_cipher(cipher: Box<dyn Cipher>) {
    *CIPHER.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::from(cipher));
}

/// The installed cipher, for a facet named `facet`.
pub(crate) fn cipher_for(facet: &'static str) -> Result<Arc<dyn Cipher>, CipherError> {
    cipher().ok_or(CipherError::NotInstalled { facet })
}

/// The installed cipher, if any.
pub fn cipher() -> Option<Arc<dyn Cipher>> {
    CIPHER.read().unwrap_or_else(|e| e.into_inner()).clone()
}
