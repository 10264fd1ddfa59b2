//! Plans: plain data describing each DynamoDB request, renderable to SDK inputs.
//!
//! The runtime crate executes plans; tests can build and inspect them without a server.

pub mod scan;

use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemInput;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemInputBuilder;
use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, Select};

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
}

impl QueryPlan {
    /// The key condition expression with its placeholders.
    ///
    /// Range comparisons are bounded to the facet's sort-key prefix, so a query never walks
    /// into the records of another facet that shares the partition (Faceteer's plain
    /// `SK > :v` would). `less_than` is rendered as an inclusive `BETWEEN`; the runtime drops
    /// the one record equal to the bound ([`QueryPlan::excluded_sort_key`]).
    pub fn key_condition(&self, p: &mut Placeholders) -> String {
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
                self.pk_attribute, self.partition
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

/// A planned GetItem request.
#[derive(Debug, Clone, PartialEq)]
pub struct GetPlan {
    /// The key (`PK`, `SK`).
    pub key: Item,
    /// Strongly consistent read.
    pub consistent_read: bool,
    /// The attributes to read (`None`: the whole item).
    pub projection: Option<Vec<&'static str>>,
}

impl GetPlan {
    /// Render as the SDK's `GetItemInput` builder for `table`, ready for `send_with`.
    pub fn request(&self, table: &str) -> GetItemInputBuilder {
        let mut p = Placeholders::new();
        let projection = render_projection(self.projection.as_deref(), &mut p);
        let (names, _) = p.into_parts();
        GetItemInput::builder()
            .table_name(table)
            .set_key(Some(self.key.clone()))
            .set_consistent_read(self.consistent_read.then_some(true))
            .set_projection_expression(projection)
            .set_expression_attribute_names(names)
    }
}

/// A condition expression already rendered with its placeholders.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedCondition {
    /// The expression text (placeholders only).
    pub expression: String,
    /// The placeholders it uses.
    pub placeholders: Placeholders,
}

/// Add to `filter` (with `AND`) the condition that hides records already expired: their
/// `ttl` attribute, if they have one, is after `now` (epoch seconds). DynamoDB deletes
/// expired items some time after they expire; until then, reads return them unless told.
pub fn hide_expired(filter: Option<RenderedCondition>, now: i64) -> RenderedCondition {
    let mut placeholders = filter
        .as_ref()
        .map(|f| f.placeholders.clone())
        .unwrap_or_default();
    let ttl = placeholders.name(crate::schema::TTL_ATTRIBUTE);
    let now = placeholders.value(AttributeValue::N(now.to_string()));
    // Parenthesized only where combined: DynamoDB refuses redundant parentheses.
    let alive = format!("attribute_not_exists({ttl}) OR {ttl} > {now}");
    let expression = match filter {
        Some(f) => format!("({}) AND ({alive})", f.expression),
        None => alive,
    };
    RenderedCondition {
        expression,
        placeholders,
    }
}

/// Whether a stored item has expired by `now` (epoch seconds): its `ttl` attribute is a
/// number at or before it.
pub fn is_expired(item: &Item, now: i64) -> bool {
    match item.get(crate::schema::TTL_ATTRIBUTE) {
        Some(AttributeValue::N(n)) => ttl_passed(n, now),
        _ => false,
    }
}

/// Whether a stored `ttl` number (its text) is at or before `now` (epoch seconds).
pub fn ttl_passed(ttl: &str, now: i64) -> bool {
    ttl.parse::<f64>().is_ok_and(|t| t <= now as f64)
}

impl RenderedCondition {
    /// Render a typed expression.
    pub fn from_expr<F>(expr: &crate::expr::Expr<F>) -> Result<Self, crate::expr::ExprError> {
        let mut placeholders = Placeholders::new();
        let expression = expr.render(&mut placeholders)?;
        Ok(RenderedCondition {
            expression,
            placeholders,
        })
    }

    /// Every condition of a write joined with `AND`: whether an item must exist under the
    /// key (`Some(true)`: `attribute_exists(PK)`, `Some(false)`: `attribute_not_exists(PK)`)
    /// and a typed expression on the stored item. `None` when there is no condition.
    pub fn all<F>(
        item_exists: Option<bool>,
        expr: Option<&crate::expr::Expr<F>>,
    ) -> Result<Option<Self>, crate::expr::ExprError> {
        Self::versioned(item_exists, expr, None)
    }

