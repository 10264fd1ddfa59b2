//! A table's design, generated from its declared facets: infrastructure code, a NoSQL
//! Workbench model and access-pattern documentation.
//!
//! A [`TableDesign`] names the table and lists its facets ([`FacetDesign`]: a facet's
//! [`FacetSchema`] and the names of its attributes). From it:
//!
//! * [`cloudformation`]: a CloudFormation template with the `AWS::DynamoDB::Table`;
//! * [`terraform`]: the same table as a Terraform `aws_dynamodb_table` resource;
//! * [`workbench`]: a data model to import into NoSQL Workbench, one facet per facet;
//! * [`access_patterns_markdown`] and [`access_patterns_html`]: each facet's key patterns
//!   and the reads they allow, and (HTML) a picture of the partitions the facets share.
//!
//! The table has exactly what the facets need: `PK` and `SK`, every secondary index some
//! facet uses (each projecting what [`index_projection`](crate::schema::index_projection)
//! says), `ttl` as its time-to-live attribute when a facet has a `#[ttl]` field, billing per
//! request. Every renderer reads that from one place ([`TableDesign::indexes`],
//! [`TableDesign::key_attributes`]). Rendering is pure: nothing reads a clock or the
//! environment, so the same design always gives the same text.
//!
//! ```
//! use faceteer_core::design::{cloudformation, FacetDesign, StreamView, TableDesign};
//! use faceteer_core::schema::{FacetSchema, KeySchema};
//!
//! const fn key(attribute: &'static str, prefix: &'static str) -> KeySchema {
//!     KeySchema { attribute, prefix, fields: &["userId"], optional: &[false], shard: None }
//! }
//! const USER: FacetSchema = FacetSchema {
//!     name: "USER",
//!     delimiter: "_",
//!     pk: key("PK", "#USER"),
//!     sk: key("SK", "#USER"),
//!     indexes: &[],
//!     ttl_field: None,
//! };
//! // With a derived facet: `FacetDesign::of::<User>()`.
//! let facets = [FacetDesign::new(&USER, &["userId", "name"])];
//! let design = TableDesign::new("app", &facets).with_stream(StreamView::NewAndOldImages);
//! let template = cloudformation(&design);
//! assert!(template.contains("\"StreamViewType\": \"NEW_AND_OLD_IMAGES\""));
//! ```

mod cloudformation;
mod html;
mod layout;
mod markdown;
mod patterns;
mod terraform;
mod workbench;

pub use cloudformation::cloudformation;
pub use html::access_patterns_html;
pub use layout::{IndexDesign, IndexUse};
pub use markdown::access_patterns_markdown;
pub use patterns::{access_patterns, key_pattern, AccessPattern};
pub use terraform::terraform;
pub use workbench::{workbench, WorkbenchMetadata};

use crate::facet::Facet;
use crate::schema::FacetSchema;

/// One facet of a designed table: its schema and the names of its attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FacetDesign<'a> {
    /// The facet's keys and indexes.
    pub schema: &'a FacetSchema,
    /// The attribute names of the facet's fields (after serde renaming), in declaration
    /// order. Empty when unknown: the design then shows the fields the keys are built from.
    pub attributes: &'a [&'static str],
}

impl<'a> FacetDesign<'a> {
    /// A facet from its schema and its attribute names.
    pub const fn new(schema: &'a FacetSchema, attributes: &'a [&'static str]) -> Self {
        FacetDesign { schema, attributes }
    }
}

impl FacetDesign<'static> {
    /// The design of a facet type (`#[derive(Facet)]`): its schema and its attributes.
    pub const fn of<F: Facet>() -> Self {
        FacetDesign::new(F::SCHEMA, F::ATTRIBUTES)
    }
}

/// What a table's stream carries of each changed item (DynamoDB's `StreamViewType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamView {
    /// Only the key attributes (`KEYS_ONLY`).
    KeysOnly,
    /// The item as it is after the change (`NEW_IMAGE`).
    NewImage,
    /// The item as it was before the change (`OLD_IMAGE`).
    OldImage,
    /// Both (`NEW_AND_OLD_IMAGES`).
    NewAndOldImages,
}

impl StreamView {
    /// DynamoDB's name of the view (`KEYS_ONLY`, `NEW_IMAGE`, `OLD_IMAGE`,
    /// `NEW_AND_OLD_IMAGES`).
    pub const fn as_str(self) -> &'static str {
        match self {
            StreamView::KeysOnly => "KEYS_ONLY",
            StreamView::NewImage => "NEW_IMAGE",
            StreamView::OldImage => "OLD_IMAGE",
            StreamView::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }
}

/// A table and the facets stored in it: what every renderer of this module reads.
///
/// The facets are expected to pass [`check_table`](crate::table::check_table) (a table
/// declared with `faceteer::table!` does): facets sharing an index then agree on its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableDesign<'a> {
    /// The DynamoDB table name.
    pub table: &'a str,
    /// The facets stored in the table, in declaration order.
    pub facets: &'a [FacetDesign<'a>],
    /// The table's stream, if it has one.
    pub stream: Option<StreamView>,
}

impl<'a> TableDesign<'a> {
    /// A table without a stream.
    pub const fn new(table: &'a str, facets: &'a [FacetDesign<'a>]) -> Self {
        TableDesign {
            table,
            facets,
            stream: None,
        }
    }

    /// The same table with a stream of `view`.
    pub const fn with_stream(mut self, view: StreamView) -> Self {
        self.stream = Some(view);
        self
    }
}

#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{IndexKind, PK, SK};

    /// A facet implemented by hand, as `#[derive(Facet)]` would.
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Note {
        id: String,
        body: String,
    }

    const NOTE: FacetSchema = FacetSchema {
        name: "NOTE",
        delimiter: "_",
        pk: fixtures::key(PK, "#NOTE", &["id"], &[false]),
        sk: fixtures::key(SK, "#NOTE", &[], &[]),
        indexes: &[],
        ttl_field: None,
    };

    impl Facet for Note {
        const SCHEMA: &'static FacetSchema = &NOTE;
        type Fields = ();
        fn fields() {}
        fn primary_key(&self) -> Result<crate::facet::Key<Self>, crate::key::KeyError> {
            unimplemented!()
        }
        fn write_index_keys(
            &self,
            _: &mut crate::item::Item,
            _: &mut crate::limits::KeyLengths,
        ) -> Result<(), crate::key::KeyError> {
            Ok(())
        }
        fn ttl_seconds(&self) -> Option<i64> {
            None
        }
        const ATTRIBUTES: &'static [&'static str] = &["id", "body"];
    }

    #[test]
    fn a_facet_type_gives_its_schema_and_attributes() {
        let design = FacetDesign::of::<Note>();
        assert_eq!(design.schema, &NOTE);
        assert_eq!(design.attributes, &["id", "body"]);
    }

    #[test]
    fn stream_views_have_dynamodb_names() {
        let names: Vec<&str> = [
            StreamView::KeysOnly,
            StreamView::NewImage,
            StreamView::OldImage,
            StreamView::NewAndOldImages,
        ]
        .iter()
        .map(|v| v.as_str())
        .collect();
        assert_eq!(
            names,
            ["KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"]
        );
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_stream(StreamView::KeysOnly);
        assert_eq!(design.stream, Some(StreamView::KeysOnly));
        assert_eq!(design.indexes()[0].kind, IndexKind::Global);
    }
}
