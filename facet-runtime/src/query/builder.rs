//! [`Query`]: the one query builder. Its options work in any order and in every mode;
//! [`Query::first`] and [`Query::select`] change only what running it returns.

use std::marker::PhantomData;

use faceteer_core::cursor::{condition_fingerprint, decode_cursor, CursorScope};
use faceteer_core::expr::Expr;
use faceteer_core::partition::PartitionKey;
use faceteer_core::pick::{BaseTable, KeyFields, ProjectedBy, Projection};
use faceteer_core::plan::{NativeCondition, QueryPlan, RenderedCondition, SortCondition};
use faceteer_core::schema::{IndexSchema, PK, SK};
use faceteer_core::{Facet, KeyError};

use super::mode::{First, Mode, Paged};
use super::page::{page_setters, PageOptions};
use crate::error::{Error, Result};
use crate::read::{Fetched, Read, Select, Whole};

/// The phantom types of a [`Query`].
type QueryTypes<F, I, R, M> = fn() -> (F, I, R, M);

/// A query: a partition, a sort-key condition and options. Run it with
/// [`Table::query`](crate::Table::query).
///
/// * `F`: the facet; `I`: the key fields of the index queried (for projections);
/// * `R`: what each record becomes ([`Whole`] records, or [`Select<P>`] after
///   [`Query::select`]);
/// * `M`: what running it returns ([`Paged`], or [`First`] after [`Query::first`]).
#[must_use = "a query does nothing until it is run with `table.query(..)`"]
pub struct Query<F, I = BaseTable, R = Whole, M = Paged> {
    pub(crate) index: Option<&'static IndexSchema>,
    pub(crate) partition: PartitionKey,
    pub(crate) sort: Result<SortCondition, KeyError>,
    pub(crate) sort_prefix: String,
    pub(crate) page: PageOptions,
    pub(crate) shard: Option<u32>,
    pub(crate) filter: Option<Expr<F>>,
    /// `None`: every shard at once, up to [`DEFAULT_SHARD_CONCURRENCY`](crate::query::DEFAULT_SHARD_CONCURRENCY).
    pub(crate) shard_concurrency: Option<usize>,
    /// The key condition of a native index (`partition` then holds its text only).
    pub(crate) native: Option<NativeCondition>,
    _types: PhantomData<QueryTypes<F, I, R, M>>,
}

impl<F, I, R, M> Clone for Query<F, I, R, M> {
    fn clone(&self) -> Self {
        Query {
            index: self.index,
            partition: self.partition.clone(),
            sort: self.sort.clone(),
            sort_prefix: self.sort_prefix.clone(),
            page: self.page.clone(),
            shard: self.shard,
            filter: self.filter.clone(),
            shard_concurrency: self.shard_concurrency,
            native: self.native.clone(),
            _types: PhantomData,
        }
    }
}

impl<F, I, R, M> std::fmt::Debug for Query<F, I, R, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("index", &self.index.map(|i| i.name))
            .field(
                "partition",
                &self
                    .partition
                    .render(self.shard)
                    .map(|k| faceteer_core::redact::key(&k).into_owned()),
            )
            .field(
                "sort",
                &format_args!(
                    "{}",
                    faceteer_core::redact::debug_text(&format!("{:?}", self.sort))
                ),
            )
            .field("page", &self.page)
            .field("shard", &self.shard)
            .finish()
    }
}

impl<F, I> Query<F, I> {
    pub(crate) fn new(
        index: Option<&'static IndexSchema>,
        partition: PartitionKey,
        sort: Result<SortCondition, KeyError>,
        sort_prefix: String,
    ) -> Self {
        Query {
            index,
            partition,
            sort,
            sort_prefix,
            page: PageOptions::default(),
            shard: None,
            filter: None,
            shard_concurrency: None,
            native: None,
            _types: PhantomData,
        }
    }
}

impl<F, I, R, M> Query<F, I, R, M> {
    /// The same query with other output types.
    pub(crate) fn retype<R2, M2>(self) -> Query<F, I, R2, M2> {
        self.recast()
    }

    /// The same query with other phantom types.
    fn recast<I2, R2, M2>(self) -> Query<F, I2, R2, M2> {
        Query {
            index: self.index,
            partition: self.partition,
            sort: self.sort,
            sort_prefix: self.sort_prefix,
            page: self.page,
            shard: self.shard,
            filter: self.filter,
            shard_concurrency: self.shard_concurrency,
            native: self.native,
            _types: PhantomData,
        }
    }

