//! [`Table`]: the single DynamoDB table every facet lives in.

use std::sync::Arc;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    Projection as IndexProjection, ProjectionType, ScalarAttributeType, TableStatus,
};
use aws_sdk_dynamodb::Client;
use faceteer_core::expr::Expr;
use faceteer_core::facet::is_foreign;
use faceteer_core::pick::{
    picked_from_item, projection_attributes, BaseTable, PickValidator, Picked, Projection,
};
use faceteer_core::plan::{DeletePlan, GetPlan, PutPlan, RenderedCondition};
use faceteer_core::schema::{gsi_names, FacetSchema, PK, SK};
use faceteer_core::table::{check_table, TableSchema};
use faceteer_core::{from_item, to_item, Facet, Key};

use crate::batch::BatchOptions;
use crate::error::{Error, Result};

/// A handle on the single table: an SDK client, the table name and, when declared, the
/// facets stored in it. Cheap to clone.
///
/// Declare the facets that share a table with [`faceteer::table!`](crate::table!) and open it
/// with [`Table::declared`]: the declaration is checked at compile time so that no two facets
/// can write the same `(PK, SK)`, writes of other facets are refused
/// ([`Error::UndeclaredFacet`]), and [`Table::create`] creates exactly the indexes the facets
/// use.
#[derive(Clone, Debug)]
pub struct Table {
    client: Client,
    name: Arc<str>,
    batch: BatchOptions,
    facets: Option<Arc<[&'static FacetSchema]>>,
}

impl Table {
    /// A handle on table `name`, reached through `client`, for any facet. Prefer
    /// [`Table::declared`]: an undeclared table cannot check that its facets' keys never
    /// collide, nor create its indexes.
    pub fn new(client: Client, name: impl Into<String>) -> Self {
        let name: String = name.into();
        Table {
            client,
            name: name.into(),
            batch: BatchOptions::default(),
            facets: None,
        }
    }

    /// A handle on table `name` holding the facets of `S` (declared with
    /// [`faceteer::table!`](crate::table!), which checks them at compile time).
    ///
    /// ```no_run
    /// # use faceteer::{Facet, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Facet, Serialize, Deserialize)]
    /// # struct Team { #[pk(prefix = "#TEAM")] #[sk(prefix = "#TEAM")] id: String }
    /// # #[derive(Facet, Serialize, Deserialize)]
    /// # struct User { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#USER")] id: String }
    /// faceteer::table! {
    ///     /// The application's table.
    ///     pub struct AppTable { Team, User }
    /// }
    /// # async fn demo(client: aws_sdk_dynamodb::Client) -> faceteer::Result<()> {
    /// let table = Table::declared::<AppTable>(client, "app");
    /// table.create().await?; // PK/SK and the indexes Team and User use
    /// # Ok(()) }
    /// ```
    pub fn declared<S: TableSchema>(client: Client, name: impl Into<String>) -> Self {
        let mut table = Table::new(client, name);
        table.facets = Some(S::FACETS.into());
        table
    }

