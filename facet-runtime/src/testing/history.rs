//! Check a concurrent history of list appends against what a correct database allows, in
//! the style of Jepsen's Elle list-append checker.
//!
//! Every write appends a unique element (a `u64`) to a list held by one or more records, so
//! the lists tell in which order writes applied, and every read shows which writes it saw.
//! Clients (threads, tokio tasks) record what they do in one shared [`History`]: call
//! [`History::invoke`] just before sending a request, then complete the returned [`Pending`]
//! once the answer is in ([`Pending::ok`], [`Pending::failed`], [`Pending::unknown`],
//! [`Pending::read`] or [`Pending::read_failed`]). A logical clock stamps both moments, so
//! the real-time order of operations is exact. When every client has stopped, read the final
//! state of each record and call [`History::check`]. The [`Report`] lists each [`Anomaly`]:
//!
//! * an element twice in one list (a write applied twice);
//! * the element of a failed write in a list;
//! * an element no write carried, or seen before its write started;
//! * an acknowledged write missing from the final state (a lost write);
//! * a consistent read that misses a write or an element an earlier read saw (a stale read);
//! * an element seen, gone, and seen again (a write applied again after a delete);
//! * two lists of a never-deleted record in incompatible orders;
//! * an atomic read that sees a transaction on one record and not on another.
//!
//! Deletes are allowed: an element missing where a delete could explain it is no anomaly.
//! Writes whose outcome is unknown may have been applied or not, at any time, and reads that
//! are not strongly consistent are only checked for elements that should never show.
//!
//! ```
//! use std::collections::BTreeMap;
//! use faceteer::testing::history::{History, Op};
//!
//! let history = History::new();
//! // Client 0 appends element 1 to record "a"; the write succeeds.
//! let write = history.invoke(0, Op::Append { keys: vec!["a".into()], element: 1, creates: true });
//! write.ok();
//! // Client 1 reads "a" with a strongly consistent read.
//! let read = history.invoke(1, Op::Read { keys: vec!["a".into()], consistent: true, atomic: false });
//! read.read(vec![Some(vec![1])]);
//! // Once every client has stopped: the final state of each record, then the check.
//! let finals = BTreeMap::from([("a".to_string(), Some(vec![1]))]);
//! let report = history.check(&finals);
//! assert!(report.is_valid(), "{report}");
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The completion time of an operation that never completed.
const NEVER: u64 = u64::MAX;
/// The list id of an empty or absent list.
const NO_LIST: usize = usize::MAX;
/// How many anomalies a report prints.
const SHOWN: usize = 50;

/// A shared record of the operations of many clients; clones record into the same history.
#[derive(Debug, Clone, Default)]
pub struct History {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    clock: AtomicU64,
    entries: Mutex<Vec<Entry>>,
}

impl History {
    /// An empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record that `process` starts `op`; complete the returned [`Pending`] with its answer.
    pub fn invoke(&self, process: usize, op: Op) -> Pending {
        let mut entries = self.lock();
        let invoked = self.tick();
        entries.push(Entry {
            process,
            op,
            invoked,
            completed: NEVER,
            outcome: Outcome::Unknown,
        });
        Pending {
            history: self.clone(),
            index: entries.len() - 1,
        }
    }

    /// Every entry so far, in invocation order; operations not completed yet are
    /// [`Outcome::Unknown`] with `completed` = `u64::MAX`.
    pub fn entries(&self) -> Vec<Entry> {
        self.lock().clone()
    }

    /// Check the history against the final state of every record (`None`: absent), read after
    /// every client stopped. Records missing from `finals` are checked without a final state.
    pub fn check(&self, finals: &BTreeMap<String, Option<Vec<u64>>>) -> Report {
        let entries = self.lock();
        let now = self.inner.clock.load(Ordering::SeqCst);
        analyze(&entries, finals, now)
    }

    fn tick(&self) -> u64 {
        self.inner.clock.fetch_add(1, Ordering::SeqCst) + 1
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Entry>> {
        self.inner.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An operation a client performs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Append `element` to each record of `keys` (one key: a single-item write; several: a
    /// transaction, all or nothing). Creates a missing record iff `creates`.
    Append {
        /// The records written.
        keys: Vec<String>,
        /// The element appended, unique in the history.
        element: u64,
        /// Whether a missing record is created with the list `[element]`.
        creates: bool,
    },
    /// Create the record with the list `[element]`, only if absent (put if not exists).
    Create {
        /// The record created.
        key: String,
        /// The only element of the new list, unique in the history.
        element: u64,
    },
    /// Delete the record (if it exists).
    Delete {
        /// The record deleted.
        key: String,
    },
    /// Read records.
    Read {
        /// The records read.
        keys: Vec<String>,
        /// A strongly consistent read; other reads are only checked for elements that should
        /// never show (never written, written twice, failed).
        consistent: bool,
        /// All keys read as one snapshot (a transactional read).
        atomic: bool,
    },
}

/// An operation in flight: complete it with one of its methods. Dropping it without doing
/// so leaves the operation [`Outcome::Unknown`], never completed.
#[derive(Debug)]
#[must_use = "complete the operation with ok, failed, unknown, read or read_failed"]
pub struct Pending {
    history: History,
    index: usize,
}

impl Pending {
    /// The write was applied.
    pub fn ok(self) {
        self.complete(Outcome::Ok);
    }

    /// The write was certainly not applied (a condition failed, the request was refused).
    pub fn failed(self) {
        self.complete(Outcome::Failed);
    }

    /// The write may or may not have been applied, now or later (a timeout, a lost answer).
    pub fn unknown(self) {
        self.complete(Outcome::Unknown);
    }

    /// The read returned `values`, one per key of the [`Op::Read`] in order (`None`: absent).
    pub fn read(self, values: Vec<Option<Vec<u64>>>) {
        self.complete(Outcome::Read(values));
    }

    /// The read returned an error: it observed nothing.
    pub fn read_failed(self) {
        self.complete(Outcome::Failed);
    }

    fn complete(self, outcome: Outcome) {
        let completed = self.history.tick();
        let mut entries = self.history.lock();
        if let Some(entry) = entries.get_mut(self.index) {
            entry.completed = completed;
            entry.outcome = outcome;
        }
    }
}

/// How an operation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The write was applied.
    Ok,
    /// The write was not applied, or the read returned an error.
    Failed,
    /// Not known: the write may have been applied, at any time, or not; a read saw nothing.
    Unknown,
    /// The values a read returned, one per key in order (`None`: the record was absent).
    Read(Vec<Option<Vec<u64>>>),
}

/// One operation of a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The client that ran it.
    pub process: usize,
    /// What it did.
    pub op: Op,
    /// The logical time at which it started.
    pub invoked: u64,
    /// The logical time at which it completed; `u64::MAX` if it never did.
    pub completed: u64,
    /// How it ended.
    pub outcome: Outcome,
}

/// When an operation ran, in logical time, and which client ran it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// The client that ran it.
    pub process: usize,
    /// When it started.
    pub invoked: u64,
    /// When it completed; `u64::MAX` if it never did.
    pub completed: u64,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "of process {} at [{}..", self.process, self.invoked)?;
        if self.completed == NEVER {
            write!(f, "?]")
        } else {
            write!(f, "{}]", self.completed)
        }
    }
}

