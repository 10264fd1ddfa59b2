//! Adding the global indexes a new design declares to a table that exists.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    CreateGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate, IndexStatus, TableStatus,
};
use faceteer_core::schema::{table_indexes, IndexKind};

use super::create::{attribute, index_attributes, index_definition};
use crate::error::{Error, Result};
use crate::exec::sdk;
use crate::table::Table;

impl Table {
    /// Create the global indexes the declared facets use that the table lacks, one
    /// `UpdateTable` at a time (DynamoDB adds one index per request), each waited for until
    /// active; returns their names. DynamoDB fills a new index from the items that already
    /// hold its key attributes: run a backfill ([`crate::backfill`]) to give them to the
    /// records written before (a native index is keyed by the records' own attributes, so
    /// DynamoDB fills it from the records already stored, with no backfill). A missing
    /// local index cannot be added to an existing table:
    /// [`Error::TableSetup`].
    pub async fn create_missing_indexes(&self) -> Result<Vec<String>> {
        let Some(facets) = self.facets() else {
            return Err(Error::TableSetup(format!(
                "table {} has no declared facets, so its indexes are unknown",
                self.name()
            )));
        };
        let names = *self.names();
        let Some(live) = sdk::describe_table(self).await? else {
            return Err(Error::TableSetup(format!(
                "table {} does not exist",
                self.name()
            )));
        };
        let has = |name: &str| {
            live.global_secondary_indexes()
                .iter()
                .filter_map(|i| i.index_name())
                .chain(
                    live.local_secondary_indexes()
                        .iter()
                        .filter_map(|i| i.index_name()),
                )
                .any(|n| n == name)
        };
        let mut created = Vec::new();
        for index in table_indexes(facets) {
            let index = names.index_of(index);
            if has(index.name) {
                continue;
            }
            if index.kind == IndexKind::Local {
                return Err(Error::TableSetup(format!(
                    "table {} lacks local index {}, which DynamoDB creates only with the \
                     table",
                    self.name(),
                    index.name
                )));
            }
            let (keys, projection) = index_definition(&index)?;
            let action = CreateGlobalSecondaryIndexAction::builder()
                .index_name(index.name)
                .set_key_schema(Some(keys))
                .projection(projection)
                .build()
                .map_err(|e| Error::TableSetup(e.to_string()))?;
            let definitions = index_attributes(&index)
                .map(attribute)
                .collect::<Result<Vec<_>>>()?;
            sdk::add_index(
                self,
                definitions,
                GlobalSecondaryIndexUpdate::builder().create(action).build(),
            )
            .await?;
            wait_until_active(self).await?;
            created.push(index.name.to_owned());
        }
        Ok(created)
    }
}

/// Wait until the table and every index are active.
async fn wait_until_active(table: &Table) -> Result<()> {
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
        "the new indexes of table {} did not become active in time",
        table.name()
    )))
}
