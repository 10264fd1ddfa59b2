//! Scans of one facet, typed, for migrations and backfills: [`Table::scan`].
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Task { #[pk(prefix = "#TEAM")] team_id: String, #[sk(prefix = "#TASK")] task_id: String, done: bool }
//! # async fn demo(table: &Table) -> faceteer::Result<()> {
//! let f = Task::fields();
//! // Every open task in the table, read by 8 segments at once, 500 per page.
//! let mut pages = std::pin::pin!(table.scan::<Task>().filter(f.done.eq(false)).segments(8).limit(500).pages());
//! while let Some(page) = futures::TryStreamExt::try_next(&mut pages).await? {
//!     for task in page.records { /* migrate it */ }
//!     // page.cursor resumes the scan later, in another process if need be
//! }
//! # Ok(()) }
//! ```

use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;

use faceteer_core::collection::Collection;
use faceteer_core::cursor::{
    decode_shards_cursor, encode_shards_cursor, CursorScope, ShardPosition,
};
use faceteer_core::expr::Expr;
use faceteer_core::merge::ShardProgress;
use faceteer_core::plan::scan::{take_segments, ScanPlan, SegmentRead};
use faceteer_core::plan::RenderedCondition;
use faceteer_core::wire::WireItem;
use faceteer_core::{from_item, Facet, Item, ItemError};
use futures::{Stream, StreamExt, TryStreamExt};

use faceteer_core::limits::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
use faceteer_core::schema::{FacetSchema, IndexProjection, IndexSchema};

use super::budget::Budget;
use crate::error::{Error, Result};
use crate::exec::future::{records, traced, BoxFuture};
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::query::mode::{Collected, Page};
use crate::query::page::{page_setters, PageOptions};
use crate::query::walk;
use crate::table::signing;
use crate::table::Table;
use crate::wire::stored::Stored;

/// Most segments of a parallel scan (DynamoDB's limit).
pub const MAX_SEGMENTS: u32 = 1_000_000;

impl Table {
    /// Scan the table for the records of facet `F` (a `Scan` filtered on the `facet`
    /// attribute): every record of the facet, in no particular order, page by page with
    /// cursors. Options: [`ScanRun::filter`], [`ScanRun::limit`], [`ScanRun::segments`]
    /// (parallel scan), [`ScanRun::cursor`], [`ScanRun::consistent`]. A scan reads the whole
    /// table: use it for migrations and backfills, queries for access patterns.
    pub fn scan<F: Facet>(&self) -> ScanRun<'_, F> {
        ScanRun::new(self)
    }

    /// Scan the table for the records of every facet of collection `C` (a `Scan` filtered
    /// on `facet IN (..)`), each as its variant: the same options and pages as
    /// [`Table::scan`], without a typed filter (filters are per facet).
    pub fn scan_collection<C: Collection>(&self) -> ScanRun<'_, C, OfCollection<C>> {
        ScanRun::new(self)
    }
}

/// What a scan reads: the records of one facet ([`OfFacet`]) or of a collection's facets
/// ([`OfCollection`]).
pub trait ScanTarget: Send + Sync + 'static {
    /// What each item read becomes.
    type Record: Send + 'static;
    /// The facets scanned.
    #[doc(hidden)]
    fn schemas() -> Vec<&'static FacetSchema>;
    /// The facet names scanned.
    #[doc(hidden)]
    fn facets() -> Vec<&'static str> {
        Self::schemas().iter().map(|f| f.name).collect()
    }
    /// Read one item of those facets.
    #[doc(hidden)]
    fn decode(item: Item) -> std::result::Result<Self::Record, ItemError>;
    /// Read one item of those facets read directly (its JSON), as [`ScanTarget::decode`]
    /// reads the same item's attribute values.
    #[doc(hidden)]
    fn decode_wire(item: &WireItem) -> std::result::Result<Self::Record, ItemError> {
        Self::decode(item.to_item_of("")?)
    }
    /// Run the facets' `after_read` hooks on a page's records, moving those refused to
    /// `failed`.
    #[doc(hidden)]
    fn after_read<'a>(
        table: &'a Table,
        records: &'a mut Vec<Self::Record>,
        failed: &'a mut Vec<super::mode::FailedRecord>,
    ) -> crate::exec::future::BoxFuture<'a, ()> {
        let _ = (table, records, failed);
        Box::pin(async {})
    }
}

