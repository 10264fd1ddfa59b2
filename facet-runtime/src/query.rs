//! Typed queries: [`PartitionQuery`] (one partition of the base table or an index),
//! its operators, and the executable [`Query`].
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct User { #[pk(prefix = "#TEAM")] team_id: String, #[sk(prefix = "#USER")] user_id: String }
//! # async fn demo(table: &Table) -> faceteer::Result<()> {
//! let page = User::query("team-1").greater_than("u-100").limit(10).send(table).await?;
//! for user in &page.records { /* … */ }
//! if let Some(cursor) = page.cursor {
//!     let next = User::query("team-1").greater_than("u-100").limit(10).cursor(cursor).send(table).await?;
//! }
//! # Ok(()) }
//! ```

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::cursor::{
    decode_cursor, decode_shards_cursor, encode_cursor, encode_shards_cursor, CursorScope,
    ShardPosition,
};
use faceteer_core::expr::Expr;
use faceteer_core::facet::is_foreign;
use faceteer_core::partition::PartitionKey;
use faceteer_core::pick::{
    picked_from_item, projection_attributes, BaseTable, KeyFields, PickValidator, Picked,
    Projection,
};
use faceteer_core::plan::{QueryPlan, RenderedCondition, SortCondition};
use faceteer_core::schema::{IndexSchema, KeySchema, PK, SK};
use faceteer_core::sort_key::{SortKeyArg, SortKeyPrefix};
use faceteer_core::{from_item, Facet, Item, KeyError, KeyWriter};
use futures::{Stream, StreamExt, TryStreamExt};

use crate::error::{Error, Result};
use crate::table::Table;

/// The phantom types of a [`PartitionQuery`]: facet, sort-key shape, index key fields.
type QueryTypes<F, S, I> = fn() -> (F, S, I);

/// Shards an all-shard query reads at once unless told otherwise.
pub const DEFAULT_SHARD_CONCURRENCY: usize = 8;

/// One partition of the base table or of an index, ready for a sort-key operator.
///
/// Made by the generated `Facet::query(..)`, `Facet::gsiN(..)` and `Facet::by_<alias>(..)`.
/// `S` is the sort-key shape; it types the operators' arguments.
pub struct PartitionQuery<F, S, I = BaseTable> {
    index: Option<&'static IndexSchema>,
    sort_key: &'static KeySchema,
    partition: PartitionKey,
    _types: PhantomData<QueryTypes<F, S, I>>,
}

impl<F: Facet, S, I: KeyFields> PartitionQuery<F, S, I> {
    /// Used by generated code.
    #[doc(hidden)]
    pub fn new(
        index: Option<&'static IndexSchema>,
        sort_key: &'static KeySchema,
        partition: PartitionKey,
    ) -> Self {
        PartitionQuery {
            index,
            sort_key,
            partition,
            _types: PhantomData,
        }
    }

    fn sort_key_text(&self, write: impl FnOnce(&mut KeyWriter)) -> Result<String, KeyError> {
        let mut w = KeyWriter::new(self.sort_key.prefix, F::SCHEMA.delimiter);
        write(&mut w);
        w.finish()
    }

    fn with(self, sort: Result<SortCondition, KeyError>) -> Query<F, I> {
        let mut sort_prefix = self.sort_key.prefix.to_owned();
        if self.sort_key.first_field_required() {
            sort_prefix.push_str(F::SCHEMA.delimiter);
        }
        Query {
            index: self.index,
            partition: self.partition,
            sort,
            sort_prefix,
            limit: None,
            reverse: false,
            cursor: None,
            shard: None,
            consistent_read: false,
            filter: None,
            shard_concurrency: DEFAULT_SHARD_CONCURRENCY,
            projection: None,
            _facet: PhantomData,
        }
    }

    fn compare(self, sk: &impl SortKeyArg<S>, op: fn(String) -> SortCondition) -> Query<F, I> {
        let text = self.sort_key_text(|w| sk.write(self.sort_key.fields, w));
        self.with(text.map(op))
    }

    /// Records whose sort key equals `sk`.
    pub fn equals(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::Equals)
    }

    /// Records whose sort key is greater than `sk`.
    pub fn greater_than(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::GreaterThan)
    }

    /// Records whose sort key is greater than or equal to `sk`.
    pub fn greater_than_or_equal(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::GreaterThanOrEqual)
    }

    /// Records whose sort key is less than `sk`.
    pub fn less_than(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::LessThan)
    }

    /// Records whose sort key is less than or equal to `sk`.
    pub fn less_than_or_equal(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::LessThanOrEqual)
    }

    /// Records whose sort key begins with the key built from `prefix` (the value of the
    /// first sort-key field(s); the string-prefix match continues into the last value given).
    pub fn begins_with(self, prefix: impl SortKeyPrefix<S>) -> Query<F, I> {
        let text = self.sort_key_text(|w| prefix.write(self.sort_key.fields, w));
        self.with(text.map(SortCondition::BeginsWith))
    }

    /// Records whose sort key is between `start` and `end`, both included.
    pub fn between(self, start: impl SortKeyArg<S>, end: impl SortKeyArg<S>) -> Query<F, I> {
        let a = self.sort_key_text(|w| start.write(self.sort_key.fields, w));
        let b = self.sort_key_text(|w| end.write(self.sort_key.fields, w));
        let sort = a.and_then(|a| b.map(|b| SortCondition::Between(a, b)));
        self.with(sort)
    }

    /// Every record of the facet in the partition, in sort-key order.
    pub fn list(self) -> Query<F, I> {
        self.with(Ok(SortCondition::List))
    }

    /// The first record of the partition in sort-key order (the last with `.reverse()`).
    pub fn first(self) -> First<F, I> {
        self.list().first()
    }
}

