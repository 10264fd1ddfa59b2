//! What a caller asks of the policies (scopes, where the ARNs point) and what it gets.

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

/// What [`iam_policies`](super::iam_policies) writes: the scopes, and where the ARNs point.
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
    /// Reads of items and indexes, vector searches, the table's description (what `verify` reads).
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
        /// The pattern, as [`AccessPattern::name`](crate::design::AccessPattern::name) names it
        /// (`get one`, `query GSI2 (byStatus)`), or `search <vector index>`.
        pattern: String,
    },
}

/// One policy document and what it is for.
#[derive(Debug, Clone, PartialEq)]
pub struct IamPolicy {
    /// Its name, letters and digits (a CloudFormation logical id): the table's logical id
    /// ([`cloudformation`](crate::design::cloudformation())), then the role (`AppReadOnly`) or the
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
        super::json::pretty(&self.document)
    }
}