    /// The same query reading whole records, with its index known only at run time (for
    /// searches over several indexes).
    pub(crate) fn erase(self) -> Query<F, BaseTable, R, M> {
        self.recast()
    }

    page_setters!(limit, reverse, cursor);

    /// Query shard `n` (`0..count`) of a sharded partition key. Without it, a query on a
    /// sharded partition reads every shard and merges them in sort-key order.
    pub fn shard(mut self, n: u32) -> Self {
        self.shard = Some(n);
        self
    }

    /// How many shards an all-shard query reads at once (at least 1). By default every
    /// shard at once, up to [`DEFAULT_SHARD_CONCURRENCY`](crate::query::DEFAULT_SHARD_CONCURRENCY).
    pub fn shard_concurrency(mut self, n: usize) -> Self {
        self.shard_concurrency = Some(n);
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
    /// let open_big = Task::query("t1").list().filter(f.done.eq(false) & f.points.ge(5));
    /// let page = table.query(open_big).await?;
    /// # Ok(()) }
    /// ```
    pub fn filter(mut self, filter: Expr<F>) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(existing) => existing.and(filter),
            None => filter,
        });
        self
    }

    page_setters!(
        /// On the base table only (an index query with it is refused when run).
        consistent
    );

    /// Return only the first record (the last with [`Query::reverse`]): running the query
    /// gives an `Option`.
    pub fn first(self) -> Query<F, I, R, First> {
        self.retype()
    }

    /// `true` when this query reads every shard of a sharded partition and merges them:
    /// the shard fields are not all in the partition key and no `.shard(n)` was chosen.
    #[doc(hidden)]
    pub fn is_all_shards(&self) -> bool {
        self.shard.is_none() && self.partition.needs_shard_choice()
    }
}

impl<F: Facet, I: KeyFields, M> Query<F, I, Whole, M> {
    /// Read only the fields of projection `P` (plus the key fields) with a
    /// `ProjectionExpression`: running the query gives [`Picked<P, I>`] records. Needs a
    /// pick validator on the facet.
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
    /// let page = table.query(Task::query("t1").list().select::<Title>()).await?;
    /// for t in &page.records {
    ///     println!("{} {}", t.keys.task_id, t.title); // chosen and key fields only
    ///     table.delete(&t.key()?).await?;           // keys feed back into writes
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// [`Picked<P, I>`]: faceteer_core::pick::Picked
    pub fn select<P>(self) -> Query<F, I, Select<P>, M>
    where
        P: Projection<Facet = F> + ProjectedBy<I> + Send + 'static,
    {
        self.retype()
    }

    /// Read whole records through an index that projects only some attributes
    /// (`#[facet(index(gsi = n, keys_only))]` or `include(..)`): each page reads the keys from
    /// the index, then the records from the table with one batched read by key. Records are
    /// returned in index order; a record deleted between the two reads is left out.
    ///
    /// On an index projecting whole records this is not needed (and costs the second read).
    pub fn fetch_records(self) -> Query<F, I, Fetched, M> {
        self.retype()
    }
}

impl<F: Facet, I: KeyFields, R: Read<F, I>, M: Mode> Query<F, I, R, M> {
    /// The limit of one request: 1 for [`Query::first`] (none for a first by a beacon, which
    /// reads on past the records whose beacon only collides).
    pub(crate) fn page_limit(&self) -> Option<u32> {
        if M::FIRST && self.partition.beacon_checks().is_empty() {
            Some(1)
        } else if M::FIRST {
            None
        } else {
            self.page.limit
        }
    }