/// A page of records and the cursor to the next one.
#[derive(Debug, Clone)]
pub struct Page<F> {
    /// The records, in sort-key order (descending with `.reverse()`).
    pub records: Vec<F>,
    /// Where the next page starts: `None` exactly when the query is exhausted.
    pub cursor: Option<String>,
}

/// An executable query: a partition, a sort-key condition and options. `I` is the index's
/// key fields (for projections).
pub struct Query<F, I = BaseTable> {
    index: Option<&'static IndexSchema>,
    partition: PartitionKey,
    sort: Result<SortCondition, KeyError>,
    sort_prefix: String,
    limit: Option<u32>,
    reverse: bool,
    cursor: Option<String>,
    shard: Option<u32>,
    consistent_read: bool,
    filter: Option<Expr<F>>,
    shard_concurrency: usize,
    /// Attributes to read (`select`); `None` reads whole items.
    projection: Option<Vec<&'static str>>,
    _facet: PhantomData<fn() -> (F, I)>,
}

impl<F, I> Clone for Query<F, I> {
    fn clone(&self) -> Self {
        Query {
            index: self.index,
            partition: self.partition.clone(),
            sort: self.sort.clone(),
            sort_prefix: self.sort_prefix.clone(),
            limit: self.limit,
            reverse: self.reverse,
            cursor: self.cursor.clone(),
            shard: self.shard,
            consistent_read: self.consistent_read,
            filter: self.filter.clone(),
            shard_concurrency: self.shard_concurrency,
            projection: self.projection.clone(),
            _facet: PhantomData,
        }
    }
}

impl<F, I> std::fmt::Debug for Query<F, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("index", &self.index.map(|i| i.name))
            .field("partition", &self.partition)
            .field("sort", &self.sort)
            .field("limit", &self.limit)
            .field("reverse", &self.reverse)
            .field("cursor", &self.cursor)
            .field("shard", &self.shard)
            .finish()
    }
}

impl<F: Facet, I: KeyFields> Query<F, I> {
    /// Return at most `n` records per page (`n` ≥ 1).
    pub fn limit(mut self, n: u32) -> Self {
        self.limit = Some(n);
        self
    }

    /// Walk the sort key in descending order.
    pub fn reverse(mut self) -> Self {
        self.reverse = true;
        self
    }

    /// Continue after the page whose cursor this is.
    pub fn cursor(mut self, cursor: impl Into<String>) -> Self {
        self.cursor = Some(cursor.into());
        self
    }

    /// Continue after the page whose cursor this is, or start at the beginning for `None`.
    pub fn cursor_opt(mut self, cursor: Option<String>) -> Self {
        self.cursor = cursor;
        self
    }

    /// Query shard `n` (`0..count`) of a sharded partition key. Without it, a query on a
    /// sharded partition reads every shard and merges them in sort-key order.
    pub fn shard(mut self, n: u32) -> Self {
        self.shard = Some(n);
        self
    }

