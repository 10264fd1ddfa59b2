//! Backfills: bring the items already in a table to the design its facets declare now.
//!
//! When a facet gains an index, a shard schedule, a `#[ttl]`, a sparse index or a renamed
//! attribute (or a new schema version, `#[facet(schema_version = N)]`), the records written before
//! keep what the old design wrote. [`Table::backfill`] (one facet) and
//! [`Table::backfill_table`] (every facet of a declared table) scan the table in parallel
//! segments and, for each item, compare what is stored with what a put of its record writes
//! now ([`Rewriter`]); only what differs is written:
//!
//! * an item that keeps its key gets one `UpdateItem` setting and removing the attributes
//!   that differ;
//! * a record whose key changes (a new shard schedule of the base key) moves in one
//!   transaction: the old item is deleted and the new one created.
//!
//! Every rewrite is conditioned on the item being exactly as it was read, so a concurrent
//! write by the application always wins: the backfill takes the item as that write left it
//! (DynamoDB returns it with the failed condition) and plans again. A rewrite whose answer
//! was lost is sent again safely: conditioned on the item being exactly as read, it cannot
//! apply twice.
//!
//! Progress is reported after every page with the counts and a [`Checkpoint`], from which a
//! stopped or crashed backfill resumes ([`Backfill::resume_from`]). A capacity budget per
//! second limits its load ([`Backfill::capacity_per_second`]), and a dry run counts what
//! would change, per facet and per attribute, without writing ([`Backfill::dry_run`]).
//!
//! ```no_run
//! # async fn run(table: faceteer::Table) -> faceteer::Result<()> {
//! # #[derive(faceteer::Facet, serde::Serialize, serde::Deserialize)]
//! # struct User { #[pk(prefix = "USER")] id: String, #[sk(prefix = "USER")] name: String }
//! let report = table
//!     .backfill::<User>()
//!     .segments(4)
//!     .capacity_per_second(200.0)
//!     .on_progress(|p| eprintln!("{} read, {} rewritten", p.scanned, p.rewritten))
//!     .await?;
//! println!("{report}");
//! assert!(report.is_complete());
//! # Ok(()) }
//! ```

mod checkpoint;
mod report;
mod write;

use std::collections::HashMap;
use std::future::IntoFuture;
use std::sync::{Arc, Mutex};

use faceteer_core::collection::facet_of;
use faceteer_core::limits::item_size;
use faceteer_core::table::TableSchema;
use faceteer_core::{Facet, Item};
use futures::StreamExt;

pub use checkpoint::{Checkpoint, CheckpointError, Segment};
pub use faceteer_core::backfill::{Edits, Rewrite, Rewriter};
pub use report::{FacetCounts, Failure, Progress, Report, Unknown, Why};

use self::write::Outcome;
use crate::error::{Error, Result};
use crate::exec::future::BoxFuture;
use crate::exec::trace::Op;
use crate::query::budget::Budget;
use crate::table::Table;
use crate::wire::keys::key_pair;

/// How many times one item is planned again after other writers changed it.
pub const DEFAULT_ATTEMPTS: u32 = 10;

/// Rewrites in flight at once in each segment.
const WRITES_PER_SEGMENT: usize = 4;

type OnProgress = Arc<dyn Fn(&Progress) + Send + Sync>;

/// A function of the user's rewriting each stored record of one facet: the stored item in,
/// the item a put of the rewritten record writes out.
type Transform =
    Arc<dyn Fn(Item) -> BoxFuture<'static, std::result::Result<Item, Why>> + Send + Sync>;

/// A backfill, configured by its methods and run by `.await` (see the [module](self)).
#[must_use = "a backfill does nothing until awaited"]
pub struct Backfill {
    table: Table,
    rewriters: Vec<Rewriter>,
    refused: Option<Error>,
    segments: u32,
    page_size: Option<i32>,
    capacity: Option<f64>,
    dry_run: bool,
    resume: Option<Checkpoint>,
    progress: Option<OnProgress>,
    attempts: u32,
    transform: Option<Transform>,
}

