//! The declared settings a live table does not have: what `verify` reports, what
//! `apply_settings` changes, and what `create_table` reports as not taken.

use aws_sdk_dynamodb::types::{OnDemandThroughput, ProvisionedThroughputDescription};
use faceteer_core::layout::TableNames;
use faceteer_core::schema::FacetSchema;
use faceteer_core::settings::{
    global_indexes, Capacity, Encryption, Recovery, Setting, TableSettings, Throughput,
};

use super::live::Live;

/// One declared setting the live table lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch {
    pub setting: Setting,
    pub expected: String,
    pub found: String,
}

fn units(t: Throughput) -> String {
    format!("{} read, {} write", t.read, t.write)
}

/// The live billing mode (`PROVISIONED` when not reported, as DynamoDB describes it).
pub(crate) fn live_billing(live: &Live) -> String {
    live.description
        .billing_mode_summary()
        .and_then(|b| b.billing_mode())
        .map_or_else(|| "PROVISIONED".to_owned(), |m| m.as_str().to_owned())
}

fn provisioned_text(p: Option<&ProvisionedThroughputDescription>) -> String {
    match p {
        Some(p) => format!(
            "{} read, {} write",
            p.read_capacity_units().unwrap_or(0),
            p.write_capacity_units().unwrap_or(0)
        ),
        None => "not reported".to_owned(),
    }
}

/// Whether provisioned throughput `p` is `capacity`'s: its units, or within its auto
/// scaling ranges.
fn provisioned_matches(p: Option<&ProvisionedThroughputDescription>, capacity: &Capacity) -> bool {
    let Capacity::Provisioned {
        units,
        auto_scaling,
    } = capacity
    else {
        return true;
    };
    let (read, write) = match p {
        Some(p) => (
            p.read_capacity_units().unwrap_or(0),
            p.write_capacity_units().unwrap_or(0),
        ),
        None => return false,
    };
    match auto_scaling {
        Some(s) => {
            (i64::from(s.read.min)..=i64::from(s.read.max)).contains(&read)
                && (i64::from(s.write.min)..=i64::from(s.write.max)).contains(&write)
        }
        None => read == i64::from(units.read) && write == i64::from(units.write),
    }
}

fn provisioned_expected(capacity: &Capacity) -> String {
    match capacity {
        Capacity::Provisioned {
            auto_scaling: Some(s),
            ..
        } => format!(
            "{}–{} read, {}–{} write (auto scaled)",
            s.read.min, s.read.max, s.write.min, s.write.max
        ),
        Capacity::Provisioned { units: u, .. } => units(*u),
        Capacity::OnDemand { .. } => String::new(),
    }
}

/// The live on-demand maximum: `None` when there is none (absent, or -1).
fn live_maximum(o: Option<&OnDemandThroughput>) -> Option<(i64, i64)> {
    let o = o?;
    let read = o.max_read_request_units().filter(|r| *r > 0);
    let write = o.max_write_request_units().filter(|w| *w > 0);
    (read.is_some() || write.is_some()).then(|| (read.unwrap_or(-1), write.unwrap_or(-1)))
}

fn maximum_text(m: Option<(i64, i64)>) -> String {
    match m {
        None => "no maximum".to_owned(),
        Some((r, w)) => {
            let side = |n: i64| {
                if n < 0 {
                    "unbounded".to_owned()
                } else {
                    n.to_string()
                }
            };
            format!("{} read, {} write", side(r), side(w))
        }
    }
}

fn maximum_expected(max: Option<Throughput>) -> Option<(i64, i64)> {
    max.map(|m| (i64::from(m.read), i64::from(m.write)))
}

/// What declared warm throughput `declared` lacks, described as (expected, found), given the
/// live `(read, write)` units and status: nothing while it is still being raised
/// (`UPDATING`: it takes a while).
fn warm_mismatch(
    declared: Throughput,
    live: Option<(i64, i64)>,
    status: Option<&str>,
) -> Option<(String, String)> {
    if status == Some("UPDATING") || warm_reaches(live, declared) {
        return None;
    }
    Some((
        format!("at least {} per second", units(declared)),
        warm_text(live),
    ))
}

