//! Why a record could not be turned into an item or back.

use crate::key::KeyError;

/// Why a record could not be turned into an item or back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ItemError {
    /// The record's key could not be built.
    #[error("cannot build the key of a `{facet}` record: {source}")]
    Key {
        /// The facet name.
        facet: &'static str,
        /// The key error.
        #[source]
        source: KeyError,
    },
    /// serde_dynamo could not serialize the record.
    #[error("cannot serialize a `{facet}` record: {source}")]
    Serialize {
        /// The facet name.
        facet: &'static str,
        /// The serde_dynamo error.
        #[source]
        source: serde_dynamo::Error,
    },
    /// The stored item does not deserialize into the facet's type.
    #[error("a stored item is not a valid `{facet}` record: {source}")]
    Deserialize {
        /// The facet name.
        facet: &'static str,
        /// The serde_dynamo error.
        #[source]
        source: serde_dynamo::Error,
    },
    /// The item could not be encrypted, or a stored item could not be verified or
    /// decrypted ([`crate::crypto`]).
    #[error("{source}")]
    Encryption {
        /// The facet name.
        facet: &'static str,
        /// What the cipher said.
        #[source]
        source: crate::crypto::CipherError,
    },
    /// The item breaks a DynamoDB limit (size, key length, number); nothing was sent.
    #[error("a `{facet}` record cannot be stored: {source}")]
    Limit {
        /// The facet name.
        facet: &'static str,
        /// The limit broken.
        #[source]
        source: crate::limits::LimitError,
    },
    /// The facet's validator rejected the record.
    #[error("a `{facet}` record failed validation: {message}")]
    Validation {
        /// The facet name.
        facet: &'static str,
        /// The validator's message.
        message: String,
    },
    /// A hook refused the record ([`Veto`](super::veto::Veto)): a record read that a hook's
    /// `after_read` refused, or one of a batch a hook's `before_write` refused (nothing of it
    /// was written).
    #[error("a `{facet}` record was refused: {veto}")]
    Refused {
        /// The facet name.
        facet: &'static str,
        /// The hook's refusal.
        veto: super::veto::Veto,
    },
    /// The item was stored at a schema version the facet cannot read: newer than the one it
    /// declares (written by newer code), older with no upgrade, or not a version number.
    #[error(
        "a stored `{facet}` item is at schema version {found}, which this code (at version \
         {current}) cannot read"
    )]
    SchemaVersion {
        /// The facet name.
        facet: &'static str,
        /// The stored `_facet_version` value, as text.
        found: String,
        /// The version the facet declares.
        current: u32,
    },
    /// The stored item belongs to another facet.
    #[error("expected a `{expected}` item, found a `{found}` item")]
    WrongFacet {
        /// The facet asked for.
        expected: &'static str,
        /// The `facet` attribute of the item.
        found: String,
    },
    /// The record serializes an attribute under a name faceteer writes itself (`PK`, `SK`,
    /// `GSI<n>PK`, `GSI<n>SK`, `LSI<n>SK`, `facet`, `ttl`, `_faceteer_write`,
    /// `_facet_version`; see [`crate::schema::is_library_attribute`]), which no field of the
    /// facet declares: an entry of a `#[serde(flatten)]` map, most likely. Stored, it would
    /// be overwritten by the library's attribute, or make the item unreadable; nothing was
    /// sent.
    #[error(
        "a `{facet}` record holds an attribute named `{attribute}`, a name faceteer reserves \
         for its own attributes (PK, SK, GSI<n>PK, GSI<n>SK, LSI<n>SK, facet, ttl, \
         _faceteer_write, _facet_version); it would overwrite or hide the library's attribute: \
         rename the map entry (or the member that serializes under that name)"
    )]
    ReservedAttribute {
        /// The facet name.
        facet: &'static str,
        /// The reserved attribute name the record serialized.
        attribute: String,
    },
}

impl ItemError {
    /// [`ItemError::Deserialize`], with the values serde's message quotes masked when the
    /// facet has `#[sensitive]` fields ([`crate::redact::message`]).
    pub fn deserialize(facet: &'static str, source: serde_dynamo::Error) -> Self {
        if crate::redact::sensitive_attributes(facet).is_empty() {
            return ItemError::Deserialize { facet, source };
        }
        let masked = crate::redact::message(&source.to_string());
        ItemError::Deserialize {
            facet,
            source: <serde_dynamo::Error as serde::de::Error>::custom(masked),
        }
    }
}
