//! Why an expression cannot be rendered.

/// Why an expression cannot be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExprError {
    /// A value could not be converted to a DynamoDB attribute value.
    #[error("the value compared with `{field}` cannot be stored: {reason}")]
    Value {
        /// The attribute name.
        field: &'static str,
        /// The serde_dynamo error.
        reason: String,
    },
    /// Two actions of one update touch the same path, or one lies inside the other
    /// (DynamoDB refuses such an update).
    #[error("an update changes both `{first}` and `{second}`, which overlap; change one")]
    OverlappingPaths {
        /// One path.
        first: String,
        /// The other.
        second: String,
    },
    /// An update with no change.
    #[error("the update changes nothing")]
    EmptyUpdate,
    /// An update changes a field an index key or the TTL is built from, and the key also
    /// needs a field the update neither changes nor names as unchanged. Sending the update
    /// (`table.update`, a `transact_write` update step) does not fail with it: the stored
    /// record is read for the value. `plan()`, which sends nothing, cannot show the request.
    #[error(
        "the update changes `{changed}`, and `{attribute}` is also built from `{needed}`, which \
         it does not give: sent, the update reads the stored record for it (one consistent \
         read, the write conditioned on what it read), so `plan()` cannot show the request; \
         to see it (and skip the read), add `fields.{needed_field}.unchanged(value)` \
         (checked against the stored record) or set it too"
    )]
    KeyFieldNeeded {
        /// The derived attribute (`GSI2PK`, `ttl`, …).
        attribute: &'static str,
        /// A changed field it is built from (the attribute name).
        changed: &'static str,
        /// The field it also needs (the attribute name).
        needed: &'static str,
        /// The Rust name of that field.
        needed_field: &'static str,
    },
    /// A derived key could not be built from the update's values.
    #[error("`{attribute}` cannot be rebuilt from the update's values: {source}")]
    Key {
        /// The derived attribute.
        attribute: &'static str,
        /// Why.
        #[source]
        source: crate::key::KeyError,
    },
    /// One update both changes a field and names it unchanged, or names it unchanged with
    /// two values.
    #[error("the update {what} `{field}`; say once what it is")]
    Contradiction {
        /// The attribute name.
        field: &'static str,
        /// What it does twice.
        what: &'static str,
    },
    /// `is_in` was given no values, or more than DynamoDB's 100.
    #[error("`{field}` IN (..) needs 1 to 100 values, got {count}")]
    InListSize {
        /// The attribute name.
        field: &'static str,
        /// How many values were given.
        count: usize,
    },
    /// An attribute is compared with or assigned from another attribute whose values are
    /// stored by another serializer (a `DateTime` kept as text against one kept as epoch
    /// seconds): DynamoDB would compare a string with a number, so the request is not sent.
    #[error(
        "`{left}` (stored by {left_codec}) and `{right}` (stored by {right_codec}) hold the \
         same type but store it differently, so DynamoDB cannot compare or copy one into the \
         other; compare with a value, or store both alike"
    )]
    CodecMismatch {
        /// The attribute compared or assigned.
        left: String,
        /// Its serializer.
        left_codec: &'static str,
        /// The attribute referred to.
        right: String,
        /// Its serializer.
        right_codec: &'static str,
    },
}
