//! Running a [`Query`]: one page (reading one record ahead so the cursor is exact), every
//! shard of a sharded partition merged in sort-key order, and streams of pages.

use std::future::IntoFuture;
use std::sync::Arc;

use faceteer_core::cursor::{
    decode_shards_cursor, encode_cursor, encode_shards_cursor, ShardPosition,
};
use faceteer_core::merge::{merge_shards, ShardProgress, ShardRead};
use faceteer_core::pick::KeyFields;
use faceteer_core::plan::QueryPlan;
use faceteer_core::schema::SK;
use faceteer_core::Facet;
use futures::{Stream, StreamExt, TryStreamExt};

use super::builder::Query;
use super::mode::{Collected, Mode, Page, Paged};
use crate::error::{Error, Result};
use crate::exec::future::{records, traced, BoxFuture};
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::query::walk;
use crate::read::{decode_stored, Read};
use crate::table::signing;
use crate::table::Table;
use crate::wire::stored::{Attributes, OnePass, Stored};

impl Table {
    /// Run a query: await it for one page (or, after [`Query::first`], the first record);
    /// [`QueryRun::pages`], [`QueryRun::records`] and [`QueryRun::all`] walk every page.
    ///
    /// A page holds at most `limit` records (without a limit, one DynamoDB page). Its
    /// `cursor` is `None` exactly when no record follows: the library reads one record
    /// ahead to know. On a sharded partition without `.shard(n)`, every shard is queried
    /// concurrently and the results are merged in sort-key order; the cursor then resumes
    /// every shard.
    pub fn query<F, I, R, M>(&self, query: Query<F, I, R, M>) -> QueryRun<'_, F, I, R, M>
    where
        F: Facet,
        I: KeyFields,
        R: Read<F, I>,
        M: Mode,
    {
        QueryRun { table: self, query }
    }
}

/// The most shards an all-shard query reads at once unless told otherwise: by default it
/// reads every shard at once (a page then costs one shard's latency), up to this many.
pub const DEFAULT_SHARD_CONCURRENCY: usize = 32;

/// A query bound to a table: [`Table::query`]. Await it, or walk its pages.
#[must_use = "a query does nothing until it is awaited or its pages are read"]
pub struct QueryRun<'t, F, I, R, M> {
    pub(crate) table: &'t Table,
    pub(crate) query: Query<F, I, R, M>,
}

impl<'t, F, I, R, M> IntoFuture for QueryRun<'t, F, I, R, M>
where
    F: Facet,
    I: KeyFields,
    R: Read<F, I>,
    M: Mode,
{
    type Output = Result<M::Output<R::Record>>;
    type IntoFuture = BoxFuture<'t, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let QueryRun { table, mut query } = self;
        Box::pin(async move {
            loop {
                let read = page(table, &query, true).await?;
                // A first record by a beacon: pages of records whose beacon only collides
                // are read past.
                let past = M::FIRST
                    && read.records.is_empty()
                    && read.failed.is_empty()
                    && !query.partition.beacon_checks().is_empty();
                match (past, read.cursor.clone()) {
                    (true, Some(cursor)) => query.page.cursor = Some(cursor),
                    _ => return M::output(read),
                }
            }
        })
    }
}

