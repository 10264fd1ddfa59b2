//! A table's design, generated from its declared facets: a CloudFormation template and a
//! Terraform resource with exactly the indexes, projections and TTL the facets need, a
//! NoSQL Workbench data model, and access-pattern pages (Markdown, and HTML with a
//! picture of the partitions the facets share).
//!
//! ```
//! # use faceteer::{Facet, TableSchema};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Task { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#TASK")] id: String }
//! faceteer::table! { struct Tasks { Task } }
//!
//! let design = Tasks::design("tasks");
//! let template = faceteer::design::cloudformation(&design);
//! assert!(template.contains("AWS::DynamoDB::Table"));
//! let page = faceteer::design::access_patterns_markdown(&design);
//! assert!(page.contains("#TEAM_{team}"));
//! ```
pub use faceteer_core::design::iam;
pub use faceteer_core::design::{
    access_patterns, access_patterns_html, access_patterns_markdown, cloudformation, key_pattern,
    terraform, workbench, AccessPattern, FacetDesign, IndexDesign, IndexUse, StreamView,
    TableDesign, WorkbenchMetadata,
};
pub use faceteer_core::design::{
    cloudformation_with_policies, iam_policies, IamError, IamOptions, IamPolicy, IamScope,
    IamTarget, PolicyKind, Role,
};
