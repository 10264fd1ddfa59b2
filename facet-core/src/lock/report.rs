//! The outcome of a comparison: each [`Change`] with its [`Effect`]s, classified
//! ([`Class`]), and the [`LockReport`] printing them in plain words, grouped by class.

use std::fmt;

/// What a change needs or breaks, least to most serious. A change's class is that of its
/// most serious effect ([`Change::class`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Nothing to do for stored records or other readers.
    Safe,
    /// Stored records must be rewritten by a backfill.
    NeedsBackfill,
    /// The table's indexes must change.
    NeedsIndex,
    /// Other readers and writers of the table (Faceteer for TypeScript) must change too.
    BreaksReaders,
    /// Records stored before the change are no longer read or written as they were.
    BreaksStored,
    /// The checker cannot judge the change: a person must.
    Review,
}

impl Class {
    /// Every class, most serious first: the order of a report's groups.
    pub const ALL: [Class; 6] = [
        Class::Review,
        Class::BreaksStored,
        Class::BreaksReaders,
        Class::NeedsIndex,
        Class::NeedsBackfill,
        Class::Safe,
    ];

    /// The class in a few words: `breaks stored records`.
    pub const fn label(self) -> &'static str {
        match self {
            Class::Safe => "safe",
            Class::NeedsBackfill => "needs a backfill",
            Class::NeedsIndex => "needs an index change",
            Class::BreaksReaders => "breaks other readers",
            Class::BreaksStored => "breaks stored records",
            Class::Review => "needs review (not classified)",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// What to do to the table for an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexAction {
    /// Create it on the table that exists (`Table::create_missing_indexes`).
    Create,
    /// Delete it and create it again: DynamoDB does not change an index's keys or
    /// projection in place.
    Recreate,
    /// Create a new table: DynamoDB adds or changes local indexes only with the table.
    NewTable,
}

/// One consequence of a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Nothing to do but, perhaps, what the note says.
    Safe {
        /// Why it is safe, or what to do at leisure.
        note: String,
    },
    /// Stored records of a facet must be rewritten.
    Backfill {
        /// The facet.
        facet: String,
        /// The attributes the backfill writes or removes (empty: the records as a whole).
        attributes: Vec<String>,
        /// What the backfill does and how to run it.
        how: String,
    },
    /// An index of the table must be created or replaced.
    Index {
        /// The index.
        index: String,
        /// Create, recreate, or a new table.
        action: IndexAction,
        /// How.
        how: String,
    },
    /// Records stored before the change are no longer read or written as they were.
    BreaksStored {
        /// The facet whose records break (`every facet` for the table's names).
        facet: String,
        /// Which records.
        records: String,
        /// Why they break.
        why: String,
        /// How to repair them, or to avoid breaking them.
        repair: String,
    },
    /// Another reader or writer of the table must change with the code.
    BreaksReaders {
        /// The reader (`Faceteer-TS`).
        reader: String,
        /// What it must change.
        why: String,
    },
    /// The checker cannot judge the change.
    Review {
        /// What to check.
        why: String,
    },
}

impl Effect {
    /// The effect's class.
    pub fn class(&self) -> Class {
        match self {
            Effect::Safe { .. } => Class::Safe,
            Effect::Backfill { .. } => Class::NeedsBackfill,
            Effect::Index { .. } => Class::NeedsIndex,
            Effect::BreaksReaders { .. } => Class::BreaksReaders,
            Effect::BreaksStored { .. } => Class::BreaksStored,
            Effect::Review { .. } => Class::Review,
        }
    }

    /// Whether the effect makes a change breaking: it breaks stored records or other
    /// readers, needs review, or replaces an index (recreating it, or a new table).
    pub fn is_breaking(&self) -> bool {
        match self {
            Effect::Safe { .. } | Effect::Backfill { .. } => false,
            Effect::Index { action, .. } => *action != IndexAction::Create,
            Effect::BreaksStored { .. } | Effect::BreaksReaders { .. } | Effect::Review { .. } => {
                true
            }
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Effect::Safe { note } => write!(f, "safe: {note}"),
            Effect::Backfill {
                facet,
                attributes,
                how,
            } => {
                write!(f, "backfill {facet}")?;
                if !attributes.is_empty() {
                    write!(f, " ({})", attributes.join(", "))?;
                }
                write!(f, ": {how}")
            }
            Effect::Index { index, action, how } => {
                let what = match action {
                    IndexAction::Create => "create index",
                    IndexAction::Recreate => "recreate index",
                    IndexAction::NewTable => "new table for index",
                };
                write!(f, "{what} {index}: {how}")
            }
            Effect::BreaksStored {
                facet,
                records,
                why,
                repair,
            } => write!(
                f,
                "breaks stored records of {facet}: {records}: {why}. Repair: {repair}"
            ),
            Effect::BreaksReaders { reader, why } => {
                write!(f, "breaks other readers ({reader}): {why}")
            }
            Effect::Review { why } => write!(f, "review: {why}"),
        }
    }
}