/// What showed an anomaly: a write, a read, or the final state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Witness {
    /// A write of the history.
    Write(Span),
    /// A read of the history.
    Read(Span),
    /// The final state, read after every client stopped.
    Final,
}

impl fmt::Display for Witness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Write(span) => write!(f, "the write {span}"),
            Self::Read(span) => write!(f, "the read {span}"),
            Self::Final => write!(f, "the final state"),
        }
    }
}

/// Something no correct database could have produced.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Anomaly {
    /// An element appears more than once in one list: a write applied twice.
    DuplicateElement {
        /// The record.
        key: String,
        /// The repeated element.
        element: u64,
        /// Where the list was seen.
        seen: Witness,
    },
    /// The element of a write that failed is in a list.
    FailedButApplied {
        /// The record.
        key: String,
        /// The element.
        element: u64,
        /// The failed write.
        write: Span,
        /// Where the element was seen.
        seen: Witness,
    },
    /// A list holds an element no write of the record carried (`write` is `None`), or one
    /// whose write started only after the read completed.
    NeverWritten {
        /// The record.
        key: String,
        /// The element.
        element: u64,
        /// Where the element was seen.
        seen: Witness,
        /// The write that carried it, started too late.
        write: Option<Span>,
    },
    /// The final state lacks the element of a write that succeeded (or that a consistent read
    /// saw, `seen`), and no delete could have removed it.
    LostWrite {
        /// The record.
        key: String,
        /// The element lost.
        element: u64,
        /// The write.
        write: Span,
        /// The consistent read that saw the element, for a write of unknown outcome.
        seen: Option<Witness>,
    },
    /// A consistent read misses an element that a write or read completed before it started
    /// had shown, and no delete could have come between.
    StaleRead {
        /// The record.
        key: String,
        /// The element missed.
        element: u64,
        /// The stale read.
        read: Span,
        /// The write or read that showed the element before.
        shown_by: Witness,
    },
    /// An element was seen, then gone, then seen again: applied again after a delete.
    Reappeared {
        /// The record.
        key: String,
        /// The element.
        element: u64,
        /// A consistent observation with the element.
        present: Witness,
        /// A later one without it.
        absent: Witness,
        /// A later one with it again.
        again: Witness,
    },
    /// Two lists of a record never deleted where neither is a prefix of the other: appends
    /// were reordered or lost in the middle.
    IncompatibleOrder {
        /// The record.
        key: String,
        /// The element of the shorter list where the two first differ.
        element: u64,
        /// Where they first differ.
        position: usize,
        /// The element the longer list holds there.
        other: u64,
        /// Where the shorter list was seen.
        seen: Witness,
        /// Where the longer list was seen.
        longer: Witness,
    },
    /// An atomic read sees the element of a transaction on one record and not on another
    /// record of the same transaction.
    HalfVisible {
        /// The record that misses the element.
        key: String,
        /// The element.
        element: u64,
        /// The record that shows it.
        seen_on: String,
        /// The atomic read.
        read: Span,
        /// The transaction.
        write: Span,
    },
}

impl fmt::Display for Anomaly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateElement { key, element, seen } => write!(
                f,
                "duplicate element: {seen} holds element {element} of key {key:?} more than \
                 once (a write applied twice)"
            ),
            Self::FailedButApplied {
                key,
                element,
                write,
                seen,
            } => write!(
                f,
                "failed but applied: {seen} holds element {element} of key {key:?}, whose \
                 write {write} failed"
            ),
            Self::NeverWritten {
                key,
                element,
                seen,
                write: None,
            } => write!(
                f,
                "never written: {seen} holds element {element} of key {key:?}, which no write \
                 of that key carried"
            ),
            Self::NeverWritten {
                key,
                element,
                seen,
                write: Some(write),
            } => write!(
                f,
                "never written: {seen} holds element {element} of key {key:?}, whose write \
                 {write} started after the read completed"
            ),
            Self::LostWrite {
                key,
                element,
                write,
                seen,
            } => {
                write!(
                    f,
                    "lost write: the final state of key {key:?} lacks element {element} of the \
                     write {write}, "
                )?;
                match seen {
                    None => write!(f, "which succeeded,")?,
                    Some(seen) => write!(f, "which {seen} saw,")?,
                }
                write!(f, " and no delete could have removed it")
            }
            Self::StaleRead {
                key,
                element,
                read,
                shown_by,
            } => write!(
                f,
                "stale read: the consistent read {read} of key {key:?} misses element \
                 {element}, which {shown_by} showed before it started, with no delete possible \
                 in between"
            ),
            Self::Reappeared {
                key,
                element,
                present,
                absent,
                again,
            } => write!(
                f,
                "reappeared: element {element} of key {key:?} is in {present}, gone in \
                 {absent} and back in {again} (applied again after a delete)"
            ),
            Self::IncompatibleOrder {
                key,
                element,
                position,
                other,
                seen,
                longer,
            } => write!(
                f,
                "incompatible order: {seen} has element {element} at position {position} of \
                 key {key:?} where {longer} has {other} (an append-only list was reordered)"
            ),
            Self::HalfVisible {
                key,
                element,
                seen_on,
                read,
                write,
            } => write!(
                f,
                "half visible: the atomic read {read} sees element {element} of the \
                 transaction {write} on key {seen_on:?} but not on key {key:?}"
            ),
        }
    }
}

/// What a check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Every anomaly, by key, then by kind.
    pub anomalies: Vec<Anomaly>,
    /// Writes (appends, creates, deletes) that succeeded.
    pub writes_ok: usize,
    /// Writes that failed.
    pub writes_failed: usize,
    /// Writes whose outcome is unknown, completed or not.
    pub writes_unknown: usize,
    /// Reads that returned values.
    pub reads: usize,
}

impl Report {
    /// Whether the history has no anomaly.
    pub fn is_valid(&self) -> bool {
        self.anomalies.is_empty()
    }

    fn count(&mut self, write: &Entry) {
        match status(write) {
            Status::Ok => self.writes_ok += 1,
            Status::Failed => self.writes_failed += 1,
            Status::Unknown => self.writes_unknown += 1,
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} writes ok, {} failed, {} unknown; {} reads: ",
            self.writes_ok, self.writes_failed, self.writes_unknown, self.reads
        )?;
        match self.anomalies.len() {
            0 => return write!(f, "valid"),
            1 => write!(f, "1 anomaly")?,
            n => write!(f, "{n} anomalies")?,
        }
        for anomaly in self.anomalies.iter().take(SHOWN) {
            write!(f, "\n  {anomaly}")?;
        }
        if self.anomalies.len() > SHOWN {
            write!(f, "\n  and {} more", self.anomalies.len() - SHOWN)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Analysis.
//
// Every observed list (a read's value for one key, or the final state) is, for a correct
// database, a prefix of some longer observed list. Observations of a key are therefore
// grouped under "reference lists": each observation is `reference[..len]`. Element checks
// run once per reference element, and set comparisons between observations reduce to
// comparing (reference, length) pairs; only anomalous histories take slower, exact paths.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Failed,
    Unknown,
}

fn status(write: &Entry) -> Status {
    match write.outcome {
        Outcome::Ok => Status::Ok,
        Outcome::Failed => Status::Failed,
        _ => Status::Unknown,
    }
}

/// The last time a write can take effect: any time, for an unknown outcome.
fn end(write: &Entry) -> u64 {
    if status(write) == Status::Unknown {
        NEVER
    } else {
        write.completed
    }
}

fn span(entry: &Entry) -> Span {
    Span {
        process: entry.process,
        invoked: entry.invoked,
        completed: entry.completed,
    }
}

fn element(op: &Op) -> Option<u64> {
    match op {
        Op::Append { element, .. } | Op::Create { element, .. } => Some(*element),
        _ => None,
    }
}

/// A value of one key, seen by a completed read or as the final state.
struct Obs<'a> {
    list: &'a [u64],
    span: Span,
    consistent: bool,
    last: bool,
    /// The reference list this one is a prefix of; `NO_LIST` when empty.
    list_id: usize,
}

