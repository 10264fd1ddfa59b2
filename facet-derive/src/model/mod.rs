//! The model of a facet: plain data, assembled from the parsed attributes by
//! [`build`](crate::build), checked by [`check`](crate::check) and expanded by
//! [`expand`](crate::expand). Fields are referred to by their position in
//! [`FacetModel::fields`].

mod key;
mod native;

pub use key::{KeyModel, KeyPartRef, KeyRole, ShardModel};
pub use native::{native_type, NativeType};

use proc_macro2::Span;
use syn::{Ident, Type};

use crate::names::alias_method;

/// The whole facet.
pub struct FacetModel {
    /// The path of the `faceteer` crate (`::faceteer` unless `#[facet(crate = ..)]`).
    pub krate: syn::Path,
    /// How the expansion names the runtime's module for generated code (an alias of it
    /// under `krate`), built once by the expansion (which names it hundreds of times).
    pub private: std::cell::OnceCell<syn::Ident>,
    /// The struct's name.
    pub ident: Ident,
    /// The struct's visibility, given to the generated types.
    pub vis: syn::Visibility,
    /// The facet name stored in the `facet` attribute.
    pub name: String,
    /// The key delimiter.
    pub delimiter: String,
    /// Where the delimiter is declared (the struct's name when it is not).
    pub delimiter_span: Span,
    /// `#[facet(validator = ..)]`.
    pub validator: Option<syn::Path>,
    /// `#[facet(validate_on_write)]`.
    pub validate_on_write: bool,
    /// `#[facet(pick_validator = ..)]`: the facet can be projected.
    pub pick_validator: Option<PickValidatorModel>,
    /// Every field, in declaration order.
    pub fields: Vec<Field>,
    /// The partition key (`PK`).
    pub pk: KeyModel,
    /// The sort key (`SK`).
    pub sk: KeyModel,
    /// The global secondary indexes, by number.
    pub indexes: Vec<IndexModel>,
    /// The `#[ttl]` field.
    pub ttl: Option<usize>,
    /// The `#[version]` field.
    pub version: Option<usize>,
    /// The `#[unique]` fields.
    pub unique: Vec<UniqueModel>,
    /// The `#[created]` field.
    pub created: Option<usize>,
    /// The `#[updated]` field.
    pub updated: Option<usize>,
    /// `#[facet(schema_version = N, upgrade(..))]`.
    pub schema_version: Option<SchemaVersion>,
    /// The `#[vector(..)]` fields, each with its index.
    pub vectors: Vec<VectorModel>,
    /// serde writes the record field by field, each under its (renamed) name and nothing
    /// else, so the generated code writes its attributes directly (no `flatten`, no `tag`,
    /// no serde option faceteer does not know).
    pub field_by_field: bool,
}

/// A vector index over a `#[vector(..)]` field.
pub struct VectorModel {
    /// The vector field.
    pub field: usize,
    /// The index name.
    pub index: String,
    /// The dimension count.
    pub dimensions: u32,
    /// `Cosine`, `Euclidean` or `DotProduct` (the core enum's variant).
    pub distance: &'static str,
    /// The search schema's `HASH` field.
    pub partition: Option<usize>,
    /// The search schema's `INLINE_FILTER` fields.
    pub filters: Vec<usize>,
}

/// The schema version a facet declares, with the functions upgrading older records.
pub struct SchemaVersion {
    /// The version records are written at.
    pub version: u32,
    /// Where it is declared.
    pub span: Span,
    /// The function reading a record stored at version `i + 1`, for each `i`.
    pub upgrades: Vec<syn::Path>,
    /// Where the upgrades are declared (the version's span when they are not).
    pub upgrades_span: Span,
}

/// A `#[unique]` field and the fields its value is unique within.
pub struct UniqueModel {
    /// The unique field.
    pub field: usize,
    /// The fields of its scope.
    pub scope: Vec<usize>,
}

/// How projected records are validated.
pub enum PickValidatorModel {
    /// `#[facet(pick_validator = trust)]`: accept them as read.
    Trust,
    /// `#[facet(pick_validator = path)]`.
    Path(syn::Path),
}

/// One field of the struct.
pub struct Field {
    /// The field's name in Rust.
    pub ident: Ident,
    /// The declared type.
    pub ty: Type,
    /// The type with one `Option` removed.
    pub inner: Type,
    /// Whether the declared type is an `Option`.
    pub optional: bool,
    /// The attribute name after serde renaming.
    pub name: String,
    /// Stored as an attribute of its own (not skipped or flattened by serde).
    pub is_attribute: bool,
    /// The field's own serialize function (`#[serde(with = ..)]`, `serialize_with`).
    pub serializer: Option<syn::Path>,
    /// `#[serde(skip_serializing_if = ..)]`: when it holds, the attribute is left out.
    pub skip_if: Option<syn::ExprPath>,
    /// For a `#[created]` or `#[updated]` field holding an epoch number, its unit.
    pub epoch: Option<crate::parse::EpochUnit>,
    /// A record without the attribute reads the default (`#[serde(default)]` on the field
    /// or the struct).
    pub default: bool,
    /// The field's own serde codec as declared (`with`, `serialize_with`,
    /// `deserialize_with`), for the design lock.
    pub codec: Option<String>,
    /// `#[nested]`: where it is declared; the field's type derives `Nested`.
    pub nested: Option<proc_macro2::Span>,
    /// `#[encrypt]` / `#[sign_only]` (and `#[beacon]`): what the client does to the value.
    pub crypto: Option<Crypto>,
    /// `#[sensitive]`: masked in `Debug`, error texts and events.
    pub sensitive: bool,
}

