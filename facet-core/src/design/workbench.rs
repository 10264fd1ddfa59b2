//! The table as a NoSQL Workbench data model.

use serde::Serialize;

use super::layout::IndexDesign;
use super::model::TableDesign;
use super::patterns::key_pattern;
use crate::schema::{IndexKind, KeyAttribute, PK, SK, TTL_ATTRIBUTE};

/// The model's metadata (`ModelMetadata`), given by the caller: rendering reads no clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkbenchMetadata<'a> {
    /// `Author`.
    pub author: &'a str,
    /// `Description`.
    pub description: &'a str,
    /// `DateCreated`, as NoSQL Workbench writes dates (`Jan 12, 2023, 10:14 AM`) or any text.
    pub created: &'a str,
    /// `DateLastModified`.
    pub modified: &'a str,
}

/// A NoSQL Workbench data model (JSON, format version 3.0) of the design's table, to
/// import with *Import data model*: the table's keys, one Workbench facet per facet (its
/// key patterns as the key aliases, its attributes), the global secondary indexes, billing
/// per request. The model is named after the table, and every attribute and index as the
/// table names it ([`TableDesign::names`]).
///
/// Local secondary indexes are listed under `LocalSecondaryIndexes`, in the shape of the
/// global ones (the table's partition key and the index's sort key), when the table has
/// any. Attribute types are not in the facets' schemas: every attribute but `ttl`
/// (a number) is given as a string.
pub fn workbench(design: &TableDesign<'_>, metadata: &WorkbenchMetadata<'_>) -> String {
    let facets: Vec<TableFacet> = design
        .facets
        .iter()
        .map(|f| TableFacet {
            facet_name: f.schema.name,
            key_attribute_alias: KeyAttributeAlias {
                partition_key_alias: key_pattern(&f.schema.pk, f.schema.delimiter),
                sort_key_alias: key_pattern(&f.schema.sk, f.schema.delimiter),
            },
            table_data: [],
            non_key_attributes: design.item_attributes(f),
            data_access: DataAccess::default(),
        })
        .collect();
    let ttl = design.attribute(TTL_ATTRIBUTE);
    let keys = design.defined_attributes();
    let mut attributes: Vec<Attribute> = Vec::new();
    for name in design.facets.iter().flat_map(|f| design.item_attributes(f)) {
        if !attributes.iter().any(|a| a.attribute_name == name) {
            let key = keys.iter().find(|k| k.name == name);
            attributes.push(match key {
                Some(key) => Attribute::typed(*key),
                None => Attribute::new(name, ttl),
            });
        }
    }
    let indexes = design.indexes();
    let model = Model {
        model_name: design.table,
        model_metadata: Metadata {
            author: metadata.author,
            date_created: metadata.created,
            date_last_modified: metadata.modified,
            description: metadata.description,
            aws_service: "Amazon DynamoDB",
            version: "3.0",
        },
        data_model: [Table {
            table_name: design.table,
            key_attributes: key_attributes(
                &[KeyAttribute::text(design.attribute(PK))],
                &[KeyAttribute::text(design.attribute(SK))],
            ),
            non_key_attributes: attributes,
            table_facets: facets,
            global_secondary_indexes: indexes
                .iter()
                .filter(|i| i.kind == IndexKind::Global)
                .map(Index::from)
                .collect(),
            local_secondary_indexes: indexes
                .iter()
                .filter(|i| i.kind == IndexKind::Local)
                .map(Index::from)
                .collect(),
            table_data: [],
            data_access: DataAccess::default(),
            billing_mode: "PAY_PER_REQUEST",
        }],
    };
    serde_json::to_string_pretty(&model).expect("a model serializes")
}

