//! Scans of one facet: the request plan (`Scan` with the facet filter), and how a page takes
//! records from the segments of a parallel scan.

use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use aws_sdk_dynamodb::operation::scan::ScanInput;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::cursor::CursorError;
use crate::item::Item;
use crate::limits::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
use crate::merge::ShardProgress;
use crate::plan::{render_projection, RenderedCondition};
use crate::schema::{FACET_ATTRIBUTE, PK, SK};

/// A planned Scan request of one facet's records.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanPlan {
    /// The facets scanned: only items whose `facet` attribute names one of them are returned.
    pub facets: Vec<&'static str>,
    /// The index scanned (`None`: the table).
    pub index: Option<&'static str>,
    /// The index's key attributes (the table's keys excepted), each with its type and the
    /// most bytes a value of it holds: `GSInPK`/`GSInSK` strings, or a native index's
    /// record attributes.
    pub index_keys: Vec<(crate::schema::KeyAttribute, usize)>,
    /// `(segment, total)` of a parallel scan.
    pub segment: Option<(u32, u32)>,
    /// Items to evaluate (DynamoDB's `Limit`, counted before the filter).
    pub limit: Option<u32>,
    /// Where to continue.
    pub exclusive_start_key: Option<Item>,
    /// Strongly consistent read.
    pub consistent_read: bool,
    /// The caller's filter, if any.
    pub filter: Option<RenderedCondition>,
    /// The attributes to read (`None`: whole items).
    pub projection: Option<Vec<&'static str>>,
}

impl ScanPlan {
    /// Render as the SDK's `ScanInput` builder for `table`: the filter is `facet = :facet`,
    /// and the caller's filter with `AND`.
    pub fn request(&self, table: &str) -> ScanInputBuilder {
        let (mut p, user) = match &self.filter {
            Some(f) => (f.placeholders.clone(), Some(f.expression.clone())),
            None => (Default::default(), None),
        };
        let name = p.name(FACET_ATTRIBUTE);
        let values: Vec<String> = self
            .facets
            .iter()
            .map(|f| p.value(AttributeValue::S((*f).to_owned())))
            .collect();
        let facet = match values.as_slice() {
            [one] => format!("{name} = {one}"),
            many => format!("{name} IN ({})", many.join(", ")),
        };
        let filter = match user {
            Some(user) => format!("({facet}) AND ({user})"),
            None => facet,
        };
        let projection = render_projection(self.projection.as_deref(), &mut p);
        let (names, values) = p.into_parts();
        ScanInput::builder()
            .table_name(table)
            .set_index_name(self.index.map(str::to_owned))
            .filter_expression(filter)
            .set_projection_expression(projection)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .set_limit(self.limit.map(|l| l.min(i32::MAX as u32) as i32))
            .set_segment(self.segment.map(|(s, _)| s as i32))
            .set_total_segments(self.segment.map(|(_, t)| t as i32))
            .set_exclusive_start_key(self.exclusive_start_key.clone())
            .set_consistent_read(self.consistent_read.then_some(true))
    }

    /// Check a start key taken from a cursor: exactly `PK`, `SK` and the index's key
    /// attributes, each of its type (strings and binary non-empty, within DynamoDB's key
    /// lengths; numbers numbers).
    pub fn check_start_key(&self, key: &Item) -> Result<(), CursorError> {
        use crate::schema::KeyAttribute;
        let base = [
            (KeyAttribute::text(PK), MAX_PARTITION_KEY_BYTES),
            (KeyAttribute::text(SK), MAX_SORT_KEY_BYTES),
        ];
        for (k, max) in base.into_iter().chain(self.index_keys.iter().copied()) {
            super::native::check_key_value(key, k, max)?;
        }
        let known =
            |k: &str| k == PK || k == SK || self.index_keys.iter().any(|(n, _)| n.name == k);
        if let Some(extra) = key.keys().find(|k| !known(k)) {
            return Err(CursorError::ForeignKey(format!(
                "unexpected attribute `{extra}`"
            )));
        }
        Ok(())
    }
}

/// What one segment's read returned: how many records, and whether more follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentRead {
    /// Records read.
    pub count: usize,
    /// More records follow the last one.
    pub more: bool,
}

/// Take records for one page from the reads of the unfinished segments, in segment order,
/// at most `limit` in all: for each read, how many of its records the page takes and where
/// the segment resumes.
pub fn take_segments(reads: &[SegmentRead], limit: Option<usize>) -> Vec<(usize, ShardProgress)> {
    let mut left = limit.unwrap_or(usize::MAX);
    reads
        .iter()
        .map(|read| {
            let taken = read.count.min(left);
            left -= taken;
            let progress = if taken == read.count && !read.more {
                ShardProgress::Done
            } else if taken == 0 {
                ShardProgress::Unchanged
            } else {
                ShardProgress::After(taken - 1)
            };
            (taken, progress)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_take_segments_in_order_up_to_the_limit() {
        let reads = [
            SegmentRead {
                count: 3,
                more: false,
            },
            SegmentRead {
                count: 3,
                more: true,
            },
            SegmentRead {
                count: 0,
                more: false,
            },
            SegmentRead {
                count: 2,
                more: true,
            },
        ];
        let taken = take_segments(&reads, Some(5));
        assert_eq!(
            taken,
            [
                (3, ShardProgress::Done),
                (2, ShardProgress::After(1)),
                (0, ShardProgress::Done),
                (0, ShardProgress::Unchanged),
            ]
        );
        let all = take_segments(&reads, None);
        assert_eq!(all[1], (3, ShardProgress::After(2)));
        assert_eq!(all[3], (2, ShardProgress::After(1)));
    }

    #[test]
    fn the_facet_filter_is_always_there() {
        let plan = ScanPlan {
            facets: vec!["TASK"],
            index: None,
            index_keys: Vec::new(),
            segment: Some((1, 4)),
            limit: Some(10),
            exclusive_start_key: None,
            consistent_read: false,
            filter: None,
            projection: None,
        };
        let input = plan.request("t").build().unwrap();
        assert_eq!(input.filter_expression(), Some("#n0 = :v0"));
        assert_eq!(input.segment(), Some(1));
        assert_eq!(input.total_segments(), Some(4));
        assert_eq!(
            input.expression_attribute_values().unwrap()[":v0"],
            AttributeValue::S("TASK".into())
        );
    }
}
