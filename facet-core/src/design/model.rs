//! The design's input: a table, its facets with their attribute names, and its stream.

use crate::facet::Facet;
use crate::layout::TableNames;
use crate::schema::{FacetSchema, FieldSchema};
use crate::settings::TableSettings;

/// One facet of a designed table: its schema, the names of its attributes and, for a
/// derived facet, its fields and versions (what a design lock records: [`crate::lock`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FacetDesign<'a> {
    /// The facet's keys and indexes.
    pub schema: &'a FacetSchema,
    /// The attribute names of the facet's fields (after serde renaming), in declaration
    /// order. Empty when unknown: the design then shows the fields the keys are built from.
    pub attributes: &'a [&'static str],
    /// The facet's fields with their types and codecs ([`Facet::FIELDS`]). Empty when
    /// unknown.
    pub fields: &'a [FieldSchema],
    /// The schema version records are written at (`#[facet(schema_version = N)]`,
    /// [`Facet::SCHEMA_VERSION`]).
    pub schema_version: Option<u32>,
    /// The attribute of the `#[version]` field ([`Facet::VERSION`]).
    pub version_field: Option<&'static str>,
    /// The attribute of the `#[created]` field ([`Facet::CREATED`]).
    pub created: Option<&'static str>,
    /// The attribute of the `#[updated]` field ([`Facet::UPDATED`]).
    pub updated: Option<&'static str>,
}

impl<'a> FacetDesign<'a> {
    /// A facet from its schema and its attribute names; its fields and versions unknown
    /// (set them with [`FacetDesign::with_fields`] and [`FacetDesign::with_versions`]).
    pub const fn new(schema: &'a FacetSchema, attributes: &'a [&'static str]) -> Self {
        FacetDesign {
            schema,
            attributes,
            fields: &[],
            schema_version: None,
            version_field: None,
            created: None,
            updated: None,
        }
    }

    /// The same facet with its fields.
    pub const fn with_fields(mut self, fields: &'a [FieldSchema]) -> Self {
        self.fields = fields;
        self
    }

    /// The same facet with its schema version and the attributes of its `#[version]`,
    /// `#[created]` and `#[updated]` fields.
    pub const fn with_versions(
        mut self,
        schema_version: Option<u32>,
        version_field: Option<&'static str>,
        created: Option<&'static str>,
        updated: Option<&'static str>,
    ) -> Self {
        self.schema_version = schema_version;
        self.version_field = version_field;
        self.created = created;
        self.updated = updated;
        self
    }
}

impl FacetDesign<'static> {
    /// The design of a facet type (`#[derive(Facet)]`): its schema, attributes, fields and
    /// versions.
    pub const fn of<F: Facet>() -> Self {
        FacetDesign::new(F::SCHEMA, F::ATTRIBUTES)
            .with_fields(F::FIELDS)
            .with_versions(F::SCHEMA_VERSION, F::VERSION, F::CREATED, F::UPDATED)
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
    /// The table's names of its key attributes, indexes, facet attribute and TTL attribute:
    /// every renderer writes these, not faceteer's (the facets' schemas keep faceteer's).
    pub names: TableNames,
    /// The table's settings (capacity, recovery, encryption, …): [`TableSettings::DEFAULT`]
    /// unless declared.
    pub settings: TableSettings,
}

impl<'a> TableDesign<'a> {
    /// A table without a stream, with faceteer's names ([`TableNames::DEFAULT`]).
    pub const fn new(table: &'a str, facets: &'a [FacetDesign<'a>]) -> Self {
        TableDesign {
            table,
            facets,
            stream: None,
            names: TableNames::DEFAULT,
            settings: TableSettings::DEFAULT,
        }
    }

    /// The same table with `settings` (as
    /// [`TableSchema::SETTINGS`](crate::table::TableSchema::SETTINGS) declares them).
    pub const fn with_settings(mut self, settings: TableSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The same table with its attributes and indexes named by `names` (a table laid out
    /// by another library or by hand, as [`TableSchema::NAMES`](crate::table::TableSchema::NAMES)
    /// declares).
    pub const fn with_names(mut self, names: TableNames) -> Self {
        self.names = names;
        self
    }

    /// The same table with a stream of `view`.
    pub const fn with_stream(mut self, view: StreamView) -> Self {
        self.stream = Some(view);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::fixtures;
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
        unique: &[],
        vectors: &[],
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
        const FIELDS: &'static [FieldSchema] = &NOTE_FIELDS;
        const SCHEMA_VERSION: Option<u32> = Some(2);
        const UPDATED: Option<&'static str> = Some("body");
    }

    const fn text_field(name: &'static str) -> FieldSchema {
        FieldSchema {
            field: name,
            attribute: name,
            rust_type: "String",
            stored: true,
            optional: false,
            default: false,
            codec: None,
            epoch: None,
            sortable_in: &[],
        }
    }

    const NOTE_FIELDS: [FieldSchema; 2] = [text_field("id"), text_field("body")];

    #[test]
    fn a_facet_type_gives_its_schema_and_attributes() {
        let design = FacetDesign::of::<Note>();
        assert_eq!(design.schema, &NOTE);
        assert_eq!(design.attributes, &["id", "body"]);
        assert_eq!(design.fields, &NOTE_FIELDS);
        assert_eq!(design.schema_version, Some(2));
        assert_eq!((design.version_field, design.created), (None, None));
        assert_eq!(design.updated, Some("body"));
        let bare = FacetDesign::new(&NOTE, &[]);
        assert!(bare.fields.is_empty() && bare.schema_version.is_none());
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

    /// A table with OneTable's names, as `faceteer::table! { .. } names = ..` declares one.
    struct Tasks;

    const TASKS: [FacetDesign<'static>; 1] = [FacetDesign::new(&fixtures::TASK, &[])];

    impl crate::table::TableSchema for Tasks {
        const FACETS: &'static [&'static FacetSchema] = &[&fixtures::TASK];
        const DESIGNS: &'static [FacetDesign<'static>] = &TASKS;
        const NAMES: TableNames = fixtures::ONETABLE;
    }

    #[test]
    fn a_design_has_its_tables_names() {
        use crate::table::TableSchema;
        let facets = fixtures::facets();
        assert_eq!(TableDesign::new("app", &facets).names, TableNames::DEFAULT);
        let design = Tasks::design("tasks");
        assert_eq!(design.names, fixtures::ONETABLE);
        assert_eq!(design.facets, &TASKS);
        assert_eq!(
            TableDesign::new("tasks", &TASKS).with_names(fixtures::ONETABLE),
            design
        );
    }
}
