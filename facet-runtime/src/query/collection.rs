//! Collections: the records of several facets read together from one shared partition,
//! each dispatched to its variant of a `#[derive(Collection)]` enum: [`Table::collection`].
//!
//! ```no_run
//! # use faceteer::{Collection, Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Team { #[pk(prefix = "#TEAM")] #[sk(prefix = "#TEAM")] id: String }
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct User { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#USER")] id: String }
//! #[derive(Collection)]
//! enum TeamItems {
//!     Team(Team),
//!     User(User),
//! }
//!
//! # async fn demo(table: &Table) -> faceteer::Result<()> {
//! // The team and its users, in one query of the team's partition.
//! let page = table.collection::<TeamItems>(Team::query("t1")).limit(50).await?;
//! for item in page.records {
//!     match item {
//!         TeamItems::Team(team) => println!("team {}", team.id),
//!         TeamItems::User(user) => println!("user {}", user.id),
//!     }
//! }
//! # Ok(()) }
//! ```

use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;

use faceteer_core::collection::Collection;
use faceteer_core::cursor::{condition_fingerprint, decode_cursor, encode_cursor, CursorScope};
use faceteer_core::partition::PartitionKey;
use faceteer_core::pick::{KeyFields, WholeRecords};
use faceteer_core::plan::{NativeCondition, QueryPlan, SortCondition};
use faceteer_core::schema::{IndexSchema, FACET_ATTRIBUTE, SK};
use faceteer_core::Facet;
use futures::{Stream, TryStreamExt};

use crate::error::{Error, Result};
use crate::exec::future::{records, traced, BoxFuture};
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::query::mode::{FailedRecord, Page};
use crate::query::native::NativeQuery;
use crate::query::page::{page_setters, PageOptions};
use crate::query::partition::PartitionQuery;
use crate::query::run::read_ahead;
use crate::query::walk;
use crate::table::signing;
use crate::table::Table;
use crate::wire::stored::{Attributes, Stored};

/// The partition a collection reads: a facet's partition query (`Team::query("t1")`,
/// `User::by_email(..)`, a native index's `Ticket::by_queue(..)` with its equalities),
/// whose partition the collection's facets share.
pub struct CollectionPartition {
    index: Option<&'static IndexSchema>,
    partition: PartitionKey,
    native: Option<std::result::Result<NativeCondition, faceteer_core::KeyError>>,
}

/// Only through an index that holds whole records (`I: WholeRecords`): a collection reads
/// whole records of every facet.
impl<F: Facet, S, I: KeyFields + WholeRecords> From<PartitionQuery<F, S, I>>
    for CollectionPartition
{
    fn from(query: PartitionQuery<F, S, I>) -> Self {
        let (index, partition) = query.into_parts();
        CollectionPartition {
            index,
            partition,
            native: None,
        }
    }
}

/// A native index's partition (and the sort equalities given), through an index that holds
/// whole records.
impl<F: Facet, R, I: KeyFields + WholeRecords> From<NativeQuery<F, R, I>> for CollectionPartition {
    fn from(query: NativeQuery<F, R, I>) -> Self {
        let query = query.list();
        CollectionPartition {
            index: query.index,
            partition: query.partition,
            native: Some(query.native.ok_or_else(|| match query.sort {
                Err(e) => e,
                Ok(_) => faceteer_core::KeyError::Unrepresentable {
                    field: "",
                    reason: "a native query without its condition".into(),
                },
            })),
        }
    }
}

impl Table {
    /// Read the records of collection `C`'s facets from one shared partition — of the base
    /// table or of an index — each dispatched to its variant by its `facet` attribute. Items
    /// of other facets are skipped and counted ([`CollectionPage::skipped`]), never an error.
    ///
    /// Options: [`CollectionRun::begins_with`], [`CollectionRun::between`] (on the raw sort
    /// key), [`CollectionRun::limit`], [`CollectionRun::reverse`], [`CollectionRun::cursor`],
    /// [`CollectionRun::consistent`]; walk it with [`CollectionRun::pages`] or
    /// [`CollectionRun::all`].
    pub fn collection<C: Collection>(
        &self,
        partition: impl Into<CollectionPartition>,
    ) -> CollectionRun<'_, C> {
        let CollectionPartition {
            index,
            partition,
            native,
        } = partition.into();
        CollectionRun {
            table: self,
            index,
            partition,
            native,
            sort: SortCondition::Any,
            page: PageOptions::default(),
            _collection: PhantomData,
        }
    }
}

