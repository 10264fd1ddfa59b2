//! The table's design lock: its whole design in a committed file, and a check, in your own
//! tests, that fails on any change of the code not yet accepted — saying what each change
//! needs or breaks.
//!
//! One line in a test of your crate:
//!
//! ```no_run
//! # use faceteer::Facet;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Task { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#TASK")] id: String }
//! # faceteer::table! { struct AppTable { Task } }
//! #[test]
//! fn the_design_is_the_locked_one() {
//!     faceteer::lock::assert_current::<AppTable>(concat!(env!("CARGO_MANIFEST_DIR"), "/design.lock.json"));
//! }
//! ```
//!
//! The first run writes nothing and fails, asking to accept the design: run the test again
//! with `FACETEER_BLESS=1` to write the file, and commit it. From then on every change of a
//! facet, key, index, field, version or setting fails the test with a report that classifies
//! it ([`Class`]): safe, needs a backfill (which one), needs an index, breaks stored records
//! (which and why, and the repair), breaks other readers (Faceteer for TypeScript), or needs
//! a review. Accept it with `FACETEER_BLESS=1` (changes that break nothing stored or read)
//! or `FACETEER_BLESS=breaking` (any change, once the report's repairs are planned); the
//! blessed file goes into the same commit as the change, where a reviewer sees both. Under
//! `CI` (the variable set), nothing is ever blessed.
//!
//! The rules are [`faceteer_core::lock`]'s. [`Check`] runs the same check with options; the
//! operations runner's `lock` and `diff` commands run it from the command line.
//!
//! ```
//! # use faceteer::Facet;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Task { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#TASK")] id: String }
//! # faceteer::table! { struct AppTable { Task } }
//! use faceteer::lock::{Bless, Check, Outcome};
//!
//! let dir = std::env::temp_dir().join(format!("faceteer-lock-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("design.lock.json");
//! // No lock yet: accepted only when blessed.
//! assert!(Check::<AppTable>::new(&path).run().is_err());
//! let written = Check::<AppTable>::new(&path).bless(Bless::Safe).run().unwrap();
//! assert!(matches!(written, Outcome::Blessed(_)));
//! // The code is the locked design.
//! assert!(matches!(Check::<AppTable>::new(&path).run().unwrap(), Outcome::Current));
//! ```

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

pub use faceteer_core::lock::{
    compare, Change, Class, DesignLock, Effect, IndexAction, LockAttribute, LockError, LockFacet,
    LockField, LockIndex, LockIndexKind, LockIndexName, LockKey, LockKeyField, LockNames,
    LockNative, LockPeriod, LockProjection, LockReport, LockShard, LockTable, LockTableIndex,
    LockUnique, LockVector, LOCK_FORMAT,
};
use faceteer_core::table::TableSchema;

/// Which changes a check may accept by rewriting the lock file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bless {
    /// None: every change fails the check.
    #[default]
    None,
    /// Changes that break nothing stored or read (classes up to "needs an index"), and a
    /// missing lock file.
    Safe,
    /// Any change.
    Breaking,
}

impl Bless {
    /// From the environment: `FACETEER_BLESS=1` is [`Bless::Safe`],
    /// `FACETEER_BLESS=breaking` is [`Bless::Breaking`]; under `CI`, always [`Bless::None`].
    pub fn from_env() -> Bless {
        if std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false") {
            return Bless::None;
        }
        match std::env::var("FACETEER_BLESS").as_deref() {
            Ok("breaking") => Bless::Breaking,
            Ok(v) if !v.is_empty() && v != "0" => Bless::Safe,
            _ => Bless::None,
        }
    }

    fn accepts(self, report: &LockReport) -> bool {
        match self {
            Bless::None => false,
            Bless::Breaking => true,
            Bless::Safe => !report.is_breaking(),
        }
    }
}

/// What a passing check found.
#[derive(Debug)]
pub enum Outcome {
    /// The code's design is the locked one.
    Current,
    /// The code differs, and the lock file was rewritten to accept it: the report says
    /// what the accepted changes need (commit the file with them).
    Blessed(LockReport),
}

/// Why a check failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// There is no lock file yet.
    #[error(
        "no design lock at {}: run the check with FACETEER_BLESS=1 to write it, and commit it",
        .path.display()
    )]
    Missing {
        /// The lock file's path.
        path: PathBuf,
    },
    /// The lock file could not be read or written.
    #[error("design lock {}: {source}", .path.display())]
    Io {
        /// The lock file's path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The lock file is not a design lock this version reads.
    #[error("design lock {}: {source}", .path.display())]
    Unreadable {
        /// The lock file's path.
        path: PathBuf,
        /// The error.
        source: LockError,
    },
    /// The code's design differs from the lock, and the differences were not accepted.
    #[error("{}", unblessed(.path, .report))]
    Changed {
        /// The lock file's path.
        path: PathBuf,
        /// Each difference, classified.
        report: LockReport,
    },
}

