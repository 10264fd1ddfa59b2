//! The table as a CloudFormation template.

use serde::Serialize;

use super::layout::IndexDesign;
use super::model::TableDesign;
use crate::schema::{IndexKind, KeyAttribute, VectorSchema, PK, SK};

/// A CloudFormation template (JSON) with one `AWS::DynamoDB::Table` resource: the design's
/// table, billed per request, with `PK`/`SK`, every index the facets use, `ttl` as its
/// time-to-live attribute when a facet has a `#[ttl]` field, and the design's stream. Every
/// attribute and index is named as the table names it ([`TableDesign::names`]).
///
/// The resource's logical id is the table name in `PascalCase` (`app-data` → `AppData`).
/// Empty index lists are left out: CloudFormation refuses them.
pub fn cloudformation(design: &TableDesign<'_>) -> String {
    let indexes = design.indexes();
    let of_kind = |kind: IndexKind| -> Vec<Index<'_>> {
        indexes
            .iter()
            .filter(|i| i.kind == kind)
            .map(|i| {
                let mut index = Index::from(i);
                if kind == IndexKind::Global {
                    index.settings =
                        super::settings::cloudformation::index_properties(design, i.index);
                }
                index
            })
            .collect()
    };
    let properties = Properties {
        table_name: design.table,
        billing_mode: design
            .settings
            .capacity
            .map_or("PAY_PER_REQUEST", |c| c.billing_mode()),
        attribute_definitions: design
            .defined_attributes()
            .into_iter()
            .map(|key| AttributeDefinition {
                attribute_name: key.name,
                attribute_type: key.ty.as_str(),
            })
            .collect(),
        key_schema: key_schema(
            &[KeyAttribute::text(design.attribute(PK))],
            &[KeyAttribute::text(design.attribute(SK))],
        ),
        global_secondary_indexes: of_kind(IndexKind::Global),
        local_secondary_indexes: of_kind(IndexKind::Local),
        vector_indexes: design
            .vectors()
            .iter()
            .map(|(v, _)| Vector::from(v))
            .collect(),
        time_to_live_specification: design.ttl_attribute().map(|attribute_name| TimeToLive {
            attribute_name,
            enabled: true,
        }),
        stream_specification: design.stream.map(|view| Stream {
            stream_view_type: view.as_str(),
        }),
        settings: super::settings::cloudformation::table_properties(design),
    };
    // DynamoDB requires every vector index's search-schema attributes among the attribute
    // definitions; cfn-lint's E3039 (1.58) matches definitions against table and secondary
    // index keys only, so it is told to skip this resource.
    let searched = properties
        .vector_indexes
        .iter()
        .any(|v| !v.search_schema.is_empty());
    let metadata = searched
        .then(|| serde_json::json!({ "cfn-lint": { "config": { "ignore_checks": ["E3039"] } } }));
    let facets: Vec<&str> = design.facets.iter().map(|f| f.schema.name).collect();
    let logical = logical_id(design.table);
    let template = Template {
        version: "2010-09-09",
        description: format!(
            "DynamoDB table {} (facets: {})",
            design.table,
            facets.join(", ")
        ),
        resources: std::iter::once((
            logical.clone(),
            AnyResource::Table(Box::new(Resource {
                kind: "AWS::DynamoDB::Table",
                metadata,
                properties,
            })),
        ))
        .chain(
            super::settings::cloudformation::scaling_resources(design, &logical)
                .into_iter()
                .map(|(name, resource)| (name, AnyResource::Other(resource))),
        )
        .collect(),
    };
    serde_json::to_string_pretty(&template).expect("a template serializes")
}

/// A CloudFormation logical id (alphanumeric) for table `name`: its words in `PascalCase`,
/// `Table` when it has none or starts with a digit.
pub(crate) fn logical_id(name: &str) -> String {
    let mut out = String::new();
    for word in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "Table");
    }
    out
}

/// A `KeySchema`: the `HASH` attributes, then the `RANGE` ones, in order (a native
/// index's multi-attribute keys list up to four of each).
fn key_schema(hash: &[KeyAttribute], range: &[KeyAttribute]) -> Vec<KeyElement> {
    let element = |key_type: &'static str| {
        move |k: &KeyAttribute| KeyElement {
            attribute_name: k.name,
            key_type,
        }
    };
    let hash = hash.iter().map(element("HASH"));
    hash.chain(range.iter().map(element("RANGE"))).collect()
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Template<'a> {
    #[serde(rename = "AWSTemplateFormatVersion")]
    version: &'static str,
    description: String,
    resources: std::collections::BTreeMap<String, AnyResource<'a>>,
}

