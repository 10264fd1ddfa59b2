//! An update's changes inside an attribute, applied to the value the record to create holds
//! (`or_create`'s template): what the server would leave there had the record existed with
//! the template's attributes. DynamoDB cannot apply `SET a.b = ..` to a map the request
//! itself creates, so the update that creates sets the whole attribute to this value.

use aws_sdk_dynamodb::types::AttributeValue;

use super::super::error::ExprError;
use super::super::path::{Path, Segment};
use super::{combine, Action, Operand};
use crate::item::Item;

/// `action`, whose path lies inside `value` (the template's value of the path's root),
/// applied to `value`.
pub(super) fn apply_inside(
    value: &mut AttributeValue,
    action: &Action,
    template: &Item,
) -> Result<(), ExprError> {
    let path = action.path();
    let refused = |why: &str| ExprError::Value {
        field: path.root(),
        reason: format!("an update that may create the record changes `{path}`: {why}"),
    };
    let (last, parents) = match path.steps().split_last() {
        Some(split) => split,
        None => return Err(refused("it is not inside an attribute")),
    };
    let mut at = value;
    for step in parents {
        at = match (step, at) {
            (Segment::Member(name), AttributeValue::M(m)) => m
                .get_mut(name.as_ref())
                .ok_or_else(|| refused("the record to create has no map or list on the way"))?,
            (Segment::Index(i), AttributeValue::L(l)) => l
                .get_mut(*i)
                .ok_or_else(|| refused("the record to create has no map or list on the way"))?,
            _ => {
                return Err(refused(
                    "the record to create has no map or list on the way",
                ))
            }
        };
    }
    let current = child(at, last).cloned();
    let new = match action {
        Action::Set(_, operand) => Some(evaluate(&operand.seeded(template)?, path)?),
        Action::Remove(_) => None,
        Action::Add(_, members) => {
            let members = members.clone()?;
            match (&current, &members) {
                (None, _) => Some(members),
                (Some(AttributeValue::N(a)), AttributeValue::N(b)) => Some(AttributeValue::N(
                    sum(a, b, false).ok_or_else(|| refused("the sum is too large to compute"))?,
                )),
                (Some(held), _) => combine(held, &members, true)
                    .ok_or_else(|| refused("it holds another kind than the update adds"))?,
            }
        }
        Action::Delete(_, members) => {
            let members = members.clone()?;
            match &current {
                None => None,
                Some(held) => combine(held, &members, false)
                    .ok_or_else(|| refused("it holds another kind than the update deletes"))?,
            }
        }
    };
    put_child(at, last, new).map_err(|()| refused("its parent is not a map or list"))
}

/// The member or element `step` of `value`.
fn child<'v>(value: &'v AttributeValue, step: &Segment) -> Option<&'v AttributeValue> {
    match (step, value) {
        (Segment::Member(name), AttributeValue::M(m)) => m.get(name.as_ref()),
        (Segment::Index(i), AttributeValue::L(l)) => l.get(*i),
        _ => None,
    }
}

/// Set (or, with `None`, remove) the member or element `step` of `parent`, as DynamoDB
/// does: an index past the end appends.
fn put_child(
    parent: &mut AttributeValue,
    step: &Segment,
    new: Option<AttributeValue>,
) -> Result<(), ()> {
    match (step, parent, new) {
        (Segment::Member(name), AttributeValue::M(m), Some(v)) => {
            m.insert(name.to_string(), v);
        }
        (Segment::Member(name), AttributeValue::M(m), None) => {
            m.remove(name.as_ref());
        }
        (Segment::Index(i), AttributeValue::L(l), Some(v)) => match l.get_mut(*i) {
            Some(slot) => *slot = v,
            None => l.push(v),
        },
        (Segment::Index(i), AttributeValue::L(l), None) => {
            if *i < l.len() {
                l.remove(*i);
            }
        }
        _ => return Err(()),
    }
    Ok(())
}

