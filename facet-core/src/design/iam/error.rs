//! Why a design's policy documents cannot be written.

/// Where a partition key is: a facet's table key, or its key of an index.
fn place(facet: &str, index: &Option<&'static str>) -> String {
    match index {
        Some(index) => format!("facet `{facet}`'s partition key of index `{index}`"),
        None => format!("facet `{facet}`'s partition key"),
    }
}

/// Why [`iam_policies`](super::iam_policies) or
/// [`cloudformation_with_policies`](super::cloudformation_with_policies) cannot write a
/// design's policies: each names the facet, index, field or policy at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IamError {
    /// A scope's principal tag is not a tag key IAM accepts in a policy variable.
    #[error(
        "the scope of `{field}` names principal tag `{tag}`: a tag key is 1 to 128 of the \
         characters A-Z, a-z, 0-9 and _ . : / = + - @"
    )]
    InvalidTag {
        /// The scope's field.
        field: String,
        /// The tag as given.
        tag: String,
    },
    /// No facet's partition key (of the table or of an index) is built from a scope's
    /// field: a misspelled scope would otherwise leave every document unscoped.
    #[error("no facet's partition key is built from scope field `{field}`")]
    UnusedScope {
        /// The field.
        field: String,
    },
    /// A scope field is in a partition key after a value that is not a scope's: the key's
    /// text cannot be matched from its start.
    #[error(
        "{} (`{key}`) has scope field `{field}` after `{after}`, which no scope gives: \
         a partition can be scoped only by the key's first values",
        place(.facet, .index)
    )]
    ScopeNotLeading {
        /// The facet.
        facet: &'static str,
        /// The index, by the table's name (`None`: the table).
        index: Option<&'static str>,
        /// The scope field.
        field: &'static str,
        /// The field before it that is not a scope's.
        after: &'static str,
        /// The key's pattern.
        key: String,
    },
    /// An optional scope field is followed by another value: a record without it would
    /// have a key that reads as a scoped one.
    #[error(
        "{} has optional scope field `{field}` followed by another value: a record without \
         it could match a scope's partitions",
        place(.facet, .index)
    )]
    OptionalScope {
        /// The facet.
        facet: &'static str,
        /// The index, by the table's name (`None`: the table).
        index: Option<&'static str>,
        /// The scope field.
        field: &'static str,
    },
    /// A scope field is a key attribute of a native (multi-attribute) index, whose
    /// partition `dynamodb:LeadingKeys` cannot name.
    #[error(
        "facet `{facet}` keys native index `{index}` by scope field `{field}`: \
         dynamodb:LeadingKeys cannot scope a multi-attribute partition key"
    )]
    NativeIndex {
        /// The facet.
        facet: &'static str,
        /// The index, by the table's name.
        index: &'static str,
        /// The scope field.
        field: &'static str,
    },
    /// A scoped partition key is sharded over more shard ids than a policy can list.
    #[error(
        "{} is sharded over {shards} shard ids, more than the {max} a scoped policy lists \
         (IAM policies hold at most 6,144 characters)",
        place(.facet, .index)
    )]
    TooManyShards {
        /// The facet.
        facet: &'static str,
        /// The index, by the table's name (`None`: the table).
        index: Option<&'static str>,
        /// How many shard ids the key has.
        shards: usize,
        /// The most a policy lists.
        max: usize,
    },
    /// On the table or an index holding scoped partitions, another facet's partitions
    /// (whose pattern does not name the same scopes) can be keys of those partitions: the
    /// other facet's pattern would open them to every scope.
    #[error(
        "on {resource}, facet `{facet}`'s partitions `{pattern}` can match facet \
         `{other}`'s partitions `{other_pattern}`, which are scoped otherwise: give them \
         distinct prefixes"
    )]
    Overlap {
        /// The table, or `index <name>`.
        resource: String,
        /// One facet.
        facet: &'static str,
        /// Its partition pattern.
        pattern: String,
        /// The other facet.
        other: &'static str,
        /// Its partition pattern.
        other_pattern: String,
    },
    /// A document is longer than IAM allows a managed policy.
    #[error(
        "policy `{policy}` would hold {chars} characters (without white space), over the \
         {limit} IAM allows a managed policy"
    )]
    TooLarge {
        /// The policy's name.
        policy: String,
        /// Its length without white space.
        chars: usize,
        /// IAM's limit.
        limit: usize,
    },
}
