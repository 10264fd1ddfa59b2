//! Creating and deleting the table (tests, examples, first-time setup).

use std::time::Duration;

use aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, GlobalSecondaryIndex, IndexStatus, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection as IndexProjection, ProjectionType, ScalarAttributeType,
    SearchSchemaElement, SearchSchemaElementType, TableStatus, VectorAttributeDefinition,
    VectorDistanceFunction, VectorIndex,
};

use faceteer_core::schema::{
    table_indexes, table_vectors, uses_ttl, IndexKind, KeyAttribute, ScalarType, TableIndex,
    VectorDistance, VectorSchema, PK, SK, TTL_ATTRIBUTE,
};

use super::stream::{stream_specification, StreamView};
use crate::error::{Error, Result};
use crate::exec::sdk;
use crate::table::Table;

/// The definition of key attribute `key`, typed.
pub(crate) fn attribute(key: KeyAttribute) -> Result<AttributeDefinition> {
    let ty = match key.ty {
        ScalarType::S => ScalarAttributeType::S,
        ScalarType::N => ScalarAttributeType::N,
        ScalarType::B => ScalarAttributeType::B,
    };
    AttributeDefinition::builder()
        .attribute_name(key.name)
        .attribute_type(ty)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))
}

/// The key schema of an index: its `pk` attributes (hash), then its `sk` ones (range), in
/// order (a native index's multi-attribute keys have up to four of each).
fn key_elements(pk: &[KeyAttribute], sk: &[KeyAttribute]) -> Result<Vec<KeySchemaElement>> {
    let hash = pk.iter().map(|k| key(k.name, KeyType::Hash));
    hash.chain(sk.iter().map(|k| key(k.name, KeyType::Range)))
        .collect()
}

/// The attribute definitions an index needs: each of its key attributes.
pub(crate) fn index_attributes(index: &TableIndex) -> impl Iterator<Item = KeyAttribute> + '_ {
    index.pk.iter().chain(&index.sk).copied()
}

/// The key schema and projection of `index` (in the table's names).
pub(crate) fn index_definition(
    index: &TableIndex,
) -> Result<(Vec<KeySchemaElement>, IndexProjection)> {
    let projection = match &index.projection {
        None => IndexProjection::builder().projection_type(ProjectionType::All),
        Some(attributes) => IndexProjection::builder()
            .projection_type(ProjectionType::Include)
            .set_non_key_attributes(Some(attributes.iter().map(|a| (*a).to_owned()).collect())),
    }
    .build();
    Ok((key_elements(&index.pk, &index.sk)?, projection))
}

/// The definition of vector index `v`: its attribute, dimensions, distance and search
/// schema, projecting whole items (a search decodes records).
pub(crate) fn vector_index(v: &VectorSchema) -> Result<VectorIndex> {
    let (attribute, schema, projection) = vector_parts(v)?;
    VectorIndex::builder()
        .index_name(v.index)
        .vector_attribute(attribute)
        .dimensions(i64::from(v.dimensions))
        .distance_function(distance(v.distance))
        .set_search_schema((!schema.is_empty()).then_some(schema))
        .projection(projection)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))
}

/// The vector attribute, search schema and projection of vector index `v`.
pub(crate) fn vector_parts(
    v: &VectorSchema,
) -> Result<(
    VectorAttributeDefinition,
    Vec<SearchSchemaElement>,
    IndexProjection,
)> {
    let attribute = VectorAttributeDefinition::builder()
        .attribute_name(v.attribute)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))?;
    let schema = v
        .search_schema()
        .map(|(k, role)| {
            SearchSchemaElement::builder()
                .attribute_name(k.name)
                .search_schema_element_type(SearchSchemaElementType::from(role))
                .build()
                .map_err(|e| Error::TableSetup(e.to_string()))
        })
        .collect::<Result<Vec<_>>>()?;
    let projection = IndexProjection::builder()
        .projection_type(ProjectionType::All)
        .build();
    Ok((attribute, schema, projection))
}

/// The SDK's distance function.
pub(crate) fn distance(d: VectorDistance) -> VectorDistanceFunction {
    match d {
        VectorDistance::Cosine => VectorDistanceFunction::Cosine,
        VectorDistance::Euclidean => VectorDistanceFunction::Euclidean,
        VectorDistance::DotProduct => VectorDistanceFunction::DotProduct,
    }
}

fn key(name: &str, kind: KeyType) -> Result<KeySchemaElement> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))
}

impl Table {
    /// Create the table: `PK`/`SK` and every index the declared facets use (a global index
    /// keyed `GSInPK` and, if it has a sort key, `GSInSK`; a local index keyed `PK` and
    /// `LSInSK`), each projecting all attributes or, when every facet using it declares a
    /// narrower projection, `INCLUDE` of what they need
    /// ([`index_projection`](faceteer_core::schema::index_projection)); with the declared
    /// settings ([`crate::settings`]; billed per request unless they say otherwise).
    /// Waits until the table is active, then, when a facet has a `#[ttl]` field, switches
    /// on expiry of the `ttl` attribute (`UpdateTimeToLive`), and point-in-time recovery
    /// when declared (`UpdateContinuousBackups`). Meant for tests, examples and first-time
    /// setup; production tables are usually managed by infrastructure code (see
    /// [`crate::design`]). Needs a declared table ([`Table::declared`]).
    ///
    /// # Errors
    /// [`Error::SettingsRefused`] when the table was created but declared settings did not
    /// take (the engine refused or ignored them), naming each; [`Error::Settings`] when they
    /// break DynamoDB's rules (nothing is sent).
    pub async fn create_table(&self) -> Result<()> {
        self.create(None).await
    }

