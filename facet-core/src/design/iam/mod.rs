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
//!   `DescribeTable` (faceteer checks a table against its facets with it);
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
mod patterns;
mod reach;
mod roles;
mod scope;
#[cfg(test)]
mod tests;

pub use cloudformation::cloudformation_with_policies;
pub use document::MAX_POLICY_CHARS;
pub use error::IamError;
pub use scope::MAX_SCOPED_SHARDS;

use super::TableDesign;

/// A scope: a facet field whose value a principal tag gives, `team` → `aws:PrincipalTag/team`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IamScope<'a> {
    /// The field, by its attribute name, as facets' keys name it.
    pub field: &'a str,
    /// The principal tag's key (`team`: `aws:PrincipalTag/team`).
    pub tag: &'a str,
}

impl<'a> IamScope<'a> {
    /// Field `field`, scoped by principal tag `tag`.
    pub const fn new(field: &'a str, tag: &'a str) -> Self {
        IamScope { field, tag }
    }

    /// The condition key of the tag: `aws:PrincipalTag/<tag>`.
    pub fn condition_key(&self) -> String {
        format!("aws:PrincipalTag/{}", self.tag)
    }
}

/// Where the ARNs point: the partition, region and account of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IamTarget<'a> {
    /// The AWS partition (`aws`, `aws-cn`, `aws-us-gov`).
    pub partition: &'a str,
    /// The region (`us-east-1`), or `*`.
    pub region: &'a str,
    /// The account id, or `*`.
    pub account: &'a str,
}

impl<'a> IamTarget<'a> {
    /// Partition `aws`, any region, any account.
    pub const fn new() -> Self {
        IamTarget {
            partition: "aws",
            region: "*",
            account: "*",
        }
    }

    /// The same target in partition `partition`.
    pub const fn in_partition(mut self, partition: &'a str) -> Self {
        self.partition = partition;
        self
    }

    /// The same target in region `region`.
    pub const fn in_region(mut self, region: &'a str) -> Self {
        self.region = region;
        self
    }

    /// The same target in account `account`.
    pub const fn in_account(mut self, account: &'a str) -> Self {
        self.account = account;
        self
    }
}

impl Default for IamTarget<'_> {
    fn default() -> Self {
        IamTarget::new()
    }
}

/// What [`iam_policies`] writes: the scopes, and where the ARNs point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IamOptions<'a> {
    /// The scopes (none: no document is scoped). A field named twice is scoped by its first.
    pub scopes: &'a [IamScope<'a>],
    /// Where the ARNs point.
    pub target: IamTarget<'a>,
}

impl<'a> IamOptions<'a> {
    /// No scopes, ARNs in partition `aws`, any region and account.
    pub const fn new() -> Self {
        IamOptions {
            scopes: &[],
            target: IamTarget::new(),
        }
    }

    /// The same options with `scopes`.
    pub const fn scoped(mut self, scopes: &'a [IamScope<'a>]) -> Self {
        self.scopes = scopes;
        self
    }

    /// The same options with ARNs pointing at `target`.
    pub const fn with_target(mut self, target: IamTarget<'a>) -> Self {
        self.target = target;
        self
    }
}

impl Default for IamOptions<'_> {
    fn default() -> Self {
        IamOptions::new()
    }
}

/// A role a service takes on the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Reads of items and indexes, vector searches, `DescribeTable`.
    ReadOnly,
    /// Reads and writes of items.
    Writer,
    /// The table's management, scans, backfills and stream reads.
    Operations,
}

impl Role {
    /// The role's name in policy names: `ReadOnly`, `Writer`, `Operations`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::ReadOnly => "ReadOnly",
            Role::Writer => "Writer",
            Role::Operations => "Operations",
        }
    }
}

