//! The merge of a multi-source search: the same logical query read from several sources
//! (indexes, and every shard of each), merged into one order with each record once.
//!
//! Every source returns its records sorted by the same order text (the sort-key value after
//! the key's prefix). A record may be returned only when no unread record of any source can
//! sort before it, as in the all-shard merge ([`crate::merge`]). A record read from several
//! sources (it is in several indexes) is returned once: duplicates have the same order text,
//! so they meet at the same point of the merge; those still unread when a page ends are
//! recognised on the next page by the cursor's *boundary* (the keys returned at the last
//! order text).
//!
//! The merge is a pure function so that its order, deduplication and resume positions are
//! tested without a server.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::merge::ShardProgress;

/// A record's primary key: (`PK`, `SK`).
pub type PrimaryKey = (String, String);

/// What one source's request returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRead {
    /// The order text and primary key of each record read, in read order.
    pub records: Vec<(String, PrimaryKey)>,
    /// More records follow the last one read.
    pub more: bool,
}

/// The records returned at the last order text of a page: a later page skips them when
/// another source returns them again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Boundary {
    /// The order text of the last record returned.
    pub order: String,
    /// The keys returned with that order text.
    pub keys: Vec<PrimaryKey>,
}

/// Why reads cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// One record came from two sources with different order texts: the sources are not
    /// sorted the same way (their sort keys are built from different fields or encodings).
    #[error(
        "the record (PK {pk:?}, SK {sk:?}) sorts as {first:?} in one source and {second:?} in \
         another: the sources' sort keys do not order records the same way"
    )]
    Inconsistent {
        /// Its partition key.
        pk: String,
        /// Its sort key.
        sk: String,
        /// Its order text in the source read first.
        first: String,
        /// Its order text in the other source.
        second: String,
    },
}

/// One round of the merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchMerge {
    /// `(source, position)` of each record returned, in order.
    pub order: Vec<(usize, usize)>,
    /// For each source, where it resumes.
    pub progress: Vec<ShardProgress>,
}

/// Merge the reads of every unfinished source (`reads[i]` is source `i`, `None` when it is
/// finished): records in order-text order (descending when `reverse`), ties broken by source
/// then position, each key once, at most `limit`, none after the first unread record of a
/// source that has more. `seen` holds the keys already returned with their order text (the
/// previous page's boundary, then this page's records); it is updated.
pub fn merge_sources(
    reads: &[Option<SourceRead>],
    reverse: bool,
    limit: usize,
    seen: &mut HashMap<PrimaryKey, String>,
) -> Result<SearchMerge, SearchError> {
    type Entry<'a> = (&'a str, usize, usize);
    let order = |a: &Entry, b: &Entry| -> Ordering {
        let by_text = if reverse { b.0.cmp(a.0) } else { a.0.cmp(b.0) };
        by_text.then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
    };
    let cutoff = reads
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().map(|r| (i, r)))
        .filter(|(_, r)| r.more && !r.records.is_empty())
        .map(|(i, r)| {
            let last = r.records.len() - 1;
            (r.records[last].0.as_str(), i, last)
        })
        .min_by(|a, b| order(a, b));
    let mut entries: Vec<Entry> = reads
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().map(|r| (i, r)))
        .flat_map(|(i, r)| {
            r.records
                .iter()
                .enumerate()
                .map(move |(pos, (text, _))| (text.as_str(), i, pos))
        })
        .filter(|e| cutoff.as_ref().is_none_or(|c| order(e, c).is_le()))
        .collect();
    entries.sort_by(order);

    let mut consumed = vec![0usize; reads.len()];
    let mut out = Vec::new();
    for (text, source, pos) in entries {
        let key = &reads[source]
            .as_ref()
            .expect("entries of read sources")
            .records[pos]
            .1;
        if let Some(first) = seen.get(key) {
            if first != text {
                return Err(SearchError::Inconsistent {
                    pk: key.0.clone(),
                    sk: key.1.clone(),
                    first: first.clone(),
                    second: text.to_owned(),
                });
            }
            consumed[source] = pos + 1;
            continue;
        }
        if out.len() == limit {
            break;
        }
        seen.insert(key.clone(), text.to_owned());
        out.push((source, pos));
        consumed[source] = pos + 1;
    }
    let progress = reads
        .iter()
        .zip(&consumed)
        .map(|(r, &n)| match r {
            None => ShardProgress::Done,
            Some(r) if n == r.records.len() && !r.more => ShardProgress::Done,
            Some(_) if n > 0 => ShardProgress::After(n - 1),
            Some(_) => ShardProgress::Unchanged,
        })
        .collect();
    Ok(SearchMerge {
        order: out,
        progress,
    })
}

