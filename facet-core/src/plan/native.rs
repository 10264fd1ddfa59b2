//! The key condition of a query on a native (multi-attribute) index: equality on every
//! partition attribute, equalities on the first sort attributes, then at most one range on
//! the next — the order DynamoDB accepts.

use std::cmp::Ordering;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::cursor::CursorError;
use crate::item::Item;
use crate::limits::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
use crate::names::Placeholders;
use crate::schema::{KeyAttribute, NativeKeys, ScalarType, PK, SK};

/// The range condition on the sort attribute after the equalities.
#[derive(Debug, Clone, PartialEq)]
pub enum NativeRange {
    /// `a > v`.
    GreaterThan(AttributeValue),
    /// `a >= v`.
    GreaterThanOrEqual(AttributeValue),
    /// `a < v`.
    LessThan(AttributeValue),
    /// `a <= v`.
    LessThanOrEqual(AttributeValue),
    /// `a BETWEEN lo AND hi` (both included).
    Between(AttributeValue, AttributeValue),
    /// `begins_with(a, v)` (strings and binary).
    BeginsWith(AttributeValue),
}

/// A query's condition on a native index key.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeCondition {
    /// The index's key schema.
    pub keys: NativeKeys,
    /// The value of each partition attribute, in key-schema order.
    pub partition: Vec<AttributeValue>,
    /// The values of the first sort attributes, equal.
    pub equal: Vec<AttributeValue>,
    /// The range on the sort attribute after them.
    pub range: Option<NativeRange>,
}

impl NativeCondition {
    /// The partition of an index: every record with these partition values.
    pub fn new(keys: NativeKeys, partition: Vec<AttributeValue>) -> Self {
        NativeCondition {
            keys,
            partition,
            equal: Vec::new(),
            range: None,
        }
    }

    /// The sort attribute the next condition applies to, if one is left.
    pub fn next_sort_attribute(&self) -> Option<KeyAttribute> {
        match self.range {
            Some(_) => None,
            None => self.keys.sk.get(self.equal.len()).copied(),
        }
    }

    /// `#a = :v AND #b = :w AND …` with the range last.
    pub fn key_condition(&self, p: &mut Placeholders) -> String {
        let mut parts: Vec<String> = Vec::new();
        let equal = self.keys.pk.iter().zip(&self.partition);
        let sort_equal = self.keys.sk.iter().zip(&self.equal);
        for (key, value) in equal.chain(sort_equal) {
            let name = p.name(key.name);
            let value = p.value(value.clone());
            parts.push(format!("{name} = {value}"));
        }
        if let (Some(range), Some(key)) = (&self.range, self.keys.sk.get(self.equal.len())) {
            let name = p.name(key.name);
            let mut value = |v: &AttributeValue| p.value(v.clone());
            parts.push(match range {
                NativeRange::GreaterThan(v) => format!("{name} > {}", value(v)),
                NativeRange::GreaterThanOrEqual(v) => format!("{name} >= {}", value(v)),
                NativeRange::LessThan(v) => format!("{name} < {}", value(v)),
                NativeRange::LessThanOrEqual(v) => format!("{name} <= {}", value(v)),
                NativeRange::Between(a, b) => {
                    let (a, b) = (value(a), value(b));
                    format!("{name} BETWEEN {a} AND {b}")
                }
                NativeRange::BeginsWith(v) => format!("begins_with({name}, {})", value(v)),
            });
        }
        parts.join(" AND ")
    }

    /// Whether the stored `item` is one the condition reads.
    pub fn holds(&self, item: &Item) -> bool {
        let equal = self.keys.pk.iter().zip(&self.partition);
        let sort_equal = self.keys.sk.iter().zip(&self.equal);
        let equal_ok = equal.chain(sort_equal).all(|(k, v)| {
            item.get(k.name)
                .is_some_and(|x| compare(x, v) == Some(Ordering::Equal))
        });
        // An item missing any key attribute is not in the index.
        let all_present = self.keys.pk.iter().chain(self.keys.sk).all(|k| {
            item.get(k.name)
                .is_some_and(|v| ScalarType::of(v) == Some(k.ty))
        });
        equal_ok && all_present && self.range_holds(item)
    }