/// What declared `capacity` lacks, as (expected, found), given the live provisioned
/// throughput and on-demand maximum (of the table, or of an index).
fn capacity_mismatch(
    capacity: &Capacity,
    provisioned: Option<&ProvisionedThroughputDescription>,
    on_demand: Option<&OnDemandThroughput>,
) -> Option<(String, String)> {
    match capacity {
        Capacity::Provisioned { .. } => (!provisioned_matches(provisioned, capacity)).then(|| {
            (
                provisioned_expected(capacity),
                provisioned_text(provisioned),
            )
        }),
        Capacity::OnDemand { max } => {
            let found = live_maximum(on_demand);
            (found != maximum_expected(*max))
                .then(|| (maximum_text(maximum_expected(*max)), maximum_text(found)))
        }
    }
}

/// Whether warm throughput `(read, write)` reaches `declared`.
fn warm_reaches(live: Option<(i64, i64)>, declared: Throughput) -> bool {
    live.is_some_and(|(r, w)| r >= i64::from(declared.read) && w >= i64::from(declared.write))
}

fn warm_text(live: Option<(i64, i64)>) -> String {
    live.map_or_else(
        || "not reported".to_owned(),
        |(r, w)| format!("{r} read, {w} write per second"),
    )
}

/// Whether the live key `arn` is the declared `key`: the same ARN, the same key id, or,
/// for an alias (which DynamoDB resolves), any customer key.
fn same_key(key: &str, arn: Option<&str>) -> bool {
    let Some(arn) = arn else { return false };
    if key.starts_with("arn:") && !key.contains(":alias/") {
        arn == key
    } else if key.starts_with("alias/") || key.contains(":alias/") {
        true
    } else {
        arn.ends_with(&format!("key/{key}"))
    }
}

