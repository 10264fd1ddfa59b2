//! The cipher [`install`](super::install) sets: AWS's Database Encryption SDK item encryptor,
//! one per facet, over the item's signed attributes only.

use std::collections::HashMap;
use std::sync::Mutex;

use aws_db_esdk::item_encryptor::client::Client as ItemEncryptor;
use aws_db_esdk::item_encryptor::types::dynamo_db_item_encryptor_config::DynamoDbItemEncryptorConfig;
use aws_db_esdk::material_providers::types::keyring::KeyringRef;
use aws_db_esdk::material_providers::types::DbeAlgorithmSuiteId;
use aws_db_esdk::CryptoAction;
use futures::FutureExt;

use faceteer_core::crypto::{
    Action, BeaconSpec, Cipher, CipherError, CryptoSchema, FOOTER, HEADER,
};
use faceteer_core::schema::{PK, SK};
use faceteer_core::Item;

use super::beacon::BeaconKey;

/// The DB-ESDK cipher: the settings of an `Encryption`, and each facet's item encryptor,
/// made when first used.
pub(crate) struct DbEsdk {
    pub(crate) logical_table: String,
    pub(crate) keyring: KeyringRef,
    /// The keyring that decrypts when it is not `keyring`: `keyring` and a rotation's old
    /// keys.
    pub(crate) decrypting: Option<KeyringRef>,
    pub(crate) suite: Option<DbeAlgorithmSuiteId>,
    pub(crate) beacon_key: Option<BeaconKey>,
    pub(crate) plaintext_reads: Vec<&'static str>,
    /// Each facet's encryptor and decryptor.
    pub(crate) encryptors: Mutex<HashMap<(&'static str, bool), ItemEncryptor>>,
}

impl DbEsdk {
    /// The item encryptor of the facet `schema` describes: `PK` and `SK` signed, its
    /// `#[encrypt]` fields encrypted and signed, its `#[sign_only]` fields signed; with the
    /// decrypting keyring when `decrypting`.
    fn encryptor(
        &self,
        schema: &CryptoSchema,
        decrypting: bool,
        fail: &dyn Fn(String) -> CipherError,
    ) -> Result<ItemEncryptor, CipherError> {
        let mut encryptors = self.encryptors.lock().unwrap_or_else(|e| e.into_inner());
        let slot = (schema.facet, decrypting && self.decrypting.is_some());
        if let Some(e) = encryptors.get(&slot) {
            return Ok(e.clone());
        }
        let mut actions = HashMap::from([
            (PK.to_owned(), CryptoAction::SignOnly),
            (SK.to_owned(), CryptoAction::SignOnly),
        ]);
        for f in schema.fields {
            let action = match f.action {
                Action::EncryptAndSign => CryptoAction::EncryptAndSign,
                Action::SignOnly => CryptoAction::SignOnly,
            };
            actions.insert(f.attribute.to_owned(), action);
        }
        let mut config = DynamoDbItemEncryptorConfig::builder()
            .logical_table_name(self.logical_table.clone())
            .partition_key_name(PK)
            .sort_key_name(SK)
            .attribute_actions_on_encrypt(actions)
            .keyring(match (&self.decrypting, slot.1) {
                (Some(both), true) => both.clone(),
                _ => self.keyring.clone(),
            });
        if let Some(suite) = self.suite {
            config = config.algorithm_suite_id(suite);
        }
        let config = config.build().map_err(|e| fail(e.to_string()))?;
        let encryptor = ItemEncryptor::from_conf(config).map_err(|e| fail(e.to_string()))?;
        encryptors.insert(slot, encryptor.clone());
        Ok(encryptor)
    }
}

/// `item` split into the attributes the encryptor sees (the key, the facet's encrypted and
/// signed fields, the header and footer) and the rest, which is neither encrypted nor signed.
fn split(schema: &CryptoSchema, item: Item) -> (Item, Item) {
    item.into_iter().partition(|(name, _)| {
        name == PK
            || name == SK
            || name == HEADER
            || name == FOOTER
            || schema.action(name).is_some()
    })
}

/// The SDK's operations do their work when first polled (the keyrings that call AWS KMS
/// block inside): their futures are ready at once.
fn now<T>(f: impl std::future::Future<Output = T>) -> Option<T> {
    f.now_or_never()
}

impl Cipher for DbEsdk {
    fn encrypt(&self, schema: &CryptoSchema, item: Item) -> Result<Item, CipherError> {
        let facet = schema.facet;
        let fail = |message: String| CipherError::Encrypt { facet, message };
        let encryptor = self.encryptor(schema, false, &fail)?;
        let (signed, mut rest) = split(schema, item);
        let out = now(encryptor.encrypt_item().plaintext_item(signed).send())
            .ok_or_else(|| fail("the encryption SDK did not finish".into()))?
            .map_err(|e| fail(e.to_string()))?;
        let encrypted = out
            .encrypted_item
            .ok_or_else(|| fail("the encryption SDK returned no item".into()))?;
        rest.extend(encrypted);
        Ok(rest)
    }

    fn decrypt(&self, schema: &CryptoSchema, item: Item) -> Result<Item, CipherError> {
        let facet = schema.facet;
        let fail = |message: String| CipherError::Decrypt { facet, message };
        let encryptor = self.encryptor(schema, true, &fail)?;
        let (signed, mut rest) = split(schema, item);
        let out = now(encryptor.decrypt_item().encrypted_item(signed).send())
            .ok_or_else(|| fail("the encryption SDK did not finish".into()))?
            .map_err(|e| fail(e.to_string()))?;
        let plain = out
            .plaintext_item
            .ok_or_else(|| fail("the encryption SDK returned no item".into()))?;
        rest.extend(plain);
        rest.remove(HEADER);
        rest.remove(FOOTER);
        Ok(rest)
    }

    fn beacon(&self, beacon: &BeaconSpec, text: &str) -> Result<String, CipherError> {
        match &self.beacon_key {
            Some(key) => key.beacon(beacon, text),
            None => Err(CipherError::Beacon {
                beacon: beacon.name,
                message: "no beacon key is set: `Encryption::beacon_key(..)`".into(),
            }),
        }
    }

    fn allows_plaintext_reads(&self, facet: &str) -> bool {
        self.plaintext_reads.contains(&facet)
    }
}
