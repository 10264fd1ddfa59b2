//! The merge of an all-shard query: pages read from every shard of a sharded partition,
//! merged into one page in sort-key order without ever returning a record out of order.
//!
//! Each shard is read separately (at most `limit` records each). A record may be returned
//! only when no unread record of any shard can sort before it: a shard with more records
//! unread bounds the page at its last record read. The merge is a pure function so that
//! its order and its resume positions are tested without a server.

use std::cmp::Ordering;

/// What one shard's request returned: the sort keys of its records, in the order read, and
/// whether more records follow them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardRead {
    /// The shard number (`0..count`).
    pub shard: usize,
    /// The sort keys of the records read, in read order.
    pub sort_keys: Vec<String>,
    /// More records follow the last one read.
    pub more: bool,
}

/// Where a shard stands once the merged page is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardProgress {
    /// Nothing of it was returned: it resumes where it stood.
    Unchanged,
    /// Every record of it was returned: it is finished.
    Done,
    /// It resumes after its record at this position (in [`ShardRead::sort_keys`]).
    After(usize),
}

/// The merged page: which records, in which order, and where each shard resumes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// `(index into the reads, position in that read)` of each record returned, in order.
    pub order: Vec<(usize, usize)>,
    /// For each read (same order as given), where its shard resumes.
    pub progress: Vec<ShardProgress>,
}

/// Merge the reads of every unfinished shard: records in sort-key order (descending when
/// `reverse`), ties broken by shard number then read position, at most `limit` of them,
/// and none after the first unread record of a shard that has more.
pub fn merge_shards(reads: &[ShardRead], reverse: bool, limit: Option<usize>) -> Merged {
    // (sort key, shard, read index, position): the merge order.
    type Entry<'a> = (&'a str, usize, usize, usize);
    let order = |a: &Entry, b: &Entry| -> Ordering {
        let by_key = if reverse { b.0.cmp(a.0) } else { a.0.cmp(b.0) };
        by_key.then(a.1.cmp(&b.1)).then(a.3.cmp(&b.3))
    };
    // A shard with more records unread bounds what may be returned now.
    let cutoff = reads
        .iter()
        .enumerate()
        .filter(|(_, r)| r.more && !r.sort_keys.is_empty())
        .map(|(i, r)| {
            let last = r.sort_keys.len() - 1;
            (r.sort_keys[last].as_str(), r.shard, i, last)
        })
        .min_by(|a, b| order(a, b));
    let mut merged: Vec<Entry> = reads
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            r.sort_keys
                .iter()
                .enumerate()
                .map(move |(pos, key)| (key.as_str(), r.shard, i, pos))
        })
        .filter(|e| cutoff.as_ref().is_none_or(|c| order(e, c).is_le()))
        .collect();
    merged.sort_by(order);
    if let Some(limit) = limit {
        merged.truncate(limit);
    }

    let mut taken = vec![0usize; reads.len()];
    for &(_, _, i, pos) in &merged {
        taken[i] = taken[i].max(pos + 1);
    }
    let progress = reads
        .iter()
        .zip(&taken)
        .map(|(r, &n)| {
            if n == r.sort_keys.len() && !r.more {
                ShardProgress::Done
            } else if n > 0 {
                ShardProgress::After(n - 1)
            } else {
                ShardProgress::Unchanged
            }
        })
        .collect();
    Merged {
        order: merged.into_iter().map(|(_, _, i, pos)| (i, pos)).collect(),
        progress,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(shard: usize, keys: &[&str], more: bool) -> ShardRead {
        ShardRead {
            shard,
            sort_keys: keys.iter().map(|k| k.to_string()).collect(),
            more,
        }
    }

    fn keys(reads: &[ShardRead], m: &Merged) -> Vec<String> {
        m.order
            .iter()
            .map(|&(i, p)| reads[i].sort_keys[p].clone())
            .collect()
    }

    #[test]
    fn finished_shards_merge_completely_in_order() {
        let reads = [
            read(0, &["a", "d"], false),
            read(1, &["b", "c", "e"], false),
        ];
        let m = merge_shards(&reads, false, None);
        assert_eq!(keys(&reads, &m), ["a", "b", "c", "d", "e"]);
        assert_eq!(m.progress, [ShardProgress::Done, ShardProgress::Done]);
    }

    #[test]
    fn a_shard_with_more_bounds_the_page() {
        // Shard 0 has more after "c": "d" (shard 1) cannot be returned yet, since shard 0's
        // next record might be "c5".
        let reads = [read(0, &["a", "c"], true), read(1, &["b", "d"], false)];
        let m = merge_shards(&reads, false, None);
        assert_eq!(keys(&reads, &m), ["a", "b", "c"]);
        assert_eq!(
            m.progress,
            [ShardProgress::After(1), ShardProgress::After(0)]
        );
    }

    #[test]
    fn limit_cuts_and_positions_follow() {
        let reads = [read(0, &["a", "c"], false), read(1, &["b", "d"], false)];
        let m = merge_shards(&reads, false, Some(3));
        assert_eq!(keys(&reads, &m), ["a", "b", "c"]);
        assert_eq!(m.progress, [ShardProgress::Done, ShardProgress::After(0)]);
    }

    #[test]
    fn reverse_merges_descending() {
        let reads = [read(2, &["d", "a"], false), read(5, &["c", "b"], true)];
        let m = merge_shards(&reads, true, None);
        // Shard 5 has more after "b": nothing below "b" yet.
        assert_eq!(keys(&reads, &m), ["d", "c", "b"]);
        assert_eq!(
            m.progress,
            [ShardProgress::After(0), ShardProgress::After(1)]
        );
    }

    #[test]
    fn equal_sort_keys_break_ties_by_shard() {
        let reads = [read(3, &["x"], false), read(1, &["x"], false)];
        let m = merge_shards(&reads, false, Some(1));
        assert_eq!(m.order, [(1, 0)]);
        assert_eq!(m.progress, [ShardProgress::Unchanged, ShardProgress::Done]);
    }

    #[test]
    fn empty_reads_are_done_or_unchanged() {
        let reads = [read(0, &[], false), read(1, &[], true)];
        let m = merge_shards(&reads, false, Some(10));
        assert!(m.order.is_empty());
        assert_eq!(m.progress, [ShardProgress::Done, ShardProgress::Unchanged]);
    }
}
