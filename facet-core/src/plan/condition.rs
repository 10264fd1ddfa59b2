//! Rendered conditions and filters: the text, names and values a request carries, and
//! the filter hiding expired records.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::Item;
use crate::names::Placeholders;

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
pub(crate) fn condition_text<F>(
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