/// The records of facet `F`: the default target of [`ScanRun`].
pub struct OfFacet<F>(PhantomData<fn() -> F>);

/// The records of the facets of collection `C`, each as its variant.
pub struct OfCollection<C>(PhantomData<fn() -> C>);

impl<F: Facet> ScanTarget for OfFacet<F> {
    type Record = F;
    fn schemas() -> Vec<&'static FacetSchema> {
        vec![F::SCHEMA]
    }
    fn decode(item: Item) -> std::result::Result<F, ItemError> {
        from_item(item)
    }
    fn decode_wire(item: &WireItem) -> std::result::Result<F, ItemError> {
        item.decode::<F>()
    }
    fn after_read<'a>(
        table: &'a Table,
        records: &'a mut Vec<F>,
        failed: &'a mut Vec<super::mode::FailedRecord>,
    ) -> crate::exec::future::BoxFuture<'a, ()> {
        Box::pin(crate::query::hooks::after_read_page::<F, F>(
            table,
            crate::hook::ReadKind::Scan,
            records,
            failed,
            crate::hook::whole,
        ))
    }
}

impl<C: Collection> ScanTarget for OfCollection<C> {
    type Record = C;
    fn schemas() -> Vec<&'static FacetSchema> {
        C::FACETS.to_vec()
    }
    fn after_read<'a>(
        table: &'a Table,
        records: &'a mut Vec<C>,
        failed: &'a mut Vec<super::mode::FailedRecord>,
    ) -> crate::exec::future::BoxFuture<'a, ()> {
        Box::pin(super::hooks::after_read_collection(
            table,
            crate::hook::ReadKind::Scan,
            records,
            failed,
        ))
    }
    fn decode(item: Item) -> std::result::Result<C, ItemError> {
        // The scan's filter reads only the collection's facets.
        C::from_item(item)?.ok_or_else(|| ItemError::Validation {
            facet: "",
            message: "the item is of none of the collection's facets".into(),
        })
    }
}

/// A scan of one facet ([`Table::scan`]) or of a collection ([`Table::scan_collection`]).
/// Await it for one page, or walk its pages.
#[must_use = "a scan does nothing until it is awaited or its pages are read"]
pub struct ScanRun<'t, F, T = OfFacet<F>> {
    table: &'t Table,
    filter: Option<Expr<F>>,
    page: PageOptions,
    segments: u32,
    /// The index to scan, by name or alias.
    index: Option<String>,
    /// Capacity units a second, and the budget every request of the scan shares.
    rate: Option<(f64, Arc<Budget>)>,
    _facet: PhantomData<fn() -> (F, T)>,
}

impl<'t, F, T> ScanRun<'t, F, T> {
    fn new(table: &'t Table) -> Self {
        ScanRun {
            table,
            filter: None,
            page: PageOptions::default(),
            segments: 1,
            index: None,
            rate: None,
            _facet: PhantomData,
        }
    }
}

impl<F, T> Clone for ScanRun<'_, F, T> {
    fn clone(&self) -> Self {
        ScanRun {
            table: self.table,
            filter: self.filter.clone(),
            page: self.page.clone(),
            segments: self.segments,
            index: self.index.clone(),
            rate: self.rate.clone(),
            _facet: PhantomData,
        }
    }
}

impl<'t, F: Facet> ScanRun<'t, F> {
    /// Keep only the records matching `filter` (evaluated by DynamoDB after reading; it
    /// reduces what is returned, not what is read). Several calls combine with AND.
    pub fn filter(mut self, filter: Expr<F>) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(existing) => existing.and(filter),
            None => filter,
        });
        self
    }
}

