//! Multi-source search: one logical query run over several indexes and/or every shard at
//! once, merged into one order with each record once, paged with one cursor.
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Debug, Facet, Serialize, Deserialize)]
//! # struct Task {
//! #     #[pk(prefix = "#TEAM")] team: String,
//! #     #[sk(prefix = "#TASK")]
//! #     #[gsi(n = 1, sk, prefix = "#TASK")]
//! #     #[gsi(n = 2, sk, prefix = "#TASK")]
//! #     id: String,
//! #     #[gsi(n = 1, pk, prefix = "#USER")] assignee: String,
//! #     #[gsi(n = 2, pk, prefix = "#USER")] reviewer: String,
//! # }
//! # async fn demo(table: &Table) -> faceteer::Result<()> {
//! // Tasks "ann" is assigned to or reviews: both indexes, each task once, 20 per page.
//! let page = table
//!     .search(Task::gsi1("ann").list())
//!     .or(Task::gsi2("ann").list())
//!     .limit(20)
//!     .await?;
//! let next = table
//!     .search(Task::gsi1("ann").list())
//!     .or(Task::gsi2("ann").list())
//!     .limit(20)
//!     .cursor(page.cursor)
//!     .await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::future::IntoFuture;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::cursor::{
    decode_search_cursor, encode_search_cursor, CursorScope, SearchPosition, ShardPosition,
};
use faceteer_core::expr::Field;
use faceteer_core::merge::ordered::{merge_by_value, OrderedRead};
use faceteer_core::merge::search::{
    boundary_after, merge_sources, Boundary, PrimaryKey, SourceRead,
};
use faceteer_core::merge::ShardProgress;
use faceteer_core::pick::{BaseTable, KeyFields, WholeRecords};
use faceteer_core::plan::{QueryPlan, RenderedCondition};
use faceteer_core::schema::{IndexSchema, KeySchema};
use faceteer_core::{Facet, Item};
use futures::{Stream, StreamExt, TryStreamExt};

use crate::error::{Error, Result};
use crate::exec::future::{records, traced, BoxFuture};
use crate::exec::trace::Op;
use crate::query::builder::Query;
use crate::query::mode::{Collected, Page};
use crate::query::page::{page_setters, PageOptions};
use crate::query::walk;
use crate::table::signing;
use crate::table::Table;
use crate::wire::stored::Stored;

/// Records per page of a search unless told otherwise.
pub const DEFAULT_SEARCH_LIMIT: u32 = 100;
/// Sources (and shards) a search reads at once, at most, unless told otherwise.
pub const MAX_SEARCH_CONCURRENCY: usize = 32;

impl Table {
    /// Search several sources as one query: start with one query (of any index, sharded or
    /// not), add more with [`Search::or`]. Every source is read concurrently (every shard of
    /// a sharded partition without `.shard(n)`), records are merged in sort-key order
    /// (descending with [`Search::reverse`]), a record found by several sources is returned
    /// once, and a page holds exactly `limit` records (default 100) unless the search is
    /// exhausted. The cursor resumes every source.
    ///
    /// The sources must order records the same way: their sort keys are built from the same
    /// fields (the order compares the sort-key text after each key's prefix). A record that
    /// two sources order differently fails the page with [`Error::Search`].
    pub fn search<F: Facet, I: KeyFields + WholeRecords>(
        &self,
        query: Query<F, I>,
    ) -> Search<'_, F> {
        Search {
            table: self,
            sources: vec![query.erase()],
            page: PageOptions::default(),
            concurrency: None,
            order: None,
        }
    }
}

/// A multi-source search: [`Table::search`]. Await it for one page, or walk its pages.
#[must_use = "a search does nothing until it is awaited or its pages are read"]
pub struct Search<'t, F> {
    table: &'t Table,
    sources: Vec<Query<F>>,
    page: PageOptions,
    concurrency: Option<usize>,
    /// The attribute of the field the caller merges by ([`Search::order_by`]).
    order: Option<&'static str>,
}

impl<F> Clone for Search<'_, F> {
    fn clone(&self) -> Self {
        Search {
            table: self.table,
            sources: self.sources.clone(),
            page: self.page.clone(),
            concurrency: self.concurrency,
            order: self.order,
        }
    }
}