/// The value of an operand holding values only (seeded from the template).
fn evaluate(operand: &Operand, path: &Path) -> Result<AttributeValue, ExprError> {
    let refused = |why: &str| ExprError::Value {
        field: path.root(),
        reason: format!("an update that may create the record sets `{path}`: {why}"),
    };
    match operand {
        Operand::Value(v) => v.clone(),
        Operand::Arithmetic(a, op, b) => match (evaluate(a, path)?, evaluate(b, path)?) {
            (AttributeValue::N(a), AttributeValue::N(b)) => sum(&a, &b, *op == '-')
                .map(AttributeValue::N)
                .ok_or_else(|| refused("the sum is too large to compute")),
            _ => Err(refused("a sum of values that are not numbers")),
        },
        Operand::ListAppend(a, b) => match (evaluate(a, path)?, evaluate(b, path)?) {
            (AttributeValue::L(mut a), AttributeValue::L(b)) => {
                a.extend(b);
                Ok(AttributeValue::L(a))
            }
            _ => Err(refused("an append to a value that is not a list")),
        },
        Operand::Path(_) | Operand::IfNotExists(..) => {
            Err(refused("a reference the record to create does not resolve"))
        }
    }
}

/// `a + b` (or `a - b`) of two DynamoDB numbers, exactly, as text; `None` when the result
/// does not fit 38 significant digits or a text is not a number.
pub(super) fn sum(a: &str, b: &str, subtract: bool) -> Option<String> {
    let (ma, ea) = mantissa(a)?;
    let (mb, eb) = mantissa(b)?;
    let mb = if subtract { -mb } else { mb };
    let e = ea.min(eb);
    let scale = |m: i128, from: i32| -> Option<i128> {
        10i128
            .checked_pow(u32::try_from(from - e).ok()?)?
            .checked_mul(m)
    };
    let total = scale(ma, ea)?.checked_add(scale(mb, eb)?)?;
    // DynamoDB keeps 38 significant digits.
    let digits = total.unsigned_abs().to_string();
    if digits.trim_end_matches('0').len() > 38 {
        return None;
    }
    Some(render(total, e))
}

/// A number's text as `m × 10^e`.
fn mantissa(text: &str) -> Option<(i128, i32)> {
    let t = text.trim();
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (digits, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let all = format!("{int}{frac}");
    if !all.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let trimmed = all.trim_start_matches('0');
    let m: i128 = if trimmed.is_empty() {
        0
    } else {
        trimmed.parse().ok()?
    };
    let e = exponent.checked_sub(i32::try_from(frac.len()).ok()?)?;
    Some((if negative { -m } else { m }, e))
}

/// `m × 10^e` as a plain decimal text (`1250`, `-0.05`).
fn render(m: i128, e: i32) -> String {
    let sign = if m < 0 { "-" } else { "" };
    let digits = m.unsigned_abs().to_string();
    if m == 0 {
        return "0".into();
    }
    if e >= 0 {
        return format!("{sign}{digits}{}", "0".repeat(e as usize));
    }
    let point = e.unsigned_abs() as usize;
    let (int, frac) = if digits.len() > point {
        let (i, f) = digits.split_at(digits.len() - point);
        (i.to_owned(), f.to_owned())
    } else {
        (
            "0".to_owned(),
            format!("{}{digits}", "0".repeat(point - digits.len())),
        )
    };
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_exact() {
        assert_eq!(sum("1", "2", false).as_deref(), Some("3"));
        assert_eq!(sum("0.1", "0.2", false).as_deref(), Some("0.3"));
        assert_eq!(sum("1.5", "2", true).as_deref(), Some("-0.5"));
        assert_eq!(sum("1e3", "25", false).as_deref(), Some("1025"));
        assert_eq!(sum("-0.05", "0.05", false).as_deref(), Some("0"));
        assert_eq!(
            sum("99999999999999999999999999999999999999", "1", false).as_deref(),
            Some("100000000000000000000000000000000000000")
        );
        // 39 significant digits: more than DynamoDB keeps.
        assert_eq!(
            sum("99999999999999999999999999999999999999", "0.1", false),
            None
        );
        assert_eq!(sum("x", "1", false), None);
    }
}
