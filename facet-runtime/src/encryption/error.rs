//! Why encryption could not be set up.

use faceteer_core::crypto::InstallError;

/// Why an [`Encryption`](super::Encryption) could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The Material Providers Library refused the keyring's configuration.
    #[error("cannot make the keyring: {0}")]
    Keyring(String),
    /// A raw AES wrapping key is not 16, 24 or 32 bytes long.
    #[error("a raw AES wrapping key is 16, 24 or 32 bytes long, not {0}")]
    KeyLength(usize),
    /// The cipher was installed already.
    #[error(transparent)]
    Installed(#[from] InstallError),
}