/// A page of a collection.
#[derive(Debug, Clone)]
#[must_use = "a page holds records and the cursor to the next page"]
pub struct CollectionPage<C> {
    /// The records, in sort-key order (descending with `.reverse()`).
    pub records: Vec<C>,
    /// Items of the collection's facets that are not valid records, with their keys.
    pub failed: Vec<FailedRecord>,
    /// Items of facets outside the collection that the page passed over.
    pub skipped: usize,
    /// Where the next page starts: `None` exactly when the partition is exhausted.
    pub cursor: Option<String>,
}

/// A collection query: [`Table::collection`]. Await it for one page.
#[must_use = "a collection query does nothing until it is awaited or its pages are read"]
pub struct CollectionRun<'t, C> {
    table: &'t Table,
    index: Option<&'static IndexSchema>,
    partition: PartitionKey,
    native: Option<std::result::Result<NativeCondition, faceteer_core::KeyError>>,
    sort: SortCondition,
    page: PageOptions,
    _collection: PhantomData<fn() -> C>,
}

impl<C> Clone for CollectionRun<'_, C> {
    fn clone(&self) -> Self {
        CollectionRun {
            table: self.table,
            index: self.index,
            partition: self.partition.clone(),
            native: self.native.clone(),
            sort: self.sort.clone(),
            page: self.page.clone(),
            _collection: PhantomData,
        }
    }
}

impl<'t, C: Collection> CollectionRun<'t, C> {
    /// Only items whose sort key starts with `prefix` (for example `"#USER"`: the users).
    pub fn begins_with(mut self, prefix: impl Into<String>) -> Self {
        self.sort = SortCondition::BeginsWith(prefix.into());
        self
    }

    /// Only items whose sort key lies between `start` and `end`, inclusive.
    pub fn between(mut self, start: impl Into<String>, end: impl Into<String>) -> Self {
        self.sort = SortCondition::Between(start.into(), end.into());
        self
    }

    page_setters!(
        /// Items of other facets the collection skips do not count.
        limit,
        reverse,
        cursor,
        /// On the base table only.
        consistent,
    );

    fn scope(&self, partition: &str) -> CursorScope {
        CursorScope {
            facet: C::FACETS
                .iter()
                .map(|f| f.name)
                .collect::<Vec<_>>()
                .join("|"),
            index: self.index.map(|i| i.name.to_owned()),
            partition: partition.to_owned(),
            condition: match &self.native {
                Some(Ok(native)) => native.fingerprint(),
                _ => condition_fingerprint(&self.sort, ""),
            },
            reverse: self.page.reverse,
        }
    }

    /// The plan of the first request (inspectable without a server).
    pub fn plan(&self) -> Result<QueryPlan> {
        self.page.check(self.index)?;
        super::beacons::refuse_unchecked(&self.partition, "a collection")?;
        if self.partition.needs_shard_choice() {
            return Err(Error::InvalidRequest(
                "the partition is sharded and its shard is not known from the query; a \
                 collection reads one partition"
                    .into(),
            ));
        }
        let native = self.native.clone().transpose()?;
        if native.is_some() && self.sort != SortCondition::Any {
            return Err(Error::InvalidRequest(
                "`begins_with` and `between` of a collection compare one sort-key text; a \
                 native index's sort key is typed attributes: give its equalities and range \
                 to the partition query instead (`Facet::gsiN(..).eq(..)`)"
                    .into(),
            ));
        }
        let partition = self.partition.render(None)?;
        let start = match &self.page.cursor {
            Some(c) => Some(decode_cursor(&self.scope(&partition), c)?),
            None => None,
        };
        let plan = QueryPlan {
            index: self.index.map(|i| i.name),
            pk_attribute: self.partition.attribute(),
            sk_attribute: self.index.map_or(Some(SK), |i| i.sk_attribute()),
            partition,
            sort: self.sort.clone(),
            sort_prefix: String::new(),
            limit: self.page.limit,
            reverse: self.page.reverse,
            exclusive_start_key: start,
            consistent_read: self.page.consistent,
            filter: None,
            projection: None,
            native,
        };
        if let Some(start) = &plan.exclusive_start_key {
            plan.check_start_key(start)?;
        }
        Ok(plan)
    }

    /// Every page, one after another, as a stream.
    pub fn pages(self) -> impl Stream<Item = Result<CollectionPage<C>>> + Send + 't {
        let table = self.table;
        let pages = futures::stream::try_unfold(Some(self), move |state| async move {
            let Some(run) = state else {
                return Ok(None);
            };
            let page = page(&run).await?;
            let next = page.cursor.clone().map(|c| run.clone().cursor(c));
            Ok(Some((page, next)))
        });
        walk::bounded(table, "Query", pages)
    }

    /// Every record, across pages; stops at the first item of the collection's facets that
    /// is not a valid record.
    pub async fn all(self) -> Result<Vec<C>> {
        walk::all(self.pages().map_ok(|p| Page {
            records: p.records,
            failed: p.failed,
            cursor: p.cursor,
        }))
        .await
    }
}