fn unblessed(path: &Path, report: &LockReport) -> String {
    let how = if report.is_breaking() {
        "once the repairs above are planned, accept them with FACETEER_BLESS=breaking"
    } else {
        "accept them with FACETEER_BLESS=1"
    };
    format!(
        "the design differs from its lock {}:\n{report}\n{how} and commit the lock with the change",
        path.display()
    )
}

/// The check of a declared table's design against its lock file.
#[derive(Debug, Clone)]
#[must_use = "a check does nothing until run"]
pub struct Check<S> {
    path: PathBuf,
    bless: Bless,
    other_readers: bool,
    now: Option<i64>,
    table: PhantomData<fn() -> S>,
}

impl<S: TableSchema> Check<S> {
    /// A check of `S` against the lock file at `path`, blessing nothing.
    pub fn new(path: impl AsRef<Path>) -> Self {
        Check {
            path: path.as_ref().to_path_buf(),
            bless: Bless::None,
            other_readers: true,
            now: None,
            table: PhantomData,
        }
    }

    /// Accept the changes `bless` allows, rewriting the lock file.
    pub fn bless(mut self, bless: Bless) -> Self {
        self.bless = bless;
        self
    }

    /// No other library reads the table: changes that only break other readers (Faceteer
    /// for TypeScript) are safe.
    pub fn no_other_readers(mut self) -> Self {
        self.other_readers = false;
        self
    }

    /// Judge shard schedules as of `now` (Unix seconds) instead of the clock: a grow
    /// period starting after it is safe.
    pub fn at(mut self, now: i64) -> Self {
        self.now = Some(now);
        self
    }

    /// The code's design, compared with the lock file (`None` when there is none yet).
    pub fn report(&self) -> Result<Option<LockReport>, CheckError> {
        let Some(locked) = self.locked()? else {
            return Ok(None);
        };
        let now = self.now.unwrap_or_else(now_seconds);
        let report = compare(&locked, &DesignLock::of::<S>(), now);
        Ok(Some(if self.other_readers {
            report
        } else {
            report.without_other_readers()
        }))
    }

    /// The lock file's design, if the file exists.
    pub fn locked(&self) -> Result<Option<DesignLock>, CheckError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(CheckError::Io {
                    path: self.path.clone(),
                    source,
                })
            }
        };
        DesignLock::from_json(&text)
            .map(Some)
            .map_err(|source| CheckError::Unreadable {
                path: self.path.clone(),
                source,
            })
    }

    /// Run the check: [`Outcome::Current`], or the changes accepted by blessing; else the
    /// error with the report.
    pub fn run(&self) -> Result<Outcome, CheckError> {
        match self.report()? {
            None if self.bless == Bless::None => Err(CheckError::Missing {
                path: self.path.clone(),
            }),
            None => {
                self.write()?;
                Ok(Outcome::Blessed(LockReport::default()))
            }
            Some(report) if report.is_clean() => Ok(Outcome::Current),
            Some(report) if self.bless.accepts(&report) => {
                self.write()?;
                Ok(Outcome::Blessed(report))
            }
            Some(report) => Err(CheckError::Changed {
                path: self.path.clone(),
                report,
            }),
        }
    }

    /// Write the code's design to the lock file (a temporary file, then renamed).
    pub fn write(&self) -> Result<(), CheckError> {
        let io = |source| CheckError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let temporary = self.path.with_extension("json.tmp");
        std::fs::write(&temporary, DesignLock::of::<S>().to_json()).map_err(io)?;
        std::fs::rename(&temporary, &self.path).map_err(io)
    }
}

fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The one line for a test: panic, with the classified report, unless `S`'s design is the
/// one locked at `path` or its changes are blessed through the environment
/// ([`Bless::from_env`]). See the [module](self).
///
/// # Panics
/// When the design differs and the differences are not blessed, or the file is missing or
/// unreadable.
#[track_caller]
pub fn assert_current<S: TableSchema>(path: impl AsRef<Path>) {
    match Check::<S>::new(path).bless(Bless::from_env()).run() {
        Ok(Outcome::Current) => {}
        Ok(Outcome::Blessed(report)) => {
            eprintln!("faceteer: the design lock was rewritten:\n{report}");
        }
        Err(e) => panic!("{e}"),
    }
}
