//! Client-side encryption of `#[encrypt]` and `#[sign_only]` fields with AWS's Database
//! Encryption SDK for DynamoDB, and beacons that keep encrypted fields findable
//! (feature `encryption`, off by default).
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
mod error;

pub use beacon::BeaconKey;
pub use error::SetupError;
pub use faceteer_core::crypto::{CipherError, InstallError};

use aws_db_esdk::material_providers::client as mpl;
use aws_db_esdk::material_providers::types::material_providers_config::MaterialProvidersConfig;
use aws_db_esdk::material_providers::types::AesWrappingAlg;

/// The keyring that protects each item's data key: a raw AES keyring
/// ([`Encryption::raw_aes_keyring`]) or any keyring of AWS's Material Providers Library
/// (`Keyring::from(keyring_ref)`: AWS KMS, hierarchical, multi-keyrings for rotation).
#[derive(Clone)]
pub struct Keyring(aws_db_esdk::material_providers::types::keyring::KeyringRef);

impl From<aws_db_esdk::material_providers::types::keyring::KeyringRef> for Keyring {
    fn from(keyring: aws_db_esdk::material_providers::types::keyring::KeyringRef) -> Self {
        Keyring(keyring)
    }
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keyring(..)")
    }
}

/// The algorithm suite new items are encrypted with (each item records its own: readers
/// need no setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AlgorithmSuite {
    /// AES-256-GCM, HKDF-SHA512 with key commitment, an HMAC-SHA384 and an ECDSA P-384
    /// signature: readers who can decrypt cannot forge items. The SDK's default.
    #[default]
    EcdsaP384,
    /// The same without the ECDSA signature (HMAC-SHA384 only): faster; anyone who can
    /// decrypt can also write items that verify.
    HmacOnly,
}

impl AlgorithmSuite {
    fn id(self) -> aws_db_esdk::material_providers::types::DbeAlgorithmSuiteId {
        use aws_db_esdk::material_providers::types::DbeAlgorithmSuiteId as Id;
        match self {
            AlgorithmSuite::EcdsaP384 => {
                Id::AlgAes256GcmHkdfSha512CommitKeyEcdsaP384SymsigHmacSha384
            }
            AlgorithmSuite::HmacOnly => Id::AlgAes256GcmHkdfSha512CommitKeySymsigHmacSha384,
        }
    }
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
    /// Keyrings that still decrypt (a rotation's old keys), never encrypt.
    old: Vec<Keyring>,
    suite: Option<AlgorithmSuite>,
    beacon_key: Option<BeaconKey>,
    plaintext_reads: Vec<&'static str>,
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
            old: Vec::new(),
            suite: None,
            beacon_key: None,
            plaintext_reads: Vec::new(),
        }
    }

    /// A raw AES keyring (AES-GCM key wrapping) over `wrapping_key` (16, 24 or 32 bytes),
    /// named by `namespace` and `name` (stored in each item's header; decrypting needs the
    /// same three). For AWS KMS, build a keyring with
    /// [`aws_db_esdk::material_providers`](https://docs.rs/aws-db-esdk)
    /// (`create_aws_kms_mrk_multi_keyring`, `create_aws_kms_hierarchical_keyring`) and pass
    /// `Keyring::from(it)` to [`Encryption::new`].
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
        providers()?
            .create_raw_aes_keyring()
            .key_namespace(namespace)
            .key_name(name)
            .wrapping_key(wrapping_key.to_vec())
            .wrapping_alg(alg)
            .send()
            .await
            .map(Keyring)
            .map_err(|e| SetupError::Keyring(e.to_string()))
    }

    /// The algorithm suite of new items (default [`AlgorithmSuite::EcdsaP384`], the SDK's).
    pub fn algorithm_suite(mut self, suite: AlgorithmSuite) -> Self {
        self.suite = Some(suite);
        self
    }

    /// The key beacons are derived from: needed by facets with `#[beacon]` fields.
    pub fn beacon_key(mut self, key: BeaconKey) -> Self {
        self.beacon_key = Some(key);
        self
    }

    /// Read the items of `F` that are still plaintext, as they are: while a backfill
    /// encrypts the facet's existing records. Off by default (a plaintext item of an
    /// encrypted facet is refused with [`CipherError::Plaintext`]).
    pub fn allow_plaintext_reads<F: faceteer_core::Facet>(mut self) -> Self {
        self.plaintext_reads.push(F::SCHEMA.name);
        self
    }

    /// Decrypt items encrypted under `keyring` too, and never encrypt with it: a key
    /// rotation's old key, kept until a backfill has encrypted every record again under
    /// [`Encryption::new`]'s keyring.
    pub fn decrypt_also(mut self, keyring: Keyring) -> Self {
        self.old.push(keyring);
        self
    }

    /// A keyring that encrypts with `generator` and decrypts with it or any of `children`:
    /// what a key rotation deploys (the new key as generator, the old as a child) before a
    /// backfill encrypts every record again.
    pub async fn multi_keyring(
        generator: Keyring,
        children: Vec<Keyring>,
    ) -> Result<Keyring, SetupError> {
        providers()?
            .create_multi_keyring()
            .generator(generator.0)
            .child_keyrings(children.into_iter().map(|k| k.0).collect::<Vec<_>>())
            .send()
            .await
            .map(Keyring)
            .map_err(|e| SetupError::Keyring(e.to_string()))
    }

    /// Install this as the process's cipher: once, at startup, before any record of an
    /// encrypted facet is read or written or its keys are built. A second install is
    /// refused ([`InstallError`]).
    pub fn install(self) -> Result<(), SetupError> {
        faceteer_core::crypto::install_cipher(Box::new(self.cipher()?))?;
        Ok(())
    }

    /// Put this in place of the process's cipher (or install it): from now on every item
    /// is encrypted, decrypted and beaconed by it. It must decrypt what the one it replaces
    /// wrote: a rotation's new key with the old one in
    /// [`decrypt_also`](Self::decrypt_also), or keys reloaded from a secret store.
    pub fn replace(self) -> Result<(), SetupError> {
        faceteer_core::crypto::replace_cipher(Box::new(self.cipher()?));
        Ok(())
    }

    fn cipher(self) -> Result<cipher::DbEsdk, SetupError> {
        let decrypting = if self.old.is_empty() {
            None
        } else {
            // The Material Providers' operations finish when first polled.
            let multi = Self::multi_keyring(self.keyring.clone(), self.old);
            let keyring = futures::FutureExt::now_or_never(multi).ok_or_else(|| {
                SetupError::Keyring("the multi-keyring was not made at once".into())
            })??;
            Some(keyring.0)
        };
        Ok(cipher::DbEsdk {
            logical_table: self.logical_table,
            keyring: self.keyring.0,
            decrypting,
            suite: self.suite.map(AlgorithmSuite::id),
            beacon_key: self.beacon_key,
            plaintext_reads: self.plaintext_reads,
            encryptors: Default::default(),
        })
    }
}

/// The Material Providers Library's client, which makes keyrings.
fn providers() -> Result<mpl::Client, SetupError> {
    let config = MaterialProvidersConfig::builder()
        .build()
        .map_err(|e| SetupError::Keyring(e.to_string()))?;
    mpl::Client::from_conf(config).map_err(|e| SetupError::Keyring(e.to_string()))
}

/// Install `encryption` as the process's cipher ([`Encryption::install`]).
pub fn install(encryption: Encryption) -> Result<(), SetupError> {
    encryption.install()
}