    /// How many shards an all-shard query reads at once (default 8, at least 1).
    pub fn shard_concurrency(mut self, n: usize) -> Self {
        self.shard_concurrency = n;
        self
    }

    /// Keep only the records matching `filter`, evaluated by DynamoDB after the key
    /// condition (it reduces what is returned, not what is read). Several calls combine
    /// with AND.
    ///
    /// ```no_run
    /// # use faceteer::{Facet, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Facet, Serialize, Deserialize)]
    /// # struct Task { #[pk(prefix = "#TEAM")] team_id: String, #[sk(prefix = "#TASK")] task_id: String, done: bool, points: u32 }
    /// # async fn demo(table: &Table) -> faceteer::Result<()> {
    /// let f = Task::fields();
    /// let open_big = Task::query("t1").list().filter(f.done.eq(false) & f.points.ge(5u32));
    /// let page = open_big.send(table).await?;
    /// # Ok(()) }
    /// ```
    pub fn filter(mut self, filter: Expr<F>) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(existing) => existing.and(filter),
            None => filter,
        });
        self
    }

    /// Use strongly consistent reads (base table only).
    pub fn consistent_read(mut self) -> Self {
        self.consistent_read = true;
        self
    }

    /// Only the first record of this query.
    pub fn first(self) -> First<F, I> {
        First(self.limit(1))
    }

    fn scope(&self, partition: &str) -> CursorScope {
        CursorScope {
            facet: F::SCHEMA.name.to_owned(),
            index: self.index.map(|i| i.name.to_owned()),
            partition: partition.to_owned(),
        }
    }

    fn key_attributes(&self) -> [&'static str; 4] {
        match self.index {
            Some(i) => [PK, SK, i.pk.attribute, i.sk.attribute],
            None => [PK, SK, PK, SK],
        }
    }

    /// `true` when this query reads every shard of a sharded partition and merges them:
    /// the shard fields are not all in the partition key and no `.shard(n)` was chosen.
    pub fn is_all_shards(&self) -> bool {
        self.shard.is_none() && self.partition.needs_shard_choice()
    }

    /// Validate the options and build the plan of one request to `partition`.
    fn plan_for(&self, partition: String, start: Option<Item>) -> Result<QueryPlan> {
        if self.limit == Some(0) {
            return Err(Error::InvalidQuery("limit must be at least 1".into()));
        }
        if self.consistent_read && self.index.is_some() {
            return Err(Error::InvalidQuery(
                "global secondary indexes do not support consistent reads".into(),
            ));
        }
        Ok(QueryPlan {
            index: self.index.map(|i| i.name),
            pk_attribute: self.partition.attribute(),
            sk_attribute: self.index.map(|i| i.sk.attribute).unwrap_or(SK),
            partition,
            sort: self.sort.clone()?,
            sort_prefix: self.sort_prefix.clone(),
            limit: self.limit,
            reverse: self.reverse,
            exclusive_start_key: start,
            consistent_read: self.consistent_read,
            filter: self
                .filter
                .as_ref()
                .map(RenderedCondition::from_expr)
                .transpose()?,
            projection: self.projection.clone(),
        })
    }

    /// The plan of this query's first request (inspectable without a server). For an
    /// all-shard query, the plan of shard 0.
    pub fn plan(&self) -> Result<QueryPlan> {
        if self.is_all_shards() {
            return self.plan_for(self.partition.render(Some(0))?, None);
        }
        let partition = self.partition.render(self.shard)?;
        let start = match &self.cursor {
            Some(c) => Some(decode_cursor(&self.scope(&partition), c)?),
            None => None,
        };
        self.plan_for(partition, start)
    }

    /// Run the query and return one page.
    ///
    /// The page holds at most `limit` records (without a limit, one DynamoDB page). Its
    /// `cursor` is `None` exactly when no record follows: the library reads one record
    /// ahead to know.
    ///
    /// On a sharded partition without `.shard(n)`, every shard is queried concurrently and
    /// the results are merged in sort-key order; the cursor then resumes every shard.
    pub async fn send(&self, table: &Table) -> Result<Page<F>> {
        let (raw, cursor) = self.send_raw(table).await?;
        Ok(Page {
            records: decode_records(raw)?,
            cursor,
        })
    }

    /// One page of raw items and its cursor.
    async fn send_raw(&self, table: &Table) -> Result<(Vec<Item>, Option<String>)> {
        if self.is_all_shards() {
            return self.send_all_shards(table).await;
        }
        let mut plan = self.plan()?;
        let (raw, more) = fetch(table, &mut plan, self.limit, F::SCHEMA.name).await?;
        let cursor = match (more, raw.last()) {
            (true, Some(last)) => Some(encode_cursor(
                &self.scope(&plan.partition),
                &self.key_of(last)?,
            )?),
            _ => None,
        };
        Ok((raw, cursor))
    }

    /// Read at most `limit` records from each unfinished shard, merge them in sort-key order
    /// and keep those that are certainly next: nothing unread in any shard sorts before them.
    async fn send_all_shards(&self, table: &Table) -> Result<(Vec<Item>, Option<String>)> {
        let count = self.partition.shard_count().unwrap_or(1);
        let scope = self.scope(&self.partition.render_all_shards()?);
        let positions = match &self.cursor {
            Some(c) => decode_shards_cursor(&scope, count, c)?,
            None => vec![ShardPosition::Start; count as usize],
        };
        let mut plans = Vec::new();
        for (shard, position) in positions.iter().enumerate() {
            let start = match position {
                ShardPosition::Done => continue,
                ShardPosition::Start => None,
                ShardPosition::After(key) => Some(key.clone()),
            };
            let partition = self.partition.render(Some(shard as u32))?;
            plans.push((shard, self.plan_for(partition, start)?));
        }
        let limit = self.limit;
        let mut fetched: Vec<(usize, Vec<Item>, bool)> = futures::stream::iter(plans)
            .map(|(shard, mut plan)| async move {
                let (items, more) = fetch(table, &mut plan, limit, F::SCHEMA.name).await?;
                Ok::<_, Error>((shard, items, more))
            })
            .buffer_unordered(self.shard_concurrency.max(1))
            .try_collect()
            .await?;
        fetched.sort_by_key(|(shard, _, _)| *shard);

        let sk = self.index.map(|i| i.sk.attribute).unwrap_or(SK);
        let sort_key = |item: &Item| match item.get(sk) {
            Some(AttributeValue::S(s)) => s.clone(),
            _ => String::new(),
        };
        // (sort key, shard, position in shard): the merge order.
        let reverse = self.reverse;
        let order = |a: &(String, usize, usize), b: &(String, usize, usize)| {
            let by_key = if reverse {
                b.0.cmp(&a.0)
            } else {
                a.0.cmp(&b.0)
            };
            by_key.then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
        };
        // A shard with more records unread bounds what may be returned now.
        let cutoff = fetched
            .iter()
            .filter(|(_, items, more)| *more && !items.is_empty())
            .map(|(shard, items, _)| {
                let last = items.len() - 1;
                (sort_key(&items[last]), *shard, last)
            })
            .min_by(|a, b| order(a, b));
        let mut merged: Vec<((String, usize, usize), &Item)> = fetched
            .iter()
            .flat_map(|(shard, items, _)| {
                items
                    .iter()
                    .enumerate()
                    .map(move |(pos, item)| ((sort_key(item), *shard, pos), item))
            })
            .filter(|(k, _)| cutoff.as_ref().is_none_or(|c| order(k, c).is_le()))
            .collect();
        merged.sort_by(|a, b| order(&a.0, &b.0));
        if let Some(l) = limit {
            merged.truncate(l as usize);
        }

        // Each shard now stands after the last of its records returned.
        let mut positions = positions;
        let mut taken = vec![0usize; count as usize];
        for ((_, shard, pos), _) in &merged {
            taken[*shard] = taken[*shard].max(pos + 1);
        }
        for (shard, items, more) in &fetched {
            let n = taken[*shard];
            if n == items.len() && !more {
                positions[*shard] = ShardPosition::Done;
            } else if n > 0 {
                positions[*shard] = ShardPosition::After(self.key_of(&items[n - 1])?);
            }
        }
        let cursor = if positions.iter().all(|p| *p == ShardPosition::Done) {
            None
        } else {
            Some(encode_shards_cursor(&scope, &positions)?)
        };
        let raw: Vec<Item> = merged.into_iter().map(|(_, item)| item.clone()).collect();
        Ok((raw, cursor))
    }

    fn key_of(&self, item: &Item) -> Result<Item> {
        let mut key = Item::with_capacity(4);
        for name in self.key_attributes() {
            match item.get(name) {
                Some(v @ AttributeValue::S(_)) => {
                    key.insert(name.to_owned(), v.clone());
                }
                _ => return Err(Error::MissingKeyAttribute(name.to_owned())),
            }
        }
        Ok(key)
    }

    /// Every page of the query, one after another, as a stream.
    pub fn pages(self, table: &Table) -> impl Stream<Item = Result<Page<F>>> + Send + '_
    where
        F: Send,
    {
        paginate(self, table)
    }

    /// Every record of the query, across pages, as a stream.
    pub fn records(self, table: &Table) -> impl Stream<Item = Result<F>> + Send + '_
    where
        F: Send,
    {
        self.pages(table)
            .map_ok(|page| futures::stream::iter(page.records.into_iter().map(Ok)))
            .try_flatten()
    }

    /// Every record of the query, across pages, collected.
    pub async fn all(self, table: &Table) -> Result<Vec<F>>
    where
        F: Send,
    {
        self.records(table).try_collect().await
    }
}

