//! The table's settings in the infrastructure exports: CloudFormation properties and
//! auto scaling resources, Terraform arguments and resources.

pub(super) mod cloudformation;
pub(super) mod terraform;

use super::model::TableDesign;
use crate::settings::{AutoScaling, Capacity, ScalingRange};

/// One auto scaled dimension: the table or one of its global indexes, reads or writes.
pub(super) struct Scaled<'a> {
    /// The table's name of the index, or `None` for the table.
    pub index: Option<&'a str>,
    /// `Read` or `Write`.
    pub dimension: &'static str,
    /// The bounds.
    pub range: ScalingRange,
    /// The utilisation to keep, in percent.
    pub target_percent: u8,
}

impl Scaled<'_> {
    /// Application Auto Scaling's scalable dimension
    /// (`dynamodb:table:ReadCapacityUnits`, `dynamodb:index:WriteCapacityUnits`, …).
    pub fn scalable_dimension(&self) -> String {
        let of = if self.index.is_some() {
            "index"
        } else {
            "table"
        };
        format!("dynamodb:{of}:{}CapacityUnits", self.dimension)
    }

    /// The predefined metric the policy tracks.
    pub fn metric(&self) -> String {
        format!("DynamoDB{}CapacityUtilization", self.dimension)
    }
}

/// `name`, or, when `used` holds it already (two index names that differ only in
/// punctuation), `name` with the first free number after it; then held in `used`.
pub(super) fn unique_name(used: &mut std::collections::BTreeSet<String>, name: String) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while used.contains(&candidate) {
        candidate = format!("{name}{n}");
        n += 1;
    }
    used.insert(candidate.clone());
    candidate
}