impl<'t, F: Send + 'static, T: ScanTarget> ScanRun<'t, F, T> {
    page_setters!(limit);

    /// Read with `n` segments at once (a parallel scan; 1 to 1,000,000, default 1). The
    /// cursor resumes every segment.
    pub fn segments(mut self, n: u32) -> Self {
        self.segments = n;
        self
    }

    page_setters!(
        /// The cursor resumes every segment.
        cursor,
        /// Not on a global secondary index.
        consistent,
    );

    /// Scan a secondary index instead of the table, named as declared (`GSI3`, `LSI1`) or
    /// by its alias (`PhoneNumber`): it holds only what the index holds — for a sparse
    /// index, the records with its key fields, which makes scanning it the cheap way to
    /// visit them. Records are read whole only if the index projects them whole.
    pub fn index(mut self, name: impl Into<String>) -> Self {
        self.index = Some(name.into());
        self
    }

    /// Spread the scan's requests so that the read capacity they consume averages at most
    /// `units_per_second` (`ReturnConsumedCapacity` tells what each consumed): a background
    /// scan then leaves the table's capacity to the application. Every segment and page of
    /// this scan (and its clones, such as the pages of [`ScanRun::pages`]) shares the
    /// budget. Waiting counts toward each page's call deadline (`Timeouts::call`): keep
    /// pages small (`limit`) under a low rate.
    pub fn rate_limit(mut self, units_per_second: f64) -> Self {
        self.rate = Some((units_per_second, Arc::new(Budget::new(units_per_second))));
        self
    }

    /// The index scanned, if any, as every facet scanned declares it.
    fn index_schema(&self) -> Result<Option<&'static IndexSchema>> {
        let Some(name) = &self.index else {
            return Ok(None);
        };
        let schemas = T::schemas();
        let found = schemas
            .iter()
            .flat_map(|f| f.indexes.iter())
            .find(|i| i.name == name.as_str() || i.alias == Some(name.as_str()));
        match found {
            Some(index) => {
                // A scan reads whole records: an index holding less cannot give them.
                let narrow = schemas
                    .iter()
                    .flat_map(|f| f.indexes.iter())
                    .any(|i| i.name == index.name && i.projection != IndexProjection::All);
                if narrow {
                    return Err(Error::InvalidRequest(format!(
                        "index {} projects only some attributes of the facets scanned, and a \
                         scan reads whole records; scan the table, or query the index with \
                         `.select::<P>()` or `.fetch_records()`",
                        index.name
                    )));
                }
                Ok(Some(index))
            }
            None => {
                let known: Vec<String> = schemas
                    .iter()
                    .flat_map(|f| f.indexes.iter())
                    .map(|i| match i.alias {
                        Some(a) => format!("{} ({a})", i.name),
                        None => i.name.to_owned(),
                    })
                    .collect();
                Err(Error::InvalidRequest(format!(
                    "no facet scanned ({}) uses an index named {name:?}; their indexes: {}",
                    T::facets().join(", "),
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                )))
            }
        }
    }

    fn scope(&self) -> CursorScope {
        CursorScope {
            facet: T::facets().join(","),
            index: self
                .index_schema()
                .ok()
                .flatten()
                .map(|i| i.name.to_owned()),
            partition: format!("(scan of {} segments)", self.segments),
            condition: 0,
            reverse: false,
        }
    }

    /// The plan of one segment's first request (inspectable without a server).
    pub fn plan(&self, segment: u32, start: Option<Item>) -> Result<ScanPlan> {
        let index = self.index_schema()?;
        self.page.check(index)?;
        if let Some((rate, _)) = &self.rate {
            if !(rate.is_finite() && *rate > 0.0) {
                return Err(Error::InvalidRequest(format!(
                    "a scan's rate limit is a number of capacity units a second above zero, \
                     not {rate}"
                )));
            }
        }
        if self.segments == 0 || self.segments > MAX_SEGMENTS {
            return Err(Error::InvalidRequest(format!(
                "a scan has 1 to {MAX_SEGMENTS} segments, not {}",
                self.segments
            )));
        }
        Ok(ScanPlan {
            facets: T::facets(),
            index: index.map(|i| i.name),
            index_keys: index.map(index_key_limits).unwrap_or_default(),
            segment: (self.segments > 1).then_some((segment, self.segments)),
            limit: self.page.limit,
            exclusive_start_key: start,
            consistent_read: self.page.consistent,
            filter: self
                .filter
                .as_ref()
                .map(RenderedCondition::from_expr)
                .transpose()?,
            projection: None,
        })
    }

    /// Every page of the scan, one after another, as a stream.
    pub fn pages(self) -> impl Stream<Item = Result<Page<T::Record>>> + Send + 't {
        let table = self.table;
        let pages = futures::stream::try_unfold(Some(self), move |state| async move {
            let Some(scan) = state else {
                return Ok(None);
            };
            let page = page(&scan).await?;
            let next = page.cursor.clone().map(|c| scan.clone().cursor(c));
            Ok(Some((page, next)))
        });
        walk::bounded(table, "Scan", pages)
    }

    /// Every record of the scan, across pages, as a stream; a stored item that is not a valid
    /// record comes as an [`Error::Record`] item and the stream goes on.
    pub fn records(self) -> impl Stream<Item = Result<T::Record>> + Send + 't {
        walk::records(self.pages())
    }

    /// Every record of the scan, collected; stops at the first stored item that is not a
    /// valid record.
    pub async fn all(self) -> Result<Vec<T::Record>> {
        walk::all(self.pages()).await
    }

    /// Every record of the scan, and apart every stored item that is not a valid record.
    pub async fn all_with_failures(self) -> Result<Collected<T::Record>> {
        walk::all_with_failures(self.pages()).await
    }
}