/// One difference between the lock and the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The facet changed (`None`: the table).
    pub facet: Option<String>,
    /// What changed: `partition key`, `field dueDate`, `index GSI2`, `names.pk`, ….
    pub subject: String,
    /// What the lock says (`None`: absent).
    pub before: Option<String>,
    /// What the code says (`None`: absent).
    pub after: Option<String>,
    /// What the change needs or breaks.
    pub effects: Vec<Effect>,
    /// A likely reading of the change (a renamed field or facet), when there is one.
    pub hint: Option<String>,
}

impl Change {
    /// The class of the change's most serious effect (`Review` for a change without
    /// effects).
    pub fn class(&self) -> Class {
        self.effects
            .iter()
            .map(Effect::class)
            .max()
            .unwrap_or(Class::Review)
    }

    /// Whether one of the change's effects is breaking ([`Effect::is_breaking`]).
    pub fn is_breaking(&self) -> bool {
        self.effects.is_empty() || self.effects.iter().any(Effect::is_breaking)
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(facet) = &self.facet {
            write!(f, "{facet}: ")?;
        }
        f.write_str(&self.subject)?;
        match (&self.before, &self.after) {
            (Some(b), Some(a)) => write!(f, ": {b} → {a}")?,
            (None, Some(a)) => write!(f, ": added ({a})")?,
            (Some(b), None) => write!(f, ": removed (was {b})")?,
            (None, None) => {}
        }
        for effect in &self.effects {
            write!(f, "\n    - {effect}")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n    hint: {hint}")?;
        }
        Ok(())
    }
}

/// Every difference between a design lock and the code, classified
/// ([`compare`](super::compare)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LockReport {
    /// The changes: the table's first, then each facet's.
    pub changes: Vec<Change>,
}

impl LockReport {
    /// Whether the code matches the lock: no change at all.
    pub fn is_clean(&self) -> bool {
        self.changes.is_empty()
    }

    /// The breaking changes ([`Change::is_breaking`]).
    pub fn breaking(&self) -> Vec<&Change> {
        self.changes.iter().filter(|c| c.is_breaking()).collect()
    }

    /// Whether some change is breaking.
    pub fn is_breaking(&self) -> bool {
        self.changes.iter().any(Change::is_breaking)
    }

    /// The changes of class `class`.
    pub fn of_class(&self, class: Class) -> Vec<&Change> {
        self.changes.iter().filter(|c| c.class() == class).collect()
    }

    /// The most serious class of the report (`None` when it is clean).
    pub fn class(&self) -> Option<Class> {
        self.changes.iter().map(Change::class).max()
    }

    /// The report for a table no other program reads or writes: each
    /// [`Effect::BreaksReaders`] becomes a [`Effect::Safe`] note.
    pub fn without_other_readers(mut self) -> LockReport {
        for change in &mut self.changes {
            for effect in &mut change.effects {
                if let Effect::BreaksReaders { reader, why } = effect {
                    *effect = Effect::Safe {
                        note: format!("no other reader ({reader} would need: {why})"),
                    };
                }
            }
        }
        self
    }
}

impl fmt::Display for LockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_clean() {
            return f.write_str("the design matches the lock: no change\n");
        }
        let n = self.changes.len();
        let counts: Vec<String> = Class::ALL
            .iter()
            .filter_map(|class| {
                let k = self.of_class(*class).len();
                (k > 0).then(|| format!("{k} {class}"))
            })
            .collect();
        let s = if n == 1 { "" } else { "s" };
        writeln!(
            f,
            "{n} change{s} to the design since the lock ({}):",
            counts.join(", ")
        )?;
        for class in Class::ALL {
            let changes = self.of_class(class);
            if changes.is_empty() {
                continue;
            }
            let label = class.label();
            let mut title = label.chars();
            let first = title.next().map(|c| c.to_ascii_uppercase());
            writeln!(f, "\n{}{}:", first.unwrap_or(' '), title.as_str())?;
            for change in changes {
                writeln!(f, "  {change}")?;
            }
        }
        Ok(())
    }
}

/// A change of `facet` (or the table).
pub(super) fn change(
    facet: Option<&str>,
    subject: &str,
    before: Option<String>,
    after: Option<String>,
    effects: Vec<Effect>,
) -> Change {
    Change {
        facet: facet.map(str::to_owned),
        subject: subject.to_owned(),
        before,
        after,
        effects,
        hint: None,
    }
}
