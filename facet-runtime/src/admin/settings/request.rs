//! Settings as the SDK's request parts: for `CreateTable`, and one `UpdateTable` per
//! setting.

use aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder;
use aws_sdk_dynamodb::operation::update_table::builders::UpdateTableInputBuilder;
use aws_sdk_dynamodb::types::{
    BillingMode, GlobalSecondaryIndexUpdate, OnDemandThroughput, ProvisionedThroughput,
    SseSpecification, SseType, TableClass as SdkTableClass, UpdateGlobalSecondaryIndexAction,
    WarmThroughput,
};
use faceteer_core::settings::{Capacity, Encryption, TableClass, TableSettings, Throughput};

use crate::error::{Error, Result};

fn setup(e: impl std::fmt::Display) -> Error {
    Error::TableSetup(e.to_string())
}

pub(crate) fn billing(capacity: &Capacity) -> BillingMode {
    match capacity {
        Capacity::OnDemand { .. } => BillingMode::PayPerRequest,
        Capacity::Provisioned { .. } => BillingMode::Provisioned,
    }
}

pub(crate) fn provisioned(units: Throughput) -> Result<ProvisionedThroughput> {
    ProvisionedThroughput::builder()
        .read_capacity_units(i64::from(units.read))
        .write_capacity_units(i64::from(units.write))
        .build()
        .map_err(setup)
}

/// An on-demand maximum; `None` removes one (-1, DynamoDB's "no maximum").
pub(crate) fn maximum(max: Option<Throughput>) -> OnDemandThroughput {
    let (read, write) = max.map_or((-1, -1), |m| (i64::from(m.read), i64::from(m.write)));
    OnDemandThroughput::builder()
        .max_read_request_units(read)
        .max_write_request_units(write)
        .build()
}

pub(crate) fn warm(w: Throughput) -> WarmThroughput {
    WarmThroughput::builder()
        .read_units_per_second(i64::from(w.read))
        .write_units_per_second(i64::from(w.write))
        .build()
}

pub(crate) fn sse(encryption: Encryption) -> SseSpecification {
    match encryption {
        Encryption::AwsOwned => SseSpecification::builder().enabled(false).build(),
        Encryption::AwsManaged => SseSpecification::builder()
            .enabled(true)
            .sse_type(SseType::Kms)
            .build(),
        Encryption::CustomerKey(key) => SseSpecification::builder()
            .enabled(true)
            .sse_type(SseType::Kms)
            .kms_master_key_id(key)
            .build(),
    }
}

pub(crate) fn class(class: TableClass) -> SdkTableClass {
    match class {
        TableClass::Standard => SdkTableClass::Standard,
        TableClass::InfrequentAccess => SdkTableClass::StandardInfrequentAccess,
    }
}

/// `request` with the table-level settings `CreateTable` takes (all but point-in-time
/// recovery, which needs its own call once the table is active).
pub(crate) fn create_table(
    mut request: CreateTableInputBuilder,
    settings: &TableSettings,
) -> Result<CreateTableInputBuilder> {
    request = match settings.capacity {
        None => request.billing_mode(BillingMode::PayPerRequest),
        Some(capacity) => {
            let request = request.billing_mode(billing(&capacity));
            match capacity {
                Capacity::Provisioned { units, .. } => {
                    request.provisioned_throughput(provisioned(units)?)
                }
                Capacity::OnDemand { max: Some(max) } => {
                    request.on_demand_throughput(maximum(Some(max)))
                }
                Capacity::OnDemand { max: None } => request,
            }
        }
    };
    if let Some(on) = settings.deletion_protection {
        request = request.deletion_protection_enabled(on);
    }
    if let Some(e) = settings.encryption {
        request = request.sse_specification(sse(e));
    }
    if let Some(c) = settings.table_class {
        request = request.table_class(class(c));
    }
    for (key, value) in settings.tags {
        request = request.tags(crate::exec::sdk::tag(key, value)?);
    }
    if let Some(w) = settings.warm_throughput {
        request = request.warm_throughput(warm(w));
    }
    Ok(request)
}

/// `$index` (a builder of a new global index: at the table's creation or added to a live
/// table) with the capacity and warm throughput `settings` declare for index `name`.
macro_rules! with_index_settings {
    ($index:expr, $settings:expr, $name:expr) => {{
        let mut index = $index;
        match $settings.index_capacity($name) {
            Some(Capacity::Provisioned { units, .. }) => {
                index = index.provisioned_throughput(provisioned(units)?);
            }
            Some(Capacity::OnDemand { max: Some(max) }) => {
                index = index.on_demand_throughput(maximum(Some(max)));
            }
            _ => {}
        }
        if let Some(w) = $settings.index($name).and_then(|i| i.warm_throughput) {
            index = index.warm_throughput(warm(w));
        }
        Ok(index)
    }};
}

/// A global index's capacity and warm throughput at creation (faceteer's name `name`).
pub(crate) fn create_index(
    index: aws_sdk_dynamodb::types::builders::GlobalSecondaryIndexBuilder,
    settings: &TableSettings,
    name: &str,
) -> Result<aws_sdk_dynamodb::types::builders::GlobalSecondaryIndexBuilder> {
    with_index_settings!(index, settings, name)
}

/// The same for an index added to a live table.
pub(crate) fn add_index(
    index: aws_sdk_dynamodb::types::builders::CreateGlobalSecondaryIndexActionBuilder,
    settings: &TableSettings,
    name: &str,
) -> Result<aws_sdk_dynamodb::types::builders::CreateGlobalSecondaryIndexActionBuilder> {
    with_index_settings!(index, settings, name)
}

/// An `UpdateTable` changing one global index (`table_name`: the table's name of it).
pub(crate) fn update_index(
    table_name: &str,
    capacity: Option<&Capacity>,
    warm_throughput: Option<Throughput>,
) -> Result<UpdateTableInputBuilder> {
    let mut action = UpdateGlobalSecondaryIndexAction::builder().index_name(table_name);
    match capacity {
        Some(Capacity::Provisioned { units, .. }) => {
            action = action.provisioned_throughput(provisioned(*units)?);
        }
        Some(Capacity::OnDemand { max }) => {
            action = action.on_demand_throughput(maximum(*max));
        }
        None => {}
    }
    if let Some(w) = warm_throughput {
        action = action.warm_throughput(warm(w));
    }
    Ok(
        UpdateTableInputBuilder::default().global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .update(action.build().map_err(setup)?)
                .build(),
        ),
    )
}
