//! Statements granting actions on the partitions of an area (the table, an index): all of
//! them for a role, one facet's for an access pattern; conditioned on
//! `dynamodb:LeadingKeys` when the area is guarded.

use super::document::{Condition, Resource, Statement};
use super::reach::{Area, Entry, Reach};

/// The `dynamodb:LeadingKeys` condition naming `entries`' partitions: their patterns, and
/// each tag a scoped pattern names with its facet's delimiter.
fn leading(entries: &[&Entry]) -> Condition {
    let mut globs = Vec::new();
    let mut tags: Vec<(String, &'static str)> = Vec::new();
    for entry in entries {
        let Some(found) = entry.reach.globs() else {
            continue;
        };
        for glob in found {
            if let Reach::Scoped(_) = entry.reach {
                for tag in glob.tags() {
                    let pair = (tag.to_owned(), entry.delimiter);
                    if !tags.contains(&pair) {
                        tags.push(pair);
                    }
                }
            }
            if !globs.contains(glob) {
                globs.push(glob.clone());
            }
        }
    }
    Condition::Leading { globs, tags }
}

/// The resource in a note: `the table`, `index `GSI1``.
fn named(resource: &Resource) -> String {
    match resource {
        Resource::Table => "the table".to_owned(),
        other => other.describe(""),
    }
}

/// A statement allowing `actions` on every partition of `area` a scoped role may reach:
/// unconditioned when the area is not guarded; else naming the scoped and open entries'
/// partitions, the others left out with a note in `notes`. `None` when nothing is left.
pub(crate) fn area_grant(
    area: &Area,
    actions: &[&'static str],
    sid: &str,
    notes: &mut Vec<String>,
) -> Option<Statement> {
    let statement = Statement::allow(sid, actions, vec![area.resource]);
    if !area.guarded {
        return Some(statement);
    }
    let mut kept = Vec::new();
    for entry in &area.entries {
        match &entry.reach {
            Reach::Scoped(_) | Reach::Open(Some(_)) => kept.push(entry),
            Reach::Open(None) => notes.push(format!(
                "{} is left out: facet {}'s partitions there are multi-attribute keys, which \
                 dynamodb:LeadingKeys cannot name, and it holds scoped records",
                named(&area.resource),
                entry.facet
            )),
            Reach::Unscoped(_) => notes.push(format!(
                "facet {}'s partitions of {} are left out: no scope field keys them, so \
                 reading them reaches every scope's records (its access-pattern policy \
                 grants them)",
                entry.facet,
                named(&area.resource)
            )),
        }
    }
    (!kept.is_empty()).then(|| statement.when(leading(&kept)))
}

/// A statement allowing `actions` on facet `facet`'s partitions of `area`: unconditioned
/// when the area is not guarded, else naming them (scoped or not, with a note in `notes`
/// when they are not scoped).
pub(crate) fn facet_grant(
    area: &Area,
    facet: &str,
    actions: &[&'static str],
    sid: &str,
    notes: &mut Vec<String>,
) -> Statement {
    let statement = Statement::allow(sid, actions, vec![area.resource]);
    let Some(entry) = area.entry(facet) else {
        return statement;
    };
    if !area.guarded {
        return statement;
    }
    match &entry.reach {
        Reach::Scoped(_) | Reach::Open(Some(_)) => statement.when(leading(&[entry])),
        Reach::Unscoped(Some(_)) => {
            notes.push(format!(
                "not scoped: no scope field keys facet {facet}'s partitions of {}, so this \
                 reaches every scope's records",
                named(&area.resource)
            ));
            statement.when(leading(&[entry]))
        }
        Reach::Open(None) | Reach::Unscoped(None) => {
            notes.push(format!(
                "not scoped: {} has multi-attribute keys, which dynamodb:LeadingKeys cannot \
                 name, so this reaches every record of it",
                named(&area.resource)
            ));
            statement
        }
    }
}
