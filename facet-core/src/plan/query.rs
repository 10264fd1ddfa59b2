//! Query plans: the key condition of a typed query, its sort-key range, and its request.

use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::types::{AttributeValue, Select};

use super::condition::RenderedCondition;
use crate::item::Item;
use crate::names::Placeholders;
use crate::schema::{FACET_ATTRIBUTE, PK, SK};

/// The largest code point: an upper bound for every string that starts with a given prefix
/// (short of strings containing U+10FFFF itself right after the prefix).
const MAX_CHAR: char = '\u{10FFFF}';

/// The sort-key condition of a query, on fully rendered key strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortCondition {
    /// Every item of the partition, of any facet (collections).
    Any,
    /// Every item of the facet in the partition.
    List,
    /// `SK = value`.
    Equals(String),
    /// `SK > value` (within the facet).
    GreaterThan(String),
    /// `SK >= value` (within the facet).
    GreaterThanOrEqual(String),
    /// `SK < value` (within the facet).
    LessThan(String),
    /// `SK <= value` (within the facet).
    LessThanOrEqual(String),
    /// `begins_with(SK, value)`.
    BeginsWith(String),
    /// `SK BETWEEN start AND end` (inclusive).
    Between(String, String),
}

/// A planned Query request.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryPlan {
    /// The index queried (`None` for the base table).
    pub index: Option<&'static str>,
    /// The partition-key attribute (`PK`, `GSI1PK`, …).
    pub pk_attribute: &'static str,
    /// The sort-key attribute (`SK`, `GSI1SK`, …); `None` for an index without a sort key.
    pub sk_attribute: Option<&'static str>,
    /// The partition key value.
    pub partition: String,
    /// The sort-key condition.
    pub sort: SortCondition,
    /// Every sort key of the facet in this index starts with this text.
    pub sort_prefix: String,
    /// `Limit` for this request.
    pub limit: Option<u32>,
    /// Scan backward (descending sort-key order).
    pub reverse: bool,
    /// `ExclusiveStartKey`.
    pub exclusive_start_key: Option<Item>,
    /// Read consistently (base table only).
    pub consistent_read: bool,
    /// A filter applied by the server after the key condition.
    pub filter: Option<RenderedCondition>,
    /// The attributes to read (`None`: whole items).
    pub projection: Option<Vec<&'static str>>,
    /// The key condition of a native (multi-attribute) index; when given, it replaces
    /// `pk_attribute`, `partition` and `sort` (which are then unused).
    pub native: Option<super::native::NativeCondition>,
}

impl QueryPlan {
    /// The key condition expression with its placeholders.
    ///
    /// Range comparisons are bounded to the facet's sort-key prefix, so a query never walks
    /// into the records of another facet that shares the partition (Faceteer's plain
    /// `SK > :v` would). `less_than` is rendered as an inclusive `BETWEEN`; the runtime drops
    /// the one record equal to the bound ([`QueryPlan::excluded_sort_key`]).
    pub fn key_condition(&self, p: &mut Placeholders) -> String {
        if let Some(native) = &self.native {
            return native.key_condition(p);
        }
        let pk = p.name(self.pk_attribute);
        let partition = p.value(AttributeValue::S(self.partition.clone()));
        // The whole partition: no sort-key placeholder (DynamoDB refuses unused ones).
        let sk_attribute = match self.sk_attribute {
            Some(sk) if self.sort != SortCondition::Any => sk,
            _ => return format!("{pk} = {partition}"),
        };
        // A sort key without a prefix (DynamoDB refuses an empty value in a key condition):
        // `list` is the whole partition, and a range has only its given bound.
        let no_prefix = self.sort_prefix.is_empty();
        if no_prefix && self.sort == SortCondition::List {
            return format!("{pk} = {partition}");
        }
        let sk = p.name(sk_attribute);
        let upper = || format!("{}{}", self.sort_prefix, MAX_CHAR);
        let sort = match &self.sort {
            SortCondition::Any => return format!("{pk} = {partition}"),
            SortCondition::List => {
                let v = p.value(AttributeValue::S(self.sort_prefix.clone()));
                format!("begins_with({sk}, {v})")
            }
            SortCondition::Equals(x) => {
                let v = p.value(AttributeValue::S(x.clone()));
                format!("{sk} = {v}")
            }
            SortCondition::BeginsWith(x) => {
                let v = p.value(AttributeValue::S(x.clone()));
                format!("begins_with({sk}, {v})")
            }
            SortCondition::GreaterThan(x) => {
                // The smallest string greater than `x` is `x` followed by U+0000.
                let lo = p.value(AttributeValue::S(format!("{x}\u{0}")));
                let hi = p.value(AttributeValue::S(upper()));
                format!("{sk} BETWEEN {lo} AND {hi}")
            }
            SortCondition::GreaterThanOrEqual(x) => {
                let lo = p.value(AttributeValue::S(x.clone()));
                let hi = p.value(AttributeValue::S(upper()));
                format!("{sk} BETWEEN {lo} AND {hi}")
            }
            SortCondition::LessThan(x) | SortCondition::LessThanOrEqual(x) if no_prefix => {
                let hi = p.value(AttributeValue::S(x.clone()));
                format!("{sk} <= {hi}")
            }
            SortCondition::LessThan(x) | SortCondition::LessThanOrEqual(x) => {
                let lo = p.value(AttributeValue::S(self.sort_prefix.clone()));
                let hi = p.value(AttributeValue::S(x.clone()));
                format!("{sk} BETWEEN {lo} AND {hi}")
            }
            SortCondition::Between(a, b) => {
                let lo = p.value(AttributeValue::S(a.clone()));
                let hi = p.value(AttributeValue::S(b.clone()));
                format!("{sk} BETWEEN {lo} AND {hi}")
            }
        };
        format!("{pk} = {partition} AND {sort}")
    }

