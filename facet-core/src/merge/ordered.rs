//! The merge of a search over sources sorted differently (indexes whose sort keys are built
//! from other fields), by a field of the record the caller chooses.
//!
//! Each source is read in its own order; a page takes, again and again, the head (the next
//! unread record) of the source whose head has the smallest value of the chosen field (the
//! largest when descending; ties go to the earlier source). When every source happens to be
//! sorted by that field, the pages are sorted by it; otherwise each record still comes after
//! every record taken before it from the same source, and the merge is as close to the chosen
//! order as the sources allow (exactly sorted needs every source read to its end).
//!
//! Each source resumes after the last record taken from it, so a page's cursor is one
//! position per source, and pages are exact. A record that several sources hold is returned
//! by the first of them only: the others pass over it when they reach it, so nothing needs
//! remembering across pages. Whether an earlier source holds a record is decided by the
//! caller (from the record's stored key attributes).
//!
//! Pure functions, tested without a server.

use std::cmp::Ordering;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::merge::ShardProgress;

/// What one source's request returned, in read order.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderedRead {
    /// For each record: its value of the order field (`None` when absent), and whether an
    /// earlier source holds it (it is passed over).
    pub records: Vec<(Option<AttributeValue>, bool)>,
    /// More records follow the last one read.
    pub more: bool,
}

/// One round of the merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedMerge {
    /// `(source, position)` of each record returned, in order.
    pub order: Vec<(usize, usize)>,
    /// For each source, where it resumes.
    pub progress: Vec<ShardProgress>,
}

/// Merge one round of reads (`reads[i]`: source `i`, `None` when it is finished): at most
/// `limit` records, stopping early when a source that has more has been read to the end of
/// what this round fetched (its next record is unknown).
pub fn merge_by_value(reads: &[Option<OrderedRead>], reverse: bool, limit: usize) -> OrderedMerge {
    let mut next = vec![0usize; reads.len()];
    let mut order = Vec::new();
    while order.len() < limit {
        let mut best: Option<usize> = None;
        let mut blocked = false;
        for (i, read) in reads.iter().enumerate() {
            let Some(read) = read else { continue };
            let Some((value, _)) = read.records.get(next[i]) else {
                blocked |= read.more;
                continue;
            };
            let better = match best {
                None => true,
                Some(b) => {
                    let (current, _) = &reads[b].as_ref().expect("best was read").records[next[b]];
                    let ord = if reverse {
                        compare_descending(value.as_ref(), current.as_ref())
                    } else {
                        compare_values(value.as_ref(), current.as_ref())
                    };
                    ord == Ordering::Less
                }
            };
            if better {
                best = Some(i);
            }
        }
        if blocked {
            break;
        }
        let Some(i) = best else { break };
        let held_earlier = reads[i].as_ref().expect("chosen was read").records[next[i]].1;
        if !held_earlier {
            order.push((i, next[i]));
        }
        next[i] += 1;
    }
    let progress = reads
        .iter()
        .zip(&next)
        .map(|(read, &taken)| match read {
            None => ShardProgress::Done,
            Some(read) if taken == read.records.len() && !read.more => ShardProgress::Done,
            Some(_) if taken == 0 => ShardProgress::Unchanged,
            Some(_) => ShardProgress::After(taken - 1),
        })
        .collect();
    OrderedMerge { order, progress }
}

/// The order of two values of one field: numbers by value, strings and binaries byte-wise,
/// `false` before `true`, other types by their type then their text; an absent value after
/// every present one.
pub fn compare_values(a: Option<&AttributeValue>, b: Option<&AttributeValue>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(a), Some(b)) => match (a, b) {
            (AttributeValue::N(x), AttributeValue::N(y)) => compare_numbers(x, y),
            (AttributeValue::S(x), AttributeValue::S(y)) => x.as_bytes().cmp(y.as_bytes()),
            (AttributeValue::B(x), AttributeValue::B(y)) => x.as_ref().cmp(y.as_ref()),
            (AttributeValue::Bool(x), AttributeValue::Bool(y)) => x.cmp(y),
            _ => rank(a)
                .cmp(&rank(b))
                .then_with(|| format!("{a:?}").cmp(&format!("{b:?}"))),
        },
    }
}

/// [`compare_values`] for a descending order: present values from the largest, an absent
/// value still last.
fn compare_descending(a: Option<&AttributeValue>, b: Option<&AttributeValue>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => compare_values(Some(b), Some(a)),
        _ => compare_values(a, b),
    }
}

/// A type's place among the others.
fn rank(v: &AttributeValue) -> u8 {
    match v {
        AttributeValue::N(_) => 0,
        AttributeValue::S(_) => 1,
        AttributeValue::B(_) => 2,
        AttributeValue::Bool(_) => 3,
        _ => 4,
    }
}

/// Two DynamoDB numbers (decimal text, up to 38 digits) by value, exactly.
pub fn compare_numbers(a: &str, b: &str) -> Ordering {
    match (Decimal::parse(a), Decimal::parse(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        // Not numbers: by text, so the order is still total.
        _ => a.cmp(b),
    }
}

/// A decimal as sign, integer digits (no leading zeros) and fraction digits (no trailing
/// zeros).
#[derive(Debug, PartialEq, Eq)]
struct Decimal<'a> {
    negative: bool,
    int: &'a str,
    frac: &'a str,
    exp: i64,
}