impl<'t, F: Send + 'static, T: ScanTarget> IntoFuture for ScanRun<'t, F, T> {
    type Output = Result<Page<T::Record>>;
    type IntoFuture = BoxFuture<'t, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move { page(&self).await })
    }
}

/// What one segment's read returned: its items, and the key it resumes from once all of
/// them are taken (the last evaluated key of a page that ended there).
struct Fetched {
    segment: usize,
    items: Vec<Stored>,
    resume: Option<Item>,
    more: bool,
}

/// One page of the scan, in its span.
fn page<'a, F: Send + 'static, T: ScanTarget>(
    scan: &'a ScanRun<'_, F, T>,
) -> BoxFuture<'a, Result<Page<T::Record>>> {
    let table = scan.table;
    let op = Op::new(
        "Scan",
        table,
        T::facets().first().copied().unwrap_or_default(),
        None,
    );
    let work = move |op: Arc<Op>| async move {
        let count = scan.segments.max(1) as usize;
        let scope = scan.scope();
        let scan = &*signing::opened(
            table.cursor_key(),
            scan,
            scan.page.cursor.as_deref(),
            |s, c| s.cursor(c),
        )?;
        let cursor = scan.page.cursor.clone();
        let mut positions = match &cursor {
            Some(c) => decode_shards_cursor(&scope, count as u32, c)?,
            None => vec![ShardPosition::Start; count],
        };
        let mut plans = Vec::new();
        for (segment, position) in positions.iter().enumerate() {
            let start = match position {
                ShardPosition::Done => continue,
                ShardPosition::Start => None,
                ShardPosition::After(key) => Some(key.clone()),
            };
            let mut plan = scan.plan(segment as u32, start)?;
            table.filter_expired(T::schemas().into_iter(), &mut plan.filter);
            if let Some(start) = &plan.exclusive_start_key {
                plan.check_start_key(start)?;
            }
            plans.push((segment, plan));
        }
        let index = scan.index_schema()?;
        let budget = scan.rate.as_ref().map(|(_, b)| b.clone());
        let limit = scan.page.limit.map(|l| l as usize);
        let mut fetched: Vec<Fetched> = futures::stream::iter(plans)
            .map(|(segment, mut plan)| {
                let op = &op;
                let budget = budget.as_deref();
                async move {
                    let (items, resume, more) = fetch(table, op, &mut plan, limit, budget).await?;
                    Ok::<_, Error>(Fetched {
                        segment,
                        items,
                        resume,
                        more,
                    })
                }
            })
            .buffer_unordered(count.min(16))
            .try_collect()
            .await?;
        fetched.sort_by_key(|f| f.segment);
        let reads: Vec<SegmentRead> = fetched
            .iter()
            .map(|f| SegmentRead {
                count: f.items.len(),
                more: f.more,
            })
            .collect();
        let mut raw = Vec::new();
        for (read, (taken, progress)) in fetched.into_iter().zip(take_segments(&reads, limit)) {
            let Fetched {
                segment,
                mut items,
                resume,
                ..
            } = read;
            match progress {
                // A read that found nothing of the facet before its page ended moves on.
                ShardProgress::Unchanged if items.is_empty() => {
                    if let Some(resume) = resume {
                        positions[segment] = ShardPosition::After(resume);
                    }
                }
                ShardProgress::Unchanged => {}
                ShardProgress::Done => positions[segment] = ShardPosition::Done,
                ShardProgress::After(pos) => {
                    let key = match resume {
                        Some(resume) if pos + 1 == items.len() => resume,
                        _ => walk::key_of(index, &items[pos])?,
                    };
                    positions[segment] = ShardPosition::After(key);
                }
            }
            items.truncate(taken);
            raw.extend(items);
        }
        let cursor = if positions.iter().all(|p| *p == ShardPosition::Done) {
            None
        } else {
            signing::sealed(
                table.cursor_key(),
                Some(encode_shards_cursor(&scope, &positions)?),
            )
        };
        let (mut records, mut failed) = walk::decode(raw, |item| match item {
            Stored::Tree(item) => T::decode(item),
            Stored::Wire(wire) => T::decode_wire(&wire),
            // Scans read no answer in one pass.
            Stored::Read(read) => read.take::<T::Record>(),
        });
        T::after_read(table, &mut records, &mut failed).await;
        Ok(Page {
            records,
            failed,
            cursor,
        })
    };
    traced(op, records(|p: &Page<T::Record>| p.records.len()), work)
}

