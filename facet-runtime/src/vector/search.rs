//! [`VectorSearch`]: one `SearchVectors` request, typed by its facet; its results.

use std::marker::PhantomData;
use std::sync::Arc;

use aws_sdk_dynamodb::operation::search_vectors::SearchVectorsInput;
use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::collection::facet_of;
use faceteer_core::expr::{Expr, ExprError};
use faceteer_core::names::Placeholders;
use faceteer_core::plan::is_expired;
use faceteer_core::schema::{VectorSchema, MAX_TOP_K};
use faceteer_core::Facet;

use crate::error::Result;
use crate::error::VectorError;
use crate::exec::trace::Op;
use crate::query::FailedRecord;
use crate::table::Table;
use crate::wire::keys::key_pair;

/// How many records a search returns unless told (`top_k`).
pub const DEFAULT_TOP_K: u32 = 10;

/// A search of a facet's vector index for the records nearest to a vector: made by the
/// generated `Facet::similar(..)`, run by [`Table::search_vectors`].
#[must_use = "a search does nothing until run with `table.search_vectors(..)`"]
pub struct VectorSearch<F> {
    index: &'static VectorSchema,
    vector: Vec<f32>,
    partition: Option<(&'static str, std::result::Result<AttributeValue, ExprError>)>,
    top_k: u32,
    filter: Option<Expr<F>>,
    _facet: PhantomData<fn() -> F>,
}

impl<F> std::fmt::Debug for VectorSearch<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorSearch")
            .field("index", &self.index.index)
            .field("dimensions", &self.vector.len())
            .field("top_k", &self.top_k)
            .finish()
    }
}

impl<F: Facet> VectorSearch<F> {
    /// Used by generated code.
    #[doc(hidden)]
    pub fn new(
        index: &'static VectorSchema,
        vector: Vec<f32>,
        partition: Option<(&'static str, std::result::Result<AttributeValue, ExprError>)>,
    ) -> Self {
        VectorSearch {
            index,
            vector,
            partition,
            top_k: DEFAULT_TOP_K,
            filter: None,
            _facet: PhantomData,
        }
    }

    /// Return the `k` nearest records (1 to 100; default 10).
    pub fn top_k(mut self, k: u32) -> Self {
        self.top_k = k;
        self
    }

    /// Keep only records matching `filter`, evaluated by the index on its search schema's
    /// filter attributes (`#[vector(filters(..))]`); joined with `&` when given twice.
    pub fn filter(mut self, filter: Expr<F>) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(f) => f & filter,
            None => filter,
        });
        self
    }

    /// Check the search against the index before sending it.
    fn check(&self) -> Result<()> {
        let index = self.index.index;
        if self.vector.len() != self.index.dimensions as usize {
            return Err(VectorError::Dimensions {
                index,
                expected: self.index.dimensions,
                found: self.vector.len(),
            }
            .into());
        }
        if let Some((position, value)) =
            self.vector.iter().enumerate().find(|(_, v)| !v.is_finite())
        {
            return Err(VectorError::NotFinite {
                index,
                position,
                value: *value,
            }
            .into());
        }
        if !(1..=MAX_TOP_K).contains(&self.top_k) {
            return Err(VectorError::TopK(self.top_k).into());
        }
        Ok(())
    }

    /// The `SearchConditionExpression` (the partition's equality and the filter), with its
    /// placeholders.
    fn condition(&self) -> Result<(Option<String>, Placeholders)> {
        let mut p = Placeholders::new();
        let mut parts = Vec::new();
        if let Some((name, value)) = &self.partition {
            let value = value.clone()?;
            let name = p.name(name);
            let value = p.value(value);
            parts.push(format!("{name} = {value}"));
        }
        if let Some(filter) = &self.filter {
            let allowed: Vec<&str> = self.index.filters.iter().map(|k| k.name).collect();
            // Inline filters are whole scalar attributes: a member inside one is not.
            filter.attribute_names()?;
            if let Some(outside) = filter
                .paths()
                .into_iter()
                .find(|p| !p.is_top_level() || !allowed.contains(&p.root()))
                .map(|p| p.to_string())
            {
                return Err(VectorError::FilterAttribute {
                    index: self.index.index,
                    attribute: outside,
                    filters: if allowed.is_empty() {
                        "none".to_owned()
                    } else {
                        allowed.join(", ")
                    },
                }
                .into());
            }
            parts.push(format!("({})", filter.render(&mut p)?));
        }
        let condition = (!parts.is_empty()).then(|| parts.join(" AND "));
        Ok((condition, p))
    }
}