impl<'t, F: Facet> Search<'t, F> {
    /// Add a source: the same facet, through any index (its own filter and `.shard(n)` are
    /// kept; set the limit, direction and cursor on the search).
    pub fn or<I: KeyFields + WholeRecords>(mut self, query: Query<F, I>) -> Self {
        self.sources.push(query.erase());
        self
    }

    page_setters!(
        /// Default 100.
        limit,
        /// The sources are merged in descending order.
        reverse,
        cursor,
    );

    /// Merge the sources by `field` (ascending; descending with [`Search::reverse`]), for
    /// sources whose sort keys are built from other fields: the first-name and the
    /// last-name index of a user search, say.
    ///
    /// Each source is read in its own order, and a page takes, again and again, the next
    /// record of the source whose next record has the smallest value of `field` (numbers by
    /// value, strings byte-wise, an absent value last; ties to the earlier source). When the
    /// sources are sorted by `field`, so are the pages; otherwise records come as close to
    /// that order as the sources allow. Either way a record is returned once (by the first
    /// source that holds it: the others pass over it), a page holds exactly `limit`
    /// records unless the search is exhausted, and one cursor resumes every source and
    /// shard. Every source must apply the same filter (or none), so that which sources
    /// hold a record is known from its keys.
    pub fn order_by<T, S, K: faceteer_core::expr::TopLevel>(
        mut self,
        field: Field<F, T, S, K>,
    ) -> Self {
        self.order = Some(field.name());
        self
    }