    /// A handle on table `name` holding `facets`, chosen at run time: the same check as
    /// [`faceteer::table!`](crate::table!), as a typed error ([`Error::Table`]).
    pub fn with_facets(
        client: Client,
        name: impl Into<String>,
        facets: impl IntoIterator<Item = &'static FacetSchema>,
    ) -> Result<Self> {
        let facets: Arc<[&'static FacetSchema]> = facets.into_iter().collect();
        check_table(&facets)?;
        let mut table = Table::new(client, name);
        table.facets = Some(facets);
        Ok(table)
    }

    /// The declared facets, when the table was declared.
    pub fn facets(&self) -> Option<&[&'static FacetSchema]> {
        self.facets.as_deref()
    }

    /// Refuse writes of a facet a declared table does not hold.
    pub(crate) fn check_declared<F: Facet>(&self) -> Result<()> {
        match &self.facets {
            Some(facets) if !facets.iter().any(|f| f.name == F::SCHEMA.name) => {
                Err(Error::UndeclaredFacet {
                    facet: F::SCHEMA.name,
                    table: self.name.to_string(),
                })
            }
            _ => Ok(()),
        }
    }

    /// The same table with other batch options (concurrency, retries).
    pub fn with_batch_options(mut self, options: BatchOptions) -> Self {
        self.batch = options;
        self
    }

    /// The options batch operations run with.
    pub fn batch_options(&self) -> &BatchOptions {
        &self.batch
    }

    /// The SDK client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The table name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Read one record by key. `None` when no item has the key, or when the item under it
    /// belongs to another facet.
    ///
    /// The facet's validator runs on the record read.
    pub async fn get<F: Facet>(&self, key: &Key<F>) -> Result<Option<F>> {
        let plan = GetPlan {
            key: key.to_item(),
            consistent_read: false,
            projection: None,
        };
        self.get_plan(plan)
            .await?
            .filter(|item| !is_foreign(item, F::SCHEMA.name))
            .map(from_item)
            .transpose()
            .map_err(Into::into)
    }

    /// Read one record by key with a strongly consistent read.
    pub async fn get_consistent<F: Facet>(&self, key: &Key<F>) -> Result<Option<F>> {
        let plan = GetPlan {
            key: key.to_item(),
            consistent_read: true,
            projection: None,
        };
        self.get_plan(plan)
            .await?
            .filter(|item| !is_foreign(item, F::SCHEMA.name))
            .map(from_item)
            .transpose()
            .map_err(Into::into)
    }

    /// Read only the fields of projection `P` (plus the key fields) of one record, with a
    /// `ProjectionExpression`. Needs a pick validator on the facet; it runs on the item read.
    pub async fn select<P>(&self, key: &Key<P::Facet>) -> Result<Option<Picked<P>>>
    where
        P: Projection,
        P::Facet: PickValidator,
    {
        let attributes = projection_attributes::<P, BaseTable>(&[]);
        let plan = GetPlan {
            key: key.to_item(),
            consistent_read: false,
            projection: Some(attributes.clone()),
        };
        match self.get_plan(plan).await? {
            Some(item) if !is_foreign(&item, <P::Facet as Facet>::SCHEMA.name) => {
                Ok(Some(picked_from_item(item, &attributes)?))
            }
            _ => Ok(None),
        }
    }

    /// Execute a get plan (see [`faceteer_core::plan::GetPlan`]): the raw item, if any.
    pub async fn get_plan(&self, plan: GetPlan) -> Result<Option<faceteer_core::Item>> {
        let input = plan.to_input(&self.name);
        let out = self
            .client
            .get_item()
            .set_table_name(input.table_name)
            .set_key(input.key)
            .set_consistent_read(input.consistent_read)
            .set_projection_expression(input.projection_expression)
            .set_expression_attribute_names(input.expression_attribute_names)
            .send()
            .await
            .map_err(|e| Error::dynamo("GetItem", e))?;
        Ok(out.item)
    }

    /// Write one record, replacing any item with the same key.
    pub async fn put<F: Facet>(&self, record: &F) -> Result<()> {
        self.put_plan::<F>(PutPlan {
            item: to_item(record)?,
            condition: None,
        })
        .await
    }

    /// Write one record only when no item has its key yet; otherwise fail with
    /// [`Error::ConditionFailed`] and write nothing.
    pub async fn put_if_not_exists<F: Facet>(&self, record: &F) -> Result<()> {
        self.put_plan::<F>(PutPlan {
            item: to_item(record)?,
            condition: Some(RenderedCondition::item_not_exists()),
        })
        .await
    }

    /// Write one record only when `condition` holds for the item currently stored under its
    /// key (a missing item has no attributes: `attribute_not_exists` holds, comparisons do
    /// not). Otherwise fail with [`Error::ConditionFailed`] and write nothing.
    ///
    /// ```no_run
    /// # use faceteer::{Facet, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Facet, Serialize, Deserialize)]
    /// # struct Doc { #[pk(prefix = "#DOC")] #[sk(prefix = "#DOC")] id: String, version: u64 }
    /// # async fn demo(table: &Table, doc: Doc) -> faceteer::Result<()> {
    /// // Optimistic locking: only replace version 3.
    /// let f = Doc::fields();
    /// table.put_when(&doc, f.version.eq(3u64)).await?;
    /// # Ok(()) }
    /// ```
    pub async fn put_when<F: Facet>(&self, record: &F, condition: Expr<F>) -> Result<()> {
        self.put_plan::<F>(PutPlan {
            item: to_item(record)?,
            condition: Some(RenderedCondition::from_expr(&condition)?),
        })
        .await
    }

    /// Execute a put plan (see [`faceteer_core::plan::PutPlan`]).
    pub async fn put_plan<F: Facet>(&self, plan: PutPlan) -> Result<()> {
        self.check_declared::<F>()?;
        let input = plan.to_input(&self.name);
        let result = self
            .client
            .put_item()
            .set_table_name(input.table_name)
            .set_item(input.item)
            .set_condition_expression(input.condition_expression)
            .set_expression_attribute_names(input.expression_attribute_names)
            .set_expression_attribute_values(input.expression_attribute_values)
            .send()
            .await;
        write_outcome::<F, _>(
            "PutItem",
            result,
            |e| e.is_conditional_check_failed_exception(),
            &plan.item,
        )
    }

    /// Delete one record by key (nothing happens when there is none).
    pub async fn delete<F: Facet>(&self, key: &Key<F>) -> Result<()> {
        self.delete_plan::<F>(DeletePlan {
            key: key.to_item(),
            condition: None,
        })
        .await
    }

    /// Delete one record only when it exists; otherwise fail with [`Error::ConditionFailed`].
    pub async fn delete_if_exists<F: Facet>(&self, key: &Key<F>) -> Result<()> {
        self.delete_plan::<F>(DeletePlan {
            key: key.to_item(),
            condition: Some(RenderedCondition::item_exists()),
        })
        .await
    }

    /// Delete one record only when `condition` holds for it; otherwise fail with
    /// [`Error::ConditionFailed`] and delete nothing.
    pub async fn delete_when<F: Facet>(&self, key: &Key<F>, condition: Expr<F>) -> Result<()> {
        self.delete_plan::<F>(DeletePlan {
            key: key.to_item(),
            condition: Some(RenderedCondition::from_expr(&condition)?),
        })
        .await
    }

    /// Execute a delete plan (see [`faceteer_core::plan::DeletePlan`]).
    pub async fn delete_plan<F: Facet>(&self, plan: DeletePlan) -> Result<()> {
        self.check_declared::<F>()?;
        let input = plan.to_input(&self.name);
        let result = self
            .client
            .delete_item()
            .set_table_name(input.table_name)
            .set_key(input.key)
            .set_condition_expression(input.condition_expression)
            .set_expression_attribute_names(input.expression_attribute_names)
            .set_expression_attribute_values(input.expression_attribute_values)
            .send()
            .await;
        write_outcome::<F, _>(
            "DeleteItem",
            result,
            |e| e.is_conditional_check_failed_exception(),
            &plan.key,
        )
    }

    /// Create the table: `PK`/`SK` and every index the declared facets use (each keyed
    /// `GSInPK`/`GSInSK`, projecting all attributes), billed per request, and wait until it is
    /// active. Meant for tests, examples and first-time setup; production tables are usually
    /// managed by infrastructure code. Needs a declared table ([`Table::declared`]).
    pub async fn create(&self) -> Result<()> {
        let Some(facets) = &self.facets else {
            return Err(Error::TableSetup(format!(
                "table {} has no declared facets, so its indexes are unknown; open it with \
                 `Table::declared` (after `faceteer::table!`) or `Table::with_facets`",
                self.name
            )));
        };
        let mut indexes: Vec<u8> = facets
            .iter()
            .flat_map(|f| f.indexes.iter().map(|i| i.number))
            .collect();
        indexes.sort_unstable();
        indexes.dedup();
        let attr = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .expect("attribute definition is complete")
        };
        let key = |name: &str, kind: KeyType| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(kind)
                .build()
                .expect("key schema element is complete")
        };
        let mut req = self
            .client
            .create_table()
            .table_name(self.name.as_ref())
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(attr(PK))
            .attribute_definitions(attr(SK))
            .key_schema(key(PK, KeyType::Hash))
            .key_schema(key(SK, KeyType::Range));
        for n in indexes {
            let (name, pk, sk) = gsi_names(n);
            req = req
                .attribute_definitions(attr(pk))
                .attribute_definitions(attr(sk))
                .global_secondary_indexes(
                    GlobalSecondaryIndex::builder()
                        .index_name(name)
                        .key_schema(key(pk, KeyType::Hash))
                        .key_schema(key(sk, KeyType::Range))
                        .projection(
                            IndexProjection::builder()
                                .projection_type(ProjectionType::All)
                                .build(),
                        )
                        .build()
                        .expect("index definition is complete"),
                );
        }
        req.send()
            .await
            .map_err(|e| Error::dynamo("CreateTable", e))?;
        for attempt in 0..120u32 {
            let out = self
                .client
                .describe_table()
                .table_name(self.name.as_ref())
                .send()
                .await
                .map_err(|e| Error::dynamo("DescribeTable", e))?;
            let table = out.table;
            let ready = table.as_ref().and_then(|t| t.table_status.clone())
                == Some(TableStatus::Active)
                && table
                    .as_ref()
                    .map(|t| t.global_secondary_indexes())
                    .unwrap_or_default()
                    .iter()
                    .all(|i| {
                        i.index_status.is_none()
                            || i.index_status == Some(aws_sdk_dynamodb::types::IndexStatus::Active)
                    });
            if ready {
                return Ok(());
            }
            tokio::time::sleep(std::time::Duration::from_millis(
                (100 * (attempt + 1) as u64).min(2000),
            ))
            .await;
        }
        Err(Error::TableSetup(format!(
            "table {} did not become active in time",
            self.name
        )))
    }

    /// Delete the table (tests and examples).
    pub async fn drop_table(&self) -> Result<()> {
        self.client
            .delete_table()
            .table_name(self.name.as_ref())
            .send()
            .await
            .map_err(|e| Error::dynamo("DeleteTable", e))?;
        Ok(())
    }
}

/// Map a single-item write's outcome: a failed condition is [`Error::ConditionFailed`].
fn write_outcome<F: Facet, E>(
    operation: &'static str,
    result: std::result::Result<impl Sized, SdkError<E, HttpResponse>>,
    is_condition_failure: impl Fn(&E) -> bool,
    item: &faceteer_core::Item,
) -> Result<()>
where
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    match result {
        Ok(_) => Ok(()),
        Err(e) if e.as_service_error().is_some_and(&is_condition_failure) => {
            Err(condition_failed::<F>(operation, item))
        }
        Err(e) => Err(Error::dynamo(operation, e)),
    }
}

fn condition_failed<F: Facet>(operation: &'static str, item: &faceteer_core::Item) -> Error {
    let text = |name: &str| match item.get(name) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    };
    Error::ConditionFailed {
        operation,
        facet: F::SCHEMA.name,
        pk: text(PK),
        sk: text(SK),
    }
}