    /// A sort key the key condition matches but the query must not return (the bound of
    /// `less_than`).
    pub fn excluded_sort_key(&self) -> Option<&str> {
        match &self.sort {
            SortCondition::LessThan(x) => Some(x),
            _ => None,
        }
    }

    /// Whether the stored item `item` is one this plan's key condition reads: its partition
    /// attribute holds the plan's partition and its sort key meets the condition (strict
    /// bounds included). The filter is not evaluated.
    pub fn holds(&self, item: &Item) -> bool {
        if let Some(native) = &self.native {
            return native.holds(item);
        }
        let text = |name: &str| match item.get(name) {
            Some(AttributeValue::S(s)) => Some(s.as_str()),
            _ => None,
        };
        if text(self.pk_attribute) != Some(self.partition.as_str()) {
            return false;
        }
        let Some(sk_attribute) = self.sk_attribute else {
            return true;
        };
        text(sk_attribute)
            .is_some_and(|sk| self.sort_key_matches(sk) && self.excluded_sort_key() != Some(sk))
    }

    /// `true` when sort-key value `sk` satisfies this plan's key condition, as DynamoDB
    /// evaluates the rendered condition (byte-wise comparison).
    pub fn sort_key_matches(&self, sk: &str) -> bool {
        let upper = || format!("{}{}", self.sort_prefix, MAX_CHAR);
        match &self.sort {
            SortCondition::Any => true,
            SortCondition::List => sk.starts_with(self.sort_prefix.as_str()),
            SortCondition::Equals(x) => sk == x,
            SortCondition::BeginsWith(x) => sk.starts_with(x.as_str()),
            SortCondition::GreaterThan(x) => sk > x.as_str() && sk <= upper().as_str(),
            SortCondition::GreaterThanOrEqual(x) => sk >= x.as_str() && sk <= upper().as_str(),
            SortCondition::LessThan(x) | SortCondition::LessThanOrEqual(x) => {
                sk >= self.sort_prefix.as_str() && sk <= x.as_str()
            }
            SortCondition::Between(a, b) => sk >= a.as_str() && sk <= b.as_str(),
        }
    }

