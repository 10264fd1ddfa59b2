//! Settings as `AWS::DynamoDB::Table` properties, and auto scaling as
//! `AWS::ApplicationAutoScaling` resources.

use serde_json::{json, Map, Value};

use super::super::model::TableDesign;
use crate::settings::{Capacity, Encryption, Recovery, Throughput};

/// The table's settings as properties of its `AWS::DynamoDB::Table` (billing mode aside),
/// in the order CloudFormation's documentation lists them.
pub(crate) fn table_properties(design: &TableDesign<'_>) -> Map<String, Value> {
    let settings = &design.settings;
    let mut out = Map::new();
    match settings.capacity {
        Some(Capacity::Provisioned { units, .. }) => {
            out.insert("ProvisionedThroughput".into(), provisioned(units));
        }
        Some(Capacity::OnDemand { max: Some(max) }) => {
            out.insert("OnDemandThroughput".into(), on_demand(max));
        }
        _ => {}
    }
    if let Some(recovery) = settings.point_in_time_recovery {
        let spec = match recovery {
            Recovery::Off => json!({ "PointInTimeRecoveryEnabled": false }),
            Recovery::On { days } => json!({
                "PointInTimeRecoveryEnabled": true,
                "RecoveryPeriodInDays": days,
            }),
        };
        out.insert("PointInTimeRecoverySpecification".into(), spec);
    }
    if let Some(on) = settings.deletion_protection {
        out.insert("DeletionProtectionEnabled".into(), json!(on));
    }
    if let Some(encryption) = settings.encryption {
        // `SSEType` is always given with a key: CloudFormation refuses a key without it.
        let spec = match encryption {
            Encryption::AwsOwned => json!({ "SSEEnabled": false }),
            Encryption::AwsManaged => json!({ "SSEEnabled": true, "SSEType": "KMS" }),
            Encryption::CustomerKey(key) => json!({
                "SSEEnabled": true,
                "SSEType": "KMS",
                "KMSMasterKeyId": key,
            }),
        };
        out.insert("SSESpecification".into(), spec);
    }
    if let Some(class) = settings.table_class {
        out.insert("TableClass".into(), json!(class.as_str()));
    }
    if !settings.tags.is_empty() {
        let tags: Vec<Value> = settings
            .tags
            .iter()
            .map(|(k, v)| json!({ "Key": k, "Value": v }))
            .collect();
        out.insert("Tags".into(), Value::Array(tags));
    }
    if let Some(warm) = settings.warm_throughput {
        out.insert("WarmThroughput".into(), warm_throughput(warm));
    }
    out
}

/// The settings of global index `index` (faceteer's name) as properties of its entry.
pub(crate) fn index_properties(design: &TableDesign<'_>, index: &str) -> Map<String, Value> {
    let settings = &design.settings;
    let mut out = Map::new();
    match settings.index_capacity(index) {
        Some(Capacity::Provisioned { units, .. }) => {
            out.insert("ProvisionedThroughput".into(), provisioned(units));
        }
        Some(Capacity::OnDemand { max: Some(max) }) => {
            out.insert("OnDemandThroughput".into(), on_demand(max));
        }
        _ => {}
    }
    if let Some(warm) = settings.index(index).and_then(|i| i.warm_throughput) {
        out.insert("WarmThroughput".into(), warm_throughput(warm));
    }
    out
}

fn provisioned(units: Throughput) -> Value {
    json!({ "ReadCapacityUnits": units.read, "WriteCapacityUnits": units.write })
}

fn on_demand(max: Throughput) -> Value {
    json!({ "MaxReadRequestUnits": max.read, "MaxWriteRequestUnits": max.write })
}

fn warm_throughput(warm: Throughput) -> Value {
    json!({ "ReadUnitsPerSecond": warm.read, "WriteUnitsPerSecond": warm.write })
}

/// The auto scaling resources of `design`, whose table resource is `logical`: per scaled
/// dimension, a scalable target and a target-tracking policy, named
/// `{logical}[{Index}]{Read|Write}Target` and `…Policy`.
pub(crate) fn scaling_resources(design: &TableDesign<'_>, logical: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for scaled in super::scaled(design) {
        let name = super::unique_name(
            &mut used,
            format!(
                "{logical}{}{}",
                scaled.index.map_or_else(String::new, alphanumeric),
                scaled.dimension
            ),
        );
        let resource_id = match scaled.index {
            Some(index) => json!({ "Fn::Sub": format!("table/${{{logical}}}/index/{index}") }),
            None => json!({ "Fn::Sub": format!("table/${{{logical}}}") }),
        };
        let target = format!("{name}Target");
        out.push((
            target.clone(),
            json!({
                "Type": "AWS::ApplicationAutoScaling::ScalableTarget",
                "Properties": {
                    "ServiceNamespace": "dynamodb",
                    "ResourceId": resource_id,
                    "ScalableDimension": scaled.scalable_dimension(),
                    "MinCapacity": scaled.range.min,
                    "MaxCapacity": scaled.range.max,
                }
            }),
        ));
        out.push((
            format!("{name}Policy"),
            json!({
                "Type": "AWS::ApplicationAutoScaling::ScalingPolicy",
                "Properties": {
                    "PolicyName": format!("{name}Utilization"),
                    "PolicyType": "TargetTrackingScaling",
                    "ScalingTargetId": { "Ref": target },
                    "TargetTrackingScalingPolicyConfiguration": {
                        "TargetValue": scaled.target_percent,
                        "PredefinedMetricSpecification": {
                            "PredefinedMetricType": scaled.metric(),
                        }
                    }
                }
            }),
        ));
    }
    out
}

/// `name` with only its ASCII letters and digits, first letter capitalised.
fn alphanumeric(name: &str) -> String {
    let mut out: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
    if let Some(first) = out.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    out
}