/// The table, or another resource (auto scaling) built as JSON.
#[derive(Serialize)]
#[serde(untagged)]
enum AnyResource<'a> {
    Table(Box<Resource<'a>>),
    Other(serde_json::Value),
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Resource<'a> {
    #[serde(rename = "Type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<serde_json::Value>,
    properties: Properties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Properties<'a> {
    table_name: &'a str,
    billing_mode: &'static str,
    attribute_definitions: Vec<AttributeDefinition>,
    key_schema: Vec<KeyElement>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    global_secondary_indexes: Vec<Index<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    local_secondary_indexes: Vec<Index<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    vector_indexes: Vec<Vector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_to_live_specification: Option<TimeToLive>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_specification: Option<Stream>,
    /// The declared settings ([`TableDesign::settings`]).
    #[serde(flatten)]
    settings: serde_json::Map<String, serde_json::Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct AttributeDefinition {
    attribute_name: &'static str,
    attribute_type: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct KeyElement {
    attribute_name: &'static str,
    key_type: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Index<'a> {
    index_name: &'static str,
    key_schema: Vec<KeyElement>,
    projection: Projection<'a>,
    /// A global index's declared capacity and warm throughput.
    #[serde(flatten)]
    settings: serde_json::Map<String, serde_json::Value>,
}

impl<'a> From<&'a IndexDesign> for Index<'a> {
    fn from(index: &'a IndexDesign) -> Self {
        Index {
            index_name: index.name,
            key_schema: key_schema(&index.partition_key, &index.sort_key),
            projection: Projection::from(index),
            settings: serde_json::Map::new(),
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

impl<'a> From<&'a IndexDesign> for Projection<'a> {
    fn from(index: &'a IndexDesign) -> Self {
        Projection {
            projection_type: if index.projection.is_some() {
                "INCLUDE"
            } else {
                "ALL"
            },
            non_key_attributes: index.projection.as_deref(),
        }
    }
}

/// `AWS::DynamoDB::Table VectorIndex`.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Vector {
    index_name: &'static str,
    vector_attribute: VectorAttribute,
    dimensions: u32,
    distance_function: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    search_schema: Vec<SearchSchemaElement>,
    projection: Projection<'static>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct VectorAttribute {
    attribute_name: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct SearchSchemaElement {
    attribute_name: &'static str,
    search_schema_element_type: &'static str,
}

impl From<&VectorSchema> for Vector {
    fn from(v: &VectorSchema) -> Self {
        Vector {
            index_name: v.index,
            vector_attribute: VectorAttribute {
                attribute_name: v.attribute,
            },
            dimensions: v.dimensions,
            distance_function: v.distance.as_str(),
            search_schema: v
                .search_schema()
                .map(|(key, search_schema_element_type)| SearchSchemaElement {
                    attribute_name: key.name,
                    search_schema_element_type,
                })
                .collect(),
            projection: Projection {
                projection_type: "ALL",
                non_key_attributes: None,
            },
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct TimeToLive {
    attribute_name: &'static str,
    enabled: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Stream {
    stream_view_type: &'static str,
}

#[cfg(test)]
mod tests {
    use super::super::{fixtures, FacetDesign, StreamView};
    use super::*;
    use serde_json::{json, Value};

    fn table(template: &str) -> Value {
        let template: Value = serde_json::from_str(template).unwrap();
        assert_eq!(template["AWSTemplateFormatVersion"], "2010-09-09");
        let resources = template["Resources"].as_object().unwrap();
        assert_eq!(resources.len(), 1);
        let (_, resource) = resources.iter().next().unwrap();
        assert_eq!(resource["Type"], "AWS::DynamoDB::Table");
        resource["Properties"].clone()
    }

    #[test]
    fn the_table_has_every_index_the_facets_use() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app-data", &facets).with_stream(StreamView::NewAndOldImages);
        let text = cloudformation(&design);
        let template: Value = serde_json::from_str(&text).unwrap();
        assert!(template["Resources"]["AppData"].is_object(), "{text}");
        let t = table(&text);
        assert_eq!(t["TableName"], "app-data");
        assert_eq!(t["BillingMode"], "PAY_PER_REQUEST");
        let defined: Vec<&str> = t["AttributeDefinitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                assert_eq!(d["AttributeType"], "S");
                d["AttributeName"].as_str().unwrap()
            })
            .collect();
        assert_eq!(
            defined,
            ["PK", "SK", "GSI1PK", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "LSI1SK"]
        );
        assert_eq!(
            t["KeySchema"],
            json!([
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"}
            ])
        );
        assert_eq!(
            t["GlobalSecondaryIndexes"],
            json!([
                {
                    "IndexName": "GSI1",
                    "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"}
                },
                {
                    "IndexName": "GSI2",
                    "KeySchema": [
                        {"AttributeName": "GSI2PK", "KeyType": "HASH"},
                        {"AttributeName": "GSI2SK", "KeyType": "RANGE"}
                    ],
                    "Projection": {
                        "ProjectionType": "INCLUDE",
                        "NonKeyAttributes": ["day", "facet", "orderId", "status", "userId"]
                    }
                },
                {
                    "IndexName": "GSI3",
                    "KeySchema": [
                        {"AttributeName": "GSI3PK", "KeyType": "HASH"},
                        {"AttributeName": "GSI3SK", "KeyType": "RANGE"}
                    ],
                    "Projection": {
                        "ProjectionType": "INCLUDE",
                        "NonKeyAttributes": ["coupon", "facet", "orderId", "total", "userId"]
                    }
                }
            ])
        );
        assert_eq!(
            t["LocalSecondaryIndexes"],
            json!([{
                "IndexName": "LSI1",
                "KeySchema": [
                    {"AttributeName": "PK", "KeyType": "HASH"},
                    {"AttributeName": "LSI1SK", "KeyType": "RANGE"}
                ],
                "Projection": {"ProjectionType": "ALL"}
            }])
        );
        assert_eq!(
            t["TimeToLiveSpecification"],
            json!({"AttributeName": "ttl", "Enabled": true})
        );
        assert_eq!(
            t["StreamSpecification"],
            json!({"StreamViewType": "NEW_AND_OLD_IMAGES"})
        );
    }

    #[test]
    fn a_table_without_indexes_ttl_or_stream_leaves_them_out() {
        let facets = [FacetDesign::new(&fixtures::PLAIN, &[])];
        let t = table(&cloudformation(&TableDesign::new("notes", &facets)));
        let mut keys: Vec<&str> = t.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "AttributeDefinitions",
                "BillingMode",
                "KeySchema",
                "TableName"
            ]
        );
        assert_eq!(t["AttributeDefinitions"].as_array().unwrap().len(), 2);
    }

    fn defined(t: &Value) -> Vec<&str> {
        t["AttributeDefinitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["AttributeName"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn a_onetable_table_is_written_with_its_names() {
        let facets = fixtures::tasks();
        let design = TableDesign::new("tasks", &facets).with_names(fixtures::ONETABLE);
        let text = cloudformation(&design);
        let t = table(&text);
        assert_eq!(defined(&t), ["pk", "sk", "gsi1pk", "gsi1sk"]);
        assert_eq!(
            t["KeySchema"],
            json!([
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"}
            ])
        );
        assert_eq!(
            t["GlobalSecondaryIndexes"],
            json!([{
                "IndexName": "gsi1",
                "KeySchema": [
                    {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                    {"AttributeName": "gsi1sk", "KeyType": "RANGE"}
                ],
                "Projection": {
                    "ProjectionType": "INCLUDE",
                    "NonKeyAttributes": ["_type", "due", "expires", "status", "taskId", "teamId", "title"]
                }
            }])
        );
        assert!(t.get("LocalSecondaryIndexes").is_none());
        assert_eq!(
            t["TimeToLiveSpecification"],
            json!({"AttributeName": "expires", "Enabled": true})
        );
        for canonical in ["\"PK\"", "\"SK\"", "GSI1", "\"facet\"", "\"ttl\""] {
            assert!(!text.contains(canonical), "{canonical} in\n{text}");
        }
    }

    #[test]
    fn renamed_and_faceteer_named_indexes_mix() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_names(fixtures::ONETABLE);
        let t = table(&cloudformation(&design));
        assert_eq!(
            defined(&t),
            ["pk", "sk", "gsi1pk", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "lsi1sk"]
        );
        let global: Vec<&str> = t["GlobalSecondaryIndexes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["IndexName"].as_str().unwrap())
            .collect();
        assert_eq!(global, ["gsi1", "GSI2", "GSI3"]);
        // An index without a sort key has a HASH key only.
        assert_eq!(
            t["GlobalSecondaryIndexes"][0]["KeySchema"],
            json!([{"AttributeName": "gsi1pk", "KeyType": "HASH"}])
        );
        assert_eq!(
            t["GlobalSecondaryIndexes"][2]["Projection"]["NonKeyAttributes"],
            json!(["_type", "coupon", "orderId", "total", "userId"])
        );
        // A local index is keyed by the table's partition key.
        assert_eq!(
            t["LocalSecondaryIndexes"],
            json!([{
                "IndexName": "lsi1",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "lsi1sk", "KeyType": "RANGE"}
                ],
                "Projection": {"ProjectionType": "ALL"}
            }])
        );
    }

    #[test]
    fn logical_ids_are_alphanumeric() {
        assert_eq!(logical_id("app-data"), "AppData");
        assert_eq!(logical_id("orders_v2.prod"), "OrdersV2Prod");
        assert_eq!(logical_id("2024"), "Table2024");
        assert_eq!(logical_id("--"), "Table");
    }
}