    /// Check a start key taken from a cursor: exactly the table's key attributes (and the
    /// index's), as non-empty strings within DynamoDB's key lengths, in this plan's
    /// partition and within its sort-key condition.
    pub fn check_start_key(&self, key: &Item) -> Result<(), crate::cursor::CursorError> {
        use crate::cursor::CursorError::ForeignKey;
        use crate::limits::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
        if let Some(native) = &self.native {
            return native.check_start_key(key);
        }
        let mut expected = vec![
            (PK, MAX_PARTITION_KEY_BYTES),
            (SK, MAX_SORT_KEY_BYTES),
            (self.pk_attribute, MAX_PARTITION_KEY_BYTES),
        ];
        expected.extend(self.sk_attribute.map(|sk| (sk, MAX_SORT_KEY_BYTES)));
        let text = |name: &str| match key.get(name) {
            Some(AttributeValue::S(s)) => Some(s.as_str()),
            _ => None,
        };
        for &(name, max) in &expected {
            match text(name) {
                Some(v) if !v.is_empty() && v.len() <= max => {}
                _ => return Err(ForeignKey(format!("no valid `{name}` string"))),
            }
        }
        if let Some(extra) = key.keys().find(|k| !expected.iter().any(|(n, _)| n == k)) {
            return Err(ForeignKey(format!("unexpected attribute `{extra}`")));
        }
        if text(self.pk_attribute) != Some(self.partition.as_str()) {
            return Err(ForeignKey(format!(
                "`{}` is not the partition {:?}",
                self.pk_attribute,
                crate::redact::key(&self.partition)
            )));
        }
        let Some(sk_attribute) = self.sk_attribute else {
            return Ok(());
        };
        if !text(sk_attribute).is_some_and(|sk| self.sort_key_matches(sk)) {
            return Err(ForeignKey(format!(
                "`{sk_attribute}` is outside the query's sort-key condition"
            )));
        }
        Ok(())
    }

    /// `true` when the condition can match nothing (`between` with start after end, or a
    /// bound outside the facet's prefix); the runtime answers such queries without a request.
    pub fn is_empty_range(&self) -> bool {
        if let Some(native) = &self.native {
            return native.is_empty();
        }
        match &self.sort {
            SortCondition::Between(a, b) => a > b,
            SortCondition::LessThan(x) => x.as_str() <= self.sort_prefix.as_str(),
            SortCondition::LessThanOrEqual(x) => x.as_str() < self.sort_prefix.as_str(),
            _ => false,
        }
    }

    /// Render as the SDK's `QueryInput` builder for `table`, ready for `send_with`.
    pub fn request(&self, table: &str) -> QueryInputBuilder {
        // The filter's placeholders come first; the key condition adds to them.
        let mut p = self
            .filter
            .as_ref()
            .map(|f| f.placeholders.clone())
            .unwrap_or_default();
        let key_condition = self.key_condition(&mut p);
        let projection = render_projection(self.projection.as_deref(), &mut p);
        let (names, values) = p.into_parts();
        QueryInput::builder()
            .table_name(table)
            .set_index_name(self.index.map(str::to_owned))
            .key_condition_expression(key_condition)
            .set_filter_expression(self.filter.as_ref().map(|f| f.expression.clone()))
            .set_projection_expression(projection)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .set_limit(self.limit.map(|l| l.min(i32::MAX as u32) as i32))
            .scan_index_forward(!self.reverse)
            .set_exclusive_start_key(self.exclusive_start_key.clone())
            .set_consistent_read(self.consistent_read.then_some(true))
    }

    /// Render as a counting `QueryInput` (`Select = COUNT`) for `table`: the items of
    /// `facet` only (`facet = :f`, and the plan's filter with `AND`), no projection. A strict
    /// bound's item ([`QueryPlan::excluded_sort_key`]) is counted: the caller subtracts it.
    pub fn count_request(&self, table: &str, facet: &str) -> QueryInputBuilder {
        let mut p = self
            .filter
            .as_ref()
            .map(|f| f.placeholders.clone())
            .unwrap_or_default();
        let name = p.name(FACET_ATTRIBUTE);
        let value = p.value(AttributeValue::S(facet.to_owned()));
        let filter = match &self.filter {
            Some(f) => format!("({name} = {value}) AND ({})", f.expression),
            None => format!("{name} = {value}"),
        };
        let key_condition = self.key_condition(&mut p);
        let (names, values) = p.into_parts();
        QueryInput::builder()
            .table_name(table)
            .set_index_name(self.index.map(str::to_owned))
            .key_condition_expression(key_condition)
            .filter_expression(filter)
            .select(Select::Count)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .scan_index_forward(!self.reverse)
            .set_exclusive_start_key(self.exclusive_start_key.clone())
            .set_consistent_read(self.consistent_read.then_some(true))
    }
}

/// `#n0, #n1, …` for the attributes, registered in `p`.
pub fn render_projection(
    attributes: Option<&[&'static str]>,
    p: &mut Placeholders,
) -> Option<String> {
    attributes.map(|attrs| {
        attrs
            .iter()
            .map(|a| p.name(a))
            .collect::<Vec<_>>()
            .join(", ")
    })
}