impl Obs<'_> {
    fn witness(&self) -> Witness {
        if self.last {
            Witness::Final
        } else {
            Witness::Read(self.span)
        }
    }

    fn is_read(&self) -> bool {
        !self.last
    }
}

/// A longest observed list, with the write of each element.
struct Reference {
    /// The observation holding it.
    source: usize,
    /// The write of each element (entry index).
    writes: Vec<Option<usize>>,
    /// The latest invocation among the writes of the elements up to each position.
    latest_write: Vec<u64>,
}

/// What a set of observations and writes requires of a later list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Nothing,
    /// At least this prefix of this reference list.
    Prefix(usize, usize),
    /// Something else: compare exactly.
    Mixed,
}

fn join(a: Need, b: Need) -> Need {
    match (a, b) {
        (Need::Nothing, x) | (x, Need::Nothing) => x,
        (Need::Prefix(r, m), Need::Prefix(s, n)) if r == s => Need::Prefix(r, m.max(n)),
        _ => Need::Mixed,
    }
}

fn satisfied(need: Need, o: &Obs<'_>) -> bool {
    match need {
        Need::Nothing => true,
        Need::Prefix(r, n) => r == o.list_id && n <= o.list.len(),
        Need::Mixed => false,
    }
}

/// Everything known about one key.
struct KeyData<'a> {
    key: &'a str,
    obs: Vec<Obs<'a>>,
    /// The write of each element (preferring one not failed, then the earliest).
    writes: HashMap<u64, usize>,
    ok_writes: Vec<usize>,
    /// (invoked, end) of every delete not failed, sorted.
    deletes: Vec<(u64, u64)>,
    lists: Vec<Reference>,
    /// For each element: the reference lists holding it, with its first position.
    homes: HashMap<u64, Vec<(usize, usize)>>,
    final_obs: Option<usize>,
}

impl<'a> KeyData<'a> {
    fn new(key: &'a str) -> Self {
        Self {
            key,
            obs: Vec::new(),
            writes: HashMap::new(),
            ok_writes: Vec::new(),
            deletes: Vec::new(),
            lists: Vec::new(),
            homes: HashMap::new(),
            final_obs: None,
        }
    }

    fn add_write(&mut self, element: u64, w: usize, entries: &[Entry]) {
        if status(&entries[w]) == Status::Ok {
            self.ok_writes.push(w);
        }
        let rank = |i: usize| (status(&entries[i]) == Status::Failed, entries[i].invoked);
        self.writes
            .entry(element)
            .and_modify(|old| {
                if rank(w) < rank(*old) {
                    *old = w;
                }
            })
            .or_insert(w);
    }

    /// Group observations under reference lists and index their elements.
    fn index(&mut self, entries: &[Entry]) {
        self.deletes.sort_unstable();
        let mut order: Vec<usize> = (0..self.obs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.obs[i].list.len()));
        let mut by_first: HashMap<u64, Vec<usize>> = HashMap::new();
        for i in order {
            let list = self.obs[i].list;
            let Some(&first) = list.first() else { continue };
            let candidates = by_first.entry(first).or_default();
            let found = candidates
                .iter()
                .copied()
                .find(|&r| self.obs[self.lists[r].source].list.starts_with(list));
            self.obs[i].list_id = match found {
                Some(r) => r,
                None => {
                    candidates.push(self.lists.len());
                    let reference = Reference {
                        source: i,
                        writes: Vec::new(),
                        latest_write: Vec::new(),
                    };
                    self.lists.push(reference);
                    self.lists.len() - 1
                }
            };
        }
        for (r, reference) in self.lists.iter_mut().enumerate() {
            let list = self.obs[reference.source].list;
            let mut latest = 0;
            for (p, &e) in list.iter().enumerate() {
                let w = self.writes.get(&e).copied();
                if let Some(w) = w {
                    latest = latest.max(entries[w].invoked);
                }
                reference.writes.push(w);
                reference.latest_write.push(latest);
                let homes = self.homes.entry(e).or_default();
                if homes.iter().all(|&(h, _)| h != r) {
                    homes.push((r, p));
                }
            }
        }
    }

    fn list(&self, r: usize) -> &'a [u64] {
        self.obs[self.lists[r].source].list
    }

    fn contains(&self, o: &Obs<'_>, e: u64) -> bool {
        o.list_id != NO_LIST
            && self
                .homes
                .get(&e)
                .is_some_and(|h| h.iter().any(|&(r, p)| r == o.list_id && p < o.list.len()))
    }

    /// The first element of `a` that `b` lacks.
    fn missing(&self, a: &Obs<'_>, b: &Obs<'_>) -> Option<u64> {
        if a.list.is_empty() || (a.list_id == b.list_id && a.list.len() <= b.list.len()) {
            return None;
        }
        a.list.iter().copied().find(|&e| !self.contains(b, e))
    }

    /// What holding element `e` requires of a list.
    fn need(&self, e: u64) -> Need {
        match self.homes.get(&e).map(Vec::as_slice) {
            Some(&[(r, p)]) => Need::Prefix(r, p + 1),
            _ => Need::Mixed,
        }
    }

    /// The latest end of the deletes invoked before `t`: 0 if none.
    fn deleted_until(&self, t: u64, bounds: &[u64]) -> u64 {
        match self.deletes.partition_point(|&(invoked, _)| invoked < t) {
            0 => 0,
            n => bounds[n - 1],
        }
    }
}

