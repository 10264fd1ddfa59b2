//! A design lock from the code: [`DesignLock::of`] for a declared table,
//! [`DesignLock::of_design`] for any [`TableDesign`].

use super::types::{
    DesignLock, LockAttribute, LockFacet, LockField, LockIndex, LockIndexKind, LockIndexName,
    LockKey, LockKeyField, LockNames, LockNative, LockPeriod, LockProjection, LockShard, LockTable,
    LockTableIndex, LockUnique, LockVector, LOCK_FORMAT,
};
use crate::design::{key_pattern, FacetDesign, TableDesign};
use crate::schema::{
    table_indexes, table_vectors, FieldSchema, IndexKind, IndexProjection, IndexSchema,
    KeyAttribute, KeySchema,
};
use crate::table::TableSchema;

impl DesignLock {
    /// The design lock of a table declared with `faceteer::table!`: its facets
    /// ([`TableSchema::DESIGNS`], or [`TableSchema::FACETS`] without their fields when a
    /// hand-written implementation leaves the designs out) and its names. The table's
    /// DynamoDB name is not part of the design: one lock serves every deployment.
    pub fn of<S: TableSchema>() -> DesignLock {
        if !S::DESIGNS.is_empty() {
            return DesignLock::of_design(&S::design(""));
        }
        let designs: Vec<FacetDesign<'_>> =
            S::FACETS.iter().map(|s| FacetDesign::new(s, &[])).collect();
        DesignLock::of_design(
            &TableDesign::new("", &designs)
                .with_names(S::NAMES)
                .with_settings(S::SETTINGS),
        )
    }

    /// The design lock of `design` (its table name left out), with its declared settings
    /// ([`TableDesign::settings`]; none recorded when none is declared).
    pub fn of_design(design: &TableDesign<'_>) -> DesignLock {
        DesignLock {
            format: LOCK_FORMAT,
            names: names(design),
            table: table(design),
            facets: design.facets.iter().map(facet).collect(),
            settings: super::settings_json::settings_json(&design.settings),
        }
    }

    /// The same lock with the table's settings, as a JSON object (compared key by key).
    pub fn with_settings(mut self, settings: serde_json::Value) -> DesignLock {
        self.settings = Some(settings);
        self
    }
}

fn attributes(keys: &[KeyAttribute]) -> Vec<LockAttribute> {
    keys.iter().map(attribute).collect()
}

fn attribute(key: &KeyAttribute) -> LockAttribute {
    LockAttribute {
        name: key.name.to_owned(),
        ty: key.ty.as_str().to_owned(),
    }
}

