//! What a live table has of the declared settings: its description, and, when declared,
//! its point-in-time recovery and tags (which `DescribeTable` does not give).

use aws_sdk_dynamodb::types::TableDescription;
use faceteer_core::settings::TableSettings;

use crate::error::{Error, Result};
use crate::exec::sdk;
use crate::table::Table;

/// The live table, as far as the declared settings need it.
pub(crate) struct Live {
    /// `DescribeTable`'s answer.
    pub description: TableDescription,
    /// Point-in-time recovery (on, period), when declared: or the engine's refusal.
    pub recovery: Option<std::result::Result<(bool, Option<i32>), String>>,
    /// The table's tags, when some are declared: or the engine's refusal.
    pub tags: Option<std::result::Result<Vec<(String, String)>, String>>,
}

/// An engine's refusal of an operation, as text; other failures (the network, a
/// deadline) stay errors.
pub(crate) fn refusal(e: Error) -> Result<String> {
    match e {
        Error::Dynamo(d) if d.code().is_some() => Ok(format!(
            "{}: {}",
            d.code().unwrap_or_default(),
            d.message().unwrap_or("refused")
        )),
        other => Err(other),
    }
}

/// Read what `table` has of `settings`.
pub(crate) async fn read(table: &Table, settings: &TableSettings) -> Result<Live> {
    let description = sdk::describe_table(table)
        .await?
        .unwrap_or_else(|| TableDescription::builder().build());
    read_beside(table, settings, description).await
}

/// What `table`, described as `description`, has of `settings`: what `DescribeTable` does
/// not say is read (recovery and tags, when declared).
pub(crate) async fn read_beside(
    table: &Table,
    settings: &TableSettings,
    description: TableDescription,
) -> Result<Live> {
    let recovery = match settings.point_in_time_recovery {
        None => None,
        Some(_) => Some(match sdk::describe_continuous_backups(table).await {
            Ok(r) => Ok(r),
            Err(e) => Err(refusal(e)?),
        }),
    };
    let tags = if settings.tags.is_empty() {
        None
    } else {
        let arn = description.table_arn().unwrap_or_default().to_owned();
        Some(match sdk::list_tags(table, &arn).await {
            Ok(t) => Ok(t),
            Err(e) => Err(refusal(e)?),
        })
    };
    Ok(Live {
        description,
        recovery,
        tags,
    })
}
