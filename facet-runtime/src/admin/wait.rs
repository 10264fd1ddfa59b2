//! Waiting for the table to be active after a change.

use std::time::Duration;

use aws_sdk_dynamodb::types::{IndexStatus, TableStatus};

use crate::error::{Error, Result};
use crate::exec::sdk;
use crate::table::Table;

/// Wait until the table and every index are active.
pub(crate) async fn wait_until_active(table: &Table) -> Result<()> {
    for attempt in 0..300u64 {
        let ready = sdk::describe_table(table).await?.is_some_and(|t| {
            t.table_status == Some(TableStatus::Active)
                && t.global_secondary_indexes().iter().all(|i| {
                    i.index_status.is_none() || i.index_status == Some(IndexStatus::Active)
                })
        });
        if ready {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis((100 * (attempt + 1)).min(2000))).await;
    }
    Err(Error::TableSetup(format!(
        "table {} and its indexes did not become active in time",
        table.name()
    )))
}