    /// How many sources (and shards) are read at once (default: all of them, up to 32).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = Some(n.max(1));
        self
    }

    /// Every page, one after another, as a stream.
    pub fn pages(self) -> impl Stream<Item = Result<Page<F>>> + Send + 't {
        let table = self.table;
        let pages = futures::stream::try_unfold(Some(self), move |state| async move {
            let Some(search) = state else {
                return Ok(None);
            };
            let page = search.clone().page().await?;
            let next = page.cursor.clone().map(|c| search.cursor(c));
            Ok(Some((page, next)))
        });
        walk::bounded(table, "Query", pages)
    }

    /// Every record, across pages, as a stream; an item that is not a valid record comes
    /// as an [`Error::Record`] and the stream goes on.
    pub fn records(self) -> impl Stream<Item = Result<F>> + Send + 't {
        walk::records(self.pages())
    }

    /// Every record, across pages; stops at the first item that is not a valid record.
    pub async fn all(self) -> Result<Vec<F>> {
        walk::all(self.pages()).await
    }

    /// Every record, across pages, and apart every item that is not a valid record.
    pub async fn all_with_failures(self) -> Result<Collected<F>> {
        walk::all_with_failures(self.pages()).await
    }

    fn page(self) -> BoxFuture<'t, Result<Page<F>>> {
        let table = self.table;
        let op = Op::new("Query", table, F::SCHEMA.name, None);
        traced(
            op,
            records(|p: &Page<F>| p.records.len()),
            move |op: Arc<Op>| async move {
                let search = &*signing::opened(
                    table.cursor_key(),
                    &self,
                    self.page.cursor.as_deref(),
                    |s, c| s.cursor(c),
                )?;
                let (raw, cursor) = search.run(&op).await?;
                let cursor = signing::sealed(table.cursor_key(), cursor);
                let raw = raw.into_iter().map(Stored::Tree).collect();
                let (mut records, mut failed) = walk::decode(raw, Stored::decode::<F>);
                super::hooks::after_read_page::<F, F>(
                    table,
                    crate::hook::ReadKind::Query,
                    &mut records,
                    &mut failed,
                    crate::hook::whole,
                )
                .await;
                Ok(Page {
                    records,
                    failed,
                    cursor,
                })
            },
        )
    }

    /// Where each part resumes: from the cursor, or at its start.
    fn start(&self, plan: &Plan<F>, limit: usize) -> Result<SearchPosition> {
        Ok(match &self.page.cursor {
            Some(c) => decode_search_cursor(&plan.scopes, plan.parts.len(), limit, c)?,
            None => SearchPosition {
                positions: vec![ShardPosition::Start; plan.parts.len()],
                boundary: Boundary::default(),
            },
        })
    }

    /// How many parts are read at once.
    fn concurrency_for(&self, plan: &Plan<F>) -> usize {
        self.concurrency
            .unwrap_or(plan.parts.len().min(MAX_SEARCH_CONCURRENCY))
    }

    /// One page of raw items, and its cursor.
    async fn run(&self, op: &Op) -> Result<(Vec<Item>, Option<String>)> {
        if self.page.limit.unwrap_or(DEFAULT_SEARCH_LIMIT) == 0 {
            return Err(Error::InvalidRequest("limit must be at least 1".into()));
        }
        for source in &self.sources {
            super::beacons::refuse_unchecked(&source.partition, "a search over several queries")?;
        }
        if let Some(attribute) = self.order {
            return self.run_ordered(op, attribute).await;
        }
        let plan = self.sources()?;
        let limit = self.page.limit.unwrap_or(DEFAULT_SEARCH_LIMIT) as usize;
        let mut position = self.start(&plan, limit)?;
        let mut seen: HashMap<PrimaryKey, String> = position
            .boundary
            .keys
            .iter()
            .map(|k| (k.clone(), position.boundary.order.clone()))
            .collect();
        let concurrency = self.concurrency_for(&plan);
        let mut out: Vec<Item> = Vec::new();
        let mut last_order: Option<String> = None;
        while out.len() < limit && position.positions.iter().any(|p| *p != ShardPosition::Done) {
            let remaining = limit - out.len();
            let reads = self
                .read_round(op, &plan, &position.positions, remaining, concurrency)
                .await?;
            let texts: Vec<Option<SourceRead>> = reads
                .iter()
                .zip(&plan.parts)
                .map(|(read, part)| {
                    read.as_ref().map(|(items, more)| SourceRead {
                        records: items
                            .iter()
                            .map(|i| {
                                (
                                    part.order_text(i),
                                    crate::wire::keys::key_strings(i).unwrap_or_default(),
                                )
                            })
                            .collect(),
                        more: *more,
                    })
                })
                .collect();
            let merged = merge_sources(&texts, self.page.reverse, remaining, &mut seen)?;
            for &(part, pos) in &merged.order {
                let (items, _) = reads[part].as_ref().expect("merged parts were read");
                last_order = Some(texts[part].as_ref().expect("read").records[pos].0.clone());
                out.push(items[pos].clone());
            }
            advance(&plan, &mut position.positions, &reads, &merged.progress)?;
        }
        let cursor = if position.positions.iter().all(|p| *p == ShardPosition::Done) {
            None
        } else {
            position.boundary = boundary_after(&seen, last_order.as_deref(), position.boundary);
            Some(encode_search_cursor(&plan.scopes, &position)?)
        };
        Ok((out, cursor))
    }

    /// One page of raw items of a search ordered by `attribute` ([`Search::order_by`]), and
    /// its cursor.
    async fn run_ordered(&self, op: &Op, attribute: &str) -> Result<(Vec<Item>, Option<String>)> {
        let plan = self.sources()?;
        let limit = self.page.limit.unwrap_or(DEFAULT_SEARCH_LIMIT) as usize;
        let mut position = self.start(&plan, limit)?;
        // The key condition of every part, to tell which sources hold a record.
        let conditions: Vec<QueryPlan> = plan
            .parts
            .iter()
            .map(|p| plan.sources[p.source].plan_for(p.partition.clone(), None))
            .collect::<Result<_>>()?;
        let held_before = |source: usize, item: &Item| {
            plan.parts
                .iter()
                .zip(&conditions)
                .any(|(p, c)| p.source < source && c.holds(item))
        };
        let concurrency = self.concurrency_for(&plan);
        let mut out: Vec<Item> = Vec::new();
        while out.len() < limit && position.positions.iter().any(|p| *p != ShardPosition::Done) {
            let remaining = limit - out.len();
            let reads = self
                .read_round(op, &plan, &position.positions, remaining, concurrency)
                .await?;
            let values: Vec<Option<OrderedRead>> = reads
                .iter()
                .zip(&plan.parts)
                .map(|(read, part)| {
                    read.as_ref().map(|(items, more)| OrderedRead {
                        records: items
                            .iter()
                            .map(|i| (i.get(attribute).cloned(), held_before(part.source, i)))
                            .collect(),
                        more: *more,
                    })
                })
                .collect();
            let merged = merge_by_value(&values, self.page.reverse, remaining);
            for &(part, pos) in &merged.order {
                let (items, _) = reads[part].as_ref().expect("merged parts were read");
                out.push(items[pos].clone());
            }
            advance(&plan, &mut position.positions, &reads, &merged.progress)?;
        }
        let cursor = if position.positions.iter().all(|p| *p == ShardPosition::Done) {
            None
        } else {
            Some(encode_search_cursor(&plan.scopes, &position)?)
        };
        Ok((out, cursor))
    }

    /// Read every unfinished part from its position: at most `limit` records each (one
    /// more to know whether more follow).
    async fn read_round(
        &self,
        op: &Op,
        plan: &Plan<F>,
        positions: &[ShardPosition],
        limit: usize,
        concurrency: usize,
    ) -> Result<Vec<Option<(Vec<Item>, bool)>>> {
        let mut requests = Vec::new();
        for (i, (part, position)) in plan.parts.iter().zip(positions).enumerate() {
            let start = match position {
                ShardPosition::Done => continue,
                ShardPosition::Start => None,
                ShardPosition::After(key) => Some(key.clone()),
            };
            let query = &plan.sources[part.source];
            let mut request = query.plan_for(part.partition.clone(), start)?;
            self.table
                .filter_expired(std::iter::once(F::SCHEMA), &mut request.filter);
            if let Some(start) = &request.exclusive_start_key {
                request.check_start_key(start)?;
            }
            requests.push((i, request));
        }
        let limit = u32::try_from(limit).unwrap_or(u32::MAX);
        let fetched: Vec<(usize, Vec<Item>, bool)> = futures::stream::iter(requests)
            .map(|(i, mut request)| async move {
                let (items, more) = crate::query::run::fetch(
                    self.table,
                    op,
                    &mut request,
                    Some(limit),
                    F::SCHEMA.name,
                    true,
                    None,
                )
                .await?;
                // A search merges and orders by the items' attributes: it reads trees.
                let items = items
                    .into_iter()
                    .map(|item| item.into_item(F::SCHEMA.name))
                    .collect::<std::result::Result<Vec<Item>, _>>()?;
                Ok::<_, Error>((i, items, more))
            })
            .buffer_unordered(concurrency)
            .try_collect()
            .await?;
        let mut reads: Vec<Option<(Vec<Item>, bool)>> = vec![None; positions.len()];
        for (i, items, more) in fetched {
            reads[i] = Some((items, more));
        }
        Ok(reads)
    }

    /// The sources with the search's direction, their parts (one per shard read) and scopes;
    /// refuses options that belong to the search and, unless the search is ordered by a
    /// field ([`Search::order_by`]), sources ordered by different fields.
    fn sources(&self) -> Result<Plan<F>> {
        let first = &self.sources[0];
        let fields = sort_key::<F>(first.index).map_or(&[][..], |k| k.fields);
        let first_filter = render_filter(first)?;
        let mut sources = Vec::with_capacity(self.sources.len());
        let mut scopes = Vec::with_capacity(self.sources.len() + 1);
        let mut parts = Vec::new();
        for (n, source) in self.sources.iter().enumerate() {
            if source.page.limit.is_some() || source.page.reverse || source.page.cursor.is_some() {
                return Err(Error::InvalidRequest(format!(
                    "source {n} of the search sets its own limit, direction or cursor; set them \
                     on the search (`.limit(n)`, `.reverse()`, `.cursor(c)`)"
                )));
            }
            let key = sort_key::<F>(source.index);
            match (self.order, key) {
                (Some(_), _) if render_filter(source)? != first_filter => {
                    return Err(Error::InvalidRequest(format!(
                        "source {n} of the search has another filter than source 0; a search \
                         ordered by a field needs one filter on every source (or none), so that \
                         which sources hold a record is known from its keys"
                    )))
                }
                (Some(_), _) => {}
                (None, _) if source.native.is_some() => {
                    return Err(Error::InvalidRequest(format!(
                        "source {n} of the search reads a native index, whose records are \
                         ordered by typed attribute values, not by one key text to merge by; \
                         merge by a field of the record with `.order_by(..)`"
                    )))
                }
                (None, None) if self.sources.len() > 1 => {
                    return Err(Error::InvalidRequest(format!(
                        "source {n} of the search reads an index without a sort key, so its \
                         records have no order to merge by; merge by a field of the record \
                         with `.order_by(..)`"
                    )))
                }
                (None, Some(key)) if key.fields != fields => {
                    return Err(Error::InvalidRequest(format!(
                        "the sources of a search must be sorted by the same fields: source 0 by \
                         {:?}, source {n} by {:?}; merge by a field of the record with \
                         `.order_by(..)`",
                        fields, key.fields
                    )))
                }
                (None, Some(_)) | (None, None) => {}
            }
            let mut source = source.clone();
            source.page.reverse = self.page.reverse;
            let sk_attribute = key.map(|k| k.attribute);
            let head = key.filter(|k| !k.no_prefix).map_or_else(String::new, |k| {
                format!("{}{}", k.prefix, F::SCHEMA.delimiter)
            });
            if source.is_all_shards() {
                let count = source.partition.shard_count().unwrap_or(1);
                scopes.push(source.scope(&source.partition.render_all_shards()?));
                for shard in 0..count {
                    parts.push(Part {
                        source: n,
                        partition: source.partition.render(Some(shard))?,
                        sk_attribute,
                        head: head.clone(),
                    });
                }
            } else {
                let partition = source.partition.render(source.shard)?;
                scopes.push(source.scope(&partition));
                parts.push(Part {
                    source: n,
                    partition,
                    sk_attribute,
                    head: head.clone(),
                });
            }
            sources.push(source);
        }
        if let Some(attribute) = self.order {
            // A cursor of one order does not resume another.
            scopes.push(CursorScope {
                facet: F::SCHEMA.name.to_owned(),
                index: None,
                partition: format!("(ordered by {attribute})"),
                condition: 0,
                reverse: self.page.reverse,
            });
        }
        Ok(Plan {
            sources,
            scopes,
            parts,
        })
    }
}

