//! Creating and deleting the table (tests, examples, first-time setup).

use std::time::Duration;

use aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, IndexStatus, KeySchemaElement, KeyType,
    Projection as IndexProjection, ProjectionType, ScalarAttributeType, TableStatus,
};
use faceteer_core::schema::{gsi_names, index_projection, PK, SK};

use crate::error::{Error, Result};
use crate::exec::sdk;
use crate::table::Table;

fn attribute(name: &str) -> Result<AttributeDefinition> {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))
}

fn key(name: &str, kind: KeyType) -> Result<KeySchemaElement> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))
}

impl Table {
    /// Create the table: `PK`/`SK` and every index the declared facets use (each keyed
    /// `GSInPK`/`GSInSK`, projecting all attributes, or, when every facet using it declares
    /// a narrower projection, `INCLUDE` of what they need:
    /// [`index_projection`](faceteer_core::schema::index_projection)), billed per request, and wait until it is
    /// active. Meant for tests, examples and first-time setup; production tables are usually
    /// managed by infrastructure code. Needs a declared table ([`Table::declared`]).
    pub async fn create_table(&self) -> Result<()> {
        let Some(facets) = self.facets() else {
            return Err(Error::TableSetup(format!(
                "table {} has no declared facets, so its indexes are unknown; open it with \
                 `Table::declared` (after `faceteer::table!`) or `Table::with_facets`",
                self.name()
            )));
        };
        let mut indexes: Vec<u8> = facets
            .iter()
            .flat_map(|f| f.indexes.iter().map(|i| i.number))
            .collect();
        indexes.sort_unstable();
        indexes.dedup();
        let mut request = CreateTableInputBuilder::default()
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(attribute(PK)?)
            .attribute_definitions(attribute(SK)?)
            .key_schema(key(PK, KeyType::Hash)?)
            .key_schema(key(SK, KeyType::Range)?);
        for n in indexes {
            let (name, pk, sk) = gsi_names(n);
            let projection = match index_projection(facets, n) {
                None => IndexProjection::builder().projection_type(ProjectionType::All),
                Some(attributes) => IndexProjection::builder()
                    .projection_type(ProjectionType::Include)
                    .set_non_key_attributes(Some(
                        attributes.into_iter().map(str::to_owned).collect(),
                    )),
            };
            let index = GlobalSecondaryIndex::builder()
                .index_name(name)
                .key_schema(key(pk, KeyType::Hash)?)
                .key_schema(key(sk, KeyType::Range)?)
                .projection(projection.build())
                .build()
                .map_err(|e| Error::TableSetup(e.to_string()))?;
            request = request
                .attribute_definitions(attribute(pk)?)
                .attribute_definitions(attribute(sk)?)
                .global_secondary_indexes(index);
        }
        sdk::create_table(self, request).await?;
        for attempt in 0..120u64 {
            let ready = sdk::describe_table(self).await?.is_some_and(|t| {
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
            "table {} did not become active in time",
            self.name()
        )))
    }

    /// Delete the table (tests and examples).
    pub async fn delete_table(&self) -> Result<()> {
        sdk::delete_table(self).await
    }
}