impl Table {
    /// Rewrite the stored records of facet `F` with `f`, an async function of yours (fill
    /// a new field such as an embedding from the record's text, say), then bring each to
    /// what a put of the rewritten record writes: like [`Table::backfill`], only the
    /// attributes that differ are written, on condition the item is still as read,
    /// segmented, resumable ([`Backfill::resume_from`]), rate-limited
    /// ([`Backfill::capacity_per_second`]) and reported exactly. When another writer
    /// changes a record first, `f` runs again on what it wrote. A record `f` refuses (its
    /// `Err`), or whose rewritten record cannot be stored, is left as it is and reported
    /// ([`Why::Transform`]). A dry run ([`Backfill::dry_run`]) runs `f` too (it is what says
    /// what would change) and writes nothing: mind what `f` costs.
    ///
    /// ```no_run
    /// # use faceteer::{Facet, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Facet, Serialize, Deserialize)]
    /// # struct Doc { #[pk(prefix = "#DOC")] #[sk(prefix = "#DOC")] id: String, text: String,
    /// #   #[vector(dimensions = 2, distance = cosine)] embedding: Option<Vec<f32>> }
    /// # async fn embed(text: &str) -> Result<Vec<f32>, std::io::Error> { Ok(vec![0.0, 1.0]) }
    /// # async fn run(table: Table) -> faceteer::Result<()> {
    /// let report = table
    ///     .backfill_with(|mut doc: Doc| async move {
    ///         if doc.embedding.is_none() {
    ///             doc.embedding = Some(embed(&doc.text).await?);
    ///         }
    ///         Ok::<_, std::io::Error>(doc)
    ///     })
    ///     .capacity_per_second(100.0)
    ///     .await?;
    /// assert!(report.is_complete());
    /// # Ok(()) }
    /// ```
    pub fn backfill_with<F, R, E>(&self, f: impl Fn(F) -> R + Send + Sync + 'static) -> Backfill
    where
        F: Facet + Send + 'static,
        R: std::future::Future<Output = std::result::Result<F, E>> + Send + 'static,
        E: std::fmt::Display,
    {
        let f = Arc::new(f);
        let table = self.clone();
        let transform: Transform = Arc::new(move |item: Item| {
            let f = Arc::clone(&f);
            let table = table.clone();
            Box::pin(async move {
                let read = item.clone();
                let mut record = faceteer_core::from_item::<F>(item).map_err(Why::Unreadable)?;
                // The facet's hooks see the record as read, then as rewritten.
                let hooked = table.hooks_for::<F>();
                if let Some(hooks) = &hooked {
                    hooks
                        .after_read(&mut record, crate::hook::ReadKind::Backfill)
                        .await
                        .map_err(Why::Unreadable)?;
                }
                let record = f(record).await.map_err(|e| Why::Transform(e.to_string()))?;
                let record = match &hooked {
                    Some(hooks) => {
                        let (record, requires) = hooks
                            .record("BackfillWrite", &record, crate::hook::WritePath::Backfill)
                            .await
                            .map_err(Why::Refused)?;
                        // The rewrite is conditioned on the item as read: what the hooks
                        // require of the stored record is checked against it.
                        if let Some(veto) = requires.broken(Some(&read)) {
                            let key = record.primary_key().ok();
                            return Err(Why::Refused(crate::hook::refused::<F>(
                                "BackfillWrite",
                                key.as_ref(),
                                veto,
                            )));
                        }
                        record
                    }
                    None => record,
                };
                faceteer_core::convert::to_stored_item(&record).map_err(|e| {
                    Why::Transform(format!("the rewritten record cannot be stored: {e}"))
                })
            })
        });
        let mut backfill = self.backfill_of::<F>();
        backfill.transform = Some(transform);
        backfill
    }

    /// The backfill of facet `F`'s records, rewritten by the facet's own routine.
    fn backfill_of<F: Facet>(&self) -> Backfill {
        Backfill::new(
            self,
            vec![Rewriter::of::<F>()],
            self.check_declared::<F>().err(),
        )
    }

    /// Bring the stored records of facet `F` to what a put of each writes now (see
    /// [`backfill`](crate::backfill)). Items of other facets are read and counted as
    /// skipped.
    pub fn backfill<F: Facet>(&self) -> Backfill {
        // The facet's hooks see each record read and rewritten.
        if self.hooks_for::<F>().is_some() {
            return self.backfill_with(|record: F| async move {
                Ok::<_, std::convert::Infallible>(record)
            });
        }
        self.backfill_of::<F>()
    }

    /// Bring the stored records of every facet of table `S` (declared with
    /// `faceteer::table!`) to what a put of each writes now, in one scan.
    pub fn backfill_table<S: TableSchema>(&self) -> Backfill {
        let hooked = self.hooks().map(|h| h.facet_names()).unwrap_or_default();
        let refused = if S::REWRITERS.is_empty() {
            Some(Error::InvalidRequest(
                "the table declares no facet rewrites: declare it with `faceteer::table!`".into(),
            ))
        } else {
            // A whole-table backfill rewrites items without their facets' types: it cannot
            // run hooks, and must not pass them by.
            S::FACETS
                .iter()
                .find(|f| hooked.contains(&f.name))
                .map(|f| {
                    Error::InvalidRequest(format!(
                        "`{}` has hooks, which a whole-table backfill cannot run: backfill \
                         each facet with hooks with `table.backfill::<Facet>()`, and the \
                         others with a table without hooks",
                        f.name
                    ))
                })
        };
        Backfill::new(self, S::REWRITERS.to_vec(), refused)
    }
}

impl Backfill {
    fn new(table: &Table, rewriters: Vec<Rewriter>, refused: Option<Error>) -> Backfill {
        Backfill {
            table: table.clone(),
            rewriters,
            refused,
            segments: 4,
            page_size: None,
            capacity: None,
            dry_run: false,
            resume: None,
            progress: None,
            attempts: DEFAULT_ATTEMPTS,
            transform: None,
        }
    }

