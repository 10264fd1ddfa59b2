//! What a vector search refuses before sending.

/// A vector search DynamoDB would refuse, or that could never match, caught before the
/// request.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VectorError {
    /// The query vector has another dimension count than the index.
    #[error("vector index `{index}` has {expected} dimensions; the query vector has {found}")]
    Dimensions {
        /// The index.
        index: &'static str,
        /// Its dimensions.
        expected: u32,
        /// The query vector's.
        found: usize,
    },
    /// A value of the query vector is not a finite number.
    #[error("value {position} of the query vector for `{index}` is {value}, not a finite number")]
    NotFinite {
        /// The index.
        index: &'static str,
        /// Its position.
        position: usize,
        /// The value.
        value: f32,
    },
    /// `top_k` is outside DynamoDB's 1 to 100.
    #[error("a vector search returns 1 to 100 records (`top_k`), not {0}")]
    TopK(u32),
    /// The filter reads an attribute the index's search schema does not hold.
    #[error(
        "the filter reads `{attribute}`, which vector index `{index}` does not hold in its \
         search schema (its filters: {filters}); add it to `#[vector(filters(..))]`, or filter \
         the records after the search"
    )]
    FilterAttribute {
        /// The index.
        index: &'static str,
        /// The attribute.
        attribute: String,
        /// The attributes it can filter on.
        filters: String,
    },
}