    /// [`Table::create_table`], with the table's stream on, recording `view` of each change
    /// (see [`crate::stream`]; [`StreamView::NewAndOldImages`] gives typed changes both
    /// records).
    pub async fn create_table_with_stream(&self, view: StreamView) -> Result<()> {
        self.create(Some(view)).await
    }

    async fn create(&self, stream: Option<StreamView>) -> Result<()> {
        let facets = self.declared_facets(", so its indexes are unknown")?;
        // Every name as the table names it ([`Table::with_names`]).
        let names = *self.names();
        let (pk, sk) = (names.attribute(PK), names.attribute(SK));
        let settings = *self.settings();
        settings.check(facets)?;
        let mut request =
            super::settings::request::create_table(CreateTableInputBuilder::default(), &settings)?
                .attribute_definitions(attribute(KeyAttribute::text(pk))?)
                .attribute_definitions(attribute(KeyAttribute::text(sk))?)
                .key_schema(key(pk, KeyType::Hash)?)
                .key_schema(key(sk, KeyType::Range)?);
        let mut defined = vec![pk, sk];
        for index in table_indexes(facets) {
            let declared = index.name;
            let index = names.index_of(index);
            let (keys, projection) = index_definition(&index)?;
            for key in index_attributes(&index) {
                if !defined.contains(&key.name) {
                    defined.push(key.name);
                    request = request.attribute_definitions(attribute(key)?);
                }
            }
            let index_name = index.name;
            request = match index.kind {
                IndexKind::Global => request.global_secondary_indexes(
                    super::settings::request::create_index(
                        GlobalSecondaryIndex::builder()
                            .index_name(index_name)
                            .set_key_schema(Some(keys))
                            .projection(projection),
                        &settings,
                        declared,
                    )?
                    .build()
                    .map_err(|e| Error::TableSetup(e.to_string()))?,
                ),
                IndexKind::Local => request.local_secondary_indexes(
                    LocalSecondaryIndex::builder()
                        .index_name(index_name)
                        .set_key_schema(Some(keys))
                        .projection(projection)
                        .build()
                        .map_err(|e| Error::TableSetup(e.to_string()))?,
                ),
            };
        }
        for (vector, _) in table_vectors(facets) {
            for key in vector.search_attributes() {
                if !defined.contains(&key.name) {
                    defined.push(key.name);
                    request = request.attribute_definitions(attribute(key)?);
                }
            }
            request = request.vector_indexes(vector_index(&vector)?);
        }
        if let Some(view) = stream {
            request = request.stream_specification(stream_specification(Some(view))?);
        }
        sdk::create_table(self, request).await?;
        for attempt in 0..120u64 {
            let ready = sdk::describe_table(self).await?.is_some_and(|t| {
                t.table_status == Some(TableStatus::Active)
                    && t.global_secondary_indexes().iter().all(|i| {
                        i.index_status.is_none() || i.index_status == Some(IndexStatus::Active)
                    })
                    && t.vector_indexes().iter().all(|v| {
                        v.index_status.is_none() || v.index_status == Some(IndexStatus::Active)
                    })
            });
            if ready {
                if uses_ttl(facets) {
                    sdk::enable_time_to_live(self, names.attribute(TTL_ATTRIBUTE)).await?;
                }
                return self.settings_taken(&settings, facets).await;
            }
            tokio::time::sleep(Duration::from_millis((100 * (attempt + 1)).min(2000))).await;
        }
        Err(Error::TableSetup(format!(
            "table {} did not become active in time",
            self.name()
        )))
    }

    /// After creation: point-in-time recovery (not a `CreateTable` parameter), then a check
    /// that every declared setting took.
    async fn settings_taken(
        &self,
        settings: &faceteer_core::settings::TableSettings,
        facets: &[&faceteer_core::schema::FacetSchema],
    ) -> Result<()> {
        use faceteer_core::settings::{Recovery, Refused, Setting};
        if settings.is_default() {
            return Ok(());
        }
        let mut refused = Vec::new();
        if let Some(Recovery::On { days }) = settings.point_in_time_recovery {
            if let Err(e) = super::settings::set_recovery(self, true, Some(i32::from(days))).await {
                refused.push(Refused {
                    setting: Setting::PointInTimeRecovery,
                    why: super::settings::live::refusal(e)?,
                });
            }
        }
        let live = super::settings::live::read(self, settings).await?;
        for m in super::settings::mismatches(settings, facets, self.names(), &live) {
            if !refused.iter().any(|r| r.setting == m.setting) {
                refused.push(Refused {
                    setting: m.setting,
                    why: super::settings::not_in_effect(&m),
                });
            }
        }
        if refused.is_empty() {
            Ok(())
        } else {
            Err(Error::SettingsRefused {
                table: self.name().to_owned(),
                refused,
            })
        }
    }

    /// Delete the table (tests and examples).
    pub async fn delete_table(&self) -> Result<()> {
        sdk::delete_table(self).await
    }
}