/// Key attributes, all strings.
/// The key attributes of a table or index. NoSQL Workbench's model has one partition and
/// one sort key attribute per index: a native (multi-attribute) index shows its leading
/// attributes there (the model format has no documented multi-attribute form); the other
/// formats (CloudFormation, Terraform, the pages) list every attribute.
fn key_attributes(pk: &[KeyAttribute], sk: &[KeyAttribute]) -> KeyAttributes {
    KeyAttributes {
        partition_key: Attribute::typed(pk[0]),
        sort_key: sk.first().copied().map(Attribute::typed),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Model<'a> {
    model_name: &'a str,
    model_metadata: Metadata<'a>,
    data_model: [Table<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Metadata<'a> {
    author: &'a str,
    date_created: &'a str,
    date_last_modified: &'a str,
    description: &'a str,
    #[serde(rename = "AWSService")]
    aws_service: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Table<'a> {
    table_name: &'a str,
    key_attributes: KeyAttributes,
    non_key_attributes: Vec<Attribute>,
    table_facets: Vec<TableFacet>,
    global_secondary_indexes: Vec<Index<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    local_secondary_indexes: Vec<Index<'a>>,
    table_data: [(); 0],
    data_access: DataAccess,
    billing_mode: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct KeyAttributes {
    partition_key: Attribute,
    #[serde(skip_serializing_if = "Option::is_none")]
    sort_key: Option<Attribute>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Attribute {
    attribute_name: &'static str,
    attribute_type: &'static str,
}

impl Attribute {
    /// An attribute: a number if it is the table's TTL attribute `ttl`, else a string.
    fn new(attribute_name: &'static str, ttl: &str) -> Self {
        Attribute {
            attribute_name,
            attribute_type: if attribute_name == ttl { "N" } else { "S" },
        }
    }

    /// A key attribute, with its type.
    fn typed(key: KeyAttribute) -> Self {
        Attribute {
            attribute_name: key.name,
            attribute_type: key.ty.as_str(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct TableFacet {
    facet_name: &'static str,
    key_attribute_alias: KeyAttributeAlias,
    table_data: [(); 0],
    non_key_attributes: Vec<&'static str>,
    data_access: DataAccess,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct KeyAttributeAlias {
    partition_key_alias: String,
    sort_key_alias: String,
}

/// `{"MySql": {}}`, as NoSQL Workbench writes it for a model without a MySQL source.
#[derive(Serialize, Default)]
struct DataAccess {
    #[serde(rename = "MySql")]
    my_sql: Empty,
}

#[derive(Serialize, Default)]
struct Empty {}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Index<'a> {
    index_name: &'static str,
    key_attributes: KeyAttributes,
    projection: Projection<'a>,
}

impl<'a> From<&'a IndexDesign> for Index<'a> {
    fn from(index: &'a IndexDesign) -> Self {
        Index {
            index_name: index.name,
            key_attributes: key_attributes(&index.partition_key, &index.sort_key),
            projection: Projection {
                projection_type: if index.projection.is_some() {
                    "INCLUDE"
                } else {
                    "ALL"
                },
                non_key_attributes: index.projection.as_deref(),
            },
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Projection<'a> {
    projection_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    non_key_attributes: Option<&'a [&'static str]>,
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;
    use serde_json::{json, Value};

    const METADATA: WorkbenchMetadata<'static> = WorkbenchMetadata {
        author: "Ada",
        description: "The app's table",
        created: "Jan 12, 2025, 10:14 AM",
        modified: "Jan 13, 2025, 09:00 AM",
    };

    /// A table model's non-key attributes: (name, type).
    fn non_key_attributes(t: &Value) -> Vec<(&str, &str)> {
        t["NonKeyAttributes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                let name = a["AttributeName"].as_str().unwrap();
                (name, a["AttributeType"].as_str().unwrap())
            })
            .collect()
    }

    fn model() -> Value {
        let facets = fixtures::facets();
        let text = workbench(&TableDesign::new("app", &facets), &METADATA);
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn metadata_is_the_callers() {
        let model = model();
        assert_eq!(model["ModelName"], "app");
        assert_eq!(
            model["ModelMetadata"],
            json!({
                "Author": "Ada",
                "DateCreated": "Jan 12, 2025, 10:14 AM",
                "DateLastModified": "Jan 13, 2025, 09:00 AM",
                "Description": "The app's table",
                "AWSService": "Amazon DynamoDB",
                "Version": "3.0"
            })
        );
    }

    #[test]
    fn the_table_has_its_keys_attributes_and_global_indexes() {
        let model = model();
        let tables = model["DataModel"].as_array().unwrap();
        assert_eq!(tables.len(), 1);
        let t = &tables[0];
        assert_eq!(t["TableName"], "app");
        assert_eq!(t["BillingMode"], "PAY_PER_REQUEST");
        assert_eq!(t["DataAccess"], json!({"MySql": {}}));
        assert_eq!(
            t["KeyAttributes"],
            json!({
                "PartitionKey": {"AttributeName": "PK", "AttributeType": "S"},
                "SortKey": {"AttributeName": "SK", "AttributeType": "S"}
            })
        );
        let attributes = non_key_attributes(t);
        let expected = [
            "GSI1PK",
            "facet",
            "ttl",
            "userId",
            "email",
            "name",
            "expiresAt",
            "GSI2PK",
            "GSI2SK",
            "GSI3PK",
            "GSI3SK",
            "LSI1SK",
            "orderId",
            "status",
            "day",
            "coupon",
            "total",
            "teamId",
            "ownerEmail",
        ];
        let names: Vec<&str> = attributes.iter().map(|a| a.0).collect();
        assert_eq!(names, expected);
        assert!(attributes.contains(&("ttl", "N")));
        assert!(attributes.contains(&("GSI2SK", "S")));
        assert_eq!(
            t["GlobalSecondaryIndexes"],
            json!([
                {
                    "IndexName": "GSI1",
                    "KeyAttributes": {
                        "PartitionKey": {"AttributeName": "GSI1PK", "AttributeType": "S"}
                    },
                    "Projection": {"ProjectionType": "ALL"}
                },
                {
                    "IndexName": "GSI2",
                    "KeyAttributes": {
                        "PartitionKey": {"AttributeName": "GSI2PK", "AttributeType": "S"},
                        "SortKey": {"AttributeName": "GSI2SK", "AttributeType": "S"}
                    },
                    "Projection": {
                        "ProjectionType": "INCLUDE",
                        "NonKeyAttributes": ["day", "facet", "orderId", "status", "userId"]
                    }
                },
                {
                    "IndexName": "GSI3",
                    "KeyAttributes": {
                        "PartitionKey": {"AttributeName": "GSI3PK", "AttributeType": "S"},
                        "SortKey": {"AttributeName": "GSI3SK", "AttributeType": "S"}
                    },
                    "Projection": {
                        "ProjectionType": "INCLUDE",
                        "NonKeyAttributes": ["coupon", "facet", "orderId", "total", "userId"]
                    }
                }
            ])
        );
    }

    #[test]
    fn local_indexes_are_modelled_on_the_tables_partition_key() {
        let model = model();
        assert_eq!(
            model["DataModel"][0]["LocalSecondaryIndexes"],
            json!([{
                "IndexName": "LSI1",
                "KeyAttributes": {
                    "PartitionKey": {"AttributeName": "PK", "AttributeType": "S"},
                    "SortKey": {"AttributeName": "LSI1SK", "AttributeType": "S"}
                },
                "Projection": {"ProjectionType": "ALL"}
            }])
        );
        // A table without local indexes has no such list.
        let facets = fixtures::tasks();
        let text = workbench(&TableDesign::new("tasks", &facets), &METADATA);
        let model: Value = serde_json::from_str(&text).unwrap();
        assert!(model["DataModel"][0].get("LocalSecondaryIndexes").is_none());
    }

    #[test]
    fn a_table_with_other_names_is_modelled_with_them() {
        let facets = fixtures::tasks();
        let design = TableDesign::new("tasks", &facets).with_names(fixtures::ONETABLE);
        let model: Value = serde_json::from_str(&workbench(&design, &METADATA)).unwrap();
        let t = &model["DataModel"][0];
        assert_eq!(
            t["KeyAttributes"],
            json!({
                "PartitionKey": {"AttributeName": "pk", "AttributeType": "S"},
                "SortKey": {"AttributeName": "sk", "AttributeType": "S"}
            })
        );
        let attributes = non_key_attributes(t);
        let names: Vec<&str> = attributes.iter().map(|a| a.0).collect();
        let expected = [
            "gsi1pk",
            "gsi1sk",
            "_type",
            "expires",
            "teamId",
            "taskId",
            "status",
            "due",
            "title",
            "expiresAt",
        ];
        assert_eq!(names, expected);
        assert!(attributes.contains(&("expires", "N")));
        assert!(attributes.contains(&("_type", "S")));
        assert_eq!(t["TableFacets"][0]["NonKeyAttributes"], json!(expected));
        assert_eq!(
            t["GlobalSecondaryIndexes"],
            json!([{
                "IndexName": "gsi1",
                "KeyAttributes": {
                    "PartitionKey": {"AttributeName": "gsi1pk", "AttributeType": "S"},
                    "SortKey": {"AttributeName": "gsi1sk", "AttributeType": "S"}
                },
                "Projection": {
                    "ProjectionType": "INCLUDE",
                    "NonKeyAttributes": ["_type", "due", "expires", "status", "taskId", "teamId", "title"]
                }
            }])
        );
    }

    #[test]
    fn each_facet_has_its_key_patterns_and_attributes() {
        let model = model();
        let facets = model["DataModel"][0]["TableFacets"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(facets.len(), 3);
        assert_eq!(
            facets[1],
            json!({
                "FacetName": "ORDER",
                "KeyAttributeAlias": {
                    "PartitionKeyAlias": "#USER_{userId}",
                    "SortKeyAlias": "#ORDER_{orderId}"
                },
                "TableData": [],
                "NonKeyAttributes": [
                    "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "LSI1SK", "facet",
                    "userId", "orderId", "status", "day", "coupon", "total"
                ],
                "DataAccess": {"MySql": {}}
            })
        );
        assert_eq!(facets[0]["KeyAttributeAlias"]["SortKeyAlias"], "#USER");
        assert_eq!(
            facets[2]["NonKeyAttributes"],
            json!(["GSI1PK", "facet", "teamId", "ownerEmail"])
        );
    }
}
