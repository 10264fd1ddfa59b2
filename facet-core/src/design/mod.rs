//! A table's design, generated from its declared facets: infrastructure code, a NoSQL
//! Workbench model and access-pattern documentation.
//!
//! A [`TableDesign`] names the table and lists its facets ([`FacetDesign`]: a facet's
//! [`FacetSchema`](crate::schema::FacetSchema) and the names of its attributes). From it:
//!
//! * [`cloudformation`]: a CloudFormation template with the `AWS::DynamoDB::Table`;
//! * [`terraform`]: the same table as a Terraform `aws_dynamodb_table` resource;
//! * [`workbench`]: a data model to import into NoSQL Workbench, one facet per facet;
//! * [`access_patterns_markdown`] and [`access_patterns_html`]: each facet's key patterns
//!   and the reads they allow, and (HTML) a picture of the partitions the facets share;
//! * [`iam_policies`] and [`cloudformation_with_policies`]: least-privilege IAM policy
//!   documents, one per role and one per access pattern, scoped to a principal tag's
//!   partitions where a facet's partition key is built from a scope field ([`iam`]).
//!
//! The table has exactly what the facets need: `PK` and `SK`, every secondary index some
//! facet uses (each projecting what [`index_projection`](crate::schema::index_projection)
//! says), `ttl` as its time-to-live attribute when a facet has a `#[ttl]` field, billing per
//! request. Every renderer reads that from one place ([`TableDesign::indexes`],
//! [`TableDesign::key_attributes`]). Rendering is pure: nothing reads a clock or the
//! environment, so the same design always gives the same text.
//!
//! Those are faceteer's names. A table laid out otherwise (OneTable's `pk`, `sk`, `gsi1pk`,
//! `_type`, index `gsi1`, …) names them with [`TableDesign::with_names`] (a table declared
//! with `faceteer::table! { .. } names = ..` does, in
//! [`TableSchema::design`](crate::table::TableSchema::design)): every renderer then writes
//! the table's names of its key attributes, indexes, facet and TTL attributes; the key
//! patterns are unchanged.
//!
//! ```
//! use faceteer_core::design::{cloudformation, FacetDesign, StreamView, TableDesign};
//! use faceteer_core::schema::{FacetSchema, KeySchema};
//!
//! const fn key(attribute: &'static str, prefix: &'static str) -> KeySchema {
//!     KeySchema { attribute, prefix, no_prefix: false, fields: &["userId"], optional: &[false], shard: None }
//! }
//! const USER: FacetSchema = FacetSchema {
//!     name: "USER",
//!     delimiter: "_",
//!     pk: key("PK", "#USER"),
//!     sk: key("SK", "#USER"),
//!     indexes: &[],
//!     ttl_field: None,
//!     unique: &[],
//!     vectors: &[],
//! };
//! // With a derived facet: `FacetDesign::of::<User>()`.
//! let facets = [FacetDesign::new(&USER, &["userId", "name"])];
//! let design = TableDesign::new("app", &facets).with_stream(StreamView::NewAndOldImages);
//! let template = cloudformation(&design);
//! assert!(template.contains("\"StreamViewType\": \"NEW_AND_OLD_IMAGES\""));
//! ```

mod cloudformation;
mod html;
pub mod iam;
mod layout;
mod markdown;
mod model;
mod patterns;
mod settings;
mod terraform;
mod workbench;

pub use cloudformation::cloudformation;
pub use html::access_patterns_html;
pub use iam::{
    cloudformation_with_policies, iam_policies, IamError, IamOptions, IamPolicy, IamScope,
    IamTarget, PolicyKind, Role,
};
pub use layout::{IndexDesign, IndexUse};
pub use markdown::access_patterns_markdown;
pub use model::{FacetDesign, StreamView, TableDesign};
pub(crate) use patterns::time_text;
pub use patterns::{access_patterns, key_pattern, AccessPattern};
pub use terraform::terraform;
pub use workbench::{workbench, WorkbenchMetadata};

#[cfg(test)]
pub(crate) mod fixtures;
