//! Least-privilege IAM policy documents derived from a table's design: one per role
//! ([`Role`]: read-only, writer, operations) and one per access pattern, naming exactly the
//! DynamoDB actions and the table, index and stream ARNs each needs.
//!
//! [`iam_policies`] writes them with concrete ARNs ([`IamTarget`]: partition, region,
//! account, `aws`, `*`, `*` unless told); [`cloudformation_with_policies`] adds them to the
//! [`cloudformation`](super::cloudformation) template as `AWS::IAM::ManagedPolicy`
//! resources whose ARNs refer to the table resource.
//!
//! # Roles
//!
//! * read-only: `GetItem`, `BatchGetItem`, `Query`, `ConditionCheckItem` on the table,
//!   `Query` on each secondary index, `SearchVectors` on each vector index, and
//!   `DescribeTable`, `DescribeTimeToLive`, `DescribeContinuousBackups` and
//!   `ListTagsOfResource` (`verify` checks a table against its facets and settings with them);
//! * writer: the same, and `PutItem`, `UpdateItem`, `DeleteItem`, `BatchWriteItem`;
//! * operations: creating and updating the table (`CreateTable`, `UpdateTable`, TTL,
//!   continuous backups, tags), every item action and `Scan` on the table and `Query`/`Scan`
//!   on its indexes (backfills, counts), and reads of its stream on `table/<name>/stream/*`
//!   when it has one. `DeleteTable` is never granted.
//!
//! Transactions have no actions of their own: `TransactWriteItems` needs the `PutItem`,
//! `UpdateItem`, `DeleteItem` or `ConditionCheckItem` of each of its items, and
//! `TransactGetItems` their `GetItem`; the roles above grant them.
//!
//! # Access patterns
//!
//! Each facet's reads ([`access_patterns`](super::access_patterns)): "get one"
//! (`GetItem`, `BatchGetItem` on the table), "query the partition" (`Query` on the table),
//! "query `<index>`" (`Query` on that index's ARN), and "search `<vector index>`"
//! (`SearchVectors` on its ARN). A read's policy names nothing else.
//!
//! # Scopes
//!
//! With [`IamScope`]s (a facet field and a principal tag, `team` → `aws:PrincipalTag/team`),
//! the partitions keyed by a scope field are reachable only with the principal's own tag
//! value, so DynamoDB itself refuses every other tenant's partitions:
//!
//! * A facet whose table partition key is built from a scope field is *bound* to it. Every
//!   statement on the table (and on an index holding bound facets' records, or keyed by a
//!   scope field) names the partitions it may reach with
//!   `ForAllValues:StringLike` on `dynamodb:LeadingKeys`: the key's text, the prefix and
//!   delimiters literal (`*`, `?`, `$` written `${*}`, `${?}`, `${$}`), each scope field
//!   `${aws:PrincipalTag/<tag>}`, the values after it `<delimiter>*`, one pattern per shard
//!   id of a sharded key (at most [`MAX_SCOPED_SHARDS`]). The partitions of facets bound to
//!   no scope are named too, every value a `*`, so that a scoped role still reads them; a
//!   facet whose pattern could match another's scoped partitions is refused
//!   ([`IamError::Overlap`]).
//! * Such statements also require the key and the tag (`Null` … `false`: `ForAllValues` holds
//!   for a request naming no key), and name only actions on which IAM evaluates
//!   `dynamodb:LeadingKeys` (`GetItem`, `BatchGetItem`, `Query`, `PutItem`, `UpdateItem`,
//!   `DeleteItem`, `BatchWriteItem`, `ConditionCheckItem`).
//! * Each document with a scoped statement denies its actions to a principal whose tag value
//!   holds a key delimiter, ends with the start of a multi-character one, or holds `*` or
//!   `?`: tenant `a_b` would otherwise match tenant `a`'s partitions `#T_a_b…`.
//! * A scope field must be among a key's first values (after its shard id), and an optional
//!   one must end the key; a native (multi-attribute) index cannot be keyed by one. Each is
//!   refused with an [`IamError`] naming the facet, index and field.
//! * On an index, `dynamodb:LeadingKeys` is the index's partition key value. AWS documents
//!   it for tables; for a global index this is an observed behaviour, not AWS text.
//! * What cannot be scoped is left out of the role policies, with a note
//!   ([`IamPolicy::notes`]): `Scan` and `SearchVectors` (DynamoDB applies no fine-grained
//!   access control to them), a bound facet's index keyed by no scope field. Their
//!   access-pattern policies still exist, each saying in its notes and description that it
//!   is not scoped. The operations role is never scoped.
//! * Unique values (`#[unique]`): a write puts and deletes guard items in partitions
//!   `$unique#<facet>#<field>#<length>:<value>…` ([`crate::unique`]). Their keys write each
//!   value after its length, which no `StringLike` pattern can pin, so a scoped writer gets
//!   `PutItem` and `DeleteItem` on every guard partition of the design's unique fields
//!   (and nothing else there), not scoped; its notes say so. A tenant's writer can therefore
//!   take or release another tenant's unique value, but not read or write its records.
//!
//! Documents are deterministic (no clock, no environment). `parliament` 1.6.4 does not
//! know `dynamodb:SearchVectors` and reports it as an unknown action.
//!
//! ```
//! use faceteer_core::design::iam::{iam_policies, IamOptions, IamScope, PolicyKind, Role};
//! use faceteer_core::design::{FacetDesign, TableDesign};
//! use faceteer_core::schema::{FacetSchema, KeySchema};
//!
//! const fn key(attribute: &'static str, prefix: &'static str, fields: &'static [&'static str]) -> KeySchema {
//!     KeySchema { attribute, prefix, no_prefix: false, fields, optional: &[false, false], shard: None }
//! }
//! const PROJECT: FacetSchema = FacetSchema {
//!     name: "PROJECT",
//!     delimiter: "_",
//!     pk: key("PK", "#TEAM", &["team"]),
//!     sk: key("SK", "#PROJECT", &["projectId"]),
//!     indexes: &[],
//!     ttl_field: None,
//!     unique: &[],
//!     vectors: &[],
//! };
//! let facets = [FacetDesign::new(&PROJECT, &[])];
//! let design = TableDesign::new("projects", &facets);
//! const SCOPES: [IamScope<'static>; 1] = [IamScope::new("team", "team")];
//! let policies = iam_policies(&design, &IamOptions::new().scoped(&SCOPES)).unwrap();
//! assert_eq!(policies[0].kind, PolicyKind::Role(Role::ReadOnly));
//! assert_eq!(policies[0].name, "ProjectsReadOnly");
//! let read = &policies[0].document["Statement"][0];
//! assert_eq!(
//!     read["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"][0],
//!     "#TEAM_${aws:PrincipalTag/team}"
//! );
//! ```

mod actions;
mod cloudformation;
mod document;
mod error;
mod glob;
mod grant;
mod json;
mod names;
mod options;
mod patterns;
mod plan;
mod planned;
mod reach;
mod roles;
mod scope;
#[cfg(test)]
mod tests;

pub use cloudformation::cloudformation_with_policies;
pub use document::MAX_POLICY_CHARS;
pub use error::IamError;
pub use options::{IamOptions, IamPolicy, IamScope, IamTarget, PolicyKind, Role};
pub use plan::iam_policies;
pub use scope::MAX_SCOPED_SHARDS;
