//! Checking a live table against the declared facets: [`Table::verify`].

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{KeySchemaElement, KeyType, TableDescription};
use faceteer_core::layout::TableNames;
use faceteer_core::schema::{
    table_indexes, table_vectors, uses_ttl, IndexKind, KeyAttribute, TableIndex, VectorSchema, PK,
    SK, TTL_ATTRIBUTE,
};

use crate::error::{Error, Result};
use crate::exec::sdk;
use crate::table::Table;

/// One way the live table differs from what its declared facets need.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Difference {
    /// The table does not exist.
    MissingTable,
    /// The table or an index is not active (creating, updating, deleting).
    NotActive {
        /// `table`, or the index name.
        what: String,
        /// Its status.
        status: String,
    },
    /// The table's key is not `PK` (hash) and `SK` (range).
    TableKey {
        /// What the facets need.
        expected: String,
        /// What the table has.
        found: String,
    },
    /// A key attribute has another type than the facets store (`S` for the keys faceteer
    /// writes, the declared type for a native index's).
    AttributeType {
        /// The attribute.
        attribute: String,
        /// The type the facets store.
        expected: String,
        /// Its declared type.
        found: String,
    },
    /// A vector index is defined otherwise than the facets declare it (attribute,
    /// dimensions, distance or search schema).
    VectorIndex {
        /// The index name.
        index: String,
        /// What the facets declare.
        expected: String,
        /// What the table has.
        found: String,
    },
    /// An index the facets query is missing.
    MissingIndex {
        /// The index name.
        index: String,
        /// The facets that use it.
        used_by: Vec<&'static str>,
    },
    /// Expiry is not switched on for the `ttl` attribute that facets with a `#[ttl]` field
    /// write, so nothing ever expires.
    TimeToLive {
        /// The facets with a `#[ttl]` field.
        used_by: Vec<&'static str>,
        /// The table's TTL status (`DISABLED`, `ENABLING`, …).
        status: String,
        /// The attribute expiry is on, if another.
        attribute: Option<String>,
        /// The attribute it should be on (`ttl`, or the table's name for it).
        expected: String,
    },
    /// An index's key is not the facets' (`GSInPK` (hash) and `GSInSK` (range), or `PK`
    /// and `LSInSK` for a local index).
    IndexKey {
        /// The index name.
        index: String,
        /// What the facets need.
        expected: String,
        /// What the index has.
        found: String,
    },
    /// A declared setting ([`crate::settings`]) the table lacks: fix it with
    /// [`Table::apply_settings`].
    Setting {
        /// The setting.
        setting: faceteer_core::settings::Setting,
        /// What the table declares.
        expected: String,
        /// What the live table has.
        found: String,
    },
    /// An index does not project what the facets read from it.
    IndexProjection {
        /// The index name.
        index: String,
        /// What the facets need: `None` for whole items (`ALL`), else these non-key
        /// attributes.
        needed: Option<Vec<&'static str>>,
        /// What the index projects (`ALL`, `KEYS_ONLY`, or `INCLUDE a, b`).
        found: String,
        /// The needed attributes it lacks (empty when whole items are needed).
        missing: Vec<&'static str>,
    },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Difference::MissingTable => f.write_str("the table does not exist"),
            Difference::Setting {
                setting,
                expected,
                found,
            } => write!(f, "{setting} is {found}; the table declares {expected}"),
            Difference::NotActive { what, status } => write!(f, "{what} is {status}, not ACTIVE"),
            Difference::TableKey { expected, found } => {
                write!(f, "the table's key is {found}; the facets need {expected}")
            }
            Difference::AttributeType {
                attribute,
                expected,
                found,
            } => {
                write!(
                    f,
                    "key attribute `{attribute}` is of type {found}; the facets store {expected}"
                )
            }
            Difference::VectorIndex {
                index,
                expected,
                found,
            } => write!(
                f,
                "vector index {index} is {found}; the facets declare {expected}"
            ),
            Difference::MissingIndex { index, used_by } => write!(
                f,
                "index {index} is missing; used by {}",
                used_by
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Difference::TimeToLive {
                used_by,
                status,
                attribute,
                expected,
            } => write!(
                f,
                "time to live is {status}{}; {} write expiry times to `{expected}`, so \
                 expired records are never swept (enable TTL on `{expected}`)",
                attribute
                    .as_ref()
                    .map(|a| format!(" on `{a}`"))
                    .unwrap_or_default(),
                used_by
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Difference::IndexKey {
                index,
                expected,
                found,
            } => write!(
                f,
                "index {index} is keyed {found}; the facets need {expected}"
            ),
            Difference::IndexProjection {
                index,
                needed: None,
                found,
                ..
            } => write!(
                f,
                "index {index} projects {found}; the facets read whole records from it (ALL)"
            ),
            Difference::IndexProjection {
                index,
                found,
                missing,
                ..
            } => write!(
                f,
                "index {index} projects {found}; the facets read {} from it too",
                missing
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// What [`Table::verify`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "check `is_ok()` or the differences"]
pub struct Verification {
    /// The table name.
    pub table: String,
    /// Every difference, table first, then indexes in number order.
    pub differences: Vec<Difference>,
    /// Indexes the table has that no declared facet uses (not a difference: other code may
    /// use them).
    pub unused_indexes: Vec<String>,
    /// What the table's stream records of each change, `None` when it has no stream (not a
    /// difference: the facets need none).
    pub stream: Option<super::stream::StreamView>,
}

impl Verification {
    /// `true` when the table serves every declared facet as they need.
    pub fn is_ok(&self) -> bool {
        self.differences.is_empty()
    }
}

/// A vector index as the facets declare it: `embedding, 768 dimensions, COSINE, search
/// schema tenant (HASH), team (INLINE_FILTER)`.
fn describe_vector(v: &VectorSchema) -> String {
    let roles = v.search_schema().map(|(k, role)| (k.name, role));
    vector_text(
        v.attribute,
        i64::from(v.dimensions),
        v.distance.as_str(),
        roles,
    )
}

/// A live vector index, as [`describe_vector`] writes one.
fn describe_live_vector(v: &aws_sdk_dynamodb::types::VectorIndexDescription) -> String {
    let attribute = v
        .vector_attribute()
        .map_or("-", |a| a.attribute_name.as_str());
    let distance = v.distance_function().map_or("-", |d| d.as_str());
    let roles = v.search_schema().iter().map(|e| {
        (
            e.attribute_name.as_str(),
            e.search_schema_element_type.as_str(),
        )
    });
    vector_text(attribute, v.dimensions().unwrap_or(0), distance, roles)
}

fn vector_text<'a>(
    attribute: &str,
    dimensions: i64,
    distance: &str,
    roles: impl Iterator<Item = (&'a str, &'a str)>,
) -> String {
    let roles: Vec<String> = roles.map(|(n, r)| format!("{n} ({r})")).collect();
    let schema = if roles.is_empty() {
        "no search schema".to_owned()
    } else {
        format!("search schema {}", roles.join(", "))
    };
    format!("`{attribute}`, {dimensions} dimensions, {distance}, {schema}")
}

/// A key schema as text: its hash attributes, then its range ones, each in order.
fn describe_key(elements: &[KeySchemaElement]) -> String {
    let part = |kind: KeyType| {
        let names: Vec<&str> = elements
            .iter()
            .filter(|e| e.key_type == kind)
            .map(|e| e.attribute_name.as_str())
            .collect();
        names.join(", ")
    };
    key_text(&part(KeyType::Hash), &part(KeyType::Range))
}

fn expected_key(pk: &[KeyAttribute], sk: &[KeyAttribute]) -> String {
    let names = |keys: &[KeyAttribute]| {
        let names: Vec<&str> = keys.iter().map(|k| k.name).collect();
        names.join(", ")
    };
    key_text(&names(pk), &names(sk))
}

fn key_text(hash: &str, range: &str) -> String {
    let or_none = |s: &str| {
        if s.is_empty() {
            "-".to_owned()
        } else {
            s.to_owned()
        }
    };
    format!("{} (hash), {} (range)", or_none(hash), or_none(range))
}

/// How the live `projection` of index `wanted` falls short of what its facets read from it,
/// if it does.
fn projection_difference(
    wanted: &TableIndex,
    projection: Option<&aws_sdk_dynamodb::types::Projection>,
) -> Option<Difference> {
    let kind = projection
        .and_then(|p| p.projection_type.as_ref())
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "nothing".into());
    if kind == "ALL" {
        return None;
    }
    let included: Vec<&str> = projection
        .map(|p| p.non_key_attributes().iter().map(String::as_str).collect())
        .unwrap_or_default();
    let found = if included.is_empty() {
        kind
    } else {
        format!("{kind} {}", included.join(", "))
    };
    let needed = wanted.projection.clone();
    let missing: Vec<&'static str> = needed
        .iter()
        .flatten()
        .copied()
        .filter(|a| !included.contains(a))
        .collect();
    if needed.is_some() && missing.is_empty() {
        return None;
    }
    Some(Difference::IndexProjection {
        index: wanted.name.to_owned(),
        needed,
        found,
        missing,
    })
}

/// The differences between `description` and what `facets` need.
fn compare(
    description: &TableDescription,
    facets: &[&'static faceteer_core::schema::FacetSchema],
    names: &TableNames,
) -> (Vec<Difference>, Vec<String>) {
    let mut differences = Vec::new();
    if let Some(status) = &description.table_status {
        if status.as_str() != "ACTIVE" {
            differences.push(Difference::NotActive {
                what: "the table".into(),
                status: status.as_str().to_owned(),
            });
        }
    }
    let found = describe_key(description.key_schema());
    let table_key = [
        KeyAttribute::text(names.attribute(PK)),
        KeyAttribute::text(names.attribute(SK)),
    ];
    let expected = expected_key(&table_key[..1], &table_key[1..]);
    if found != expected {
        differences.push(Difference::TableKey { expected, found });
    }
    let types: BTreeMap<&str, &str> = description
        .attribute_definitions()
        .iter()
        .map(|a| (a.attribute_name.as_str(), a.attribute_type.as_str()))
        .collect();
    let mut key_attributes: Vec<KeyAttribute> = table_key.to_vec();
    // Every index the facets need, by the table's names.
    let wanted: Vec<_> = table_indexes(facets)
        .into_iter()
        .map(|index| names.index_of(index))
        .collect();
    for wanted in &wanted {
        let (name, wanted_pk, wanted_sk) = (wanted.name, &wanted.pk, &wanted.sk);
        let live = match wanted.kind {
            IndexKind::Global => description
                .global_secondary_indexes()
                .iter()
                .find(|i| i.index_name.as_deref() == Some(name))
                .map(|i| {
                    (
                        i.key_schema(),
                        i.projection.as_ref(),
                        i.index_status.as_ref(),
                    )
                }),
            IndexKind::Local => description
                .local_secondary_indexes()
                .iter()
                .find(|i| i.index_name.as_deref() == Some(name))
                .map(|i| (i.key_schema(), i.projection.as_ref(), None)),
        };
        let Some((keys, projection, status)) = live else {
            differences.push(Difference::MissingIndex {
                index: name.to_owned(),
                used_by: wanted.used_by.clone(),
            });
            continue;
        };
        key_attributes.extend(wanted_pk.iter().chain(wanted_sk).copied());
        let found = describe_key(keys);
        let expected = expected_key(wanted_pk, wanted_sk);
        if found != expected {
            differences.push(Difference::IndexKey {
                index: name.to_owned(),
                expected,
                found,
            });
        }
        if let Some(difference) = projection_difference(wanted, projection) {
            differences.push(difference);
        }
        if let Some(status) = status {
            if status.as_str() != "ACTIVE" {
                differences.push(Difference::NotActive {
                    what: format!("index {name}"),
                    status: status.as_str().to_owned(),
                });
            }
        }
    }
    for (vector, used_by) in table_vectors(facets) {
        let live = description
            .vector_indexes()
            .iter()
            .find(|v| v.index_name() == Some(vector.index));
        let Some(live) = live else {
            differences.push(Difference::MissingIndex {
                index: vector.index.to_owned(),
                used_by,
            });
            continue;
        };
        key_attributes.extend(vector.search_attributes());
        let expected = describe_vector(&vector);
        let found = describe_live_vector(live);
        if found != expected {
            differences.push(Difference::VectorIndex {
                index: vector.index.to_owned(),
                expected,
                found,
            });
        }
        if let Some(status) = &live.index_status {
            if status.as_str() != "ACTIVE" {
                differences.push(Difference::NotActive {
                    what: format!("vector index {}", vector.index),
                    status: status.as_str().to_owned(),
                });
            }
        }
    }
    let mut checked: Vec<&str> = Vec::new();
    for key in key_attributes {
        if checked.contains(&key.name) {
            continue;
        }
        checked.push(key.name);
        if let Some(&t) = types.get(key.name) {
            if t != key.ty.as_str() {
                differences.push(Difference::AttributeType {
                    attribute: key.name.to_owned(),
                    expected: key.ty.as_str().to_owned(),
                    found: t.to_owned(),
                });
            }
        }
    }
    let live_names = description
        .global_secondary_indexes()
        .iter()
        .filter_map(|i| i.index_name.clone())
        .chain(
            description
                .local_secondary_indexes()
                .iter()
                .filter_map(|i| i.index_name.clone()),
        );
    let vectors = table_vectors(facets);
    let live_vectors = description
        .vector_indexes()
        .iter()
        .filter_map(|v| v.index_name.clone())
        .filter(|name| !vectors.iter().any(|(v, _)| v.index == name));
    let unused = live_names
        .filter(|name| !wanted.iter().any(|w| w.name == name))
        .chain(live_vectors)
        .collect();
    (differences, unused)
}

impl Table {
    /// Compare the live table with what its declared facets need — its key, every global
    /// and local index they query (key and projection), every vector index (attribute,
    /// dimensions, distance, search schema), the key attributes' types, and
    /// expiry on `ttl` when a facet has a `#[ttl]` field, and each declared setting
    /// ([`crate::settings`]: warm throughput at least as declared, an auto scaled capacity
    /// within its ranges, declared tags among the table's) — and report each difference,
    /// typed. Needs a declared table.
    pub async fn verify(&self) -> Result<Verification> {
        let facets = self.declared_facets(" to verify it against")?;
        let description = match sdk::describe_table(self).await {
            Ok(Some(d)) => d,
            Ok(None) => TableDescription::builder().build(),
            Err(Error::Dynamo(e)) if e.code() == Some("ResourceNotFoundException") => {
                return Ok(Verification {
                    table: self.name().to_owned(),
                    differences: vec![Difference::MissingTable],
                    unused_indexes: Vec::new(),
                    stream: None,
                })
            }
            Err(e) => return Err(e),
        };
        let names = *self.names();
        let (mut differences, unused_indexes) = compare(&description, facets, &names);
        if uses_ttl(facets) {
            let (status, attribute) = sdk::describe_time_to_live(self).await?;
            let on = status == "ENABLED" || status == "ENABLING";
            if !on || attribute.as_deref() != Some(names.attribute(TTL_ATTRIBUTE)) {
                differences.push(Difference::TimeToLive {
                    used_by: facets
                        .iter()
                        .filter(|f| f.ttl_field.is_some())
                        .map(|f| f.name)
                        .collect(),
                    status,
                    attribute,
                    expected: names.attribute(TTL_ATTRIBUTE).to_owned(),
                });
            }
        }
        let spec = description.stream_specification();
        let stream = spec
            .filter(|s| s.stream_enabled)
            .and_then(|s| s.stream_view_type())
            .and_then(|v| super::stream::view_named(v.as_str()));
        let settings = self.settings();
        if !settings.is_default() {
            // The description read above: only what it does not say is read again.
            let live = super::settings::live::read_beside(self, settings, description).await?;
            differences.extend(
                super::settings::mismatches(settings, facets, &names, &live)
                    .into_iter()
                    .map(|m| Difference::Setting {
                        setting: m.setting,
                        expected: m.expected,
                        found: m.found,
                    }),
            );
        }
        Ok(Verification {
            table: self.name().to_owned(),
            differences,
            unused_indexes,
            stream,
        })
    }
}