/// Every declared setting of `settings` that `live` lacks, table settings first, then
/// each global index's (`facets`' indexes, named in the table as `names` says).
pub(crate) fn mismatches(
    settings: &TableSettings,
    facets: &[&FacetSchema],
    names: &TableNames,
    live: &Live,
) -> Vec<Mismatch> {
    let d = &live.description;
    let mut out = Vec::new();
    let mut push = |setting: Setting, expected: String, found: String| {
        out.push(Mismatch {
            setting,
            expected,
            found,
        })
    };
    if let Some(capacity) = &settings.capacity {
        let billing = live_billing(live);
        if billing != capacity.billing_mode() {
            push(
                Setting::BillingMode,
                capacity.billing_mode().to_owned(),
                billing,
            );
        } else if let Some((expected, found)) = capacity_mismatch(
            capacity,
            d.provisioned_throughput(),
            d.on_demand_throughput(),
        ) {
            let setting = match capacity {
                Capacity::Provisioned { .. } => Setting::ProvisionedThroughput,
                Capacity::OnDemand { .. } => Setting::OnDemandMaximum,
            };
            push(setting, expected, found);
        }
    }
    if let (Some(declared), Some(found)) = (settings.point_in_time_recovery, &live.recovery) {
        let expected = match declared {
            Recovery::Off => "off".to_owned(),
            Recovery::On { days } => format!("on, {days} days"),
        };
        let found_text = match found {
            Err(why) => Some(format!("not reported ({why})")),
            Ok((on, days)) => match declared {
                Recovery::Off if !on => None,
                Recovery::On { days: want } if *on && days.unwrap_or(35) == i32::from(want) => None,
                _ if *on => Some(format!("on, {} days", days.unwrap_or(35))),
                _ => Some("off".to_owned()),
            },
        };
        if let Some(found) = found_text {
            push(Setting::PointInTimeRecovery, expected, found);
        }
    }
    if let Some(on) = settings.deletion_protection {
        let found = d.deletion_protection_enabled().unwrap_or(false);
        if found != on {
            let word = |b: bool| if b { "on" } else { "off" }.to_owned();
            push(Setting::DeletionProtection, word(on), word(found));
        }
    }
    if let Some(encryption) = settings.encryption {
        let sse = d.sse_description();
        let kms = sse.is_some_and(|s| {
            s.sse_type().is_some_and(|t| t.as_str() == "KMS")
                && s.status()
                    .is_none_or(|st| matches!(st.as_str(), "ENABLED" | "ENABLING" | "UPDATING"))
        });
        let arn = sse.and_then(|s| s.kms_master_key_arn());
        let found = if kms {
            format!("KMS key {}", arn.unwrap_or("(not reported)"))
        } else {
            "an AWS-owned key".to_owned()
        };
        let (ok, expected) = match encryption {
            Encryption::AwsOwned => (!kms, "an AWS-owned key".to_owned()),
            Encryption::AwsManaged => (kms, "the AWS-managed KMS key".to_owned()),
            Encryption::CustomerKey(key) => (kms && same_key(key, arn), format!("KMS key {key}")),
        };
        if !ok {
            push(Setting::Encryption, expected, found);
        }
    }
    if let Some(class) = settings.table_class {
        let found = d
            .table_class_summary()
            .and_then(|c| c.table_class())
            .map_or("STANDARD", |c| c.as_str());
        if found != class.as_str() {
            push(
                Setting::TableClass,
                class.as_str().to_owned(),
                found.to_owned(),
            );
        }
    }
    if let Some(tags) = &live.tags {
        let missing: Vec<String> = match tags {
            Err(_) => settings
                .tags
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
            Ok(found) => settings
                .tags
                .iter()
                .filter(|(k, v)| !found.iter().any(|(fk, fv)| fk == k && fv == v))
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
        };
        if !missing.is_empty() {
            let found = match tags {
                Err(why) => format!("not reported ({why})"),
                Ok(found) => {
                    let list: Vec<String> = found.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    if list.is_empty() {
                        "no tags".to_owned()
                    } else {
                        list.join(", ")
                    }
                }
            };
            push(Setting::Tags, missing.join(", "), found);
        }
    }
    if let Some(warm) = settings.warm_throughput {
        let live_warm = d.warm_throughput();
        let found = live_warm.map(|w| {
            (
                w.read_units_per_second().unwrap_or(0),
                w.write_units_per_second().unwrap_or(0),
            )
        });
        let status = live_warm.and_then(|w| w.status()).map(|s| s.as_str());
        if let Some((expected, found)) = warm_mismatch(warm, found, status) {
            push(Setting::WarmThroughput, expected, found);
        }
    }
    // Index capacity follows the table's billing mode: checked once the mode is right.
    let billing_ok = settings
        .capacity
        .is_none_or(|c| live_billing(live) == c.billing_mode());
    for index in global_indexes(facets) {
        let live_index = d
            .global_secondary_indexes()
            .iter()
            .find(|g| g.index_name() == Some(names.index_name(index)));
        let Some(live_index) = live_index else {
            continue; // a missing index is verify's MissingIndex
        };
        if let (true, Some(capacity)) = (billing_ok, settings.index_capacity(index)) {
            if let Some((expected, found)) = capacity_mismatch(
                &capacity,
                live_index.provisioned_throughput(),
                live_index.on_demand_throughput(),
            ) {
                push(Setting::IndexCapacity(index), expected, found);
            }
        }
        if let Some(warm) = settings.index(index).and_then(|i| i.warm_throughput) {
            let live_warm = live_index.warm_throughput();
            let found = live_warm.map(|w| {
                (
                    w.read_units_per_second().unwrap_or(0),
                    w.write_units_per_second().unwrap_or(0),
                )
            });
            let status = live_warm.and_then(|w| w.status()).map(|s| s.as_str());
            if let Some((expected, found)) = warm_mismatch(warm, found, status) {
                push(Setting::IndexWarmThroughput(index), expected, found);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_by_arn_id_or_alias() {
        let arn = "arn:aws:kms:us-east-1:1:key/abcd";
        assert!(same_key(arn, Some(arn)));
        assert!(same_key("abcd", Some(arn)));
        assert!(same_key("alias/mine", Some(arn)));
        assert!(!same_key("efgh", Some(arn)));
        assert!(!same_key("abcd", None));
    }

    #[test]
    fn a_maximum_of_minus_one_is_none() {
        let o = OnDemandThroughput::builder()
            .max_read_request_units(-1)
            .max_write_request_units(-1)
            .build();
        assert_eq!(live_maximum(Some(&o)), None);
        let o = OnDemandThroughput::builder()
            .max_read_request_units(10)
            .build();
        assert_eq!(live_maximum(Some(&o)), Some((10, -1)));
        assert_eq!(maximum_text(Some((10, -1))), "10 read, unbounded write");
    }
}