    /// Rewrite only the facets named `names` (of those this backfill covers); the items of
    /// the others are read and counted as skipped. A name the backfill does not cover
    /// refuses it ([`Error::InvalidRequest`]).
    pub fn only(mut self, names: &[&str]) -> Self {
        if let Some(unknown) = names
            .iter()
            .find(|n| !self.rewriters.iter().any(|r| r.schema().name == **n))
        {
            self.refused.get_or_insert(Error::InvalidRequest(format!(
                "the backfill covers no facet `{unknown}`"
            )));
        }
        self.rewriters.retain(|r| names.contains(&r.schema().name));
        self
    }

    /// Scan in `n` parallel segments (1 to 1,000,000; default 4). A resumed backfill keeps
    /// its checkpoint's count.
    pub fn segments(mut self, n: u32) -> Self {
        self.segments = n.clamp(1, 1_000_000);
        self
    }

    /// Read at most `n` items per scan request (default: 1 MB pages). Smaller pages record
    /// progress more often.
    pub fn page_size(mut self, n: u32) -> Self {
        self.page_size = Some(i32::try_from(n.max(1)).unwrap_or(i32::MAX));
        self
    }

    /// Consume about `units` read and write capacity units a second at most, over every
    /// segment (as DynamoDB reports them; estimated from item sizes where it reports none):
    /// each request waits until what the requests before it consumed is paid for. A budget
    /// that is not a number above zero is [`Error::InvalidRequest`].
    pub fn capacity_per_second(mut self, units: f64) -> Self {
        self.capacity = Some(units);
        self
    }