/// A source's filter as rendered, to compare the sources' filters.
fn render_filter<F>(source: &Query<F>) -> Result<Option<RenderedCondition>> {
    Ok(source
        .filter
        .as_ref()
        .map(RenderedCondition::from_expr)
        .transpose()?)
}

/// Move each part's position as the merge says: after the record it resumes from.
fn advance<F>(
    plan: &Plan<F>,
    positions: &mut [ShardPosition],
    reads: &[Option<(Vec<Item>, bool)>],
    progress: &[ShardProgress],
) -> Result<()> {
    for (i, progress) in progress.iter().enumerate() {
        match progress {
            ShardProgress::Unchanged => {}
            ShardProgress::Done => positions[i] = ShardPosition::Done,
            ShardProgress::After(pos) => {
                let (items, _) = reads[i].as_ref().expect("a read part");
                let index = plan.sources[plan.parts[i].source].index;
                positions[i] = ShardPosition::After(walk::key_of(index, &items[*pos])?);
            }
        }
    }
    Ok(())
}

/// The sort key a source is ordered by.
fn sort_key<F: Facet>(index: Option<&'static IndexSchema>) -> Option<&'static KeySchema> {
    match index {
        Some(i) => i.sk.as_ref(),
        None => Some(&F::SCHEMA.sk),
    }
}

/// What a search reads.
struct Plan<F> {
    sources: Vec<Query<F, BaseTable>>,
    scopes: Vec<CursorScope>,
    parts: Vec<Part>,
}

/// One partition read: a source, or one shard of it.
struct Part {
    source: usize,
    partition: String,
    /// `None` for an index without a sort key (ordered searches only).
    sk_attribute: Option<&'static str>,
    /// The sort key's `prefix + delimiter`, cut off to give the order text.
    head: String,
}

impl Part {
    /// The order text of an item: its sort-key value after the key's prefix.
    fn order_text(&self, item: &Item) -> String {
        match self.sk_attribute.and_then(|sk| item.get(sk)) {
            Some(AttributeValue::S(s)) => {
                s.strip_prefix(self.head.as_str()).unwrap_or(s).to_owned()
            }
            _ => String::new(),
        }
    }
}

impl<'t, F: Facet> IntoFuture for Search<'t, F> {
    type Output = Result<Page<F>>;
    type IntoFuture = BoxFuture<'t, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        self.page()
    }
}