    /// [`RenderedCondition::all`] and, for a facet with a `#[version]` field, the version
    /// the stored record must be at: `(attribute, version)`; version 0 means a new record
    /// (no item under the key).
    pub fn versioned<F>(
        item_exists: Option<bool>,
        expr: Option<&crate::expr::Expr<F>>,
        version: Option<(&'static str, u64)>,
    ) -> Result<Option<Self>, crate::expr::ExprError> {
        let mut placeholders = Placeholders::new();
        Ok(
            condition_text(item_exists, expr, version, &mut placeholders)?.map(|expression| {
                RenderedCondition {
                    expression,
                    placeholders,
                }
            }),
        )
    }
}

/// The text of a write's condition ([`RenderedCondition::all`]), its names and values
/// registered in `p` (shared with an update expression).
fn condition_text<F>(
    item_exists: Option<bool>,
    expr: Option<&crate::expr::Expr<F>>,
    version: Option<(&'static str, u64)>,
    p: &mut Placeholders,
) -> Result<Option<String>, crate::expr::ExprError> {
    let mut parts = Vec::new();
    let exists = |p: &mut Placeholders, exists: bool| {
        let pk = p.name(crate::schema::PK);
        let function = if exists {
            "attribute_exists"
        } else {
            "attribute_not_exists"
        };
        format!("{function}({pk})")
    };
    if let Some(e) = item_exists {
        parts.push(exists(p, e));
    }
    match version {
        None => {}
        Some((_, 0)) => parts.push(exists(p, false)),
        Some((attribute, v)) => {
            let n = p.name(attribute);
            let v = p.value(AttributeValue::N(v.to_string()));
            parts.push(format!("{n} = {v}"));
        }
    }
    if let Some(expr) = expr {
        parts.push(expr.render(p)?);
    }
    Ok(match parts.len() {
        0 => None,
        1 => Some(parts.remove(0)),
        _ => Some(
            parts
                .iter()
                .map(|part| format!("({part})"))
                .collect::<Vec<_>>()
                .join(" AND "),
        ),
    })
}

/// What an update returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returning {
    /// Nothing.
    Nothing,
    /// The whole record as it was before.
    Old,
    /// The whole record as it is after.
    New,
}

/// A planned UpdateItem request.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdatePlan {
    /// The key (`PK`, `SK`).
    pub key: Item,
    /// The `UpdateExpression`.
    pub update: String,
    /// The `ConditionExpression`.
    pub condition: Option<String>,
    /// The names and values both expressions use.
    pub placeholders: Placeholders,
    /// What to return.
    pub returning: Returning,
}

impl UpdatePlan {
    /// Plan an update of the item under `key`: `update`, applied only when an item exists
    /// under the key (an update never creates a partial record) and `when` holds.
    pub fn new<F>(
        key: Item,
        update: &crate::expr::Update<F>,
        when: Option<&crate::expr::Expr<F>>,
        returning: Returning,
    ) -> Result<Self, crate::expr::ExprError> {
        Self::conditioned(key, update, returning, |p| {
            condition_text(Some(true), when, None, p)
        })
    }

    /// Plan an update that creates the item under `key`: applied only when no item exists
    /// under the key.
    pub fn for_missing<F>(
        key: Item,
        update: &crate::expr::Update<F>,
        returning: Returning,
    ) -> Result<Self, crate::expr::ExprError> {
        Self::conditioned(key, update, returning, |p| {
            condition_text::<F>(Some(false), None, None, p)
        })
    }

    /// Plan an update that may create the item under `key`: applied when no item exists
    /// under the key, or when `guard` holds for the stored one.
    pub fn creating<F>(
        key: Item,
        update: &crate::expr::Update<F>,
        guard: Option<&crate::expr::Expr<F>>,
        returning: Returning,
    ) -> Result<Self, crate::expr::ExprError> {
        Self::conditioned(key, update, returning, |p| {
            let Some(guard) = guard else { return Ok(None) };
            let pk = p.name(crate::schema::PK);
            let guard = guard.render(p)?;
            Ok(Some(format!("attribute_not_exists({pk}) OR ({guard})")))
        })
    }

    /// `update` with the condition `condition` renders (after the update's placeholders).
    fn conditioned<F>(
        key: Item,
        update: &crate::expr::Update<F>,
        returning: Returning,
        condition: impl FnOnce(&mut Placeholders) -> Result<Option<String>, crate::expr::ExprError>,
    ) -> Result<Self, crate::expr::ExprError> {
        let mut placeholders = Placeholders::new();
        let update = update.render(&mut placeholders)?;
        let condition = condition(&mut placeholders)?;
        Ok(UpdatePlan {
            key,
            update,
            condition,
            placeholders,
            returning,
        })
    }

