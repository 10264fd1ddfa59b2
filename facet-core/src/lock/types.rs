//! What a design lock holds: the table's names, indexes and settings, and each facet's keys,
//! indexes, unique fields, versions and fields, as plain data that reads and writes as JSON.
//!
//! Every list keeps the declaration order and every struct its field order, so the same
//! design always writes the same text ([`DesignLock::to_json`]).

use serde::{Deserialize, Serialize};

/// The version of the lock file's format this crate writes and reads.
pub const LOCK_FORMAT: u32 = 1;

/// A table's whole design, as committed next to the code: what [`compare`](super::compare)
/// checks the code against.
///
/// Build it from the code with [`DesignLock::of`] or [`DesignLock::of_design`]; read and
/// write it with [`DesignLock::from_json`] and [`DesignLock::to_json`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DesignLock {
    /// The format of the file ([`LOCK_FORMAT`]).
    pub format: u32,
    /// The table's names of its key attributes, facet and TTL attributes and indexes.
    pub names: LockNames,
    /// The table: its indexes, vector indexes, TTL and stream.
    pub table: LockTable,
    /// The facets, in declaration order.
    pub facets: Vec<LockFacet>,
    /// The table's settings (billing, protection, recovery, …), when the design has them;
    /// compared key by key.
    #[serde(default)]
    pub settings: Option<serde_json::Value>,
}

/// The names a table gives the attributes and indexes faceteer names `PK`, `SK`, `facet`,
/// `ttl`, `GSI1`, … ([`TableNames`](crate::layout::TableNames)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockNames {
    /// The partition-key attribute.
    pub pk: String,
    /// The sort-key attribute.
    pub sk: String,
    /// The attribute holding the facet name.
    pub facet: String,
    /// The time-to-live attribute.
    pub ttl: String,
    /// Each index the table has, by the table's names.
    pub indexes: Vec<LockIndexName>,
}

/// One index by the table's names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockIndexName {
    /// The index as facets declare it (`GSI1`, `LSI2`).
    pub index: String,
    /// The table's name of it.
    pub name: String,
    /// The table's names of its key attributes, partition first.
    pub keys: Vec<String>,
}

/// The table's own parts: what `CreateTable` and `UpdateTable` set up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockTable {
    /// Every secondary index some facet uses: global ones by number, then local ones.
    pub indexes: Vec<LockTableIndex>,
    /// Every vector index, in declaration order.
    pub vectors: Vec<LockVector>,
    /// Whether the table expires items by their `ttl` attribute (some facet has a
    /// `#[ttl]` field).
    pub ttl: bool,
    /// The stream's view (`NEW_AND_OLD_IMAGES`, …), when the design has a stream.
    pub stream: Option<String>,
}

/// Global or local.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LockIndexKind {
    /// A global secondary index.
    Global,
    /// A local secondary index: created with the table only.
    Local,
}

/// A key attribute with its DynamoDB type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockAttribute {
    /// The attribute name.
    pub name: String,
    /// `S`, `N` or `B`.
    #[serde(rename = "type")]
    pub ty: String,
}

/// One secondary index of the table, as DynamoDB defines it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockTableIndex {
    /// The index (`GSI1`, `LSI1`), by faceteer's name.
    pub name: String,
    /// Global or local.
    pub kind: LockIndexKind,
    /// The partition key's attributes.
    pub pk: Vec<LockAttribute>,
    /// The sort key's attributes (empty: no sort key).
    pub sk: Vec<LockAttribute>,
    /// Keyed by the records' own attributes (multi-attribute keys).
    pub native: bool,
    /// `null` for whole items (`ALL`), else the non-key attributes projected.
    pub projection: Option<Vec<String>>,
    /// The facets that use it.
    pub used_by: Vec<String>,
}

/// One vector index of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockVector {
    /// The index name.
    pub index: String,
    /// The attribute holding the vectors.
    pub attribute: String,
    /// The vectors' dimension count.
    pub dimensions: u32,
    /// The distance function (`COSINE`, …).
    pub distance: String,
    /// The search schema's `HASH` attribute.
    pub partition: Option<LockAttribute>,
    /// The search schema's `INLINE_FILTER` attributes.
    pub filters: Vec<LockAttribute>,
    /// The facets that use it.
    pub used_by: Vec<String>,
}

