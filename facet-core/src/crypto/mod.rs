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
pub(crate) use cipher::cipher_for;
pub use cipher::{cipher, install_cipher, replace_cipher, Cipher, CipherError, InstallError};
pub use schema::{Action, BeaconSpec, CryptoField, CryptoSchema, FOOTER, HEADER};