/// Every auto scaled dimension of `design`: the table's, then each global index's (its own
/// or, undeclared, the table's), reads before writes.
pub(super) fn scaled<'a>(design: &'a TableDesign<'_>) -> Vec<Scaled<'a>> {
    let settings = &design.settings;
    let mut out = Vec::new();
    let mut push = |index: Option<&'a str>, scaling: AutoScaling| {
        for (dimension, range) in [("Read", scaling.read), ("Write", scaling.write)] {
            out.push(Scaled {
                index,
                dimension,
                range,
                target_percent: scaling.target_percent,
            });
        }
    };
    if let Some(Capacity::Provisioned {
        auto_scaling: Some(scaling),
        ..
    }) = settings.capacity
    {
        push(None, scaling);
    }
    for index in design.indexes() {
        if index.kind != crate::schema::IndexKind::Global {
            continue;
        }
        if let Some(Capacity::Provisioned {
            auto_scaling: Some(scaling),
            ..
        }) = settings.index_capacity(index.index)
        {
            push(Some(index.name), scaling);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{cloudformation, fixtures, terraform, TableDesign};
    use crate::settings::*;
    use serde_json::{json, Value};

    const SCALING: AutoScaling = AutoScaling {
        read: ScalingRange { min: 5, max: 100 },
        write: ScalingRange { min: 2, max: 50 },
        target_percent: 70,
    };

    pub(crate) const PROVISIONED: TableSettings = TableSettings::DEFAULT
        .capacity(Capacity::provisioned(10, 5).auto_scaled(SCALING))
        .indexes(&[IndexSettings::new("GSI2").capacity(Capacity::provisioned(3, 1))]);

    pub(crate) const ON_DEMAND: TableSettings = TableSettings::DEFAULT
        .capacity(Capacity::on_demand_up_to(Throughput::new(2_000, 500)))
        .point_in_time_recovery(Recovery::On { days: 7 })
        .deletion_protection(true)
        .encryption(Encryption::CustomerKey(
            "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        ))
        .table_class(TableClass::InfrequentAccess)
        .tags(&[("team", "payments"), ("cost-center", "42")])
        .warm_throughput(Throughput::new(15_000, 5_000))
        .indexes(&[IndexSettings::new("GSI1").warm_throughput(Throughput::new(13_000, 4_500))]);

    #[test]
    fn on_demand_settings_are_table_properties() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_settings(ON_DEMAND);
        let template: Value = serde_json::from_str(&cloudformation(&design)).unwrap();
        let t = &template["Resources"]["App"]["Properties"];
        assert_eq!(t["BillingMode"], "PAY_PER_REQUEST");
        assert_eq!(
            t["OnDemandThroughput"],
            json!({"MaxReadRequestUnits": 2000, "MaxWriteRequestUnits": 500})
        );
        assert_eq!(
            t["PointInTimeRecoverySpecification"],
            json!({"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 7})
        );
        assert_eq!(t["DeletionProtectionEnabled"], true);
        assert_eq!(t["SSESpecification"]["SSEType"], "KMS");
        assert_eq!(t["TableClass"], "STANDARD_INFREQUENT_ACCESS");
        assert_eq!(t["Tags"][1], json!({"Key": "cost-center", "Value": "42"}));
        assert_eq!(t["WarmThroughput"]["ReadUnitsPerSecond"], 15000);
        let gsi1 = &t["GlobalSecondaryIndexes"][0];
        assert_eq!(gsi1["IndexName"], "GSI1");
        assert_eq!(gsi1["WarmThroughput"]["WriteUnitsPerSecond"], 4500);
        assert!(t.get("ProvisionedThroughput").is_none());
        assert_eq!(template["Resources"].as_object().unwrap().len(), 1);

        let hcl = terraform(&design);
        for line in [
            "billing_mode = \"PAY_PER_REQUEST\"",
            "on_demand_throughput {",
            "max_read_request_units  = 2000",
            "point_in_time_recovery {",
            "recovery_period_in_days = 7",
            "deletion_protection_enabled = true",
            "kms_key_arn = \"arn:aws:kms:",
            "table_class = \"STANDARD_INFREQUENT_ACCESS\"",
            "\"cost-center\" = \"42\"",
            "read_units_per_second  = 13000",
        ] {
            assert!(hcl.contains(line), "{line} in\n{hcl}");
        }
    }

    #[test]
    fn provisioned_capacity_reaches_every_global_index_and_scales() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_settings(PROVISIONED);
        let template: Value = serde_json::from_str(&cloudformation(&design)).unwrap();
        let resources = template["Resources"].as_object().unwrap();
        let t = &resources["App"]["Properties"];
        assert_eq!(t["BillingMode"], "PROVISIONED");
        assert_eq!(
            t["ProvisionedThroughput"],
            json!({"ReadCapacityUnits": 10, "WriteCapacityUnits": 5})
        );
        for index in t["GlobalSecondaryIndexes"].as_array().unwrap() {
            let expected = if index["IndexName"] == "GSI2" {
                json!({"ReadCapacityUnits": 3, "WriteCapacityUnits": 1})
            } else {
                json!({"ReadCapacityUnits": 10, "WriteCapacityUnits": 5})
            };
            assert_eq!(index["ProvisionedThroughput"], expected, "{index}");
        }
        for index in t["LocalSecondaryIndexes"].as_array().into_iter().flatten() {
            assert!(index.get("ProvisionedThroughput").is_none());
        }
        let target = &resources["AppReadTarget"];
        assert_eq!(
            target["Type"],
            "AWS::ApplicationAutoScaling::ScalableTarget"
        );
        assert_eq!(
            target["Properties"]["ScalableDimension"],
            "dynamodb:table:ReadCapacityUnits"
        );
        assert_eq!(target["Properties"]["MinCapacity"], 5);
        let policy = &resources["AppWritePolicy"]["Properties"];
        assert_eq!(policy["ScalingTargetId"], json!({"Ref": "AppWriteTarget"}));
        // GSI1 is scaled with the table; GSI2 declares fixed capacity.
        assert!(resources.contains_key("AppGSI1ReadTarget"));
        assert!(!resources.contains_key("AppGSI2ReadTarget"));
        assert_eq!(
            resources["AppGSI1ReadTarget"]["Properties"]["ResourceId"],
            json!({"Fn::Sub": "table/${App}/index/GSI1"})
        );

        let hcl = terraform(&design);
        for line in [
            "billing_mode   = \"PROVISIONED\"",
            "read_capacity  = 10",
            "resource \"aws_appautoscaling_target\" \"app_gsi1_read\" {",
            "resource_id        = \"table/${aws_dynamodb_table.app.name}/index/GSI1\"",
            "ignore_changes = [read_capacity, write_capacity, global_secondary_index]",
            "predefined_metric_type = \"DynamoDBWriteCapacityUtilization\"",
        ] {
            assert!(hcl.contains(line), "{line} in\n{hcl}");
        }
    }

    #[test]
    fn resource_names_never_collide() {
        let mut used = std::collections::BTreeSet::new();
        let names: Vec<String> = ["AppByStatusRead", "AppByStatusRead", "AppByStatusRead"]
            .into_iter()
            .map(|n| super::unique_name(&mut used, n.to_owned()))
            .collect();
        assert_eq!(
            names,
            ["AppByStatusRead", "AppByStatusRead2", "AppByStatusRead3"]
        );
    }

    #[test]
    fn undeclared_settings_change_nothing() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets);
        let with = design.with_settings(TableSettings::DEFAULT);
        assert_eq!(cloudformation(&design), cloudformation(&with));
        assert!(!terraform(&design).contains("lifecycle"));
    }
}