    /// Count what would change, per facet and per attribute, without writing anything.
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// Go on from `checkpoint` (from a [`Progress`] or a [`Report`]): finished segments are
    /// not scanned again, the others resume after their last finished page.
    pub fn resume_from(mut self, checkpoint: Checkpoint) -> Self {
        self.resume = Some(checkpoint);
        self
    }

    /// Call `f` after every page with the counts so far and the checkpoint to resume from.
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    /// Plan an item again at most `n` times after other writers changed it (default
    /// [`DEFAULT_ATTEMPTS`]); then it is reported as failed ([`Why::Contended`]).
    pub fn attempts(mut self, n: u32) -> Self {
        self.attempts = n.max(1);
        self
    }

    async fn run(self) -> Result<Report> {
        if let Some(e) = self.refused {
            return Err(e);
        }
        let checkpoint = self
            .resume
            .clone()
            .unwrap_or_else(|| Checkpoint::start(self.segments));
        if let Some(units) = self.capacity.filter(|u| !(u.is_finite() && *u > 0.0)) {
            return Err(Error::InvalidRequest(format!(
                "a backfill's capacity budget is a number of units a second above zero, not \
                 {units}"
            )));
        }
        let segments = checkpoint.segments().len();
        if segments == 0 || segments > 1_000_000 {
            return Err(Error::InvalidRequest(format!(
                "a backfill checkpoint has 1 to 1,000,000 segments, not {segments}"
            )));
        }
        let label = match self.rewriters.as_slice() {
            [one] => one.schema().name,
            _ => "*",
        };
        let run = Run {
            table: self.table,
            by_facet: self
                .rewriters
                .iter()
                .map(|r| (r.schema().name, *r))
                .collect(),
            label,
            page_size: self.page_size,
            dry_run: self.dry_run,
            attempts: self.attempts,
            budget: self.capacity.map(Budget::new),
            progress: self.progress,
            transform: self.transform,
            state: Mutex::new(State {
                totals: Progress::new(checkpoint.clone()),
                facets: Default::default(),
                skipped: Default::default(),
                failed: Vec::new(),
                unknown: Vec::new(),
            }),
        };
        let total = checkpoint.segments().len();
        let segments = checkpoint
            .segments()
            .iter()
            .enumerate()
            .filter(|(_, s)| **s != Segment::Done)
            .map(|(i, s)| run.segment(i, total, s.clone()));
        futures::future::try_join_all(segments).await?;
        let state = run.state.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(Report {
            dry_run: self.dry_run,
            totals: state.totals,
            facets: state.facets,
            skipped: state.skipped,
            failed: state.failed,
            unknown: state.unknown,
        })
    }
}

impl IntoFuture for Backfill {
    type Output = Result<Report>;
    type IntoFuture = BoxFuture<'static, Result<Report>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

/// The counts, shared by the segments.
struct State {
    totals: Progress,
    facets: std::collections::BTreeMap<String, FacetCounts>,
    skipped: std::collections::BTreeMap<String, u64>,
    failed: Vec<Failure>,
    unknown: Vec<Unknown>,
}

/// What became of one item.
enum Settled {
    Rewritten(Vec<String>),
    AlreadyRight,
    Skipped,
    Failed(Why),
    Unknown(Error),
    DeletedMeanwhile,
}

/// A backfill under way.
struct Run {
    table: Table,
    by_facet: HashMap<&'static str, Rewriter>,
    label: &'static str,
    page_size: Option<i32>,
    dry_run: bool,
    attempts: u32,
    budget: Option<Budget>,
    progress: Option<OnProgress>,
    transform: Option<Transform>,
    state: Mutex<State>,
}

impl Run {
    /// Scan segment `segment` of `total` from `from`, settling every item of each page before
    /// recording the page.
    async fn segment(&self, segment: usize, total: usize, mut from: Segment) -> Result<()> {
        loop {
            let start = match &from {
                Segment::Done => return Ok(()),
                Segment::Start => None,
                Segment::After { pk, sk } => Some(
                    [
                        (faceteer_core::schema::PK, pk),
                        (faceteer_core::schema::SK, sk),
                    ]
                    .into_iter()
                    .map(|(k, v)| {
                        (
                            k.to_owned(),
                            aws_sdk_dynamodb::types::AttributeValue::S(v.clone()),
                        )
                    })
                    .collect::<Item>(),
                ),
            };
            if let Some(budget) = &self.budget {
                budget.wait().await;
            }
            let op = Op::new("Scan", &self.table, self.label, None);
            let request = aws_sdk_dynamodb::operation::scan::ScanInput::builder()
                .table_name(self.table.name())
                .segment(segment as i32)
                .total_segments(total as i32)
                .set_exclusive_start_key(start)
                .set_limit(self.page_size);
            let (items, last, units) = crate::exec::sdk::scan(&self.table, &op, request).await?;
            // The backfill compares whole items: each is read into the SDK's tree.
            let items = items
                .into_iter()
                .map(|item| item.into_item(self.label))
                .collect::<std::result::Result<Vec<Item>, _>>()?;
            let read = items.len() as u64;
            let estimate = items
                .iter()
                .map(|i| item_size(i).unwrap_or(0) as f64)
                .sum::<f64>()
                / 8192.0;
            self.spend(if units > 0.0 {
                units
            } else {
                estimate.max(0.5)
            })
            .await;
            let settled: Vec<(Item, Settled)> = futures::stream::iter(items)
                .map(|item| async move {
                    let settled = self.settle(&item).await;
                    (item, settled)
                })
                .buffer_unordered(WRITES_PER_SEGMENT)
                .collect()
                .await;
            from = match last.as_ref().map(crate::wire::keys::key_strings) {
                None => Segment::Done,
                Some(Some((pk, sk))) => Segment::After { pk, sk },
                Some(None) => {
                    return Err(Error::InvalidRequest(format!(
                        "a scan of table {} stopped at a key that is not two strings (PK, \
                         SK): not a table faceteer can backfill",
                        self.table.name()
                    )))
                }
            };
            self.record(segment, read, settled, from.clone());
        }
    }