/// One record a search found, with its score. Results come nearest first; what the score
/// measures follows the index's distance ([`VectorDistance`](crate::schema::VectorDistance)):
/// cosine distance and euclidean distance grow, a dot product shrinks, down the results.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored<F> {
    /// The record.
    pub record: F,
    /// Its score.
    pub score: f64,
}

/// What a vector search found.
#[derive(Debug, Clone)]
pub struct VectorResults<F> {
    /// The records, nearest first, each with its score.
    pub results: Vec<Scored<F>>,
    /// Items of other facets the index returned, skipped (facets may share an index).
    pub skipped: usize,
    /// Records whose `#[ttl]` had passed, hidden as every read hides them.
    pub expired: usize,
    /// Items that are not valid records (they do not deserialize or fail the facet's
    /// validator), each with its key and the error.
    pub failed: Vec<FailedRecord>,
}

impl Table {
    /// Run a vector search: the `top_k` records of its facet nearest to its vector, with
    /// their scores (see [`crate::vector`]). A search is checked before it is sent
    /// ([`VectorError`]); items of other facets are skipped and counted, and invalid ones
    /// listed apart, as every read does.
    pub async fn search_vectors<F: Facet>(
        &self,
        search: VectorSearch<F>,
    ) -> Result<VectorResults<F>> {
        let op = Op::new(
            "SearchVectors",
            self,
            F::SCHEMA.name,
            Some(search.index.index),
        );
        let result = self.search_in(&op, search).await;
        op.finish(result.as_ref().map(|found| found.results.len()));
        result
    }

    /// [`Table::search_vectors`], within the span of `op`.
    async fn search_in<F: Facet>(
        &self,
        op: &Op,
        search: VectorSearch<F>,
    ) -> Result<VectorResults<F>> {
        search.check()?;
        let (condition, placeholders) = search.condition()?;
        let (names, values) = placeholders.into_parts();
        let vector = search
            .vector
            .iter()
            .map(|v| AttributeValue::N(v.to_string()))
            .collect();
        // The request hooks first: they may ask for another capacity.
        op.prepare().await?;
        let request = SearchVectorsInput::builder()
            .table_name(self.name())
            .index_name(search.index.index)
            .set_search_vector(Some(vector))
            .top_k(search.top_k as i32)
            .set_search_condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .return_consumed_capacity(op.capacity_asked());
        // A table in other attribute names is searched, and answers, in its own.
        let request = match self.renamer() {
            Some(r) => r.search_vectors(request),
            None => request,
        };
        let out = op
            .within(async {
                request
                    .send_with(self.client())
                    .await
                    .map_err(|e| crate::exec::sdk::error_of("SearchVectors", self, e))
            })
            .await?;
        op.request(&[]);
        op.note_request_id(aws_sdk_dynamodb::operation::RequestId::request_id(&out));
        let now = chrono_now();
        let mut found = VectorResults {
            results: Vec::new(),
            skipped: 0,
            expired: 0,
            failed: Vec::new(),
        };
        for hit in out.search_results.unwrap_or_default() {
            let item = hit.item.unwrap_or_default();
            let item = match self.renamer() {
                Some(r) => r.item_in(item),
                None => item,
            };
            if facet_of(&item) != Some(F::SCHEMA.name) {
                found.skipped += 1;
                continue;
            }
            if F::SCHEMA.ttl_field.is_some() && is_expired(&item, now) {
                found.expired += 1;
                continue;
            }
            let (pk, sk) = key_pair(&item);
            let read = match faceteer_core::from_item::<F>(item) {
                Ok(mut record) => match self.hooks_for::<F>() {
                    // The facet's hooks see each record found.
                    Some(hooked) => hooked
                        .after_read(&mut record, crate::hook::ReadKind::Query)
                        .await
                        .map(|()| record),
                    None => Ok(record),
                },
                Err(e) => Err(e),
            };
            match read {
                Ok(record) => found.results.push(Scored {
                    record,
                    score: hit.score,
                }),
                Err(error) => found.failed.push(FailedRecord {
                    pk: pk.into(),
                    sk: sk.into(),
                    error: Arc::new(error),
                }),
            }
        }
        Ok(found)
    }
}

/// Now, in epoch seconds.
fn chrono_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
