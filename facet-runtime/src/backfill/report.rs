//! What a backfill did: counts as it goes ([`Progress`]) and the final [`Report`].

use std::collections::BTreeMap;
use std::fmt;

use faceteer_core::redact::KeyText;
use faceteer_core::ItemError;

use super::checkpoint::Checkpoint;
use crate::error::Error;

/// Counts of one facet's items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FacetCounts {
    /// Items rewritten (in a dry run: that would be).
    pub rewritten: u64,
    /// Items already as a put of their record writes them.
    pub already_right: u64,
    /// For each attribute, how many rewrites change it (set, change or remove it).
    pub attributes: BTreeMap<String, u64>,
}

/// The counts of a backfill so far, given to the progress callback after every page.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Items read.
    pub scanned: u64,
    /// Items rewritten (in a dry run: that would be).
    pub rewritten: u64,
    /// Items already right.
    pub already_right: u64,
    /// Items of facets the backfill does not cover (guard items among them).
    pub skipped: u64,
    /// Items that could not be brought to the design (see [`Report::failed`]).
    pub failed: u64,
    /// Rewrites whose outcome is unknown (see [`Report::unknown`]).
    pub unknown: u64,
    /// Items deleted by another writer between the read and the rewrite.
    pub deleted_meanwhile: u64,
    /// Rewrites read again because another writer changed the item first.
    pub retried: u64,
    /// Capacity units consumed (reported by DynamoDB, else estimated from item sizes).
    pub capacity: f64,
    /// Where the backfill stands: resume from here.
    pub checkpoint: Checkpoint,
}

impl Progress {
    pub(crate) fn new(checkpoint: Checkpoint) -> Progress {
        Progress {
            scanned: 0,
            rewritten: 0,
            already_right: 0,
            skipped: 0,
            failed: 0,
            unknown: 0,
            deleted_meanwhile: 0,
            retried: 0,
            capacity: 0.0,
            checkpoint,
        }
    }

    /// Items settled: rewritten, already right, skipped, failed, unknown or deleted meanwhile.
    pub fn settled(&self) -> u64 {
        self.rewritten
            + self.already_right
            + self.skipped
            + self.failed
            + self.unknown
            + self.deleted_meanwhile
    }
}

/// Why an item could not be brought to the declared design.
#[derive(Debug)]
#[non_exhaustive]
pub enum Why {
    /// The item does not read as a record of its facet (wrong shape, failed validator,
    /// a schema version with no upgrade): it was left as it is.
    Unreadable(ItemError),
    /// The record's key changes, and an item already exists under the new one: both were
    /// left as they are.
    KeyTaken {
        /// The new partition key.
        pk: KeyText,
        /// The new sort key.
        sk: KeyText,
    },
    /// The record's key changes, and its facet has `#[unique]` fields whose guards name the
    /// old key: move it with `table.move_to`, which moves the guards.
    UniqueKeyMove,
    /// The record holds a `#[unique]` value another record owns (written before the field
    /// was unique, or by a writer that takes no guards): it was left as it is, without the
    /// value's guard. Change one of the two records' values.
    UniqueTaken {
        /// The unique field.
        field: &'static str,
        /// The value, as text.
        value: String,
        /// The owner's partition key.
        owner_pk: KeyText,
        /// The owner's sort key.
        owner_sk: KeyText,
    },
    /// DynamoDB refused the rewrite.
    Refused(Error),
    /// The function of a [`Table::backfill_with`](crate::Table::backfill_with) refused the
    /// record (its error, as text): it was left as it is.
    Transform(String),
    /// Other writers changed the item before every one of this many rewrites.
    Contended {
        /// Rewrites tried.
        attempts: u32,
    },
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Unreadable(e) => write!(f, "{e}"),
            Why::KeyTaken { pk, sk } => write!(
                f,
                "its new key (PK {pk:?}, SK {sk:?}) already holds an item; both were left as \
                 they are"
            ),
            Why::UniqueKeyMove => f.write_str(
                "its key changes and its facet has unique fields: move it with `move_to`",
            ),
            Why::UniqueTaken {
                field,
                value,
                owner_pk,
                owner_sk,
            } => write!(
                f,
                "its `{field}` = {value:?} is unique, and the record (PK {owner_pk:?}, SK \
                 {owner_sk:?}) owns it: it was left without the value's guard; change one of \
                 the two values"
            ),
            Why::Refused(e) => write!(f, "{e}"),
            Why::Transform(e) => write!(f, "the backfill's function refused it: {e}"),
            Why::Contended { attempts } => write!(
                f,
                "other writers changed it before each of {attempts} rewrites"
            ),
        }
    }
}

