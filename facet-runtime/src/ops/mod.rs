//! An operations runner to embed: one call gives a table its command line (cargo feature
//! `ops`).
//!
//! In `src/bin/table.rs` of your application:
//!
//! ```no_run
//! # use faceteer::Facet;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Task { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#TASK")] id: String }
//! faceteer::table! { pub struct AppTable { Task } }
//!
//! fn main() -> std::process::ExitCode {
//!     faceteer::ops::main::<AppTable>()
//! }
//! ```
//!
//! Then `cargo run --bin table -- --table app-prod <command>`:
//!
//! | command | does |
//! |---|---|
//! | `create [--stream VIEW] [--if-missing]` | create the table with its indexes, TTL and settings |
//! | `verify [--fix]` | each difference of the live table, in plain words; `--fix` creates missing indexes and applies the settings |
//! | `diff [--dry-run]` | the design lock's report ([`crate::lock`]) and the live table's differences; `--dry-run` counts the records a backfill would rewrite |
//! | `lock [--write \| --breaking]` | check (or accept) the code's design against the lock file, offline |
//! | `backfill [--facet F] [--segments N] [--page-size N] [--rate UNITS] [--dry-run] [--checkpoint FILE] [--resume] [--pages N] [--progress HOW]` | [`crate::backfill`], with a progress bar, a checkpoint file and an exact report |
//! | `tail [--facet F] [--from oldest\|latest] [--checkpoint FILE] [--resume] [--max N] [--until-idle] [--json]` | the typed change stream ([`crate::stream`]), one line per change |
//! | `count [--facet F] [--segments N]` | stored items per facet |
//! | `export [--format F] [--out DIR] [--scope FIELD=TAG] [--region R] [--account A]` | every design format ([`crate::design`]), IAM policies among them |
//! | `seed FILE` | records from a JSON lines file, checked first, written with `put_many` |
//!
//! `--table` (or `FACETEER_TABLE`) names the table; `--endpoint` points at a local server,
//! else the standard AWS configuration is used. Exit codes: 0 done; 1 the table differs, a
//! change is not accepted, or records were not all written; 2 bad input; 3 a request
//! failed.
//!
//! [`Runner`] runs the same commands in a program or a test, on a [`Table`] of yours:
//!
//! ```
//! # use faceteer::Facet;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Task { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#TASK")] id: String }
//! # faceteer::table! { pub struct AppTable { Task } }
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let ran = faceteer::ops::Runner::<AppTable>::new()
//!     .capture(["table", "--table", "tasks", "export", "--format", "markdown"])
//!     .await;
//! assert_eq!(ran.code, 0);
//! assert!(ran.stdout.contains("#TEAM_{team}"));
//! # });
//! ```

mod backfill;
mod cli;
mod count;
mod create;
mod diff;
mod export;
mod seed;
mod tail;
mod verify;

use std::ffi::OsString;
use std::io::Write;
use std::marker::PhantomData;
use std::process::ExitCode;

use clap::ArgMatches;

use crate::erased::TableFacets;
use crate::table::Table;

/// Run the command line of table `S` from the process's arguments, on a new runtime.
pub fn main<S: TableFacets>() -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start a runtime: {e}");
            return ExitCode::from(3);
        }
    };
    let code = runtime.block_on(async {
        let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
        Runner::<S>::new()
            .run(std::env::args_os(), &mut out, &mut err)
            .await
    });
    ExitCode::from(code)
}

/// A command's outcome: what it printed and its exit code ([`Runner::capture`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// The exit code.
    pub code: u8,
    /// What it printed on standard output.
    pub stdout: String,
    /// What it printed on standard error.
    pub stderr: String,
}

/// The command line of table `S`, to run from a program or a test.
#[derive(Debug)]
pub struct Runner<S> {
    table: Option<Table>,
    schema: PhantomData<fn() -> S>,
}

impl<S: TableFacets> Default for Runner<S> {
    fn default() -> Self {
        Runner::new()
    }
}

/// Why a command stopped.
pub(crate) enum Stop {
    /// Bad input (exit 2).
    Input(String),
    /// A request failed (exit 3).
    Failed(String),
}

impl From<crate::error::Error> for Stop {
    fn from(e: crate::error::Error) -> Self {
        Stop::Failed(e.to_string())
    }
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        Stop::Failed(format!("writing the output: {e}"))
    }
}

/// What a command's implementation gets.
pub(crate) struct Ctx<'a> {
    pub args: &'a ArgMatches,
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    table: Option<Table>,
    globals: &'a ArgMatches,
}