fn analyze<'a>(
    entries: &'a [Entry],
    finals: &'a BTreeMap<String, Option<Vec<u64>>>,
    now: u64,
) -> Report {
    fn key_data<'m, 'a>(
        keys: &'m mut BTreeMap<&'a str, KeyData<'a>>,
        key: &'a str,
    ) -> &'m mut KeyData<'a> {
        keys.entry(key).or_insert_with(|| KeyData::new(key))
    }

    let mut report = Report::default();
    let mut keys: BTreeMap<&'a str, KeyData<'a>> = BTreeMap::new();
    let mut atomic: Vec<(usize, Vec<(&'a str, usize)>)> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        match &entry.op {
            Op::Append {
                keys: written,
                element,
                ..
            } => {
                report.count(entry);
                for key in written {
                    key_data(&mut keys, key).add_write(*element, i, entries);
                }
            }
            Op::Create { key, element } => {
                report.count(entry);
                key_data(&mut keys, key).add_write(*element, i, entries);
            }
            Op::Delete { key } => {
                report.count(entry);
                let data = key_data(&mut keys, key);
                if status(entry) != Status::Failed {
                    data.deletes.push((entry.invoked, end(entry)));
                }
            }
            Op::Read {
                keys: read,
                consistent,
                atomic: snapshot,
            } => {
                let Outcome::Read(values) = &entry.outcome else {
                    continue;
                };
                report.reads += 1;
                let mut seen = Vec::with_capacity(read.len());
                for (key, value) in read.iter().zip(values) {
                    let data = key_data(&mut keys, key);
                    data.obs.push(Obs {
                        list: value.as_deref().unwrap_or_default(),
                        span: span(entry),
                        consistent: *consistent,
                        last: false,
                        list_id: NO_LIST,
                    });
                    seen.push((key.as_str(), data.obs.len() - 1));
                }
                if *snapshot && seen.len() > 1 {
                    atomic.push((i, seen));
                }
            }
        }
    }
    let at = now.saturating_add(1);
    for (key, value) in finals {
        let data = key_data(&mut keys, key);
        data.obs.push(Obs {
            list: value.as_deref().unwrap_or_default(),
            span: Span {
                process: usize::MAX,
                invoked: at,
                completed: at,
            },
            consistent: true,
            last: true,
            list_id: NO_LIST,
        });
        data.final_obs = Some(data.obs.len() - 1);
    }
    for data in keys.values_mut() {
        data.index(entries);
    }
    let out = &mut report.anomalies;
    for data in keys.values() {
        check_duplicates(data, out);
        check_failed(data, entries, out);
        check_never_written(data, entries, out);
        check_lost_writes(data, entries, out);
        check_stale_reads(data, entries, out);
        check_reappeared(data, out);
        check_order(data, out);
    }
    check_half_visible(&keys, &atomic, entries, out);
    report
}

/// 1: an element twice in one list.
fn check_duplicates(data: &KeyData<'_>, out: &mut Vec<Anomaly>) {
    let mut reported = HashSet::new();
    for reference in &data.lists {
        let o = &data.obs[reference.source];
        let mut seen = HashSet::with_capacity(o.list.len());
        for &e in o.list {
            if !seen.insert(e) && reported.insert(e) {
                out.push(Anomaly::DuplicateElement {
                    key: data.key.to_owned(),
                    element: e,
                    seen: o.witness(),
                });
            }
        }
    }
}

/// 2: the element of a failed write in a list.
fn check_failed(data: &KeyData<'_>, entries: &[Entry], out: &mut Vec<Anomaly>) {
    let mut reported = HashSet::new();
    for reference in &data.lists {
        let o = &data.obs[reference.source];
        for (&e, &w) in o.list.iter().zip(&reference.writes) {
            let Some(w) = w else { continue };
            if status(&entries[w]) == Status::Failed && reported.insert(e) {
                out.push(Anomaly::FailedButApplied {
                    key: data.key.to_owned(),
                    element: e,
                    write: span(&entries[w]),
                    seen: o.witness(),
                });
            }
        }
    }
}

/// 3: an element no write carried, or seen by a read that completed before its write started.
fn check_never_written(data: &KeyData<'_>, entries: &[Entry], out: &mut Vec<Anomaly>) {
    let mut reported = HashSet::new();
    for reference in &data.lists {
        let o = &data.obs[reference.source];
        for (&e, w) in o.list.iter().zip(&reference.writes) {
            if w.is_none() && reported.insert(e) {
                out.push(Anomaly::NeverWritten {
                    key: data.key.to_owned(),
                    element: e,
                    seen: o.witness(),
                    write: None,
                });
            }
        }
    }
    for o in data
        .obs
        .iter()
        .filter(|o| o.is_read() && o.list_id != NO_LIST)
    {
        let reference = &data.lists[o.list_id];
        if reference.latest_write[o.list.len() - 1] <= o.span.completed {
            continue;
        }
        for (&e, &w) in o.list.iter().zip(&reference.writes) {
            let Some(w) = w else { continue };
            if entries[w].invoked > o.span.completed && reported.insert(e) {
                out.push(Anomaly::NeverWritten {
                    key: data.key.to_owned(),
                    element: e,
                    seen: o.witness(),
                    write: Some(span(&entries[w])),
                });
            }
        }
    }
}

/// 4: a write that succeeded (or that a consistent read saw) missing from the final state,
/// with no delete that could have removed it.
fn check_lost_writes(data: &KeyData<'_>, entries: &[Entry], out: &mut Vec<Anomaly>) {
    let Some(last) = data.final_obs else { return };
    let last = &data.obs[last];
    let deleted_until = data.deletes.iter().map(|&(_, end)| end).max().unwrap_or(0);
    let mut reported = HashSet::new();
    for &w in &data.ok_writes {
        let write = &entries[w];
        let Some(e) = element(&write.op) else {
            continue;
        };
        if deleted_until > write.invoked || data.contains(last, e) || !reported.insert(e) {
            continue;
        }
        out.push(Anomaly::LostWrite {
            key: data.key.to_owned(),
            element: e,
            write: span(write),
            seen: None,
        });
    }
    for o in &data.obs {
        if !o.consistent || !o.is_read() || deleted_until > o.span.invoked {
            continue;
        }
        if data.missing(o, last).is_none() {
            continue;
        }
        for &e in o.list {
            if data.contains(last, e) {
                continue;
            }
            let Some(&w) = data.writes.get(&e) else {
                continue;
            };
            if status(&entries[w]) == Status::Unknown && reported.insert(e) {
                out.push(Anomaly::LostWrite {
                    key: data.key.to_owned(),
                    element: e,
                    write: span(&entries[w]),
                    seen: Some(o.witness()),
                });
            }
        }
    }
}

