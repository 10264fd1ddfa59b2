//! Adding the global indexes a new design declares to a table that exists.

use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, CreateVectorIndexAction, VectorIndexUpdate};
use aws_sdk_dynamodb::types::{CreateGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate};
use faceteer_core::schema::{
    table_indexes, table_vectors, IndexKind, KeyAttribute, ScalarType, VectorSchema,
};

use super::create::{attribute, distance, index_attributes, index_definition, vector_parts};
use super::wait::wait_until_active;
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
        let facets = self.declared_facets(", so its indexes are unknown")?;
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
            let declared = index.name;
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
                .projection(projection);
            // A provisioned table's new index needs its capacity: the declared one, else
            // the live table's.
            let mut action =
                super::settings::request::add_index(action, self.settings(), declared)?;
            if self.settings().index_capacity(declared).is_none() {
                if let Some(units) = live_provisioned(&live) {
                    action = action.provisioned_throughput(units);
                }
            }
            let action = action
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
        let live_vectors: Vec<&str> = live
            .vector_indexes()
            .iter()
            .filter_map(|v| v.index_name())
            .collect();
        for (vector, _) in table_vectors(facets) {
            if live_vectors.contains(&vector.index) {
                continue;
            }
            let (vector_attribute, schema, projection) = vector_parts(&vector)?;
            let action = CreateVectorIndexAction::builder()
                .index_name(vector.index)
                .vector_attribute(vector_attribute)
                .dimensions(i64::from(vector.dimensions))
                .distance_function(distance(vector.distance))
                .set_search_schema((!schema.is_empty()).then_some(schema))
                .projection(projection)
                .build()
                .map_err(|e| Error::TableSetup(e.to_string()))?;
            let definitions = vector
                .search_attributes()
                .map(attribute)
                .collect::<Result<Vec<_>>>()?;
            sdk::add_vector_index(
                self,
                definitions,
                VectorIndexUpdate::builder().create(action).build(),
            )
            .await?;
            wait_until_searchable(self, &vector).await?;
            created.push(vector.index.to_owned());
        }
        Ok(created)
    }
}

/// The provisioned throughput of a live provisioned table (`None` on demand).
fn live_provisioned(
    live: &aws_sdk_dynamodb::types::TableDescription,
) -> Option<aws_sdk_dynamodb::types::ProvisionedThroughput> {
    let billing = live.billing_mode_summary().and_then(|b| b.billing_mode());
    if billing.is_some_and(|b| b.as_str() != "PROVISIONED") {
        return None;
    }
    let pt = live.provisioned_throughput()?;
    let (read, write) = (pt.read_capacity_units()?, pt.write_capacity_units()?);
    if read < 1 || write < 1 {
        return None;
    }
    aws_sdk_dynamodb::types::ProvisionedThroughput::builder()
        .read_capacity_units(read)
        .write_capacity_units(write)
        .build()
        .ok()
}

/// Wait until vector index `v` answers searches. DynamoDB reports a new vector index
/// `ACTIVE` before it will answer (a search is refused while it backfills), so readiness is
/// a search that is not refused: one of the nearest record, for any partition value.
async fn wait_until_searchable(table: &Table, v: &VectorSchema) -> Result<()> {
    let probe_value = |k: KeyAttribute| match k.ty {
        ScalarType::S => AttributeValue::S("faceteer-probe".into()),
        ScalarType::N => AttributeValue::N("0".into()),
        ScalarType::B => AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(b"p".to_vec())),
    };
    let mut last = String::new();
    for attempt in 0..600u64 {
        let mut request = table
            .client()
            .search_vectors()
            .table_name(table.name())
            .index_name(v.index)
            .set_search_vector(Some(
                (0..v.dimensions)
                    .map(|_| AttributeValue::N("1".into()))
                    .collect(),
            ))
            .top_k(1);
        if let Some(k) = v.partition {
            request = request
                .search_condition_expression("#p = :p")
                .expression_attribute_names("#p", k.name)
                .expression_attribute_values(":p", probe_value(k));
        }
        match request.send().await {
            Ok(_) => return Ok(()),
            Err(e) => {
                let e = sdk::error_of("SearchVectors", table, e);
                last = e.to_string();
                let not_yet = last.contains("backfilling")
                    || last.contains("ResourceNotFound")
                    || last.contains("not found")
                    || last.contains("CREATING");
                if !not_yet {
                    return Err(e);
                }
            }
        }
        tokio::time::sleep(Duration::from_millis((100 * (attempt + 1)).min(2000))).await;
    }
    Err(Error::TableSetup(format!(
        "vector index {} of table {} did not answer searches in time (last refusal: {last})",
        v.index,
        table.name()
    )))
}