    fn range_holds(&self, item: &Item) -> bool {
        let (Some(range), Some(key)) = (&self.range, self.keys.sk.get(self.equal.len())) else {
            return true;
        };
        let Some(x) = item.get(key.name) else {
            return false;
        };
        let is = |v: &AttributeValue, ok: fn(Ordering) -> bool| compare(x, v).is_some_and(ok);
        match range {
            NativeRange::GreaterThan(v) => is(v, Ordering::is_gt),
            NativeRange::GreaterThanOrEqual(v) => is(v, Ordering::is_ge),
            NativeRange::LessThan(v) => is(v, Ordering::is_lt),
            NativeRange::LessThanOrEqual(v) => is(v, Ordering::is_le),
            NativeRange::Between(a, b) => is(a, Ordering::is_ge) && is(b, Ordering::is_le),
            NativeRange::BeginsWith(v) => match (x, v) {
                (AttributeValue::S(x), AttributeValue::S(v)) => x.starts_with(v.as_str()),
                (AttributeValue::B(x), AttributeValue::B(v)) => x.as_ref().starts_with(v.as_ref()),
                _ => false,
            },
        }
    }

    /// `true` when the condition can match nothing: `between` with its start after its end,
    /// or an empty string or binary value to equal (no stored record holds one: puts and
    /// updates refuse them). DynamoDB refuses both, so the query is answered without a
    /// request.
    pub fn is_empty(&self) -> bool {
        let empty = |v: &AttributeValue| match v {
            AttributeValue::S(s) => s.is_empty(),
            AttributeValue::B(b) => b.as_ref().is_empty(),
            _ => false,
        };
        let backward = matches!(&self.range, Some(NativeRange::Between(a, b)) if compare(a, b) == Some(Ordering::Greater));
        backward || self.partition.iter().chain(&self.equal).any(empty)
    }

    /// Check a start key taken from a cursor: the table's keys and every attribute of the
    /// index's key schema, typed as declared, in this condition's partition and within its
    /// sort condition, and nothing else.
    pub fn check_start_key(&self, key: &Item) -> Result<(), CursorError> {
        use CursorError::ForeignKey;
        let table = [KeyAttribute::text(PK), KeyAttribute::text(SK)];
        let index = self.keys.pk.iter().chain(self.keys.sk);
        for k in table.iter().chain(index) {
            let max = if self.keys.sk.contains(k) || k.name == SK {
                MAX_SORT_KEY_BYTES
            } else {
                MAX_PARTITION_KEY_BYTES
            };
            check_key_value(key, *k, max)?;
        }
        let expected = 2 + self.keys.pk.len() + self.keys.sk.len();
        if key.len() != expected {
            let extra = key.keys().find(|n| {
                ![PK, SK].contains(&n.as_str())
                    && !self
                        .keys
                        .pk
                        .iter()
                        .chain(self.keys.sk)
                        .any(|k| k.name == n.as_str())
            });
            return Err(ForeignKey(format!(
                "unexpected attribute `{}`",
                extra.map(String::as_str).unwrap_or("?")
            )));
        }
        if !self.holds(key) {
            return Err(ForeignKey(
                "the key is outside the query's partition or sort condition".into(),
            ));
        }
        Ok(())
    }

    /// The partition's values as text, for cursors and traces: `attribute=value` joined
    /// by `, `.
    pub fn partition_text(&self) -> String {
        let parts: Vec<String> = self
            .keys
            .pk
            .iter()
            .zip(&self.partition)
            .map(|(k, v)| format!("{}={}", k.name, text(v)))
            .collect();
        parts.join(", ")
    }

