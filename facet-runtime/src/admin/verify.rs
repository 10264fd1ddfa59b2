//! Checking a live table against the declared facets: [`Table::verify`].

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{KeySchemaElement, KeyType, TableDescription};
use faceteer_core::schema::{gsi_names, index_projection, PK, SK};

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
    /// A key attribute is not a string (`S`).
    AttributeType {
        /// The attribute.
        attribute: String,
        /// Its declared type.
        found: String,
    },
    /// An index the facets query is missing.
    MissingIndex {
        /// The index name.
        index: String,
        /// The facets that use it.
        used_by: Vec<&'static str>,
    },
    /// An index's key is not the facets' `GSInPK` (hash) and `GSInSK` (range).
    IndexKey {
        /// The index name.
        index: String,
        /// What the facets need.
        expected: String,
        /// What the index has.
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
            Difference::NotActive { what, status } => write!(f, "{what} is {status}, not ACTIVE"),
            Difference::TableKey { expected, found } => {
                write!(f, "the table's key is {found}; the facets need {expected}")
            }
            Difference::AttributeType { attribute, found } => {
                write!(
                    f,
                    "key attribute `{attribute}` is of type {found}; the facets store S"
                )
            }
            Difference::MissingIndex { index, used_by } => write!(
                f,
                "index {index} is missing; used by {}",
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
}

impl Verification {
    /// `true` when the table serves every declared facet as they need.
    pub fn is_ok(&self) -> bool {
        self.differences.is_empty()
    }
}

fn describe_key(elements: &[KeySchemaElement]) -> String {
    let part = |kind: KeyType| {
        elements
            .iter()
            .find(|e| e.key_type == kind)
            .map(|e| e.attribute_name.as_str())
            .unwrap_or("-")
            .to_owned()
    };
    format!(
        "{} (hash), {} (range)",
        part(KeyType::Hash),
        part(KeyType::Range)
    )
}

fn expected_key(pk: &str, sk: &str) -> String {
    format!("{pk} (hash), {sk} (range)")
}

/// How index `n`'s projection falls short of what `facets` read from it, if it does.
fn projection_difference(
    name: &str,
    projection: Option<&aws_sdk_dynamodb::types::Projection>,
    facets: &[&'static faceteer_core::schema::FacetSchema],
    n: u8,
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
    let needed = index_projection(facets, n);
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
        index: name.to_owned(),
        needed,
        found,
        missing,
    })
}

/// The differences between `description` and what `facets` need.
fn compare(
    description: &TableDescription,
    facets: &[&'static faceteer_core::schema::FacetSchema],
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
    let expected = expected_key(PK, SK);
    if found != expected {
        differences.push(Difference::TableKey { expected, found });
    }
    let types: BTreeMap<&str, &str> = description
        .attribute_definitions()
        .iter()
        .map(|a| (a.attribute_name.as_str(), a.attribute_type.as_str()))
        .collect();
    let mut used: BTreeMap<u8, Vec<&'static str>> = BTreeMap::new();
    for facet in facets {
        for index in facet.indexes {
            used.entry(index.number).or_default().push(facet.name);
        }
    }
    let mut key_attributes = vec![PK.to_owned(), SK.to_owned()];
    for (&n, users) in &used {
        let (name, pk, sk) = gsi_names(n);
        let Some(index) = description
            .global_secondary_indexes()
            .iter()
            .find(|i| i.index_name.as_deref() == Some(name))
        else {
            differences.push(Difference::MissingIndex {
                index: name.to_owned(),
                used_by: users.clone(),
            });
            continue;
        };
        key_attributes.extend([pk.to_owned(), sk.to_owned()]);
        let found = describe_key(index.key_schema());
        let expected = expected_key(pk, sk);
        if found != expected {
            differences.push(Difference::IndexKey {
                index: name.to_owned(),
                expected,
                found,
            });
        }
        if let Some(difference) = projection_difference(name, index.projection.as_ref(), facets, n)
        {
            differences.push(difference);
        }
        if let Some(status) = &index.index_status {
            if status.as_str() != "ACTIVE" {
                differences.push(Difference::NotActive {
                    what: format!("index {name}"),
                    status: status.as_str().to_owned(),
                });
            }
        }
    }
    for attribute in key_attributes {
        if let Some(&t) = types.get(attribute.as_str()) {
            if t != "S" {
                differences.push(Difference::AttributeType {
                    attribute,
                    found: t.to_owned(),
                });
            }
        }
    }
    let unused = description
        .global_secondary_indexes()
        .iter()
        .filter_map(|i| i.index_name.clone())
        .filter(|name| !used.keys().any(|&n| gsi_names(n).0 == name))
        .collect();
    (differences, unused)
}

impl Table {
    /// Compare the live table with what its declared facets need — its key, every index
    /// they query (key and projection) and the key attributes' types — and report each
    /// difference, typed. Needs a declared table.
    pub async fn verify(&self) -> Result<Verification> {
        let Some(facets) = self.facets() else {
            return Err(Error::TableSetup(format!(
                "table {} has no declared facets to verify it against; open it with \
                 `Table::declared` or `Table::with_facets`",
                self.name()
            )));
        };
        let description = match sdk::describe_table(self).await {
            Ok(Some(d)) => d,
            Ok(None) => TableDescription::builder().build(),
            Err(Error::Dynamo(e)) if e.code() == Some("ResourceNotFoundException") => {
                return Ok(Verification {
                    table: self.name().to_owned(),
                    differences: vec![Difference::MissingTable],
                    unused_indexes: Vec::new(),
                })
            }
            Err(e) => return Err(e),
        };
        let (differences, unused_indexes) = compare(&description, facets);
        Ok(Verification {
            table: self.name().to_owned(),
            differences,
            unused_indexes,
        })
    }
}