impl<'t, F, I, R> QueryRun<'t, F, I, R, Paged>
where
    F: Facet,
    I: KeyFields,
    R: Read<F, I>,
{
    /// Every page of the query, one after another, as a stream.
    ///
    /// A walk sends exactly the requests a hand-written loop over `LastEvaluatedKey` sends:
    /// no look-ahead request per page. To keep each page's `cursor` exact (`None` exactly on
    /// the last page), a page is handed out once the next one has been read, so the first
    /// page arrives after two requests when the query has more than one DynamoDB page.
    pub fn pages(self) -> impl Stream<Item = Result<Page<R::Record>>> + Send + 't {
        let table = self.table;
        // State: the next query to run, and the page read but not yet handed out.
        type State<F, I, R, M, T> = (Option<Query<F, I, R, M>>, Option<Page<T>>);
        let start: State<F, I, R, Paged, R::Record> = (Some(self.query), None);
        let pages = futures::stream::try_unfold(start, move |(mut next, mut held)| async move {
            loop {
                let Some(query) = next.take() else {
                    return Ok(held.map(|page| (page, (None, None))));
                };
                let page = page(table, &query, false).await?;
                let following = page.cursor.clone().map(|c| query.clone().cursor(c));
                match held {
                    // Read the next page before handing this one out.
                    None => (held, next) = (Some(page), following),
                    Some(held) => return Ok(Some(settle(held, page, following))),
                }
            }
        });
        walk::bounded(table, "Query", pages)
    }

    /// Every record of the query, across pages, as a stream. A stored item that is not a
    /// valid record comes as an [`Error::Record`] item (after the valid records of its page),
    /// and the stream goes on: stop at it (`try_next`, `try_collect`) or skip it.
    pub fn records(self) -> impl Stream<Item = Result<R::Record>> + Send + 't {
        walk::records(self.pages())
    }

    /// Every record of the query, across pages, collected; stops at the first stored item
    /// that is not a valid record ([`Error::Record`]). To collect past them, use
    /// [`QueryRun::all_with_failures`].
    pub async fn all(self) -> Result<Vec<R::Record>> {
        walk::all(self.pages()).await
    }

    /// Every record of the query, across pages, and separately every stored item that is not
    /// a valid record. Fails only when a request fails.
    pub async fn all_with_failures(self) -> Result<Collected<R::Record>> {
        walk::all_with_failures(self.pages()).await
    }
}

/// Hand out `held`, whose following page `next` has been read (and `after` resumes past
/// it): an empty last `next` means `held` was the last page.
#[allow(clippy::type_complexity)]
fn settle<F, I, R, T>(
    mut held: Page<T>,
    next: Page<T>,
    after: Option<Query<F, I, R, Paged>>,
) -> (Page<T>, (Option<Query<F, I, R, Paged>>, Option<Page<T>>)) {
    if next.records.is_empty() && next.failed.is_empty() && after.is_none() {
        held.cursor = None;
        return (held, (None, None));
    }
    (held, (after, Some(next)))
}

/// Run one page of `query`, in its span. Without `probe`, a page without a limit that ends
/// where a DynamoDB page ends keeps a cursor even when nothing follows (a walk finds out
/// with its next request); with it, one more request finds out.
fn page<'a, F, I, R, M>(
    table: &'a Table,
    query: &'a Query<F, I, R, M>,
    probe: bool,
) -> BoxFuture<'a, Result<Page<R::Record>>>
where
    F: Facet,
    I: KeyFields,
    R: Read<F, I>,
    M: Mode,
{
    let op = Op::new("Query", table, F::SCHEMA.name, query.index.map(|i| i.name));
    let work = move |op: Arc<Op>| async move {
        // A signing table takes only cursors it signed.
        let query = &*signing::opened(
            table.cursor_key(),
            query,
            query.page.cursor.as_deref(),
            |q, c| q.cursor(c),
        )?;
        if query.attributes().is_some() && !R::FETCH_BY_KEY {
            super::beacons::refuse_unchecked(&query.partition, "a projection")?;
        }
        let (raw, cursor) = if query.is_all_shards() {
            all_shards(table, &op, query, probe).await?
        } else {
            one_partition(table, &op, query, probe).await?
        };
        let cursor = signing::sealed(table.cursor_key(), cursor);
        let attributes = query.attributes();
        let raw = if R::FETCH_BY_KEY {
            fetch_by_key::<F>(table, raw, query.page.consistent).await?
        } else {
            raw
        };
        let (mut records, mut failed) = walk::decode(raw, |item| {
            decode_stored::<F, I, R>(item, attributes.as_deref())
        });
        super::beacons::keep_asked::<F, _>(&query.partition, &mut records, R::record_mut);
        crate::query::hooks::after_read_page::<F, _>(
            table,
            crate::hook::ReadKind::Query,
            &mut records,
            &mut failed,
            R::record_mut,
        )
        .await;
        Ok(Page {
            records,
            failed,
            cursor,
        })
    };
    traced(op, records(|p: &Page<R::Record>| p.records.len()), work)
}