/// The boundary after a page: the keys in `seen` whose order text is the last returned one
/// (`last`), or `previous` when the page returned nothing.
pub fn boundary_after(
    seen: &HashMap<PrimaryKey, String>,
    last: Option<&str>,
    previous: Boundary,
) -> Boundary {
    let Some(last) = last else {
        return previous;
    };
    let mut keys: Vec<PrimaryKey> = seen
        .iter()
        .filter(|(_, text)| text.as_str() == last)
        .map(|(k, _)| k.clone())
        .collect();
    keys.sort();
    Boundary {
        order: last.to_owned(),
        keys,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(records: &[(&str, &str)], more: bool) -> Option<SourceRead> {
        Some(SourceRead {
            records: records
                .iter()
                .map(|(text, sk)| (text.to_string(), ("p".to_string(), sk.to_string())))
                .collect(),
            more,
        })
    }

    fn sks(reads: &[Option<SourceRead>], m: &SearchMerge) -> Vec<String> {
        m.order
            .iter()
            .map(|&(s, p)| reads[s].as_ref().unwrap().records[p].1 .1.clone())
            .collect()
    }

    #[test]
    fn duplicates_are_returned_once_and_consumed_everywhere() {
        // "b" is in both sources.
        let reads = [
            read(&[("1", "a"), ("2", "b")], false),
            read(&[("2", "b"), ("3", "c")], false),
        ];
        let mut seen = HashMap::new();
        let m = merge_sources(&reads, false, 10, &mut seen).unwrap();
        assert_eq!(sks(&reads, &m), ["a", "b", "c"]);
        assert_eq!(m.progress, [ShardProgress::Done, ShardProgress::Done]);
    }

    #[test]
    fn the_limit_counts_distinct_records_and_the_boundary_carries_over() {
        let reads = [
            read(&[("1", "a"), ("2", "b")], false),
            read(&[("2", "b"), ("3", "c")], false),
        ];
        let mut seen = HashMap::new();
        let m = merge_sources(&reads, false, 2, &mut seen).unwrap();
        assert_eq!(sks(&reads, &m), ["a", "b"]);
        // Source 1's "b" was consumed as a duplicate; "c" is next.
        assert_eq!(m.progress, [ShardProgress::Done, ShardProgress::After(0)]);
        let boundary = boundary_after(&seen, Some("2"), Boundary::default());
        assert_eq!(boundary.keys, [("p".to_string(), "b".to_string())]);
    }

    #[test]
    fn a_duplicate_beyond_a_source_read_window_is_skipped_through_the_boundary() {
        // Page 1: source 1 read only "x" (more follow) and the page stops at "b" (order 2).
        let reads = [
            read(&[("1", "a"), ("2", "b")], false),
            read(&[("2", "x")], true),
        ];
        let mut seen = HashMap::new();
        let m = merge_sources(&reads, false, 2, &mut seen).unwrap();
        assert_eq!(sks(&reads, &m), ["a", "b"]);
        let boundary = boundary_after(&seen, Some("2"), Boundary::default());
        // Page 2: source 1 resumes with "x" (order 2) then "b" again.
        let mut seen: HashMap<PrimaryKey, String> = boundary
            .keys
            .iter()
            .map(|k| (k.clone(), boundary.order.clone()))
            .collect();
        let reads = [None, read(&[("2", "x"), ("2", "b"), ("4", "d")], false)];
        let m = merge_sources(&reads, false, 10, &mut seen).unwrap();
        assert_eq!(sks(&reads, &m), ["x", "d"]);
    }

    #[test]
    fn a_source_with_more_bounds_the_round() {
        let reads = [
            read(&[("1", "a"), ("3", "c")], true),
            read(&[("2", "b"), ("4", "d")], false),
        ];
        let mut seen = HashMap::new();
        let m = merge_sources(&reads, false, 10, &mut seen).unwrap();
        assert_eq!(sks(&reads, &m), ["a", "b", "c"]);
        assert_eq!(
            m.progress,
            [ShardProgress::After(1), ShardProgress::After(0)]
        );
    }

    #[test]
    fn reverse_merges_descending() {
        let reads = [
            read(&[("3", "c"), ("1", "a")], false),
            read(&[("2", "b")], false),
        ];
        let mut seen = HashMap::new();
        let m = merge_sources(&reads, true, 10, &mut seen).unwrap();
        assert_eq!(sks(&reads, &m), ["c", "b", "a"]);
    }

    #[test]
    fn sources_ordering_one_record_differently_are_an_error() {
        let reads = [read(&[("1", "a")], false), read(&[("9", "a")], false)];
        let mut seen = HashMap::new();
        assert!(matches!(
            merge_sources(&reads, false, 10, &mut seen),
            Err(SearchError::Inconsistent { .. })
        ));
    }
}