/// 5: a consistent read that misses a write or a read completed before it started, with no
/// delete that could have come between.
fn check_stale_reads(data: &KeyData<'_>, entries: &[Entry], out: &mut Vec<Anomaly>) {
    #[derive(Clone, Copy)]
    enum From {
        Write(usize),
        Read(usize),
    }
    struct Item {
        invoked: u64,
        completed: u64,
        need: Need,
        from: From,
    }

    let mut items = Vec::new();
    for &w in &data.ok_writes {
        let Some(e) = element(&entries[w].op) else {
            continue;
        };
        let need = data.need(e);
        items.push(Item {
            invoked: entries[w].invoked,
            completed: entries[w].completed,
            need,
            from: From::Write(w),
        });
    }
    let mut reads: Vec<usize> = (0..data.obs.len())
        .filter(|&i| data.obs[i].consistent && data.obs[i].is_read())
        .collect();
    for &i in &reads {
        let o = &data.obs[i];
        if !o.list.is_empty() {
            let need = Need::Prefix(o.list_id, o.list.len());
            items.push(Item {
                invoked: o.span.invoked,
                completed: o.span.completed,
                need,
                from: From::Read(i),
            });
        }
    }
    items.sort_by_key(|item| item.completed);
    let mut starts: Vec<u64> = items.iter().map(|item| item.invoked).collect();
    starts.sort_unstable();
    let bounds = running_max(data.deletes.iter().map(|&(_, end)| end));
    let n = items.len();
    let mut needs = Fenwick::new(n, Need::Nothing, join);
    let mut added = 0;
    reads.sort_by_key(|&i| data.obs[i].span.invoked);
    for b in reads {
        let read = &data.obs[b];
        while added < n && items[added].completed < read.span.invoked {
            let rank = starts.partition_point(|&t| t < items[added].invoked);
            needs.add(n - 1 - rank, items[added].need);
            added += 1;
        }
        // Items invoked before `floor` may have been deleted before this read.
        let floor = data.deleted_until(read.span.completed, &bounds);
        if floor == NEVER {
            continue;
        }
        let eligible = n - starts.partition_point(|&t| t < floor);
        if satisfied(needs.prefix(eligible), read) {
            continue;
        }
        for item in items[..added].iter().filter(|item| item.invoked >= floor) {
            let found = match item.from {
                From::Write(w) => element(&entries[w].op)
                    .filter(|&e| !data.contains(read, e))
                    .map(|e| (e, Witness::Write(span(&entries[w])))),
                From::Read(a) => data
                    .missing(&data.obs[a], read)
                    .map(|e| (e, data.obs[a].witness())),
            };
            if let Some((element, shown_by)) = found {
                out.push(Anomaly::StaleRead {
                    key: data.key.to_owned(),
                    element,
                    read: read.span,
                    shown_by,
                });
                break;
            }
        }
    }
}

/// 6: an element in a consistent observation, absent from a later one and present in a
/// still later one, on a key that was deleted (without deletes, that is a stale read).
fn check_reappeared(data: &KeyData<'_>, out: &mut Vec<Anomaly>) {
    if data.deletes.is_empty() {
        return;
    }
    let mut cons: Vec<usize> = (0..data.obs.len())
        .filter(|&i| data.obs[i].consistent)
        .collect();
    cons.sort_by_key(|&i| data.obs[i].span.invoked);
    let starts: Vec<u64> = cons.iter().map(|&i| data.obs[i].span.invoked).collect();
    // For each suffix by invocation: the earliest completions of two different lists.
    let mut after = vec![[None; 2]; cons.len() + 1];
    for (j, &i) in cons.iter().enumerate().rev() {
        let o = &data.obs[i];
        let mut top = after[j + 1];
        offer(
            &mut top,
            Earliest {
                completed: o.span.completed,
                list_id: o.list_id,
                obs: i,
            },
        );
        after[j] = top;
    }
    let mut groups = vec![Vec::new(); data.lists.len()];
    for &i in &cons {
        if data.obs[i].list_id != NO_LIST {
            groups[data.obs[i].list_id].push(i);
        }
    }
    for (r, group) in groups.iter_mut().enumerate() {
        // Elements held by this list only; observations without them are those of other
        // lists, and those of this list too short to hold them.
        group.sort_by_key(|&i| data.obs[i].list.len());
        let n = group.len();
        let mut first = vec![(NEVER, usize::MAX); n + 1];
        let mut last = vec![(0, usize::MAX); n + 1];
        for q in (0..n).rev() {
            let o = &data.obs[group[q]];
            first[q] = first[q + 1].min((o.span.completed, group[q]));
            last[q] = last[q + 1].max((o.span.invoked, group[q]));
        }
        let mut own_starts: Vec<u64> = group.iter().map(|&i| data.obs[i].span.invoked).collect();
        own_starts.sort_unstable();
        let mut short = Fenwick::new(n, (NEVER, usize::MAX), std::cmp::min);
        let mut q = 0;
        for (p, &e) in data.list(r).iter().enumerate() {
            while q < n && data.obs[group[q]].list.len() <= p {
                let o = &data.obs[group[q]];
                let rank = own_starts.partition_point(|&t| t < o.span.invoked);
                short.add(n - 1 - rank, (o.span.completed, group[q]));
                q += 1;
            }
            if q == n {
                break;
            }
            match data.homes.get(&e).map(Vec::as_slice) {
                Some(&[(h, hp)]) if h == r && hp == p => {}
                _ => continue, // held by several lists, or repeated: below
            }
            let ((seen, r1), (seen_last, r3)) = (first[q], last[q]);
            if seen >= seen_last {
                continue;
            }
            let other = pick(&after[starts.partition_point(|&t| t <= seen)], r)
                .map_or((NEVER, usize::MAX), |b| (b.completed, b.obs));
            let same = short.prefix(n - own_starts.partition_point(|&t| t <= seen));
            let (gone, r2) = other.min(same);
            if gone < seen_last {
                out.push(reappeared(data, e, r1, r2, r3));
            }
        }
    }
    let mut done = HashSet::new();
    for r in 0..data.lists.len() {
        for &e in data.list(r) {
            let Some(homes) = data.homes.get(&e) else {
                continue;
            };
            if homes.len() < 2 || !done.insert(e) {
                continue;
            }
            let has = |i: &usize| {
                let o = &data.obs[*i];
                homes
                    .iter()
                    .any(|&(h, p)| h == o.list_id && p < o.list.len())
            };
            let r1 = cons
                .iter()
                .copied()
                .filter(has)
                .min_by_key(|&i| data.obs[i].span.completed);
            let r3 = cons
                .iter()
                .copied()
                .filter(has)
                .max_by_key(|&i| data.obs[i].span.invoked);
            let (Some(r1), Some(r3)) = (r1, r3) else {
                continue;
            };
            let seen = data.obs[r1].span.completed;
            let r2 = cons
                .iter()
                .copied()
                .filter(|i| !has(i) && data.obs[*i].span.invoked > seen)
                .min_by_key(|&i| data.obs[i].span.completed);
            if let Some(r2) = r2 {
                if data.obs[r2].span.completed < data.obs[r3].span.invoked {
                    out.push(reappeared(data, e, r1, r2, r3));
                }
            }
        }
    }
}

fn reappeared(data: &KeyData<'_>, element: u64, r1: usize, r2: usize, r3: usize) -> Anomaly {
    Anomaly::Reappeared {
        key: data.key.to_owned(),
        element,
        present: data.obs[r1].witness(),
        absent: data.obs[r2].witness(),
        again: data.obs[r3].witness(),
    }
}

/// 7: on a key never deleted, consistent lists that are not prefixes of the longest one.
fn check_order(data: &KeyData<'_>, out: &mut Vec<Anomaly>) {
    if !data.deletes.is_empty() {
        return;
    }
    let cons = || data.obs.iter().filter(|o| o.consistent);
    let Some(longest) = cons().max_by_key(|o| o.list.len()) else {
        return;
    };
    for o in cons() {
        if longest.list.starts_with(o.list) {
            continue;
        }
        let diff = o.list.iter().zip(longest.list).position(|(a, b)| a != b);
        if let Some(position) = diff {
            out.push(Anomaly::IncompatibleOrder {
                key: data.key.to_owned(),
                element: o.list[position],
                position,
                other: longest.list[position],
                seen: o.witness(),
                longer: longest.witness(),
            });
            return;
        }
    }
}