    async fn spend(&self, units: f64) {
        if let Some(budget) = &self.budget {
            budget.spend(units).await;
        }
        if let Ok(mut state) = self.state.lock() {
            state.totals.capacity += units;
        }
    }

    /// Count a finished page and report progress.
    fn record(&self, segment: usize, read: u64, settled: Vec<(Item, Settled)>, at: Segment) {
        let snapshot = {
            let Ok(mut state) = self.state.lock() else {
                return;
            };
            let state = &mut *state;
            state.totals.scanned += read;
            for (item, outcome) in settled {
                let facet = facet_of(&item).unwrap_or_default().to_owned();
                let (pk, sk) = key_pair(&item);
                match outcome {
                    Settled::Rewritten(attributes) => {
                        state.totals.rewritten += 1;
                        let counts = state.facets.entry(facet).or_default();
                        counts.rewritten += 1;
                        for a in attributes {
                            *counts.attributes.entry(a).or_default() += 1;
                        }
                    }
                    Settled::AlreadyRight => {
                        state.totals.already_right += 1;
                        state.facets.entry(facet).or_default().already_right += 1;
                    }
                    Settled::Skipped => {
                        state.totals.skipped += 1;
                        *state.skipped.entry(facet).or_default() += 1;
                    }
                    Settled::Failed(why) => {
                        state.totals.failed += 1;
                        state.failed.push(Failure {
                            facet,
                            pk: pk.into(),
                            sk: sk.into(),
                            why,
                        });
                    }
                    Settled::Unknown(error) => {
                        state.totals.unknown += 1;
                        state.unknown.push(Unknown {
                            facet,
                            pk: pk.into(),
                            sk: sk.into(),
                            error,
                        });
                    }
                    Settled::DeletedMeanwhile => state.totals.deleted_meanwhile += 1,
                }
            }
            state.totals.checkpoint.set(segment, at);
            state.totals.clone()
        };
        if let Some(progress) = &self.progress {
            progress(&snapshot);
        }
    }