    /// What a cursor of this condition is bound to (besides its partition): the sort
    /// condition.
    pub fn fingerprint(&self) -> u32 {
        crc32fast::hash(format!("{:?}\u{0}{:?}", self.equal, self.range).as_bytes())
    }
}

/// A key value as text: a string as itself, a number as its digits, binary as hex.
fn text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) => format!("{s:?}"),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::B(b) => b.as_ref().iter().map(|x| format!("{x:02x}")).collect(),
        other => format!("{other:?}"),
    }
}

/// How DynamoDB orders two key values of one type: strings and binary byte-wise, numbers
/// by value. `None` for values of different or non-key types.
pub fn compare(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    match (a, b) {
        (AttributeValue::S(a), AttributeValue::S(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
        (AttributeValue::B(a), AttributeValue::B(b)) => Some(a.as_ref().cmp(b.as_ref())),
        (AttributeValue::N(a), AttributeValue::N(b)) => compare_numbers(a, b),
        _ => None,
    }
}

/// A DynamoDB number, exactly: its sign, its significant digits (no leading or trailing
/// zeros) and the power of ten of its first digit. Zero has no digits.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exponent: i64,
}

/// `n` as DynamoDB stores numbers (`-12.50e3`, `.5`, `7E-2`), or `None` if it is not one.
fn number(n: &str) -> Option<Decimal> {
    let n = n.trim();
    let (negative, rest) = match n.as_bytes().first()? {
        b'-' => (true, &n[1..]),
        b'+' => (false, &n[1..]),
        _ => (false, n),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa, ""),
    };
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let all: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    let Some(first) = all.iter().position(|d| *d != 0) else {
        return Some(Decimal {
            negative: false,
            digits: Vec::new(),
            exponent: 0,
        });
    };
    let last = all.iter().rposition(|d| *d != 0).unwrap_or(first);
    Some(Decimal {
        negative,
        digits: all[first..=last].to_vec(),
        // The first significant digit's power of ten.
        exponent: int.len() as i64 - 1 - first as i64 + exp,
    })
}