    /// The attributes read (`None`: whole items).
    #[doc(hidden)]
    pub fn attributes(&self) -> Option<Vec<&'static str>> {
        R::attributes(&self.index_key_attributes())
    }

    /// The names of the index's key attributes, which cursors need (none on the table; a
    /// native index's are record attributes).
    pub(crate) fn index_key_attributes(&self) -> Vec<&'static str> {
        self.index
            .map(|i| {
                i.read_key_attributes()
                    .iter()
                    .map(|(k, _)| k.name)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn scope(&self, partition: &str) -> CursorScope {
        CursorScope {
            facet: F::SCHEMA.name.to_owned(),
            index: self.index.map(|i| i.name.to_owned()),
            partition: partition.to_owned(),
            condition: match &self.native {
                Some(native) => native.fingerprint(),
                None => condition_fingerprint(&self.sort.as_ref().ok(), &self.sort_prefix),
            },
            reverse: self.page.reverse,
        }
    }

    /// Validate the options and build the plan of one request to `partition`.
    pub(crate) fn plan_for(
        &self,
        partition: String,
        start: Option<faceteer_core::Item>,
    ) -> Result<QueryPlan> {
        self.page.check(self.index)?;
        self.check_filter_is_projected()?;
        Ok(QueryPlan {
            index: self.index.map(|i| i.name),
            pk_attribute: self.partition.attribute(),
            sk_attribute: self.index.map_or(Some(SK), |i| i.sk_attribute()),
            partition,
            sort: self.sort.clone()?,
            sort_prefix: self.sort_prefix.clone(),
            limit: self.page_limit(),
            reverse: self.page.reverse,
            exclusive_start_key: start,
            consistent_read: self.page.consistent,
            filter: self
                .filter
                .as_ref()
                .map(RenderedCondition::from_expr)
                .transpose()?,
            projection: self.attributes(),
            native: self.native.clone(),
        })
    }

    /// On an index that projects only some attributes, a filter on another attribute would
    /// silently match nothing (DynamoDB filters what the index holds): refuse it.
    fn check_filter_is_projected(&self) -> Result<()> {
        let (Some(index), Some(filter)) = (self.index, &self.filter) else {
            return Ok(());
        };
        let names = filter.attribute_names()?;
        if index.native.is_some() {
            filter_is_not_on_keys(index, &names)?;
        }
        let Some(projected) = index.projected_attributes(F::SCHEMA) else {
            return Ok(());
        };
        let keys = [
            Some(PK),
            Some(SK),
            Some(index.pk.attribute),
            index.sk_attribute(),
        ];
        let mut outside: Vec<String> = names
            .into_iter()
            .filter(|n| !projected.contains(&n.as_str()) && !keys.contains(&Some(n.as_str())))
            .collect();
        if outside.is_empty() {
            return Ok(());
        }
        outside.sort();
        Err(Error::InvalidRequest(format!(
            "the filter reads {} of `{}`, which index {} does not project, so it could never \
             match; add them to the index's `include(..)` ({}), or filter the records after \
             reading them",
            outside
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            F::SCHEMA.name,
            index.name,
            match index.kind {
                faceteer_core::schema::IndexKind::Global => format!(
                    "`#[facet(index(gsi = {n}, include(..)))]`, or `include(..)` in \
                     `#[facet(gsi(n = {n}, ..))]`",
                    n = index.number
                ),
                faceteer_core::schema::IndexKind::Local =>
                    format!("`include(..)` in `#[facet(lsi(n = {}, ..))]`", index.number),
            },
        )))
    }

    /// The plan of this query's first request (inspectable without a server). For an
    /// all-shard query, the plan of shard 0.
    pub fn plan(&self) -> Result<QueryPlan> {
        if self.is_all_shards() {
            return self.plan_for(self.partition.render(Some(0))?, None);
        }
        let partition = self.partition.render(self.shard)?;
        let start = match &self.page.cursor {
            Some(c) => Some(decode_cursor(&self.scope(&partition), c)?),
            None => None,
        };
        let plan = self.plan_for(partition, start)?;
        if let Some(start) = &plan.exclusive_start_key {
            plan.check_start_key(start)?;
        }
        Ok(plan)
    }
}

/// DynamoDB refuses a query filter on the queried index's key attributes: on a native index
/// they are record fields, so a filter on one is refused here, with the way to say it.
fn filter_is_not_on_keys(index: &IndexSchema, names: &[String]) -> Result<()> {
    let keys = index.key_schema_attributes();
    let on_key = names
        .iter()
        .find(|n| keys.iter().any(|k| k.name == n.as_str()));
    match on_key {
        None => Ok(()),
        Some(name) => Err(Error::InvalidRequest(format!(
            "the filter reads `{name}`, a key attribute of native index {}, and DynamoDB \
             refuses filters on the keys of the index queried; put it in the key condition \
             (`eq` on the sort fields in order, then one range), or filter the records \
             after reading them",
            index.name
        ))),
    }
}
