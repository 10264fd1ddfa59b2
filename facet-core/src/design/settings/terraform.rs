//! Settings as `aws_dynamodb_table` arguments, and auto scaling as `aws_appautoscaling_*`
//! resources: entries the Terraform writer lays out.

use super::super::model::TableDesign;
use crate::settings::{Capacity, Encryption, Recovery, Throughput};

/// One entry of an HCL body, for the Terraform writer to lay out and quote.
pub(crate) enum Entry {
    /// `name = "text"`: a string the writer quotes.
    Text(&'static str, String),
    /// `name = value`: a number, boolean, reference or list, written as it is.
    Attr(&'static str, String),
    /// `name = { "key" = "value" … }`: a map of strings.
    Map(&'static str, Vec<(&'static str, &'static str)>),
    /// `name { .. }`.
    Block(&'static str, Vec<Entry>),
    /// `# text`, a line of comment.
    Comment(&'static str),
}

/// A resource after the table: its type, name and body.
pub(crate) struct Resource {
    pub kind: &'static str,
    pub name: String,
    pub body: Vec<Entry>,
}

/// The billing mode and capacity arguments of the table (`billing_mode`, `read_capacity`,
/// `write_capacity`, `on_demand_throughput`).
pub(crate) fn capacity(design: &TableDesign<'_>) -> Vec<Entry> {
    let capacity = design.settings.capacity;
    let mut out = vec![Entry::Text(
        "billing_mode",
        capacity
            .map_or("PAY_PER_REQUEST", |c| c.billing_mode())
            .to_owned(),
    )];
    out.extend(capacity_entries(capacity));
    out
}

fn capacity_entries(capacity: Option<Capacity>) -> Vec<Entry> {
    match capacity {
        Some(Capacity::Provisioned { units, .. }) => vec![
            Entry::Attr("read_capacity", units.read.to_string()),
            Entry::Attr("write_capacity", units.write.to_string()),
        ],
        Some(Capacity::OnDemand { max: Some(max) }) => vec![Entry::Block(
            "on_demand_throughput",
            vec![
                Entry::Attr("max_read_request_units", max.read.to_string()),
                Entry::Attr("max_write_request_units", max.write.to_string()),
            ],
        )],
        _ => Vec::new(),
    }
}

fn warm(warm: Throughput) -> Entry {
    Entry::Block(
        "warm_throughput",
        vec![
            Entry::Attr("read_units_per_second", warm.read.to_string()),
            Entry::Attr("write_units_per_second", warm.write.to_string()),
        ],
    )
}

/// The other settings of the table, after its indexes and TTL: recovery, protection,
/// encryption, class, warm throughput, tags, and `ignore_changes` of an auto scaled
/// capacity.
pub(crate) fn table_settings(design: &TableDesign<'_>) -> Vec<Entry> {
    let settings = &design.settings;
    let mut out = Vec::new();
    if let Some(recovery) = settings.point_in_time_recovery {
        out.push(Entry::Block(
            "point_in_time_recovery",
            match recovery {
                Recovery::Off => vec![Entry::Attr("enabled", "false".into())],
                Recovery::On { days } => vec![
                    Entry::Attr("enabled", "true".into()),
                    Entry::Attr("recovery_period_in_days", days.to_string()),
                ],
            },
        ));
    }
    if let Some(on) = settings.deletion_protection {
        out.push(Entry::Attr("deletion_protection_enabled", on.to_string()));
    }
    if let Some(encryption) = settings.encryption {
        out.push(Entry::Block(
            "server_side_encryption",
            match encryption {
                Encryption::AwsOwned => vec![Entry::Attr("enabled", "false".into())],
                Encryption::AwsManaged => vec![Entry::Attr("enabled", "true".into())],
                Encryption::CustomerKey(key) => vec![
                    Entry::Attr("enabled", "true".into()),
                    Entry::Text("kms_key_arn", key.to_owned()),
                ],
            },
        ));
    }
    if let Some(class) = settings.table_class {
        out.push(Entry::Text("table_class", class.as_str().to_owned()));
    }
    if let Some(w) = settings.warm_throughput {
        out.push(warm(w));
    }
    if !settings.tags.is_empty() {
        out.push(Entry::Map("tags", settings.tags.to_vec()));
    }
    let scaled = super::scaled(design);
    let mut ignored = Vec::new();
    if scaled.iter().any(|s| s.index.is_none()) {
        ignored.extend(["read_capacity", "write_capacity"]);
    }
    let indexes_ignored = scaled.iter().any(|s| s.index.is_some());
    if indexes_ignored {
        // The provider cannot ignore one index's capacity: it ignores the index blocks'.
        ignored.push("global_secondary_index");
    }
    if !ignored.is_empty() {
        let mut body = Vec::new();
        if indexes_ignored {
            body.extend([
                Entry::Comment(
                    "Auto scaling changes the indexes' capacity, so Terraform ignores the",
                ),
                Entry::Comment(
                    "global_secondary_index blocks: it neither adds, changes nor removes an",
                ),
                Entry::Comment(
                    "index. Add new ones with `create_missing_indexes` (or `table verify --fix`),",
                ),
                Entry::Comment("or remove `global_secondary_index` here for one apply."),
            ]);
        }
        body.push(Entry::Attr(
            "ignore_changes",
            format!("[{}]", ignored.join(", ")),
        ));
        out.push(Entry::Block("lifecycle", body));
    }
    out
}

/// The capacity and warm throughput of global index `index` (faceteer's name).
pub(crate) fn index_settings(design: &TableDesign<'_>, index: &str) -> Vec<Entry> {
    let settings = &design.settings;
    let mut out = capacity_entries(settings.index_capacity(index));
    if let Some(w) = settings.index(index).and_then(|i| i.warm_throughput) {
        out.push(warm(w));
    }
    out
}

/// The auto scaling resources: per scaled dimension an `aws_appautoscaling_target` and
/// an `aws_appautoscaling_policy`, named `{table}_{index_}{read|write}`.
pub(crate) fn scaling_resources(design: &TableDesign<'_>, table: &str) -> Vec<Resource> {
    let mut out = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for scaled in super::scaled(design) {
        let name = format!(
            "{table}_{}{}",
            scaled
                .index
                .map_or_else(String::new, |i| format!("{}_", snake(i))),
            scaled.dimension.to_ascii_lowercase()
        );
        let name = super::unique_name(&mut used, name);
        let resource_id = match scaled.index {
            Some(index) => format!("\"table/${{aws_dynamodb_table.{table}.name}}/index/{index}\""),
            None => format!("\"table/${{aws_dynamodb_table.{table}.name}}\""),
        };
        out.push(Resource {
            kind: "aws_appautoscaling_target",
            name: name.clone(),
            body: vec![
                Entry::Text("service_namespace", "dynamodb".to_owned()),
                Entry::Attr("resource_id", resource_id),
                Entry::Text("scalable_dimension", scaled.scalable_dimension()),
                Entry::Attr("min_capacity", scaled.range.min.to_string()),
                Entry::Attr("max_capacity", scaled.range.max.to_string()),
            ],
        });
        let target = format!("aws_appautoscaling_target.{name}");
        out.push(Resource {
            kind: "aws_appautoscaling_policy",
            name: name.clone(),
            body: vec![
                Entry::Attr(
                    "name",
                    format!("\"{}:${{{target}.resource_id}}\"", scaled.metric()),
                ),
                Entry::Text("policy_type", "TargetTrackingScaling".to_owned()),
                Entry::Attr("resource_id", format!("{target}.resource_id")),
                Entry::Attr("scalable_dimension", format!("{target}.scalable_dimension")),
                Entry::Attr("service_namespace", format!("{target}.service_namespace")),
                Entry::Block(
                    "target_tracking_scaling_policy_configuration",
                    vec![
                        Entry::Attr("target_value", scaled.target_percent.to_string()),
                        Entry::Block(
                            "predefined_metric_specification",
                            vec![Entry::Text("predefined_metric_type", scaled.metric())],
                        ),
                    ],
                ),
            ],
        });
    }
    out
}

fn snake(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}