impl Ctx<'_> {
    /// The table: the runner's, or one reached with `--endpoint` or the environment.
    pub async fn table<S: TableFacets>(&mut self) -> Result<Table, Stop> {
        if let Some(t) = &self.table {
            return Ok(t.clone());
        }
        let name = self.table_name().ok_or_else(|| {
            Stop::Input("name the table with --table NAME (or FACETEER_TABLE)".into())
        })?;
        let table = match self.globals.get_one::<String>("endpoint") {
            Some(endpoint) => {
                let client =
                    crate::setup::local_client(endpoint).map_err(|e| Stop::Input(e.to_string()))?;
                Table::declared::<S>(client, name).at_endpoint(Some(endpoint))
            }
            None => Table::from_env::<S>(name).await?,
        };
        self.table = Some(table.clone());
        Ok(table)
    }

    /// The table's name, when given.
    pub fn table_name(&self) -> Option<String> {
        self.table
            .as_ref()
            .map(|t| t.name().to_owned())
            .or_else(|| self.globals.get_one::<String>("table").cloned())
    }

    /// The lock file's path.
    pub fn lock_path(&self) -> std::path::PathBuf {
        self.globals
            .get_one::<std::path::PathBuf>("lock")
            .cloned()
            .unwrap_or_else(|| "design.lock.json".into())
    }

    /// The `--facet` filters, checked against `S`'s facets.
    pub fn facets<S: TableFacets>(&self) -> Result<Vec<&'static str>, Stop> {
        let known: Vec<&'static str> = S::FACETS.iter().map(|f| f.name).collect();
        let mut out = Vec::new();
        for name in self.args.get_many::<String>("facet").into_iter().flatten() {
            match known.iter().find(|k| **k == name.as_str()) {
                Some(k) => out.push(*k),
                None => {
                    return Err(Stop::Input(format!(
                        "no facet `{name}` in the table; its facets are {}",
                        known.join(", ")
                    )))
                }
            }
        }
        Ok(out)
    }
}

impl<S: TableFacets> Runner<S> {
    /// The command line of `S`, reaching the table named by `--table`.
    pub fn new() -> Self {
        Runner {
            table: None,
            schema: PhantomData,
        }
    }

    /// Run every command on `table` (tests, a client of your own).
    pub fn table(mut self, table: Table) -> Self {
        self.table = Some(table);
        self
    }

    /// Run the command line `args` (the program's name first), printing to `out` and `err`:
    /// the exit code.
    pub async fn run<I, T>(&self, args: I, out: &mut dyn Write, err: &mut dyn Write) -> u8
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let facets: Vec<&str> = S::FACETS.iter().map(|f| f.name).collect();
        let about = format!(
            "Operate the DynamoDB table of facets {} (faceteer)",
            facets.join(", ")
        );
        let matches = match cli::command("table", about).try_get_matches_from(args) {
            Ok(m) => m,
            Err(e) => {
                let code = if e.use_stderr() { 2 } else { 0 };
                let text = e.render().to_string();
                let _ = if code == 0 {
                    out.write_all(text.as_bytes())
                } else {
                    err.write_all(text.as_bytes())
                };
                return code;
            }
        };
        let Some((command, args)) = matches.subcommand() else {
            return 2;
        };
        let mut ctx = Ctx {
            args,
            out,
            err,
            table: self.table.clone(),
            globals: &matches,
        };
        // Each command's future is boxed: inline, the largest (a backfill's) would make every
        // command's future as large, and debug builds overflow small stacks.
        let result = match command {
            "create" => Box::pin(create::run::<S>(&mut ctx)).await,
            "verify" => Box::pin(verify::run::<S>(&mut ctx)).await,
            "diff" => Box::pin(diff::run::<S>(&mut ctx)).await,
            "lock" => diff::lock::<S>(&mut ctx),
            "backfill" => Box::pin(backfill::run::<S>(&mut ctx)).await,
            "tail" => Box::pin(tail::run::<S>(&mut ctx)).await,
            "count" => Box::pin(count::run::<S>(&mut ctx)).await,
            "export" => export::run::<S>(&mut ctx),
            "seed" => Box::pin(seed::run::<S>(&mut ctx)).await,
            other => Err(Stop::Input(format!("unknown command {other}"))),
        };
        match result {
            Ok(code) => code,
            Err(Stop::Input(why)) => {
                let _ = writeln!(ctx.err, "error: {why}");
                2
            }
            Err(Stop::Failed(why)) => {
                let _ = writeln!(ctx.err, "error: {why}");
                3
            }
        }
    }

    /// Run `args` and keep what it printed.
    pub async fn capture<I, T>(&self, args: I) -> Ran
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = self.run(args, &mut out, &mut err).await;
        Ran {
            code,
            stdout: String::from_utf8_lossy(&out).into_owned(),
            stderr: String::from_utf8_lossy(&err).into_owned(),
        }
    }
}

/// The text of the checkpoint file `path`, for a resume.
pub(crate) fn read_checkpoint(path: &std::path::Path) -> Result<String, Stop> {
    std::fs::read_to_string(path)
        .map(|t| t.trim().to_owned())
        .map_err(|e| Stop::Input(format!("reading {}: {e}", path.display())))
}

/// Write `text` to `path` whole: a temporary file, then renamed over it.
pub(crate) fn write_atomically(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}
