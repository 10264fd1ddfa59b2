//! Client-side encryption of `#[encrypt]` and `#[sign_only]` fields with AWS's Database
//! Encryption SDK for DynamoDB, and beacons that keep encrypted fields findable
//! (feature `encryption`, off by default). The guide page is
//! [`faceteer::guide::encryption`](crate::guide::encryption).
//!
//! - An item is encrypted and signed by the SDK's item encryptor, in its own format
//!   (`aws_dbe_head`, `aws_dbe_foot`): the DB-ESDK of any language decrypts it with the same
//!   keyring, logical table name and attribute actions.
//! - A `#[beacon(length = N)]` field's keys hold the SDK's standard beacon of its key text
//!   (HMAC-SHA384 under a key derived from the beacon key, truncated to `N` bits, as hex).
//! - [`install`] sets the process's one cipher: a facet's keys are the same wherever they are
//!   built, so its keys and beacon key are process-wide facts, like its schema.

mod beacon;
mod cipher;

pub use aws_db_esdk::material_providers::types::keyring::KeyringRef as Keyring;
pub use aws_db_esdk::material_providers::types::DbeAlgorithmSuiteId as AlgorithmSuite;
pub use beacon::BeaconKey;
pub use faceteer_core::crypto::{CipherError, InstallError};

use aws_db_esdk::material_providers::client as mpl;
use aws_db_esdk::material_providers::types::material_providers_config::MaterialProvidersConfig;
use aws_db_esdk::material_providers::types::AesWrappingAlg;

/// Why an [`Encryption`] could not be set up.
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

/// How the process encrypts: the keyring that protects each item's data key, the logical
/// table name bound into every item, the algorithm suite, the beacon key, and whether
/// plaintext items of encrypted facets may still be read.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use faceteer::encryption::{BeaconKey, Encryption};
/// let wrapping_key = [7u8; 32]; // from your secret store
/// let keyring = Encryption::raw_aes_keyring("my-app", "items-key-1", &wrapping_key).await?;
/// Encryption::new("my-table", keyring)
///     .beacon_key(BeaconKey::from_bytes([9u8; 32]))
///     .install()?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Encryption {
    logical_table: String,
    keyring: Keyring,
    suite: Option<AlgorithmSuite>,
    beacon_key: Option<BeaconKey>,
    plaintext_reads: bool,
}

impl std::fmt::Debug for Encryption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encryption")
            .field("logical_table", &self.logical_table)
            .field("suite", &self.suite)
            .field("beacon_key", &self.beacon_key)
            .field("plaintext_reads", &self.plaintext_reads)
            .finish_non_exhaustive()
    }
}

impl Encryption {
    /// Encrypt with `keyring`, binding `logical_table` into every item (every reader and
    /// writer of the table uses the same name; it need not be the physical table's).
    pub fn new(logical_table: impl Into<String>, keyring: Keyring) -> Self {
        Encryption {
            logical_table: logical_table.into(),
            keyring,
            suite: None,
            beacon_key: None,
            plaintext_reads: false,
        }
    }

    /// A raw AES keyring (AES-GCM key wrapping) over `wrapping_key` (16, 24 or 32 bytes),
    /// named by `namespace` and `name` (stored in each item's header; decrypting needs the
    /// same three). For AWS KMS, build a keyring with
    /// [`aws_db_esdk::material_providers`](https://docs.rs/aws-db-esdk)
    /// (`create_aws_kms_mrk_multi_keyring`, `create_aws_kms_hierarchical_keyring`) and pass it
    /// to [`Encryption::new`].
    pub async fn raw_aes_keyring(
        namespace: &str,
        name: &str,
        wrapping_key: &[u8],
    ) -> Result<Keyring, SetupError> {
        let alg = match wrapping_key.len() {
            16 => AesWrappingAlg::AlgAes128GcmIv12Tag16,
            24 => AesWrappingAlg::AlgAes192GcmIv12Tag16,
            32 => AesWrappingAlg::AlgAes256GcmIv12Tag16,
            n => return Err(SetupError::KeyLength(n)),
        };
        let config = MaterialProvidersConfig::builder()
            .build()
            .map_err(|e| SetupError::Keyring(e.to_string()))?;
        let providers =
            mpl::Client::from_conf(config).map_err(|e| SetupError::Keyring(e.to_string()))?;
        providers
            .create_raw_aes_keyring()
            .key_namespace(namespace)
            .key_name(name)
            .wrapping_key(wrapping_key.to_vec())
            .wrapping_alg(alg)
            .send()
            .await
            .map_err(|e| SetupError::Keyring(e.to_string()))
    }

    /// The algorithm suite of new items (default: the SDK's,
    /// `AlgAes256GcmHkdfSha512CommitKeyEcdsaP384SymsigHmacSha384`, with an ECDSA signature
    /// readers cannot forge; `AlgAes256GcmHkdfSha512CommitKeySymsigHmacSha384` signs with
    /// HMAC only, faster). Items record their suite: readers need no setting.
    pub fn algorithm_suite(mut self, suite: AlgorithmSuite) -> Self {
        self.suite = Some(suite);
        self
    }

    /// The key beacons are derived from: needed by facets with `#[beacon]` fields.
    pub fn beacon_key(mut self, key: BeaconKey) -> Self {
        self.beacon_key = Some(key);
        self
    }

    /// Read items of encrypted facets that are still plaintext, as they are: while a
    /// backfill encrypts a facet's existing records. Off by default (a plaintext item is
    /// refused with [`CipherError::Plaintext`]).
    pub fn allow_plaintext_reads(mut self) -> Self {
        self.plaintext_reads = true;
        self
    }

    /// Install this as the process's cipher: once, at startup, before any record of an
    /// encrypted facet is read or written or its keys are built. A second install is
    /// refused ([`InstallError`]).
    pub fn install(self) -> Result<(), SetupError> {
        let cipher = cipher::DbEsdk::new(self);
        faceteer_core::crypto::install_cipher(Box::new(cipher))?;
        Ok(())
    }
}

/// Install `encryption` as the process's cipher ([`Encryption::install`]).
pub fn install(encryption: Encryption) -> Result<(), SetupError> {
    encryption.install()
}
