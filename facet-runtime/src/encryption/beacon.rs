//! Standard beacons, as AWS's Database Encryption SDK computes them.

use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Sha384, Sha512};

use faceteer_core::crypto::{BeaconSpec, CipherError};

/// The 32-byte key beacons are derived from. Each beacon's own key is
/// `HKDF-SHA512(beacon key, info = "AWS_DBE_SCAN_BEACON" + beacon name)`, as the DB-ESDK
/// derives it: with the beacon key of a DB-ESDK key store
/// ([`BeaconKey::from_key_store`]) the beacons are the SDK's standard beacons of the same
/// name and length.
#[derive(Clone)]
pub struct BeaconKey([u8; 32]);

impl std::fmt::Debug for BeaconKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BeaconKey(..)")
    }
}

impl BeaconKey {
    /// A beacon key from its 32 bytes (keep it with your other secrets; losing it makes
    /// beaconed keys unreachable by query, never the records unreadable).
    pub fn from_bytes(key: [u8; 32]) -> Self {
        BeaconKey(key)
    }

    /// The beacon key of branch key `branch_key_id` in a DB-ESDK key store (the key store
    /// reads it from its DynamoDB table and decrypts it with AWS KMS).
    pub async fn from_key_store(
        key_store: &aws_db_esdk::key_store::client::Client,
        branch_key_id: &str,
    ) -> Result<Self, super::error::SetupError> {
        let out = key_store
            .get_beacon_key()
            .branch_key_identifier(branch_key_id)
            .send()
            .await
            .map_err(|e| super::error::SetupError::Keyring(e.to_string()))?;
        let key = out
            .beacon_key_materials
            .and_then(|m| m.beacon_key)
            .ok_or_else(|| {
                super::error::SetupError::Keyring("the key store returned no beacon key".into())
            })?;
        let key: [u8; 32] = key
            .into_inner()
            .try_into()
            .map_err(|k: Vec<u8>| super::error::SetupError::KeyLength(k.len()))?;
        Ok(BeaconKey(key))
    }

    /// The beacon of `text` for `beacon`: the rightmost `length` bits of the first 8 bytes
    /// of `HMAC-SHA384(beacon's key, text)`, as lower-case hex of `ceil(length / 4)` digits.
    pub(crate) fn beacon(&self, beacon: &BeaconSpec, text: &str) -> Result<String, CipherError> {
        let fail = |message: String| CipherError::Beacon {
            beacon: beacon.name,
            message,
        };
        let length = u32::from(beacon.length);
        if !(1..=63).contains(&length) {
            return Err(fail(format!("a beacon keeps 1 to 63 bits, not {length}")));
        }
        let mut key = [0u8; 64];
        let info = format!("AWS_DBE_SCAN_BEACON{}", beacon.name);
        Hkdf::<Sha512>::new(None, &self.0)
            .expand(info.as_bytes(), &mut key)
            .map_err(|e| fail(e.to_string()))?;
        let mut mac =
            <Hmac<Sha384> as KeyInit>::new_from_slice(&key).map_err(|e| fail(e.to_string()))?;
        mac.update(text.as_bytes());
        let digest = mac.finalize().into_bytes();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        let bits = u64::from_be_bytes(first) & ((1u64 << length) - 1);
        let digits = length.div_ceil(4) as usize;
        Ok(format!("{bits:0digits$x}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: BeaconSpec = BeaconSpec {
        name: "email",
        length: 10,
    };

    #[test]
    fn a_beacon_is_fixed_width_hex_of_its_length_and_depends_on_key_name_and_text() {
        let key = BeaconKey::from_bytes([1; 32]);
        let a = key.beacon(&SPEC, "ann@example.com").unwrap();
        assert_eq!(a.len(), 3);
        assert!(u64::from_str_radix(&a, 16).unwrap() < 1 << 10);
        assert_eq!(a, key.beacon(&SPEC, "ann@example.com").unwrap());
        let other = BeaconKey::from_bytes([2; 32]);
        let texts: Vec<String> = (0..64).map(|i| format!("user{i}@example.com")).collect();
        let under = |k: &BeaconKey, spec: &BeaconSpec| -> Vec<String> {
            texts.iter().map(|t| k.beacon(spec, t).unwrap()).collect()
        };
        assert_ne!(under(&key, &SPEC), under(&other, &SPEC));
        let renamed = BeaconSpec {
            name: "mail",
            length: 10,
        };
        assert_ne!(under(&key, &SPEC), under(&key, &renamed));
        let distinct: std::collections::HashSet<_> = under(&key, &SPEC).into_iter().collect();
        assert!(
            distinct.len() > 32,
            "64 texts give {} beacons",
            distinct.len()
        );
    }

    #[test]
    fn lengths_outside_1_to_63_are_refused() {
        let key = BeaconKey::from_bytes([1; 32]);
        let zero = BeaconSpec {
            name: "x",
            length: 0,
        };
        assert!(matches!(
            key.beacon(&zero, "a"),
            Err(CipherError::Beacon { .. })
        ));
        let full = BeaconSpec {
            name: "x",
            length: 63,
        };
        assert_eq!(key.beacon(&full, "a").unwrap().len(), 16);
    }
}