impl<F: Facet, I: KeyFields> Query<F, I> {
    /// Read only the fields of projection `P` (plus the key fields) with a
    /// `ProjectionExpression`. Needs a pick validator on the facet.
    ///
    /// ```no_run
    /// # use faceteer::{Facet, Pick, Table};
    /// # use serde::{Deserialize, Serialize};
    /// #[derive(Facet, Serialize, Deserialize)]
    /// #[facet(pick_validator = trust)]
    /// struct Task { #[pk(prefix = "#TEAM")] team_id: String, #[sk(prefix = "#TASK")] task_id: String, title: String, body: String }
    ///
    /// #[derive(Debug, Pick)]
    /// #[pick(facet = Task)]
    /// struct Title { title: String }
    ///
    /// # async fn demo(table: &Table) -> faceteer::Result<()> {
    /// let page = Task::query("t1").list().select::<Title>().send(table).await?;
    /// for t in &page.records {
    ///     println!("{} {}", t.keys.task_id, t.title); // chosen and key fields only
    ///     table.delete(&t.key()?).await?;           // keys feed back into writes
    /// }
    /// # Ok(()) }
    /// ```
    pub fn select<P: Projection<Facet = F>>(mut self) -> Selected<P, I>
    where
        F: PickValidator,
    {
        let index_attributes: Vec<&'static str> = self
            .index
            .map(|i| vec![i.pk.attribute, i.sk.attribute])
            .unwrap_or_default();
        self.projection = Some(projection_attributes::<P, I>(&index_attributes));
        Selected {
            query: self,
            _projection: PhantomData,
        }
    }
}