/// 8: an atomic read that sees a transaction's element on one key and not on another key of
/// the transaction that it also read (unless that key was ever deleted).
fn check_half_visible(
    keys: &BTreeMap<&str, KeyData<'_>>,
    atomic: &[(usize, Vec<(&str, usize)>)],
    entries: &[Entry],
    out: &mut Vec<Anomaly>,
) {
    let mut memo: HashMap<(&str, usize, &str), Vec<Need>> = HashMap::new();
    let mut reported = HashSet::new();
    for (read, seen) in atomic {
        for &(on, i) in seen {
            let Some(shown) = keys.get(on) else { continue };
            let o = &shown.obs[i];
            if o.list_id == NO_LIST {
                continue;
            }
            for &(key, j) in seen {
                let Some(other) = keys.get(key) else { continue };
                if key == on || !other.deletes.is_empty() {
                    continue;
                }
                let other_obs = &other.obs[j];
                let needs = memo
                    .entry((on, o.list_id, key))
                    .or_insert_with(|| transaction_needs(shown, o.list_id, other, entries));
                if satisfied(needs[o.list.len()], other_obs) {
                    continue;
                }
                let writes = &shown.lists[o.list_id].writes;
                for (&e, &w) in o.list.iter().zip(writes) {
                    let Some(w) = w else { continue };
                    if !spans(&entries[w].op, key) || other.contains(other_obs, e) {
                        continue;
                    }
                    if reported.insert((key, e)) {
                        out.push(Anomaly::HalfVisible {
                            key: key.to_owned(),
                            element: e,
                            seen_on: on.to_owned(),
                            read: span(&entries[*read]),
                            write: span(&entries[w]),
                        });
                    }
                    break;
                }
            }
        }
    }
}

/// Whether `op` is a transaction that also writes `key`.
fn spans(op: &Op, key: &str) -> bool {
    matches!(op, Op::Append { keys, .. } if keys.len() > 1 && keys.iter().any(|k| k == key))
}

/// For each prefix of reference list `r` of `shown`: what its transactions need of `other`.
fn transaction_needs(
    shown: &KeyData<'_>,
    r: usize,
    other: &KeyData<'_>,
    entries: &[Entry],
) -> Vec<Need> {
    let mut acc = Need::Nothing;
    let mut needs = Vec::with_capacity(shown.list(r).len() + 1);
    needs.push(acc);
    for (&e, &w) in shown.list(r).iter().zip(&shown.lists[r].writes) {
        if w.is_some_and(|w| spans(&entries[w].op, other.key)) {
            acc = join(acc, other.need(e));
        }
        needs.push(acc);
    }
    needs
}

fn running_max(values: impl Iterator<Item = u64>) -> Vec<u64> {
    values
        .scan(0, |top, v| {
            *top = (*top).max(v);
            Some(*top)
        })
        .collect()
}

/// The earliest completion among some observations, with its list.
#[derive(Debug, Clone, Copy)]
struct Earliest {
    completed: u64,
    list_id: usize,
    obs: usize,
}

/// Keep the earliest candidate, and the earliest of a list other than its list.
fn offer(top: &mut [Option<Earliest>; 2], c: Earliest) {
    match top[0] {
        None => top[0] = Some(c),
        Some(best) if c.completed < best.completed => {
            if c.list_id != best.list_id {
                top[1] = Some(best);
            }
            top[0] = Some(c);
        }
        Some(best) => {
            if c.list_id != best.list_id && top[1].is_none_or(|b| c.completed < b.completed) {
                top[1] = Some(c);
            }
        }
    }
}

/// The earliest of `top` that is not of list `r`.
fn pick(top: &[Option<Earliest>; 2], r: usize) -> Option<Earliest> {
    top.iter().flatten().copied().find(|b| b.list_id != r)
}

/// A Fenwick tree joining values over prefixes.
struct Fenwick<T> {
    tree: Vec<T>,
    zero: T,
    join: fn(T, T) -> T,
}

impl<T: Copy> Fenwick<T> {
    fn new(n: usize, zero: T, join: fn(T, T) -> T) -> Self {
        Self {
            tree: vec![zero; n + 1],
            zero,
            join,
        }
    }

    fn add(&mut self, i: usize, value: T) {
        let mut i = i + 1;
        while i < self.tree.len() {
            self.tree[i] = (self.join)(self.tree[i], value);
            i += i & i.wrapping_neg();
        }
    }

