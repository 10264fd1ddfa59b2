//! What the rules return: effects in plain words, built for the facet a rule judges
//! ([`Ctx`]).

use crate::lock::report::{Effect, IndexAction};

/// The reader the table's other programs are taken to be.
pub(crate) const TS: &str = "Faceteer-TS";

/// The facet a rule judges, and what the comparison knows of it.
pub(crate) struct Ctx<'a> {
    /// The facet's name.
    pub facet: &'a str,
    /// The code raised the facet's schema version: older records are read through the
    /// upgrade functions, and a backfill rewrites them.
    pub bumped: bool,
    /// The time of the comparison (epoch seconds): a grow period from later is future.
    pub now: i64,
}

impl Ctx<'_> {
    /// `a backfill of F (..) what`.
    pub fn backfill(&self, attributes: &[&str], what: &str) -> Effect {
        Effect::Backfill {
            facet: self.facet.to_owned(),
            attributes: attributes.iter().map(|a| (*a).to_owned()).collect(),
            how: format!(
                "{what}; run `Table::backfill::<F>()` with the type of {} (or \
                 `Table::backfill_table::<S>()`)",
                self.facet
            ),
        }
    }

    /// Records of the facet break.
    pub fn breaks(&self, records: &str, why: String, repair: &str) -> Effect {
        Effect::BreaksStored {
            facet: self.facet.to_owned(),
            records: records.to_owned(),
            why,
            repair: repair.to_owned(),
        }
    }

    /// Records of the facet stored before break because their keys moved; a backfill moves
    /// them.
    pub(crate) fn keys_moved(&self, why: String) -> Effect {
        self.breaks(
            "every record stored before the change",
            format!(
                "{why}, so get and query miss them and a put of the same record writes a \
                 second copy"
            ),
            &format!(
                "a backfill moves them to their new keys (`Table::backfill::<F>()` with the \
                 type of {}, or `Table::backfill_table::<S>()`); until it has run, reads miss \
                 them",
                self.facet
            ),
        )
    }
}

/// A safe change.
pub(crate) fn safe(note: impl Into<String>) -> Effect {
    Effect::Safe { note: note.into() }
}

/// Faceteer-TS must change too.
pub(crate) fn readers(why: impl Into<String>) -> Effect {
    Effect::BreaksReaders {
        reader: TS.to_owned(),
        why: why.into(),
    }
}

/// A change the checker cannot judge.
pub(crate) fn review(why: impl Into<String>) -> Effect {
    Effect::Review { why: why.into() }
}

/// An index to create, recreate, or a new table for.
pub(crate) fn index(name: &str, action: IndexAction) -> Effect {
    let how = match action {
        IndexAction::Create => format!(
            "`Table::create_missing_indexes()` creates {name} on the table; DynamoDB fills it \
             from the items that hold its keys"
        ),
        IndexAction::Recreate => format!(
            "DynamoDB does not change an index in place: delete {name} from the table, then \
             create it again (`Table::create_missing_indexes()`); queries of it fail meanwhile"
        ),
        IndexAction::NewTable => format!(
            "DynamoDB creates local indexes with the table only: {name} needs a new table, \
             the records copied to it"
        ),
    };
    Effect::Index {
        index: name.to_owned(),
        action,
        how,
    }
}