impl<'t, C: Collection> IntoFuture for CollectionRun<'t, C> {
    type Output = Result<CollectionPage<C>>;
    type IntoFuture = BoxFuture<'t, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move { page(&self).await })
    }
}

/// Whether an item is of one of the collection's facets.
fn member<C: Collection>(item: &Stored) -> bool {
    item.text(FACET_ATTRIBUTE)
        .is_some_and(|name| C::FACETS.iter().any(|f| f.name == name))
}

fn page<'a, C: Collection>(
    run: &'a CollectionRun<'_, C>,
) -> BoxFuture<'a, Result<CollectionPage<C>>> {
    let table = run.table;
    let op = Op::new("Query", table, "(collection)", run.index.map(|i| i.name));
    let work = move |op: Arc<Op>| async move {
        let run = &*signing::opened(
            table.cursor_key(),
            run,
            run.page.cursor.as_deref(),
            |r, c| r.cursor(c),
        )?;
        let mut plan = run.plan()?;
        // A condition DynamoDB would refuse that can match nothing: no request.
        if plan.is_empty_range() {
            return Ok(CollectionPage {
                records: Vec::new(),
                failed: Vec::new(),
                skipped: 0,
                cursor: None,
            });
        }
        table.filter_expired(C::FACETS.iter().copied(), &mut plan.filter);
        let scope = run.scope(&plan.partition);
        let limit = run.page.limit.map(|l| l as usize);
        // Every item read in order, and whether it is one of the collection's.
        let mut read: Vec<(Stored, bool)> = Vec::new();
        let mut kept = 0;
        let mut more = loop {
            plan.limit = walk::next_limit(limit, kept);
            let (items, last) = sdk::query(
                table,
                &op,
                &plan.partition,
                plan.request(table.name()),
                None,
            )
            .await?;
            for item in items {
                let is_member = member::<C>(&item);
                kept += usize::from(is_member);
                read.push((item, is_member));
            }
            if let Some(l) = limit {
                if kept > l {
                    break true;
                }
            }
            match last {
                None => break false,
                Some(last) => {
                    plan.exclusive_start_key = Some(last);
                    if limit.is_none() && kept > 0 {
                        break true;
                    }
                }
            }
        };
        // Without a limit the page ends at a DynamoDB page boundary: read ahead (passing over
        // other facets' items) to know whether any record follows.
        let mut trailing_skipped = 0;
        if more && limit.is_none() {
            let mut probe = plan.clone();
            let (follows, passed) =
                read_ahead(table, &op, &mut probe, 25, |_, item| member::<C>(item)).await?;
            more = follows;
            if !more {
                trailing_skipped = passed;
            }
        }
        // Keep what the page returns: up to `limit` records and the skipped items before the
        // last of them (or every item read, without a limit).
        let cut = match limit {
            Some(l) if kept > l => read
                .iter()
                .enumerate()
                .filter(|(_, (_, m))| *m)
                .nth(l - 1)
                .map(|(i, _)| i + 1)
                .unwrap_or(0),
            _ => read.len(),
        };
        read.truncate(cut);
        // Without a limit the page ends where DynamoDB's did (the plan's start key now);
        // with one, after its last record.
        let cursor_key = match (more, limit) {
            (false, _) => None,
            (true, None) => plan.exclusive_start_key.clone(),
            (true, Some(_)) => read
                .last()
                .map(|(item, _)| walk::key_of(run.index, item))
                .transpose()?,
        };
        let cursor = match cursor_key {
            Some(key) => signing::sealed(table.cursor_key(), Some(encode_cursor(&scope, &key)?)),
            None => None,
        };
        let skipped = read.iter().filter(|(_, m)| !m).count() + trailing_skipped;
        let members = read
            .into_iter()
            .filter(|(_, m)| *m)
            .map(|(item, _)| item)
            .collect();
        let (decoded, mut failed) = walk::decode(members, |item| {
            C::from_item(item.into_item("(collection)")?)
        });
        let mut records: Vec<C> = decoded.into_iter().flatten().collect();
        super::hooks::after_read_collection(
            table,
            crate::hook::ReadKind::Query,
            &mut records,
            &mut failed,
        )
        .await;
        Ok(CollectionPage {
            records,
            failed,
            skipped,
            cursor,
        })
    };
    traced(op, records(|p: &CollectionPage<C>| p.records.len()), work)
}