/// One facet: what its records hold and how they are keyed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockFacet {
    /// The facet name, stored in the `facet` attribute of every record.
    pub name: String,
    /// The key delimiter.
    pub delimiter: String,
    /// `#[facet(schema_version = N)]` (`null`: records are at version 1 and store none).
    pub schema_version: Option<u32>,
    /// The attribute of the `#[version]` field.
    pub version_field: Option<String>,
    /// The attribute of the `#[created]` field.
    pub created: Option<String>,
    /// The attribute of the `#[updated]` field.
    pub updated: Option<String>,
    /// The attribute of the `#[ttl]` field.
    pub ttl_field: Option<String>,
    /// The base partition key.
    pub pk: LockKey,
    /// The base sort key.
    pub sk: LockKey,
    /// The secondary indexes the facet uses.
    pub indexes: Vec<LockIndex>,
    /// The `#[unique]` fields.
    pub unique: Vec<LockUnique>,
    /// The vector indexes over the facet's fields (defined in [`LockTable::vectors`]).
    pub vectors: Vec<String>,
    /// Every field of the record type (`null` when the code does not say: a facet
    /// implemented by hand).
    pub fields: Option<Vec<LockField>>,
}

/// How one key attribute is built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockKey {
    /// The attribute faceteer names it (`PK`, `GSI1SK`; empty for a native index's key).
    pub attribute: String,
    /// The key's pattern for reviewers (`#ORDER_{orderId}`,
    /// [`key_pattern`](crate::design::key_pattern); empty for a native index's key).
    pub template: String,
    /// The constant prefix.
    pub prefix: String,
    /// The key is its values alone (`no_prefix`).
    pub no_prefix: bool,
    /// The key fields, in order.
    pub fields: Vec<LockKeyField>,
    /// The write sharding of a partition key.
    pub shard: Option<LockShard>,
}

/// One field of a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockKeyField {
    /// The field's attribute.
    pub name: String,
    /// The field is an `Option`: absent, it leaves out its value and delimiter.
    pub optional: bool,
    /// Written with the order-preserving integer encoding (`sortable`).
    pub sortable: bool,
}

/// How a partition key is sharded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockShard {
    /// The shard count of records older than every period.
    pub count: u32,
    /// The fields hashed to pick a shard.
    pub fields: Vec<String>,
    /// Later shard counts, in time order.
    pub schedule: Vec<LockPeriod>,
    /// The time field choosing a record's period.
    pub time_field: Option<String>,
}

/// A shard count from a time on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockPeriod {
    /// The first second of the period (epoch seconds).
    pub from: i64,
    /// The shard count of records of the period.
    pub count: u32,
}

/// One facet's use of a secondary index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockIndex {
    /// The index (`GSI1`, `LSI1`).
    pub name: String,
    /// Global or local.
    pub kind: LockIndexKind,
    /// The index number.
    pub number: u8,
    /// `#[gsi(alias = ..)]`.
    pub alias: Option<String>,
    /// The index partition key (the table's for a local index).
    pub pk: LockKey,
    /// The index sort key.
    pub sk: Option<LockKey>,
    /// What the index projects of the facet's records.
    pub projection: LockProjection,
    /// Records without every optional key field are left out.
    pub sparse: bool,
    /// A native index's key attributes (the records' own).
    pub native: Option<LockNative>,
}

/// What an index projects of a facet's records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LockProjection {
    /// Whole items.
    All,
    /// The keys, `facet` and the key fields.
    KeysOnly,
    /// Those and these attributes.
    Include(Vec<String>),
}

/// The key attributes of a native (multi-attribute) index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockNative {
    /// The partition key's attributes.
    pub pk: Vec<LockAttribute>,
    /// The sort key's attributes.
    pub sk: Vec<LockAttribute>,
}

/// A `#[unique]` field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockUnique {
    /// The field's attribute.
    pub attribute: String,
    /// The attributes its value is unique within (empty: the whole facet).
    pub scope: Vec<String>,
}

/// One field of a facet's record type ([`FieldSchema`](crate::schema::FieldSchema)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockField {
    /// The stored attribute.
    pub attribute: String,
    /// The field's Rust name.
    pub field: String,
    /// The declared Rust type.
    pub rust_type: String,
    /// Stored as an attribute of its own (not skipped or flattened).
    pub stored: bool,
    /// An `Option`.
    pub optional: bool,
    /// `#[serde(default)]`.
    pub default: bool,
    /// The serde codec (`with` path, or `serialize_with`/`deserialize_with`).
    pub codec: Option<String>,
    /// The epoch unit of a numeric `#[created]`/`#[updated]` field.
    pub epoch: Option<String>,
}

impl LockField {
    /// Whether a record without the attribute still reads (an `Option` or a `default`).
    pub fn reads_when_absent(&self) -> bool {
        self.optional || self.default
    }

    /// The Rust type without one outer `Option<..>`: what the stored value decodes into.
    pub fn value_type(&self) -> &str {
        let t = self.rust_type.as_str();
        [
            "Option<",
            "std::option::Option<",
            "::std::option::Option<",
            "core::option::Option<",
        ]
        .iter()
        .find_map(|p| t.strip_prefix(p).and_then(|r| r.strip_suffix('>')))
        .unwrap_or(t)
    }
}
