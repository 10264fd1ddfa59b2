//! The DynamoDB actions of each role and each access pattern, and which of them IAM can
//! condition on `dynamodb:LeadingKeys` or grant on an index.
//!
//! Transactions have no actions of their own: `TransactWriteItems` is allowed by the
//! `PutItem`, `UpdateItem`, `DeleteItem` and `ConditionCheckItem` of each of its items,
//! `TransactGetItems` by `GetItem`, each on its item's table and partition.

/// A get of one record by its key, one at a time or in batches.
pub(crate) const GET: &[&str] = &["BatchGetItem", "GetItem"];
/// A query (of the table, or of an index on the index's ARN).
pub(crate) const QUERY: &[&str] = &["Query"];
/// A vector search (on the vector index's ARN).
pub(crate) const SEARCH: &[&str] = &["SearchVectors"];
/// Every read of items, a transaction's condition checks among them.
pub(crate) const READ: &[&str] = &["BatchGetItem", "ConditionCheckItem", "GetItem", "Query"];
/// Every write of items, beside [`READ`].
pub(crate) const WRITE: &[&str] = &["BatchWriteItem", "DeleteItem", "PutItem", "UpdateItem"];
/// What a write does to the guard items of unique values (in its transaction).
pub(crate) const GUARD: &[&str] = &["DeleteItem", "PutItem"];
/// The table's description, which faceteer reads to check a table against its facets
/// (`verify`: its keys, indexes and settings, expiry, backups and tags).
pub(crate) const DESCRIBE: &[&str] = &[
    "DescribeContinuousBackups",
    "DescribeTable",
    "DescribeTimeToLive",
    "ListTagsOfResource",
];
/// Creating and changing the table: its indexes, stream, TTL, backups and tags.
pub(crate) const MANAGE: &[&str] = &[
    "CreateTable",
    "DescribeContinuousBackups",
    "DescribeTable",
    "DescribeTimeToLive",
    "ListTagsOfResource",
    "TagResource",
    "UntagResource",
    "UpdateContinuousBackups",
    "UpdateTable",
    "UpdateTimeToLive",
];
/// What creating or updating a table encrypted with a customer-managed KMS key needs on
/// the key: DynamoDB describes it, and creates a grant in the caller's name (allowed only
/// for AWS resources).
pub(crate) const KMS_DESCRIBE_KEY: &[&str] = &["kms:DescribeKey"];
/// See [`KMS_DESCRIBE_KEY`].
pub(crate) const KMS_GRANT: &[&str] = &["kms:CreateGrant"];
/// Backfills, counts and repairs: every item action, scans among them.
pub(crate) const BACKFILL: &[&str] = &[
    "BatchGetItem",
    "BatchWriteItem",
    "ConditionCheckItem",
    "DeleteItem",
    "GetItem",
    "PutItem",
    "Query",
    "Scan",
    "UpdateItem",
];
/// Reads of every index, whole (backfills, counts).
pub(crate) const SCAN_INDEX: &[&str] = &["Query", "Scan"];
/// Reading the table's stream (`table/<name>/stream/*`).
pub(crate) const STREAM: &[&str] = &["DescribeStream", "GetRecords", "GetShardIterator"];

/// The actions on which IAM evaluates `dynamodb:LeadingKeys` (besides PartiQL's, which
/// faceteer does not use): a statement conditioned on it names no other.
pub(crate) const LEADING_KEYS: &[&str] = &[
    "BatchGetItem",
    "BatchWriteItem",
    "ConditionCheckItem",
    "DeleteItem",
    "GetItem",
    "PutItem",
    "Query",
    "UpdateItem",
];

/// The actions IAM grants on an index's ARN.
pub(crate) const ON_INDEX: &[&str] = &["Query", "Scan", "SearchVectors"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_actions_support_leading_keys() {
        for action in READ
            .iter()
            .chain(WRITE)
            .chain(GUARD)
            .chain(GET)
            .chain(QUERY)
        {
            assert!(LEADING_KEYS.contains(action), "{action}");
        }
        for action in SEARCH.iter().chain(DESCRIBE).chain(MANAGE).chain(STREAM) {
            assert!(!LEADING_KEYS.contains(action), "{action}");
        }
        assert!(!LEADING_KEYS.contains(&"Scan"));
        for action in SCAN_INDEX.iter().chain(QUERY).chain(SEARCH) {
            assert!(ON_INDEX.contains(action), "{action}");
        }
    }
}