/// One page of raw items from one partition, and its cursor.
async fn one_partition<F, I, R, M>(
    table: &Table,
    op: &Op,
    query: &Query<F, I, R, M>,
    probe: bool,
) -> Result<(Vec<Stored>, Option<String>)>
where
    F: Facet,
    I: KeyFields,
    R: Read<F, I>,
    M: Mode,
{
    let mut plan = query.plan()?;
    table.filter_expired(std::iter::once(F::SCHEMA), &mut plan.filter);
    let limit = query.page_limit();
    let pass = one_pass(query);
    let (raw, more) = fetch(table, op, &mut plan, limit, F::SCHEMA.name, probe, pass).await?;
    let cursor = match (more && !M::FIRST, raw.last()) {
        (true, Some(last)) => Some(encode_cursor(
            &query.scope(&plan.partition),
            &walk::key_of(query.index, last)?,
        )?),
        _ => None,
    };
    Ok((raw, cursor))
}

/// How a query's answers are read in one pass: for whole records read as they are stored
/// (no projection, not fetched by key), noting the keys a cursor and a merge need.
fn one_pass<F, I, R, M>(query: &Query<F, I, R, M>) -> Option<OnePass>
where
    F: Facet,
    I: KeyFields,
    R: Read<F, I>,
    M: Mode,
{
    let keys = query.index_key_attributes();
    if R::FETCH_BY_KEY || R::attributes(&keys).is_some() {
        return None;
    }
    OnePass::of::<F>(&keys)
}

/// The whole items of the records whose keys were read from an index, in the same order:
/// one batched read of the table. A record no longer stored is left out; a key that cannot
/// be read fails the page.
async fn fetch_by_key<F: Facet>(
    table: &Table,
    keys: Vec<Stored>,
    consistent: bool,
) -> Result<Vec<Stored>> {
    let wanted: Vec<(String, String)> = keys
        .iter()
        .filter_map(|k| k.key().map(|(pk, sk)| (pk.into_owned(), sk.into_owned())))
        .collect();
    let mut found = table.read_items::<F>(&wanted, consistent).await?;
    Ok(wanted.iter().filter_map(|k| found.remove(k)).collect())
}

/// Read at most `limit` records from each unfinished shard, merge them in sort-key order
/// and keep those that are certainly next ([`merge_shards`]).
async fn all_shards<F, I, R, M>(
    table: &Table,
    op: &Op,
    query: &Query<F, I, R, M>,
    probe: bool,
) -> Result<(Vec<Stored>, Option<String>)>
where
    F: Facet,
    I: KeyFields,
    R: Read<F, I>,
    M: Mode,
{
    let count = query.partition.shard_count().unwrap_or(1);
    let scope = query.scope(&query.partition.render_all_shards()?);
    let mut positions = match &query.page.cursor {
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
        let partition = query.partition.render(Some(shard as u32))?;
        let mut plan = query.plan_for(partition, start)?;
        table.filter_expired(std::iter::once(F::SCHEMA), &mut plan.filter);
        if let Some(start) = &plan.exclusive_start_key {
            plan.check_start_key(start)?;
        }
        plans.push((shard, plan));
    }
    let limit = query.page_limit();
    let plans_len = plans.len();
    let pass = one_pass(query);
    let mut fetched: Vec<(usize, Vec<Stored>, bool)> = futures::stream::iter(plans)
        .map(|(shard, mut plan)| async move {
            let (items, more) =
                fetch(table, op, &mut plan, limit, F::SCHEMA.name, probe, pass).await?;
            Ok::<_, Error>((shard, items, more))
        })
        .buffer_unordered(
            query
                .shard_concurrency
                .unwrap_or(DEFAULT_SHARD_CONCURRENCY.min(plans_len))
                .max(1),
        )
        .try_collect()
        .await?;
    fetched.sort_by_key(|(shard, _, _)| *shard);

    // An index without a sort key returns each shard in no order of ours: every item ties,
    // and the merge takes them shard by shard, each shard's position kept in the cursor.
    let sk = query.index.map_or(Some(SK), |i| i.sk_attribute());
    let reads: Vec<ShardRead> = fetched
        .iter()
        .map(|(shard, items, more)| ShardRead {
            shard: *shard,
            sort_keys: items
                .iter()
                .map(|item| {
                    sk.and_then(|sk| item.text(sk))
                        .map(|s| s.into_owned())
                        .unwrap_or_default()
                })
                .collect(),
            more: *more,
        })
        .collect();
    let merged = merge_shards(&reads, query.page.reverse, limit.map(|l| l as usize));
    for ((shard, items, _), progress) in fetched.iter().zip(&merged.progress) {
        match progress {
            ShardProgress::Unchanged => {}
            ShardProgress::Done => positions[*shard] = ShardPosition::Done,
            ShardProgress::After(pos) => {
                positions[*shard] = ShardPosition::After(walk::key_of(query.index, &items[*pos])?)
            }
        }
    }
    let cursor = if M::FIRST || positions.iter().all(|p| *p == ShardPosition::Done) {
        None
    } else {
        Some(encode_shards_cursor(&scope, &positions)?)
    };
    // Each merged item is moved out of its shard's answer (each is taken once).
    let mut answers: Vec<Vec<Option<Stored>>> = fetched
        .into_iter()
        .map(|(_, items, _)| items.into_iter().map(Some).collect())
        .collect();
    let raw = merged
        .order
        .iter()
        .filter_map(|&(read, pos)| answers[read][pos].take())
        .collect();
    Ok((raw, cursor))
}