    fn retried(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.totals.retried += 1;
        }
    }

    /// The guard items a record of a facet with `#[unique]` fields must own, as `plan`
    /// leaves it, and does not (a field made unique after records were written, a value an
    /// upgrade changed), and those it owns for values it no longer holds. A value another
    /// record owns is [`Why::UniqueTaken`]. Nothing for other facets, and for a record that
    /// moves (refused). The guards are read consistently; their capacity is spent.
    async fn guard_changes(
        &self,
        schema: &'static faceteer_core::schema::FacetSchema,
        stored: &Item,
        plan: &Rewrite,
    ) -> std::result::Result<write::GuardChanges, Why> {
        let mut changes = write::GuardChanges::none(schema.name);
        let after = match plan {
            _ if schema.unique.is_empty() => return Ok(changes),
            Rewrite::Move { .. } => return Ok(changes),
            Rewrite::Same => stored.clone(),
            Rewrite::Update(edits) => faceteer_core::backfill::applied(stored, edits),
        };
        let guards_of = |item: &Item| {
            faceteer_core::unique::guards(schema, item).map_err(|e| Why::Refused(Error::from(e)))
        };
        let (before, after) = (guards_of(stored)?, guards_of(&after)?);
        let owner = key_pair(stored);
        let text = |item: &Item, name: &str| match item.get(name) {
            Some(aws_sdk_dynamodb::types::AttributeValue::S(s)) => s.clone(),
            _ => String::new(),
        };
        let dropped = before
            .iter()
            .filter(|g| !after.iter().any(|a| a.pk == g.pk));
        let all = after
            .iter()
            .map(|g| (g, true))
            .chain(dropped.map(|g| (g, false)));
        for (guard, kept) in all {
            let op = Op::new("GetItem", &self.table, schema.name, None);
            let found = write::read_again(&self.table, &op, &guard.key()).await;
            self.spend(op.capacity().max(1.0)).await;
            let by = found.map_err(Why::Refused)?.map(|g| {
                (
                    text(&g, faceteer_core::unique::OWNER_PK),
                    text(&g, faceteer_core::unique::OWNER_SK),
                )
            });
            match (kept, by) {
                (true, None) => changes.put.push(guard.clone()),
                (true, Some(by)) if by != owner => {
                    return Err(Why::UniqueTaken {
                        field: guard.field,
                        value: faceteer_core::redact::value(schema.name, guard.field, &guard.value),
                        owner_pk: by.0.into(),
                        owner_sk: by.1.into(),
                    })
                }
                (false, Some(by)) if by == owner => changes.delete.push(guard.clone()),
                _ => {}
            }
        }
        Ok(changes)
    }