/// What the client does to one field's value when its item is written.
#[derive(Debug, Clone)]
pub struct Crypto {
    /// Encrypted and signed (`#[encrypt]`), or signed only (`#[sign_only]`).
    pub encrypted: bool,
    /// The attribute's span.
    pub span: proc_macro2::Span,
    /// `#[beacon(length = N)]`: keys hold the value's beacon.
    pub beacon: Option<Beacon>,
}

/// A field's beacon.
#[derive(Debug, Clone)]
pub struct Beacon {
    /// The bits kept (checked: 1 to 63).
    pub length: u32,
    /// The declared number of distinct values.
    pub distinct: Option<u64>,
    /// The attribute's span.
    pub span: proc_macro2::Span,
}

/// What an index projects of the facet's records.
pub enum ProjectionModel {
    /// Whole items (the default).
    All,
    /// The keys, `facet` and the key fields.
    KeysOnly,
    /// Those and these fields.
    Include(Vec<usize>),
}

/// Global or local.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum IndexKind {
    /// `GSIn`.
    Global,
    /// `LSIn`.
    Local,
}

impl IndexKind {
    /// `GSI` or `LSI`.
    pub fn tag(self) -> &'static str {
        match self {
            IndexKind::Global => "GSI",
            IndexKind::Local => "LSI",
        }
    }

    /// `gsi` or `lsi`: the attribute declaring such an index.
    pub fn attr(self) -> &'static str {
        match self {
            IndexKind::Global => "gsi",
            IndexKind::Local => "lsi",
        }
    }
}

/// One secondary index.
pub struct IndexModel {
    /// Global or local.
    pub kind: IndexKind,
    /// `n` of `GSIn` / `LSIn`.
    pub n: u8,
    /// `#[gsi(alias = ..)]`: the name of a second query method.
    pub alias: Option<String>,
    /// `GSInPK`; for a local index, the table's partition key.
    pub pk: KeyModel,
    /// `GSInSK` / `LSInSK`, if the index has a sort key.
    pub sk: Option<KeyModel>,
    /// What the index projects.
    pub projection: ProjectionModel,
    /// A record whose optional key fields are not all present is left out of the index.
    pub sparse: bool,
    /// `native`: the index is keyed by the key fields' own attributes (DynamoDB's
    /// multi-attribute keys); `pk` and `sk` then name no stored attribute and nothing is
    /// written for the index.
    pub native: bool,
}

impl IndexModel {
    /// `GSIn` / `LSIn`.
    pub fn name(&self) -> String {
        format!("{}{}", self.kind.tag(), self.n)
    }

    /// `gsiN` / `lsiN`.
    pub fn method(&self) -> String {
        format!("{}{}", self.kind.attr(), self.n)
    }

    /// The keys faceteer writes for the index: a global index's partition key and each
    /// index's sort key (a local index's partition key is the table's); none for a native
    /// index, whose keys are the record's own attributes.
    pub fn own_keys(&self) -> impl Iterator<Item = &KeyModel> {
        let written = !self.native;
        let pk = (written && self.kind == IndexKind::Global).then_some(&self.pk);
        pk.into_iter().chain(self.sk.as_ref().filter(|_| written))
    }

    /// Whether field `i` is one of the index's key fields.
    pub fn uses(&self, i: usize) -> bool {
        self.pk.uses(i) || self.sk.as_ref().is_some_and(|k| k.uses(i))
    }

    /// Whether a key faceteer writes for the index is built from field `i` (never for a
    /// native index: its keys are the fields' own attributes, updated as they are).
    pub fn derives_from(&self, i: usize) -> bool {
        !self.native && self.uses(i)
    }

    /// The alias's query method: `by_` + snake_case(alias), with one `by_`.
    pub fn alias_method(&self) -> Option<String> {
        self.alias.as_deref().map(alias_method)
    }
}

impl FacetModel {
    /// Every key written: `PK`, `SK`, then each index's own keys (none of a native index).
    pub fn all_keys(&self) -> Vec<&KeyModel> {
        [&self.pk, &self.sk]
            .into_iter()
            .chain(self.indexes.iter().flat_map(|i| i.own_keys()))
            .collect()
    }
}