/// Check key attribute `k` of a start key taken from a cursor: a value of its type, a
/// string or binary one not empty and at most `max` bytes, a number one DynamoDB stores.
pub(crate) fn check_key_value(key: &Item, k: KeyAttribute, max: usize) -> Result<(), CursorError> {
    let ok = match (key.get(k.name), k.ty) {
        (Some(AttributeValue::S(s)), ScalarType::S) => !s.is_empty() && s.len() <= max,
        (Some(AttributeValue::B(b)), ScalarType::B) => {
            !b.as_ref().is_empty() && b.as_ref().len() <= max
        }
        (Some(AttributeValue::N(n)), ScalarType::N) => number(n).is_some(),
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(CursorError::ForeignKey(format!(
        "no valid `{}` {} value",
        k.name, k.ty
    )))
}

fn compare_numbers(a: &str, b: &str) -> Option<Ordering> {
    let (a, b) = (number(a)?, number(b)?);
    let magnitude = |x: &Decimal, y: &Decimal| match (x.digits.is_empty(), y.digits.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => x
            .exponent
            .cmp(&y.exponent)
            .then_with(|| x.digits.cmp(&y.digits)),
    };
    let sign = |x: &Decimal| match (x.digits.is_empty(), x.negative) {
        (true, _) => 0,
        (false, true) => -1,
        (false, false) => 1,
    };
    Some(match sign(&a).cmp(&sign(&b)) {
        Ordering::Equal if sign(&a) < 0 => magnitude(&b, &a),
        Ordering::Equal => magnitude(&a, &b),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PKS: &[KeyAttribute] = &[
        KeyAttribute {
            name: "team",
            ty: ScalarType::S,
        },
        KeyAttribute {
            name: "status",
            ty: ScalarType::S,
        },
    ];
    const SKS: &[KeyAttribute] = &[
        KeyAttribute {
            name: "priority",
            ty: ScalarType::N,
        },
        KeyAttribute {
            name: "due",
            ty: ScalarType::S,
        },
    ];
    const KEYS: NativeKeys = NativeKeys { pk: PKS, sk: SKS };

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }
    fn n(v: &str) -> AttributeValue {
        AttributeValue::N(v.into())
    }

    fn item(priority: &str, due: &str) -> Item {
        let mut i = Item::new();
        i.insert(PK.into(), s("#TEAM_a"));
        i.insert(SK.into(), s("#T_1"));
        i.insert("team".into(), s("a"));
        i.insert("status".into(), s("open"));
        i.insert("priority".into(), n(priority));
        i.insert("due".into(), s(due));
        i
    }

    #[test]
    fn renders_equalities_then_one_range() {
        let mut c = NativeCondition::new(KEYS, vec![s("a"), s("open")]);
        c.equal.push(n("2"));
        c.range = Some(NativeRange::LessThan(s("2026")));
        let mut p = Placeholders::new();
        let text = c.key_condition(&mut p);
        assert_eq!(
            text, "#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2 AND #n3 < :v3",
            "partition equalities, the sort equality, then the range"
        );
        let (names, values) = p.into_parts();
        let names = names.unwrap();
        assert_eq!(names["#n3"], "due");
        assert_eq!(values.unwrap()[":v2"], n("2"));
    }

    #[test]
    fn numbers_order_by_value_and_items_by_the_condition() {
        assert_eq!(compare(&n("10"), &n("9")), Some(Ordering::Greater));
        assert_eq!(compare(&n("-1.5"), &n("-1")), Some(Ordering::Less));
        assert_eq!(compare(&n("1e3"), &n("999")), Some(Ordering::Greater));
        assert_eq!(compare(&s("10"), &s("9")), Some(Ordering::Less));
        assert_eq!(compare(&s("1"), &n("1")), None);
        // Exactly, beyond a float's digits, and in every spelling.
        let big = "12345678901234567890123456789012345678";
        let bigger = "12345678901234567890123456789012345679";
        assert_eq!(compare(&n(big), &n(bigger)), Some(Ordering::Less));
        assert_eq!(
            compare(&n("0.10000000000000000001"), &n("0.1")),
            Some(Ordering::Greater)
        );
        assert_eq!(compare(&n("1.50"), &n("15E-1")), Some(Ordering::Equal));
        assert_eq!(compare(&n("-0"), &n("0.000")), Some(Ordering::Equal));
        assert_eq!(compare(&n("-2"), &n("-10")), Some(Ordering::Greater));
        assert_eq!(compare(&n("-0.5"), &n("0.25")), Some(Ordering::Less));
        assert_eq!(compare(&n(".5"), &n("0.5")), Some(Ordering::Equal));
        assert_eq!(compare(&n("abc"), &n("1")), None);
        let mut c = NativeCondition::new(KEYS, vec![s("a"), s("open")]);
        c.range = Some(NativeRange::Between(n("2"), n("10")));
        assert!(c.holds(&item("9", "x")));
        assert!(c.holds(&item("10", "x")));
        assert!(!c.holds(&item("11", "x")));
        let mut missing = item("3", "x");
        missing.remove("due");
        assert!(
            !c.holds(&missing),
            "an item missing a key attribute is not in the index"
        );
        c.range = Some(NativeRange::Between(n("10"), n("2")));
        assert!(c.is_empty());
    }

    #[test]
    fn start_keys_are_checked() {
        let mut c = NativeCondition::new(KEYS, vec![s("a"), s("open")]);
        c.equal.push(n("3"));
        assert!(c.check_start_key(&item("3", "x")).is_ok());
        assert!(
            c.check_start_key(&item("4", "x")).is_err(),
            "outside the equality"
        );
        let mut wrong = item("3", "x");
        wrong.insert("due".into(), n("1"));
        assert!(c.check_start_key(&wrong).is_err(), "a key of another type");
        let mut extra = item("3", "x");
        extra.insert("title".into(), s("t"));
        assert!(c.check_start_key(&extra).is_err(), "an extra attribute");
    }
}