    /// Bring one item to its facet's design: plan, write on condition it is unchanged, and
    /// plan again from what another writer left. A record of a facet with `#[unique]`
    /// fields also takes the guards of its values it lacks, in the same transaction.
    async fn settle(&self, item: &Item) -> Settled {
        let mut stored = item.clone();
        for _ in 0..self.attempts {
            // Dispatched on every attempt: another writer may have put another facet's
            // record under the key.
            let Some(rewriter) = facet_of(&stored).and_then(|f| self.by_facet.get(f)) else {
                return Settled::Skipped;
            };
            let facet = rewriter.schema().name;
            let plan = match &self.transform {
                Some(transform) => match transform(stored.clone()).await {
                    Ok(target) => rewriter.plan_to(&stored, target),
                    Err(why) => return Settled::Failed(why),
                },
                None => match rewriter.plan(&stored) {
                    Ok(plan) => plan,
                    Err(e) => return Settled::Failed(Why::Unreadable(e)),
                },
            };
            let mut changed: Vec<String> = plan
                .changed_attributes()
                .into_iter()
                .map(str::to_owned)
                .collect();
            // The guards of unique values the record holds (after the rewrite) and lacks, and
            // those it owns for values it no longer holds.
            let guards = match self.guard_changes(rewriter.schema(), &stored, &plan).await {
                Ok(guards) => guards,
                Err(why) => return Settled::Failed(why),
            };
            changed.extend(guards.fields().map(|f| format!("guard of `{f}`")));
            if self.dry_run {
                return match plan {
                    Rewrite::Same if guards.is_empty() => Settled::AlreadyRight,
                    _ => Settled::Rewritten(changed),
                };
            }
            let size = item_size(&stored).unwrap_or(0) as f64;
            if let Some(budget) = &self.budget {
                budget.wait().await;
            }
            let (op, written) = match &plan {
                Rewrite::Same if guards.is_empty() => return Settled::AlreadyRight,
                Rewrite::Same => {
                    let op = Op::new("TransactWriteItems", &self.table, facet, None);
                    let written =
                        write::with_guards(&self.table, &op, &stored, None, &guards).await;
                    (op, written)
                }
                Rewrite::Update(changes) if !guards.is_empty() => {
                    let op = Op::new("TransactWriteItems", &self.table, facet, None);
                    let edits = Some(changes);
                    let written =
                        write::with_guards(&self.table, &op, &stored, edits, &guards).await;
                    (op, written)
                }
                Rewrite::Update(changes) => {
                    let op = Op::new("UpdateItem", &self.table, facet, None);
                    let written = write::update(&self.table, &op, &stored, changes).await;
                    (op, written)
                }
                Rewrite::Move { .. } if !rewriter.schema().unique.is_empty() => {
                    return Settled::Failed(Why::UniqueKeyMove)
                }
                Rewrite::Move { target, absent, .. } => {
                    let op = Op::new("TransactWriteItems", &self.table, facet, None);
                    let written = write::move_item(&self.table, &op, &stored, target, absent).await;
                    (op, written)
                }
            };
            let units = op.capacity();
            // A transaction writes each of its items twice over.
            let estimate = (size / 1024.0).ceil().max(1.0)
                * if matches!(plan, Rewrite::Move { .. }) {
                    4.0
                } else if !guards.is_empty() {
                    2.0 * (1 + guards.put.len() + guards.delete.len()) as f64
                } else {
                    1.0
                };
            self.spend(if units > 0.0 { units } else { estimate }).await;
            let outcome = match written {
                Ok(outcome) => outcome,
                Err(e @ Error::OutcomeUnknown { .. }) => return Settled::Unknown(e),
                Err(e) => return Settled::Failed(Why::Refused(e)),
            };
            stored = match outcome {
                Outcome::Rewritten => return Settled::Rewritten(changed),
                Outcome::KeyTaken => {
                    let (pk, sk) = match &plan {
                        Rewrite::Move { target, .. } => key_pair(target),
                        _ => key_pair(&stored),
                    };
                    return Settled::Failed(Why::KeyTaken {
                        pk: pk.into(),
                        sk: sk.into(),
                    });
                }
                Outcome::Changed(None) => return Settled::DeletedMeanwhile,
                Outcome::Changed(Some(now)) => now,
                Outcome::ReadAgain => {
                    let op = Op::new("GetItem", &self.table, facet, None);
                    match write::read_again(&self.table, &op, &stored).await {
                        Ok(Some(now)) => now,
                        Ok(None) => return Settled::DeletedMeanwhile,
                        Err(e) => return Settled::Failed(Why::Refused(e)),
                    }
                }
            };
            self.retried();
        }
        Settled::Failed(Why::Contended {
            attempts: self.attempts,
        })
    }
}