/// An item the backfill could not bring to the design.
#[derive(Debug)]
pub struct Failure {
    /// The facet the item names (empty when it names none).
    pub facet: String,
    /// Its partition key.
    pub pk: KeyText,
    /// Its sort key.
    pub sk: KeyText,
    /// Why.
    pub why: Why,
}

/// A rewrite whose answer was lost, and no later try could tell whether it was applied.
#[derive(Debug)]
pub struct Unknown {
    /// The facet.
    pub facet: String,
    /// The item's partition key.
    pub pk: KeyText,
    /// Its sort key.
    pub sk: KeyText,
    /// The error ([`Error::OutcomeUnknown`]).
    pub error: Error,
}

/// What a backfill did, item by item accounted for: every item read is rewritten, already
/// right, skipped, failed, unknown or was deleted meanwhile.
#[derive(Debug)]
pub struct Report {
    /// Whether it was a dry run (nothing written; `rewritten` counts what would be).
    pub dry_run: bool,
    /// The totals.
    pub totals: Progress,
    /// Per facet rewritten (or that would be), with the attributes changed.
    pub facets: BTreeMap<String, FacetCounts>,
    /// Items skipped, by the facet they name (`""`: none).
    pub skipped: BTreeMap<String, u64>,
    /// Items that could not be brought to the design, with why.
    pub failed: Vec<Failure>,
    /// Rewrites whose outcome is unknown: read these items to find out.
    pub unknown: Vec<Unknown>,
}

impl Report {
    /// Whether every item of the covered facets is now as a put of its record writes it
    /// (nothing failed, nothing unknown).
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty() && self.unknown.is_empty() && self.totals.checkpoint.is_done()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.totals;
        writeln!(
            f,
            "{} items read: {} {}, {} already right, {} skipped, {} failed, {} unknown, {} \
             deleted meanwhile ({} read again after a concurrent write; {:.1} capacity units)",
            t.scanned,
            t.rewritten,
            if self.dry_run {
                "to rewrite"
            } else {
                "rewritten"
            },
            t.already_right,
            t.skipped,
            t.failed,
            t.unknown,
            t.deleted_meanwhile,
            t.retried,
            t.capacity
        )?;
        for (facet, counts) in &self.facets {
            write!(
                f,
                "  {facet}: {} {}, {} already right",
                counts.rewritten,
                if self.dry_run {
                    "to rewrite"
                } else {
                    "rewritten"
                },
                counts.already_right
            )?;
            if !counts.attributes.is_empty() {
                let attributes: Vec<String> = counts
                    .attributes
                    .iter()
                    .map(|(a, n)| format!("{a} {n}"))
                    .collect();
                write!(f, " ({})", attributes.join(", "))?;
            }
            writeln!(f)?;
        }
        for failure in &self.failed {
            writeln!(
                f,
                "  failed: {} (PK {:?}, SK {:?}): {}",
                failure.facet, failure.pk, failure.sk, failure.why
            )?;
        }
        for unknown in &self.unknown {
            writeln!(f, "  unknown: {}", unknown.error)?;
        }
        Ok(())
    }
}