/// A query that reads projections `P`: see [`Query::select`].
pub struct Selected<P: Projection, I = BaseTable> {
    query: Query<P::Facet, I>,
    _projection: PhantomData<fn() -> P>,
}

impl<P: Projection, I> Clone for Selected<P, I> {
    fn clone(&self) -> Self {
        Selected {
            query: self.query.clone(),
            _projection: PhantomData,
        }
    }
}

impl<P, I> Selected<P, I>
where
    P: Projection + Send + 'static,
    P::Facet: PickValidator,
    I: KeyFields,
{
    /// Return at most `n` records per page.
    pub fn limit(self, n: u32) -> Self {
        self.map(|q| q.limit(n))
    }

    /// Walk the sort key in descending order.
    pub fn reverse(self) -> Self {
        self.map(Query::reverse)
    }

    /// Continue after the page whose cursor this is (`None`: from the start).
    pub fn cursor_opt(self, cursor: Option<String>) -> Self {
        self.map(|q| q.cursor_opt(cursor))
    }

    /// Query shard `n` of a sharded partition.
    pub fn shard(self, n: u32) -> Self {
        self.map(|q| q.shard(n))
    }

    /// Keep only records matching `filter` (see [`Query::filter`]).
    pub fn filter(self, filter: Expr<P::Facet>) -> Self {
        self.map(|q| q.filter(filter))
    }

    fn map(self, f: impl FnOnce(Query<P::Facet, I>) -> Query<P::Facet, I>) -> Self {
        Selected {
            query: f(self.query),
            _projection: PhantomData,
        }
    }

    /// The attributes read.
    pub fn attributes(&self) -> &[&'static str] {
        self.query.projection.as_deref().unwrap_or_default()
    }

    /// Run the query and return one page of projections (see [`Query::send`]).
    pub async fn send(&self, table: &Table) -> Result<Page<Picked<P, I>>> {
        let (raw, cursor) = self.query.send_raw(table).await?;
        let attributes = self.attributes();
        let records = raw
            .into_iter()
            .map(|item| picked_from_item::<P, I>(item, attributes))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Page { records, cursor })
    }

    /// Continue after the page whose cursor this is.
    pub fn cursor(self, cursor: impl Into<String>) -> Self {
        self.cursor_opt(Some(cursor.into()))
    }

    /// Every page of projections, one after another, as a stream.
    pub fn pages(self, table: &Table) -> impl Stream<Item = Result<Page<Picked<P, I>>>> + Send + '_
    where
        Picked<P, I>: Send,
    {
        paginate(self, table)
    }

    /// Every projection of the query, across pages, collected.
    pub async fn all(self, table: &Table) -> Result<Vec<Picked<P, I>>>
    where
        Picked<P, I>: Send,
    {
        let pages: Vec<Page<Picked<P, I>>> = self.pages(table).try_collect().await?;
        Ok(pages.into_iter().flat_map(|p| p.records).collect())
    }
}

