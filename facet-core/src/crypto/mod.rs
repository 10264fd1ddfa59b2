//! Client-side encryption of a facet's fields: what the derive declares (which attributes are
//! encrypted, signed, beaconed) and the one seam through which an installed [`Cipher`]
//! encrypts items on the way out, decrypts them on the way in and writes beacons into keys.
//!
//! The core holds no cryptography: `faceteer`'s `encryption` feature installs a cipher built
//! on AWS's Database Encryption SDK. A facet without `#[encrypt]`, `#[sign_only]` or
//! `#[beacon]` fields never reaches this module.

mod beacon;
mod cipher;
mod schema;

pub use beacon::Beaconed;
pub use cipher::{cipher, install_cipher, Cipher, CipherError, InstallError};

use cipher::cipher_for;
pub use schema::{Action, BeaconSpec, CryptoField, CryptoSchema, FOOTER, HEADER};

use crate::facet::{Facet, ItemError};
use crate::item::Item;

/// Whether a stored item carries the encryption header (it was written encrypted).
pub fn is_encrypted(item: &Item) -> bool {
    item.contains_key(HEADER)
}

/// Encrypt and sign the item of a record of `F` as the installed cipher does, when `F` has
/// encrypted or signed fields; any other item is returned as it is.
pub fn encrypt_item<F: Facet>(item: Item) -> Result<Item, ItemError> {
    match F::CRYPTO {
        None => Ok(item),
        Some(schema) => {
            let facet = F::SCHEMA.name;
            let cipher =
                cipher_for(facet).map_err(|source| ItemError::Encryption { facet, source })?;
            cipher
                .encrypt(schema, item)
                .map_err(|source| ItemError::Encryption { facet, source })
        }
    }
}

/// Verify and decrypt a stored item of `F` when it was written encrypted. A plaintext item of
/// an encrypted facet is read only when the cipher allows plaintext reads (while a backfill
/// encrypts a facet's existing records); otherwise it is refused
/// ([`CipherError::Plaintext`]). Items of facets without encrypted fields are returned as
/// they are.
pub fn decrypt_item<F: Facet>(item: Item) -> Result<Item, ItemError> {
    let Some(schema) = F::CRYPTO else {
        return Ok(item);
    };
    let facet = F::SCHEMA.name;
    let cipher = cipher_for(facet).map_err(|source| ItemError::Encryption { facet, source })?;
    if is_encrypted(&item) {
        return cipher
            .decrypt(schema, item)
            .map_err(|source| ItemError::Encryption { facet, source });
    }
    if cipher.allows_plaintext_reads() {
        Ok(item)
    } else {
        Err(ItemError::Encryption {
            facet,
            source: CipherError::Plaintext { facet },
        })
    }
}