/// Read at most `limit` matching items (one DynamoDB page without a limit) from
/// `plan.exclusive_start_key` on, and whether more follow (read one ahead to know; without
/// a limit and without `probe`, whether DynamoDB returned a `LastEvaluatedKey`).
///
/// Items of other facets than `facet` are skipped: facets share partitions and indexes.
pub(crate) async fn fetch(
    table: &Table,
    op: &Op,
    plan: &mut QueryPlan,
    limit: Option<u32>,
    facet: &str,
    probe: bool,
    pass: Option<OnePass>,
) -> Result<(Vec<Stored>, bool)> {
    if plan.is_empty_range() {
        return Ok((Vec::new(), false));
    }
    let limit = limit.map(|l| l as usize);
    let mut raw: Vec<Stored> = Vec::new();
    loop {
        plan.limit = walk::next_limit(limit, raw.len());
        let (items, last) =
            sdk::query(table, op, &plan.partition, plan.request(table.name()), pass).await?;
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
                    if !probe {
                        return Ok((raw, true));
                    }
                    let more = has_more(table, op, plan, facet).await?;
                    return Ok((raw, more));
                }
            }
        }
    }
}

/// Whether a returned item is not a result: another facet's, or the one item a strict bound
/// excludes.
fn excluded(plan: &QueryPlan, item: &Stored, facet: &str) -> bool {
    if item.is_foreign(facet) {
        return true;
    }
    match plan.excluded_sort_key() {
        Some(x) => plan
            .sk_attribute
            .and_then(|sk| item.text(sk))
            .is_some_and(|s| s == x),
        None => false,
    }
}

/// Is there any record after `plan.exclusive_start_key`? Advances the plan's start key.
async fn has_more(table: &Table, op: &Op, plan: &mut QueryPlan, facet: &str) -> Result<bool> {
    // Without a filter the next item read is the answer; with one, read a few at a time so
    // that a sparse filter does not cost one request per skipped item.
    let batch = if plan.filter.is_some() { 25 } else { 1 };
    let (more, _) = read_ahead(table, op, plan, batch, |plan, item| {
        !excluded(plan, item, facet)
    })
    .await?;
    Ok(more)
}

/// Read ahead from `plan.exclusive_start_key`, `batch` items per request, until an item for
/// which `is_result` holds (`true`) or the end (`false`); also how many items were passed
/// over before the answer. Advances the plan's start key.
pub(crate) async fn read_ahead(
    table: &Table,
    op: &Op,
    plan: &mut QueryPlan,
    batch: u32,
    is_result: impl Fn(&QueryPlan, &Stored) -> bool,
) -> Result<(bool, usize)> {
    plan.limit = Some(batch);
    let mut passed = 0;
    loop {
        let (items, last) =
            sdk::query(table, op, &plan.partition, plan.request(table.name()), None).await?;
        if items.iter().any(|i| is_result(plan, i)) {
            return Ok((true, passed));
        }
        passed += items.len();
        match last {
            None => return Ok((false, passed)),
            Some(last) => plan.exclusive_start_key = Some(last),
        }
    }
}