/// Read at most `limit` records (one DynamoDB page without a limit) of one segment from
/// `plan.exclusive_start_key` on: the records, the key to resume from after all of them when
/// the read ended at a page boundary, and whether more may follow.
async fn fetch(
    table: &Table,
    op: &Op,
    plan: &mut ScanPlan,
    limit: Option<usize>,
    budget: Option<&Budget>,
) -> Result<(Vec<Stored>, Option<Item>, bool)> {
    let mut raw: Vec<Stored> = Vec::new();
    loop {
        plan.limit = walk::next_limit(limit, raw.len());
        if let Some(budget) = budget {
            budget.wait().await;
        }
        let (items, last, units) = sdk::scan(table, op, plan.request(table.name())).await?;
        if let Some(budget) = budget {
            budget.spend(units).await;
        }
        raw.extend(items);
        if let Some(l) = limit {
            if raw.len() > l {
                raw.truncate(l);
                return Ok((raw, None, true));
            }
        }
        match last {
            None => return Ok((raw, None, false)),
            Some(last) if limit.is_none() => return Ok((raw, Some(last), true)),
            Some(last) => plan.exclusive_start_key = Some(last),
        }
    }
}

/// The key attributes of index `i` a scan's start key holds besides the table's keys, each
/// with its type and length limit.
fn index_key_limits(
    i: &faceteer_core::schema::IndexSchema,
) -> Vec<(faceteer_core::schema::KeyAttribute, usize)> {
    let max = |sort: bool| {
        if sort {
            MAX_SORT_KEY_BYTES
        } else {
            MAX_PARTITION_KEY_BYTES
        }
    };
    i.read_key_attributes()
        .into_iter()
        .map(|(k, sort)| (k, max(sort)))
        .collect()
}