    /// Render as the SDK's `UpdateItemInput` builder for `table`, ready for `send_with`.
    pub fn request(&self, table: &str) -> UpdateItemInputBuilder {
        let (names, values) = self.placeholders.clone().into_parts();
        let returning = match self.returning {
            Returning::Nothing => ReturnValue::None,
            Returning::Old => ReturnValue::AllOld,
            Returning::New => ReturnValue::AllNew,
        };
        UpdateItemInput::builder()
            .table_name(table)
            .set_key(Some(self.key.clone()))
            .update_expression(self.update.clone())
            .set_condition_expression(self.condition.clone())
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .return_values(returning)
    }
}

/// A planned PutItem request.
#[derive(Debug, Clone, PartialEq)]
pub struct PutPlan {
    /// The full item.
    pub item: Item,
    /// The condition the write depends on.
    pub condition: Option<RenderedCondition>,
}

impl PutPlan {
    /// Render as the SDK's `PutItemInput` builder for `table`, ready for `send_with`.
    pub fn request(&self, table: &str) -> PutItemInputBuilder {
        let (expr, names, values) = split_condition(self.condition.clone());
        PutItemInput::builder()
            .table_name(table)
            .set_item(Some(self.item.clone()))
            .set_condition_expression(expr)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
    }
}

/// A planned DeleteItem request.
#[derive(Debug, Clone, PartialEq)]
pub struct DeletePlan {
    /// The key (`PK`, `SK`).
    pub key: Item,
    /// The condition the delete depends on.
    pub condition: Option<RenderedCondition>,
}

impl DeletePlan {
    /// Render as the SDK's `DeleteItemInput` builder for `table`, ready for `send_with`.
    pub fn request(&self, table: &str) -> DeleteItemInputBuilder {
        let (expr, names, values) = split_condition(self.condition.clone());
        DeleteItemInput::builder()
            .table_name(table)
            .set_key(Some(self.key.clone()))
            .set_condition_expression(expr)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
    }
}

/// A condition's parts as the SDK's builders take them: expression, names, values.
pub type ConditionParts = (
    Option<String>,
    Option<std::collections::HashMap<String, String>>,
    Option<std::collections::HashMap<String, AttributeValue>>,
);

/// Split a condition into [`ConditionParts`] (all `None` without a condition).
pub fn split_condition(condition: Option<RenderedCondition>) -> ConditionParts {
    match condition {
        None => (None, None, None),
        Some(c) => {
            let (names, values) = c.placeholders.into_parts();
            (Some(c.expression), names, values)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(sort: SortCondition) -> QueryPlan {
        QueryPlan {
            index: Some("GSI1"),
            pk_attribute: "GSI1PK",
            sk_attribute: Some("GSI1SK"),
            partition: "#TEAM_a".into(),
            sort,
            sort_prefix: "#TASK_".into(),
            limit: Some(10),
            reverse: true,
            exclusive_start_key: None,
            consistent_read: false,
            filter: None,
            projection: None,
        }
    }

    /// An update names only what it changes and the key it checks: nothing of the
    /// library's own (strict readers refuse attributes they do not know).
    #[test]
    fn an_update_writes_only_its_own_attributes() {
        let key = Item::from([("PK".to_owned(), AttributeValue::S("k".into()))]);
        let set = crate::expr::Update::<()>::empty()
            .set_attribute("a", AttributeValue::S("x".into()))
            .remove_attribute("b");
        let add = crate::expr::Update::<()>::empty().increment_attribute("n");
        let plans = [
            UpdatePlan::new(key.clone(), &set, None, Returning::Nothing).unwrap(),
            UpdatePlan::for_missing(key, &add, Returning::Nothing).unwrap(),
        ];
        for (plan, named) in plans.into_iter().zip([["PK", "a", "b"], ["PK", "n", "n"]]) {
            let (names, _) = plan.placeholders.into_parts();
            let mut names: Vec<String> = names.unwrap().into_values().collect();
            names.sort();
            names.dedup();
            let mut expected: Vec<String> = named.iter().map(|n| n.to_string()).collect();
            expected.dedup();
            assert_eq!(names, expected);
        }
    }

    #[test]
    fn renders_with_placeholders_only() {
        let input = plan(SortCondition::Equals("#TASK_x".into()))
            .request("t")
            .build()
            .unwrap();
        assert_eq!(
            input.key_condition_expression(),
            Some("#n0 = :v0 AND #n1 = :v1")
        );
        let names = input.expression_attribute_names().unwrap();
        assert_eq!(names["#n0"], "GSI1PK");
        assert_eq!(names["#n1"], "GSI1SK");
        let values = input.expression_attribute_values().unwrap();
        assert_eq!(values[":v1"], AttributeValue::S("#TASK_x".into()));
        assert_eq!(input.index_name(), Some("GSI1"));
        assert_eq!(input.scan_index_forward(), Some(false));
        assert_eq!(input.limit(), Some(10));
    }

    #[test]
    fn ranges_stay_inside_the_facet_prefix() {
        let input = plan(SortCondition::GreaterThan("#TASK_b".into()))
            .request("t")
            .build()
            .unwrap();
        let values = input.expression_attribute_values().unwrap();
        assert_eq!(values[":v1"], AttributeValue::S("#TASK_b\u{0}".into()));
        assert_eq!(values[":v2"], AttributeValue::S("#TASK_\u{10FFFF}".into()));
        let lt = plan(SortCondition::LessThan("#TASK_b".into()));
        assert_eq!(lt.excluded_sort_key(), Some("#TASK_b"));
        assert!(plan(SortCondition::Between("b".into(), "a".into())).is_empty_range());
    }
}