fn kind(kind: IndexKind) -> LockIndexKind {
    match kind {
        IndexKind::Global => LockIndexKind::Global,
        IndexKind::Local => LockIndexKind::Local,
    }
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

fn names(design: &TableDesign<'_>) -> LockNames {
    let n = &design.names;
    let indexes = table_indexes(&design.schemas())
        .into_iter()
        .map(|index| {
            let declared = index.name;
            let named = n.index_of(index);
            let keys = named.pk.iter().chain(&named.sk).map(|k| k.name.to_owned());
            LockIndexName {
                index: declared.to_owned(),
                name: named.name.to_owned(),
                keys: keys.collect(),
            }
        })
        .collect();
    LockNames {
        pk: n.pk.to_owned(),
        sk: n.sk.to_owned(),
        facet: n.facet.to_owned(),
        ttl: n.ttl.to_owned(),
        indexes,
    }
}

fn table(design: &TableDesign<'_>) -> LockTable {
    let schemas = design.schemas();
    let indexes = table_indexes(&schemas)
        .into_iter()
        .map(|i| LockTableIndex {
            name: i.name.to_owned(),
            kind: kind(i.kind),
            pk: attributes(&i.pk),
            sk: attributes(&i.sk),
            native: i.native,
            projection: i.projection.as_deref().map(strings),
            used_by: strings(&i.used_by),
        })
        .collect();
    let vectors = table_vectors(&schemas)
        .into_iter()
        .map(|(v, used_by)| LockVector {
            index: v.index.to_owned(),
            attribute: v.attribute.to_owned(),
            dimensions: v.dimensions,
            distance: v.distance.as_str().to_owned(),
            partition: v.partition.as_ref().map(attribute),
            filters: attributes(v.filters),
            used_by: strings(&used_by),
        })
        .collect();
    LockTable {
        indexes,
        vectors,
        ttl: design.has_ttl(),
        stream: design.stream.map(|s| s.as_str().to_owned()),
    }
}

fn facet(design: &FacetDesign<'_>) -> LockFacet {
    let s = design.schema;
    let fields = design.fields;
    let key = |k: &KeySchema| lock_key(k, s.delimiter, fields, true);
    LockFacet {
        name: s.name.to_owned(),
        delimiter: s.delimiter.to_owned(),
        schema_version: design.schema_version,
        version_field: design.version_field.map(str::to_owned),
        created: design.created.map(str::to_owned),
        updated: design.updated.map(str::to_owned),
        ttl_field: s.ttl_field.map(str::to_owned),
        pk: key(&s.pk),
        sk: key(&s.sk),
        indexes: s
            .indexes
            .iter()
            .map(|i| index(i, s.delimiter, fields))
            .collect(),
        unique: s
            .unique
            .iter()
            .map(|u| LockUnique {
                attribute: u.attribute.to_owned(),
                scope: strings(u.scope),
            })
            .collect(),
        vectors: s.vectors.iter().map(|v| v.index.to_owned()).collect(),
        fields: (!fields.is_empty()).then(|| fields.iter().map(field).collect()),
    }
}

/// A key as the lock writes it; `written`: faceteer writes it (not a native index's).
fn lock_key(key: &KeySchema, delimiter: &str, fields: &[FieldSchema], written: bool) -> LockKey {
    let sortable = |name: &str| {
        fields
            .iter()
            .any(|f| f.attribute == name && f.sortable_in.contains(&key.attribute))
    };
    LockKey {
        attribute: key.attribute.to_owned(),
        template: if written {
            key_pattern(key, delimiter)
        } else {
            String::new()
        },
        prefix: key.prefix.to_owned(),
        no_prefix: key.no_prefix,
        fields: key
            .fields
            .iter()
            .enumerate()
            .map(|(i, name)| LockKeyField {
                name: (*name).to_owned(),
                optional: key.optional.get(i).copied().unwrap_or(false),
                sortable: written && sortable(name),
            })
            .collect(),
        shard: key.shard.map(|s| LockShard {
            count: s.count,
            fields: strings(s.fields),
            schedule: s
                .schedule
                .iter()
                .map(|p| LockPeriod {
                    from: p.from,
                    count: p.count,
                })
                .collect(),
            time_field: s.time_field.map(str::to_owned),
        }),
    }
}

fn index(i: &IndexSchema, delimiter: &str, fields: &[FieldSchema]) -> LockIndex {
    let written = i.native.is_none();
    LockIndex {
        name: i.name.to_owned(),
        kind: kind(i.kind),
        number: i.number,
        alias: i.alias.map(str::to_owned),
        pk: lock_key(&i.pk, delimiter, fields, written),
        sk: i
            .sk
            .as_ref()
            .map(|k| lock_key(k, delimiter, fields, written)),
        projection: match i.projection {
            IndexProjection::All => LockProjection::All,
            IndexProjection::KeysOnly => LockProjection::KeysOnly,
            IndexProjection::Include(names) => LockProjection::Include(strings(names)),
        },
        sparse: i.sparse,
        native: i.native.map(|n| LockNative {
            pk: attributes(n.pk),
            sk: attributes(n.sk),
        }),
    }
}

fn field(f: &FieldSchema) -> LockField {
    LockField {
        attribute: f.attribute.to_owned(),
        field: f.field.to_owned(),
        rust_type: f.rust_type.to_owned(),
        stored: f.stored,
        optional: f.optional,
        default: f.default,
        codec: f.codec.map(str::to_owned),
        epoch: f.epoch.map(str::to_owned),
    }
}