impl<'a> Decimal<'a> {
    fn parse(text: &'a str) -> Option<Self> {
        let text = text.trim();
        let (negative, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let (mantissa, exp) = match rest.find(['e', 'E']) {
            Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
            || int.len() + frac.len() == 0
        {
            return None;
        }
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let zero = int.is_empty() && frac.is_empty();
        Some(Decimal {
            negative: negative && !zero,
            int,
            frac,
            exp,
        })
    }

    /// The digits without the point, and the position of the point in them (scientific
    /// notation applied): `12.5e1` is (`125`, 3). Wide enough for any exponent.
    fn digits(&self) -> (String, i128) {
        let digits = format!("{}{}", self.int, self.frac);
        let lead = digits.len() - digits.trim_start_matches('0').len();
        let digits = digits[lead..].to_owned();
        let point = self.int.len() as i128 + i128::from(self.exp) - lead as i128;
        (digits, point)
    }

    fn magnitude_cmp(&self, other: &Self) -> Ordering {
        let (a, pa) = self.digits();
        let (b, pb) = other.digits();
        match (a.is_empty(), b.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        pa.cmp(&pb).then_with(|| {
            let a = a.trim_end_matches('0');
            let b = b.trim_end_matches('0');
            a.cmp(b)
        })
    }
}

impl Ord for Decimal<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.magnitude_cmp(other),
            (true, true) => other.magnitude_cmp(self),
        }
    }
}

impl PartialOrd for Decimal<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(x: &str) -> Option<AttributeValue> {
        Some(AttributeValue::N(x.into()))
    }

    fn read(values: &[(i64, bool)], more: bool) -> Option<OrderedRead> {
        Some(OrderedRead {
            records: values
                .iter()
                .map(|&(v, held)| (n(&v.to_string()), held))
                .collect(),
            more,
        })
    }

    #[test]
    fn numbers_compare_by_value() {
        let sorted = [
            "-1e3",
            "-100",
            "-2.5",
            "-0.001",
            "0",
            "0.0",
            "1e-3",
            "0.5",
            "2",
            "10",
            "1e2",
            "123456789012345678901234567890123456",
        ];
        for pair in sorted.windows(2) {
            let ord = compare_numbers(pair[0], pair[1]);
            if pair == ["0", "0.0"] {
                assert_eq!(ord, Ordering::Equal);
            } else {
                assert_eq!(ord, Ordering::Less, "{pair:?}");
                assert_eq!(
                    compare_numbers(pair[1], pair[0]),
                    Ordering::Greater,
                    "{pair:?}"
                );
            }
        }
        assert_eq!(
            compare_numbers("9007199254740993", "9007199254740992"),
            Ordering::Greater
        );
        assert_eq!(compare_numbers("-0", "0"), Ordering::Equal);
        let huge = "1e9223372036854775807";
        assert_eq!(compare_numbers(huge, "1e400"), Ordering::Greater);
        assert_eq!(
            compare_numbers("-1e-9223372036854775808", "0"),
            Ordering::Less
        );
    }

    #[test]
    fn absent_values_come_last_in_either_direction() {
        let reads = [
            Some(OrderedRead {
                records: vec![(None, false)],
                more: false,
            }),
            read(&[(1, false), (2, false)], false),
        ];
        let desc = merge_by_value(&reads, true, 10);
        assert_eq!(desc.order, [(1, 0), (1, 1), (0, 0)]);
        let asc = merge_by_value(&reads, false, 10);
        assert_eq!(asc.order, [(1, 0), (1, 1), (0, 0)]);
    }

    #[test]
    fn absent_values_come_last() {
        assert_eq!(compare_values(None, n("1").as_ref()), Ordering::Greater);
        let s = |x: &str| Some(AttributeValue::S(x.into()));
        assert_eq!(
            compare_values(s("b").as_ref(), s("ab").as_ref()),
            Ordering::Greater
        );
    }

    #[test]
    fn heads_are_taken_smallest_first_and_held_records_passed_over() {
        // Source 0 sorted by the field; source 1 not; record 5 of source 1 is held by 0.
        let reads = [
            read(&[(1, false), (4, false), (9, false)], false),
            read(&[(3, false), (5, true), (2, false)], false),
        ];
        let m = merge_by_value(&reads, false, 10);
        // 1 (s0), 3 (s1), 4 (s0), 5 held → passed, 2 (s1), 9 (s0)
        assert_eq!(m.order, [(0, 0), (1, 0), (0, 1), (1, 2), (0, 2)]);
        assert_eq!(m.progress, [ShardProgress::Done, ShardProgress::Done]);
        // Descending: 3 (s1), then 5 (s1, held: passed over), then 2 (s1).
        let desc = merge_by_value(&reads, true, 2);
        assert_eq!(desc.order, [(1, 0), (1, 2)]);
        assert_eq!(
            desc.progress,
            [ShardProgress::Unchanged, ShardProgress::Done]
        );
    }

    #[test]
    fn a_page_stops_where_a_source_must_be_read_further() {
        let reads = [
            read(&[(1, false)], true),
            read(&[(2, false), (3, false)], false),
        ];
        let m = merge_by_value(&reads, false, 10);
        assert_eq!(m.order, [(0, 0)]);
        assert_eq!(
            m.progress,
            [ShardProgress::After(0), ShardProgress::Unchanged]
        );
        // The limit: exact, resuming after the last record taken from each source.
        let reads = [
            read(&[(1, false), (5, false)], false),
            read(&[(2, false), (3, false)], false),
        ];
        let m = merge_by_value(&reads, false, 3);
        assert_eq!(m.order, [(0, 0), (1, 0), (1, 1)]);
        assert_eq!(m.progress, [ShardProgress::After(0), ShardProgress::Done]);
    }
}
