//! What the derive declares about a facet's encrypted, signed and beaconed attributes.

/// The attribute holding the encryption header (the encrypted data keys, the attribute
/// actions, the algorithm suite), as AWS's Database Encryption SDK writes it.
pub const HEADER: &str = "aws_dbe_head";
/// The attribute holding the item's signatures, as AWS's Database Encryption SDK writes it.
pub const FOOTER: &str = "aws_dbe_foot";

/// What happens to an attribute when its item is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `#[encrypt]`: the value is encrypted and signed (`ENCRYPT_AND_SIGN`).
    EncryptAndSign,
    /// `#[sign_only]` (and the table's key attributes): the value stays readable and is
    /// signed (`SIGN_ONLY`).
    SignOnly,
}

/// One attribute of a facet that is encrypted or signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CryptoField {
    /// The stored attribute name.
    pub attribute: &'static str,
    /// Encrypted and signed, or signed only.
    pub action: Action,
}

/// A standard beacon: the truncated HMAC of an encrypted field's key text that keys and index
/// keys hold in place of the value, so that records can be found by equality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BeaconSpec {
    /// The beacon's name: the stored attribute name of its field.
    pub name: &'static str,
    /// How many bits of the HMAC are kept (1 to 63).
    pub length: u8,
}

/// A facet's encryption: its encrypted and signed attributes and its beacons. The table's
/// `PK` and `SK` are always signed; every other attribute (index keys, `facet`, the TTL,
/// unencrypted fields) is neither encrypted nor signed, so updates of plain fields stay
/// updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CryptoSchema {
    /// The facet name.
    pub facet: &'static str,
    /// The encrypted and signed attributes, in declaration order.
    pub fields: &'static [CryptoField],
    /// The beacons of encrypted fields that keys are built from.
    pub beacons: &'static [BeaconSpec],
}

impl CryptoSchema {
    /// The action of `attribute`, when it is one of the facet's encrypted or signed fields.
    pub fn action(&self, attribute: &str) -> Option<Action> {
        self.fields
            .iter()
            .find(|f| f.attribute == attribute)
            .map(|f| f.action)
    }

    /// Whether `attribute` is encrypted.
    pub fn is_encrypted(&self, attribute: &str) -> bool {
        self.action(attribute) == Some(Action::EncryptAndSign)
    }
}