/// The first record of a query.
#[derive(Debug, Clone)]
pub struct First<F, I = BaseTable>(Query<F, I>);

impl<F: Facet, I: KeyFields> First<F, I> {
    /// Walk the sort key in descending order (the last record).
    pub fn reverse(self) -> Self {
        First(self.0.reverse())
    }

    /// Query shard `n` of a sharded partition key.
    pub fn shard(self, n: u32) -> Self {
        First(self.0.shard(n))
    }

    /// Run the query: the first record, or `None` when there is none.
    pub async fn send(&self, table: &Table) -> Result<Option<F>> {
        Ok(self.0.send(table).await?.records.into_iter().next())
    }

    /// Read only the fields of projection `P` (see [`Query::select`]).
    pub fn select<P: Projection<Facet = F>>(self) -> SelectedFirst<P, I>
    where
        F: PickValidator,
    {
        SelectedFirst(self.0.select::<P>())
    }
}

/// The first projection of a query: see [`First::select`].
pub struct SelectedFirst<P: Projection, I = BaseTable>(Selected<P, I>);

impl<P, I> SelectedFirst<P, I>
where
    P: Projection + Send + 'static,
    P::Facet: PickValidator,
    I: KeyFields,
{
    /// Run the query: the first projection, or `None` when there is none.
    pub async fn send(&self, table: &Table) -> Result<Option<Picked<P, I>>> {
        Ok(self.0.send(table).await?.records.into_iter().next())
    }
}

/// A query that returns pages and resumes from a cursor.
trait Paged: Clone + Send + Sync {
    type Record: Send;
    fn send_page<'a>(
        &'a self,
        table: &'a Table,
    ) -> impl std::future::Future<Output = Result<Page<Self::Record>>> + Send + 'a;
    fn resume(self, cursor: String) -> Self;
}

impl<F: Facet, I: KeyFields> Paged for Query<F, I> {
    type Record = F;
    fn send_page<'a>(
        &'a self,
        table: &'a Table,
    ) -> impl std::future::Future<Output = Result<Page<F>>> + Send + 'a {
        self.send(table)
    }
    fn resume(self, cursor: String) -> Self {
        self.cursor(cursor)
    }
}

impl<P, I> Paged for Selected<P, I>
where
    P: Projection + Send + 'static,
    P::Facet: PickValidator,
    I: KeyFields,
    Picked<P, I>: Send,
{
    type Record = Picked<P, I>;
    fn send_page<'a>(
        &'a self,
        table: &'a Table,
    ) -> impl std::future::Future<Output = Result<Page<Picked<P, I>>>> + Send + 'a {
        self.send(table)
    }
    fn resume(self, cursor: String) -> Self {
        self.cursor(cursor)
    }
}