    /// The join of the first `n` positions.
    fn prefix(&self, n: usize) -> T {
        let mut acc = self.zero;
        let mut i = n;
        while i > 0 {
            acc = (self.join)(acc, self.tree[i]);
            i -= i & i.wrapping_neg();
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    fn append(key: &str, element: u64) -> Op {
        Op::Append {
            keys: vec![key.to_owned()],
            element,
            creates: true,
        }
    }

    fn transaction(keys: &[&str], element: u64) -> Op {
        Op::Append {
            keys: keys.iter().map(|k| (*k).to_owned()).collect(),
            element,
            creates: true,
        }
    }

    fn read(keys: &[&str]) -> Op {
        let keys = keys.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>();
        Op::Read {
            atomic: keys.len() > 1,
            keys,
            consistent: true,
        }
    }

    fn eventual(key: &str) -> Op {
        Op::Read {
            keys: vec![key.to_owned()],
            consistent: false,
            atomic: false,
        }
    }

    fn finals(items: &[(&str, Option<&[u64]>)]) -> BTreeMap<String, Option<Vec<u64>>> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.map(<[u64]>::to_vec)))
            .collect()
    }

    #[test]
    fn clean_history_is_valid() {
        let h = History::new();
        let w1 = h.invoke(0, append("a", 1));
        let w2 = h.invoke(1, append("a", 2));
        w2.ok();
        w1.ok();
        h.invoke(2, read(&["a"])).read(vec![Some(vec![1, 2])]);
        h.invoke(0, transaction(&["a", "b"], 3)).ok();
        h.invoke(1, read(&["a", "b"]))
            .read(vec![Some(vec![1, 2, 3]), Some(vec![3])]);
        h.invoke(
            2,
            Op::Create {
                key: "c".into(),
                element: 10,
            },
        )
        .ok();
        h.invoke(
            0,
            Op::Create {
                key: "c".into(),
                element: 11,
            },
        )
        .failed();
        h.invoke(1, Op::Delete { key: "c".into() }).ok();
        h.invoke(2, read(&["c"])).read(vec![None]);
        h.invoke(
            0,
            Op::Append {
                keys: vec!["c".into()],
                element: 12,
                creates: false,
            },
        )
        .failed();
        h.invoke(0, append("c", 13)).ok();
        h.invoke(1, eventual("a")).read(vec![Some(vec![1])]);
        h.invoke(1, read(&["a"])).read_failed();
        let report = h.check(&finals(&[
            ("a", Some(&[1, 2, 3])),
            ("b", Some(&[3])),
            ("c", Some(&[13])),
        ]));
        assert!(report.is_valid(), "{report}");
        assert_eq!(
            (
                report.writes_ok,
                report.writes_failed,
                report.writes_unknown,
                report.reads
            ),
            (6, 2, 0, 4)
        );
        assert!(report.to_string().ends_with("valid"), "{report}");
    }

    #[test]
    fn duplicate_element() {
        let h = History::new();
        h.invoke(0, append("a", 1)).ok();
        h.invoke(1, append("a", 2)).ok();
        let report = h.check(&finals(&[("a", Some(&[1, 2, 1]))]));
        assert!(
            matches!(report.anomalies.as_slice(), [Anomaly::DuplicateElement { key, element: 1, seen: Witness::Final }] if key == "a"),
            "{report}"
        );
    }

    #[test]
    fn failed_but_applied() {
        let h = History::new();
        h.invoke(0, append("a", 1)).ok();
        h.invoke(1, append("a", 2)).failed();
        h.invoke(2, read(&["a"])).read(vec![Some(vec![1, 2])]);
        let report = h.check(&finals(&[("a", Some(&[1, 2]))]));
        assert!(
            matches!(
                report.anomalies.as_slice(),
                [Anomaly::FailedButApplied { element: 2, .. }]
            ),
            "{report}"
        );
    }

    #[test]
    fn never_written() {
        let h = History::new();
        h.invoke(0, append("a", 1)).ok();
        h.invoke(1, eventual("a")).read(vec![Some(vec![1, 99])]);
        h.invoke(1, read(&["b"])).read(vec![Some(vec![5])]);
        h.invoke(0, append("b", 5)).ok();
        let report = h.check(&finals(&[("a", Some(&[1])), ("b", Some(&[5]))]));
        assert!(
            matches!(
                report.anomalies.as_slice(),
                [
                    Anomaly::NeverWritten { key: a, element: 99, write: None, .. },
                    Anomaly::NeverWritten { key: b, element: 5, write: Some(_), .. },
                ] if a == "a" && b == "b"
            ),
            "{report}"
        );
    }

    #[test]
    fn lost_write() {
        let h = History::new();
        h.invoke(0, append("a", 1)).ok();
        h.invoke(1, append("a", 2)).ok();
        // Deleted afterwards: not lost.
        h.invoke(0, append("b", 3)).ok();
        h.invoke(1, Op::Delete { key: "b".into() }).ok();
        let report = h.check(&finals(&[("a", Some(&[1])), ("b", None)]));
        assert!(
            matches!(
                report.anomalies.as_slice(),
                [Anomaly::LostWrite {
                    element: 2,
                    seen: None,
                    ..
                }]
            ),
            "{report}"
        );
    }

    #[test]
    fn stale_read() {
        let h = History::new();
        h.invoke(0, append("a", 1)).ok();
        h.invoke(1, read(&["a"])).read(vec![None]);
        h.invoke(1, eventual("a")).read(vec![None]); // allowed: not consistent
        let late = h.invoke(0, append("b", 2));
        h.invoke(1, read(&["b"])).read(vec![Some(vec![2])]);
        h.invoke(2, read(&["b"])).read(vec![None]);
        late.ok();
        let report = h.check(&finals(&[("a", Some(&[1])), ("b", Some(&[2]))]));
        assert!(
            matches!(
                report.anomalies.as_slice(),
                [
                    Anomaly::StaleRead { key: a, element: 1, shown_by: Witness::Write(_), .. },
                    Anomaly::StaleRead { key: b, element: 2, shown_by: Witness::Read(_), .. },
                ] if a == "a" && b == "b"
            ),
            "{report}"
        );
    }

    #[test]
    fn reappeared() {
        let h = History::new();
        h.invoke(
            0,
            Op::Create {
                key: "k".into(),
                element: 5,
            },
        )
        .ok();
        h.invoke(1, read(&["k"])).read(vec![Some(vec![5])]);
        h.invoke(0, Op::Delete { key: "k".into() }).ok();
        h.invoke(1, read(&["k"])).read(vec![None]);
        h.invoke(2, read(&["k"])).read(vec![Some(vec![5])]);
        let report = h.check(&finals(&[("k", Some(&[5]))]));
        assert!(
            matches!(
                report.anomalies.as_slice(),
                [Anomaly::Reappeared { element: 5, present: Witness::Read(p), absent: Witness::Read(a), .. }]
                    if p.completed < a.invoked
            ),
            "{report}"
        );
    }

    #[test]
    fn incompatible_order() {
        let h = History::new();
        let w1 = h.invoke(0, append("a", 1));
        let w2 = h.invoke(1, append("a", 2));
        w1.ok();
        w2.ok();
        h.invoke(2, read(&["a"])).read(vec![Some(vec![1, 2])]);
        let report = h.check(&finals(&[("a", Some(&[2, 1]))]));
        assert!(
            matches!(
                report.anomalies.as_slice(),
                [Anomaly::IncompatibleOrder { position: 0, element, other, .. }] if element + other == 3
            ),
            "{report}"
        );
    }

    #[test]
    fn half_visible() {
        let h = History::new();
        let t = h.invoke(0, transaction(&["a", "b"], 7));
        h.invoke(1, read(&["a", "b"]))
            .read(vec![Some(vec![7]), None]);
        t.ok();
        let report = h.check(&finals(&[("a", Some(&[7])), ("b", Some(&[7]))]));
        assert!(
            matches!(
                report.anomalies.as_slice(),
                [Anomaly::HalfVisible { key, element: 7, seen_on, .. }] if key == "b" && seen_on == "a"
            ),
            "{report}"
        );
    }

    #[test]
    fn unknown_outcomes_are_never_anomalies() {
        let h = History::new();
        h.invoke(0, append("a", 1)).unknown(); // applied
        h.invoke(1, append("a", 2)).unknown(); // applied or not
        h.invoke(
            2,
            Op::Create {
                key: "b".into(),
                element: 3,
            },
        )
        .unknown(); // not applied
        h.invoke(0, transaction(&["a", "b"], 4)).unknown(); // not applied
        h.invoke(
            0,
            Op::Create {
                key: "c".into(),
                element: 5,
            },
        )
        .ok();
        h.invoke(1, Op::Delete { key: "c".into() }).unknown(); // applied or not
        h.invoke(1, read(&["a"])).read(vec![Some(vec![1])]);
        for a in [&[1][..], &[1, 2]] {
            for c in [None, Some(&[5][..])] {
                let report = h.check(&finals(&[("a", Some(a)), ("b", None), ("c", c)]));
                assert!(report.is_valid(), "{report}");
                assert_eq!(report.writes_unknown, 5);
            }
        }
        // Seen by a consistent read, then missing without a delete: lost after all.
        let report = h.check(&finals(&[("a", None), ("b", None)]));
        assert!(
            matches!(
                report.anomalies.as_slice(),
                [Anomaly::LostWrite {
                    element: 1,
                    seen: Some(Witness::Read(_)),
                    ..
                }]
            ),
            "{report}"
        );
    }

    #[test]
    fn dropped_pending_is_unknown() {
        let h = History::new();
        drop(h.invoke(0, append("a", 1)));
        h.invoke(0, append("a", 2)).unknown();
        let entries = h.entries();
        assert_eq!(entries[0].outcome, Outcome::Unknown);
        assert_eq!(entries[0].completed, u64::MAX);
        assert_eq!(entries[1].outcome, Outcome::Unknown);
        assert!(entries[1].completed > entries[1].invoked && entries[1].completed < u64::MAX);
        for a in [None, Some(&[1][..]), Some(&[2, 1])] {
            let report = h.check(&finals(&[("a", a)]));
            assert!(report.is_valid(), "{report}");
            assert_eq!(report.writes_unknown, 2);
        }
    }

    #[test]
    fn report_display_is_capped() {
        let h = History::new();
        h.invoke(0, read(&["a"]))
            .read(vec![Some((100..160).collect())]);
        let report = h.check(&BTreeMap::new());
        assert_eq!(report.anomalies.len(), 60);
        let text = report.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 52, "{text}");
        assert!(lines[0].ends_with("1 reads: 60 anomalies"), "{text}");
        assert!(
            lines[1].contains("element 100") && lines[1].contains("\"a\""),
            "{text}"
        );
        assert!(
            lines[1].contains("the read of process 0 at [1..2]"),
            "{text}"
        );
        assert_eq!(lines[51], "  and 10 more");
    }

    // A model store behind a mutex, correct unless `double_apply`.
    #[derive(Default)]
    struct State {
        lists: HashMap<String, Vec<u64>>,
        before: HashMap<String, Option<Vec<u64>>>,
    }

    impl State {
        fn remember(&mut self, key: &str) {
            let value = self.lists.get(key).cloned();
            self.before.insert(key.to_owned(), value);
        }
    }

    struct Store {
        state: Mutex<State>,
        double_apply: AtomicBool,
    }

    impl Store {
        fn lock(&self) -> MutexGuard<'_, State> {
            self.state.lock().unwrap_or_else(|e| e.into_inner())
        }
    }

    fn client(id: usize, ops: usize, history: &History, store: &Store, keys: &[String]) {
        let mut seed = (id as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut next = move |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        let done = |p: Pending, lost: bool| if lost { p.unknown() } else { p.ok() };
        for i in 0..ops {
            let element = ((id as u64) << 32) | i as u64;
            let k = next(keys.len());
            let key = &keys[k];
            match next(100) {
                0..=34 => {
                    let p = history.invoke(id, append(key, element));
                    {
                        let mut state = store.lock();
                        state.remember(key);
                        let list = state.lists.entry(key.clone()).or_default();
                        list.push(element);
                        if k == 0 && store.double_apply.swap(false, Ordering::SeqCst) {
                            list.push(element);
                        }
                    }
                    done(p, next(20) == 0);
                }
                35..=44 => {
                    let other = &keys[(k + 1 + next(keys.len() - 1)) % keys.len()];
                    let p = history.invoke(id, transaction(&[key, other], element));
                    {
                        let mut state = store.lock();
                        for key in [key, other] {
                            state.remember(key);
                            state.lists.entry(key.clone()).or_default().push(element);
                        }
                    }
                    done(p, next(20) == 0);
                }
                45..=49 => {
                    let p = history.invoke(
                        id,
                        Op::Create {
                            key: key.clone(),
                            element,
                        },
                    );
                    let mut state = store.lock();
                    if state.lists.contains_key(key) {
                        drop(state);
                        p.failed();
                    } else {
                        state.remember(key);
                        state.lists.insert(key.clone(), vec![element]);
                        drop(state);
                        done(p, next(20) == 0);
                    }
                }
                50..=52 if k != 0 => {
                    let p = history.invoke(id, Op::Delete { key: key.clone() });
                    {
                        let mut state = store.lock();
                        state.remember(key);
                        state.lists.remove(key);
                    }
                    done(p, next(10) == 0);
                }
                53..=55 => {
                    let p = history.invoke(
                        id,
                        Op::Append {
                            keys: vec![key.clone()],
                            element,
                            creates: false,
                        },
                    );
                    let mut state = store.lock();
                    if state.lists.contains_key(key) {
                        state.remember(key);
                        state.lists.entry(key.clone()).or_default().push(element);
                        drop(state);
                        p.ok();
                    } else {
                        drop(state);
                        p.failed();
                    }
                }
                56..=57 => history.invoke(id, append(key, element)).unknown(), // never applied
                58 => drop(history.invoke(id, append(key, element))),          // never applied
                59..=79 => {
                    let p = history.invoke(id, read(&[key]));
                    if next(50) == 0 {
                        p.read_failed();
                    } else {
                        let value = store.lock().lists.get(key).cloned();
                        p.read(vec![value]);
                    }
                }
                80..=89 => {
                    let covered: Vec<&str> = (0..keys.len().min(3))
                        .map(|j| keys[(k + j) % keys.len()].as_str())
                        .collect();
                    let p = history.invoke(id, read(&covered));
                    let state = store.lock();
                    let values = covered
                        .iter()
                        .map(|key| state.lists.get(*key).cloned())
                        .collect();
                    drop(state);
                    p.read(values);
                }
                _ => {
                    let p = history.invoke(id, eventual(key));
                    let state = store.lock();
                    let value = match state.before.get(key) {
                        Some(before) if next(2) == 0 => before.clone(),
                        _ => state.lists.get(key).cloned(),
                    };
                    drop(state);
                    p.read(vec![value]);
                }
            }
        }
    }

    fn workload(
        clients: usize,
        ops: usize,
        keys: usize,
        double_apply: bool,
    ) -> (History, BTreeMap<String, Option<Vec<u64>>>) {
        let history = History::new();
        let store = Store {
            state: Mutex::default(),
            double_apply: AtomicBool::new(double_apply),
        };
        let keys: Vec<String> = (0..keys).map(|k| format!("k{k}")).collect();
        std::thread::scope(|s| {
            for id in 0..clients {
                let (history, store, keys) = (&history, &store, &keys);
                s.spawn(move || client(id, ops, history, store, keys));
            }
        });
        let state = store.lock();
        let finals = keys
            .iter()
            .map(|k| (k.clone(), state.lists.get(k).cloned()))
            .collect();
        (history, finals)
    }

    #[test]
    fn threads_on_a_correct_store_are_valid() {
        let (history, finals) = workload(8, 500, 3, false);
        let report = history.check(&finals);
        assert!(report.is_valid(), "{report}");
        assert_eq!(history.entries().len(), 4000);
        assert!(report.reads > 1000 && report.writes_ok > 1000, "{report}");
    }

    #[test]
    fn threads_on_a_store_applying_twice_show_duplicate() {
        let (history, finals) = workload(8, 500, 3, true);
        let report = history.check(&finals);
        assert!(
            matches!(report.anomalies.as_slice(), [Anomaly::DuplicateElement { key, .. }] if key == "k0"),
            "{report}"
        );
    }

    /// A history the size of the suite's own (20,000 operations) checks clean.
    #[test]
    fn twenty_thousand_ops_check_clean() {
        let (history, finals) = workload(8, 2500, 10, false);
        let report = history.check(&finals);
        assert!(report.is_valid(), "{report}");
        assert_eq!(history.entries().len(), 20_000);
    }
}