/// What a policy is for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// A role.
    Role(Role),
    /// One access pattern of one facet.
    Pattern {
        /// The facet.
        facet: &'static str,
        /// The pattern, as [`AccessPattern::name`](super::AccessPattern::name) names it
        /// (`get one`, `query GSI2 (byStatus)`), or `search <vector index>`.
        pattern: String,
    },
}

/// One policy document and what it is for.
#[derive(Debug, Clone, PartialEq)]
pub struct IamPolicy {
    /// Its name, letters and digits (a CloudFormation logical id): the table's logical id
    /// ([`cloudformation`](super::cloudformation)), then the role (`AppReadOnly`) or the
    /// facet and the pattern (`AppOrderQueryGsi2ByStatus`); unique in a design.
    pub name: String,
    /// What it is for.
    pub kind: PolicyKind,
    /// One line on what it allows, and how it is scoped.
    pub description: String,
    /// What it leaves out or does not scope, and why.
    pub notes: Vec<String>,
    /// The IAM policy document (`Version` `2012-10-17`, a `Sid` per statement), with
    /// concrete ARNs.
    pub document: serde_json::Value,
}

impl IamPolicy {
    /// The document as indented JSON text, its keys in the usual order (`Version`,
    /// `Statement`; `Sid`, `Effect`, `Action`, `Resource`, `Condition`).
    pub fn to_json(&self) -> String {
        json::pretty(&self.document)
    }
}

/// A policy before its ARNs are written.
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    pub(crate) name: String,
    pub(crate) kind: PolicyKind,
    pub(crate) description: String,
    pub(crate) notes: Vec<String>,
    pub(crate) document: document::Document,
}

impl Planned {
    fn new(
        design: &TableDesign<'_>,
        kind: PolicyKind,
        description: String,
        notes: Vec<String>,
        document: document::Document,
    ) -> Self {
        let table = super::cloudformation::logical_id(design.table);
        let name = match &kind {
            PolicyKind::Role(role) => format!("{table}{}", role.as_str()),
            PolicyKind::Pattern { facet, pattern } => {
                format!("{table}{}{}", names::pascal(facet), names::pascal(pattern))
            }
        };
        Planned {
            name,
            kind,
            description,
            notes,
            document,
        }
    }
}

/// Every policy of `design` before its ARNs are written: the roles, then the patterns.
fn plan(design: &TableDesign<'_>, options: &IamOptions<'_>) -> Result<Vec<Planned>, IamError> {
    scope::check_scopes(design, options.scopes)?;
    let reaches = reach::Reaches::of(design, options.scopes)?;
    let mut out = roles::roles(design, &reaches);
    out.extend(patterns::patterns(design, &reaches));
    let mut names: Vec<String> = out.iter().map(|p| p.name.clone()).collect();
    names::unique(&mut names);
    for (p, name) in out.iter_mut().zip(names) {
        p.name = name;
    }
    Ok(out)
}

/// The policy documents of `design`: the roles ([`Role`] order), then each facet's access
/// patterns (declaration order), scoped by `options.scopes` (see the
/// [module docs](self)), with ARNs in `options.target`.
///
/// Fails when a scope cannot be applied as asked, or a document would be longer than IAM
/// allows ([`MAX_POLICY_CHARS`]); the [`IamError`] names the facet, index or policy.
pub fn iam_policies(
    design: &TableDesign<'_>,
    options: &IamOptions<'_>,
) -> Result<Vec<IamPolicy>, IamError> {
    plan(design, options)?
        .into_iter()
        .map(|p| {
            let arn = |r: &document::Resource| r.arn(design.table, &options.target).into();
            let document = p.document.render(&arn);
            let chars = document::policy_chars(&document);
            if chars > MAX_POLICY_CHARS {
                return Err(IamError::TooLarge {
                    policy: p.name,
                    chars,
                    limit: MAX_POLICY_CHARS,
                });
            }
            Ok(IamPolicy {
                name: p.name,
                kind: p.kind,
                description: p.description,
                notes: p.notes,
                document,
            })
        })
        .collect()
}