/// Every page of `query`, each resumed from the previous page's cursor, until it is `None`.
fn paginate<'a, Q: Paged + 'a>(
    query: Q,
    table: &'a Table,
) -> impl Stream<Item = Result<Page<Q::Record>>> + Send + 'a {
    futures::stream::try_unfold(Some(query), move |state| async move {
        let Some(query) = state else {
            return Ok(None);
        };
        let page = query.send_page(table).await?;
        let next = page.cursor.clone().map(|c| query.clone().resume(c));
        Ok(Some((page, next)))
    })
}

fn decode_records<F: Facet>(raw: Vec<Item>) -> Result<Vec<F>> {
    Ok(raw
        .into_iter()
        .map(from_item::<F>)
        .collect::<Result<Vec<F>, _>>()?)
}

/// Read at most `limit` matching items (one DynamoDB page without a limit) from
/// `plan.exclusive_start_key` on, and whether more follow (read one ahead to know).
///
/// Items of other facets than `facet` are skipped: facets share partitions and indexes.
async fn fetch(
    table: &Table,
    plan: &mut QueryPlan,
    limit: Option<u32>,
    facet: &str,
) -> Result<(Vec<Item>, bool)> {
    if plan.is_empty_range() {
        return Ok((Vec::new(), false));
    }
    let limit = limit.map(|l| l as usize);
    let mut raw: Vec<Item> = Vec::new();
    loop {
        // Ask for one record beyond the limit, to know whether another page follows.
        plan.limit = limit.map(|l| (l + 1 - raw.len()) as u32);
        let (items, last) = run(table, plan).await?;
        raw.extend(items.into_iter().filter(|i| !excluded(plan, i, facet)));
        if let Some(l) = limit {
            if raw.len() > l {
                raw.truncate(l);
                return Ok((raw, true));
            }
        }
        match last {
            None => return Ok((raw, false)),
            Some(last) => {
                plan.exclusive_start_key = Some(last);
                if limit.is_none() && !raw.is_empty() {
                    let more = has_more(table, plan, facet).await?;
                    return Ok((raw, more));
                }
            }
        }
    }
}

/// Whether a returned item is not a result: another facet's, or the one item a strict bound
/// excludes.
fn excluded(plan: &QueryPlan, item: &Item, facet: &str) -> bool {
    if is_foreign(item, facet) {
        return true;
    }
    match plan.excluded_sort_key() {
        Some(x) => matches!(item.get(plan.sk_attribute), Some(AttributeValue::S(s)) if s == x),
        None => false,
    }
}

/// Is there any record after `plan.exclusive_start_key`? Advances the plan's start key.
async fn has_more(table: &Table, plan: &mut QueryPlan, facet: &str) -> Result<bool> {
    // Without a filter the next item read is the answer; with one, read a few at a time so
    // that a sparse filter does not cost one request per skipped item.
    plan.limit = Some(if plan.filter.is_some() { 25 } else { 1 });
    loop {
        let (items, last) = run(table, plan).await?;
        if items.iter().any(|i| !excluded(plan, i, facet)) {
            return Ok(true);
        }
        match last {
            None => return Ok(false),
            Some(last) => plan.exclusive_start_key = Some(last),
        }
    }
}

/// One Query request: the items and `LastEvaluatedKey`.
async fn run(table: &Table, plan: &QueryPlan) -> Result<(Vec<Item>, Option<Item>)> {
    let input = plan.to_input(table.name());
    tracing::debug!(index = ?input.index_name, limit = ?input.limit, "Query");
    let out = table
        .client()
        .query()
        .set_table_name(input.table_name)
        .set_index_name(input.index_name)
        .set_key_condition_expression(input.key_condition_expression)
        .set_filter_expression(input.filter_expression)
        .set_expression_attribute_names(input.expression_attribute_names)
        .set_expression_attribute_values(input.expression_attribute_values)
        .set_limit(input.limit)
        .set_scan_index_forward(input.scan_index_forward)
        .set_exclusive_start_key(input.exclusive_start_key)
        .set_consistent_read(input.consistent_read)
        .set_projection_expression(input.projection_expression)
        .send()
        .await
        .map_err(|e| Error::dynamo("Query", e))?;
    let last = out.last_evaluated_key.filter(|k| !k.is_empty());
    Ok((out.items.unwrap_or_default(), last))
}
