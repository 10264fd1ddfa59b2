//! The comparison: walk a lock and the code's design side by side, naming each part that
//! differs and judging it by the [rules](super::rules): the table's parts
//! ([`table_changes`](super::table_changes)), then each facet's
//! ([`facet_changes`](super::facet_changes)).

use super::facet_changes::facets;
use super::report::{change, LockReport};
use super::rules;
use super::table_changes::{names, settings, table_indexes, table_options, vectors};
use super::types::DesignLock;

/// Every difference between `before` (the committed lock) and `after` (the code's design,
/// [`DesignLock::of`]), each classified. `now_secs` (epoch seconds) tells a shard grow
/// period that begins later (safe) from one already begun (records are stored under the old
/// count).
pub fn compare(before: &DesignLock, after: &DesignLock, now_secs: i64) -> LockReport {
    let mut out = Vec::new();
    names(&before.names, &after.names, &mut out);
    table_indexes(&before.table, &after.table, &mut out);
    vectors(&before.table, &after.table, &mut out);
    table_options(&before.table, &after.table, &mut out);
    facets(before, after, now_secs, &mut out);
    settings(before.settings.as_ref(), after.settings.as_ref(), &mut out);
    if out.is_empty() && normalized(before) != normalized(after) {
        out.push(change(
            None,
            "design",
            None,
            None,
            vec![rules::review(
                "the lock differs from the code in a way no rule covers (a hand edit, or a \
                 lock written by another faceteer version); compare the files",
            )],
        ));
    }
    LockReport { changes: out }
}

/// The lock with the order of facets, of vector indexes and of the facets using each index
/// left out: the order `faceteer::table!` lists facets in changes nothing stored.
fn normalized(lock: &DesignLock) -> DesignLock {
    let mut lock = lock.clone();
    lock.format = 0;
    lock.facets.sort_by(|a, b| a.name.cmp(&b.name));
    for i in &mut lock.table.indexes {
        i.used_by.sort();
    }
    lock.table.vectors.sort_by(|a, b| a.index.cmp(&b.index));
    for v in &mut lock.table.vectors {
        v.used_by.sort();
    }
    lock
}
