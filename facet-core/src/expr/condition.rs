//! Conditions and filters: [`Expr`], rendered with placeholders only.

use std::marker::PhantomData;
use std::ops::{BitAnd, BitOr, Not};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::names::Placeholders;

use super::error::ExprError;
use super::field::{only_member, Collection, Comparable, Field, FieldValue, Value};
use super::member::Member;
use super::operand::{Operand, Side};
use super::path::Path;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparator {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Comparator {
    fn symbol(self) -> &'static str {
        match self {
            Comparator::Eq => "=",
            Comparator::Ne => "<>",
            Comparator::Lt => "<",
            Comparator::Le => "<=",
            Comparator::Gt => ">",
            Comparator::Ge => ">=",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Compare(Path, Comparator, Side),
    Between(Path, Side, Side),
    BeginsWith(Path, Value),
    Contains(Path, Value),
    In(Path, Vec<Value>),
    Exists(Path),
    NotExists(Path),
    /// `attribute_not_exists(a) OR attribute_type(a, NULL)`: no value (a `None`).
    AbsentOrNull(Path),
    Size(Path, Comparator, u64),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
}

impl Node {
    /// Every path the node reads, in order (the compared attribute first, then references).
    fn paths<'a>(&'a self, out: &mut Vec<&'a Path>) {
        match self {
            Node::Compare(p, _, side) => {
                out.push(p);
                side.paths(out);
            }
            Node::Between(p, a, b) => {
                out.push(p);
                a.paths(out);
                b.paths(out);
            }
            Node::BeginsWith(p, _)
            | Node::Contains(p, _)
            | Node::In(p, _)
            | Node::Exists(p)
            | Node::NotExists(p)
            | Node::AbsentOrNull(p)
            | Node::Size(p, _, _) => out.push(p),
            Node::And(a, b) | Node::Or(a, b) => {
                a.paths(out);
                b.paths(out);
            }
            Node::Not(a) => a.paths(out),
        }
    }
}

/// A condition or filter expression over the fields of facet `F`.
///
/// Combine with `&` (and), `|` (or) and `!` (not), or [`Expr::and`], [`Expr::or`],
/// [`Expr::not`].
pub struct Expr<F> {
    node: Node,
    _facet: PhantomData<fn() -> F>,
}

impl<F> Clone for Expr<F> {
    fn clone(&self) -> Self {
        Expr::new(self.node.clone())
    }
}

/// Values compared with the `#[sensitive]` fields of facets known to the process print
/// masked ([`crate::redact`]).
impl<F> std::fmt::Debug for Expr<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.node.masked().fmt(f)
    }
}

impl Node {
    /// The node with the values compared with sensitive attributes masked.
    fn masked(&self) -> Node {
        let hidden = |p: &Path| crate::redact::is_sensitive(None, p.root());
        let shown = || Ok(AttributeValue::S(crate::redact::REDACTED.to_owned()));
        let value = |p: &Path, v: &Value| if hidden(p) { shown() } else { v.clone() };
        let side = |p: &Path, s: &Side| {
            if hidden(p) {
                Side::Value(shown())
            } else {
                s.clone()
            }
        };
        match self {
            Node::Compare(p, op, s) => Node::Compare(p.clone(), *op, side(p, s)),
            Node::Between(p, a, b) => Node::Between(p.clone(), side(p, a), side(p, b)),
            Node::BeginsWith(p, v) => Node::BeginsWith(p.clone(), value(p, v)),
            Node::Contains(p, v) => Node::Contains(p.clone(), value(p, v)),
            Node::In(p, vs) => Node::In(p.clone(), vs.iter().map(|v| value(p, v)).collect()),
            Node::And(a, b) => Node::And(Box::new(a.masked()), Box::new(b.masked())),
            Node::Or(a, b) => Node::Or(Box::new(a.masked()), Box::new(b.masked())),
            Node::Not(a) => Node::Not(Box::new(a.masked())),
            other => other.clone(),
        }
    }
}

impl<F> PartialEq for Expr<F> {
    fn eq(&self, other: &Self) -> bool {
        self.node == other.node
    }
}

impl<F> Expr<F> {
    fn new(node: Node) -> Self {
        Expr {
            node,
            _facet: PhantomData,
        }
    }

    /// Both conditions hold.
    pub fn and(self, other: Expr<F>) -> Expr<F> {
        Expr::new(Node::And(Box::new(self.node), Box::new(other.node)))
    }

    /// Either condition holds.
    pub fn or(self, other: Expr<F>) -> Expr<F> {
        Expr::new(Node::Or(Box::new(self.node), Box::new(other.node)))
    }

    /// The condition does not hold.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Expr<F> {
        Expr::new(Node::Not(Box::new(self.node)))
    }

    /// `attribute = value`, or, when `value` is `None`, that the attribute has no value
    /// (absent, or `NULL` as other writers may store a missing value): the stored attribute
    /// is `value` (conditions an update adds for the values it rebuilds keys from; see
    /// [`same_value`]).
    #[doc(hidden)]
    pub fn stored_as(attribute: &'static str, value: Option<AttributeValue>) -> Expr<F> {
        let path = Path::new(attribute);
        Expr::new(match value {
            Some(v) => Node::Compare(path, Comparator::Eq, Side::Value(Ok(v))),
            None => Node::AbsentOrNull(path),
        })
    }

    /// `attribute_not_exists(attribute)`: no stored item, when `attribute` is a key
    /// attribute.
    #[doc(hidden)]
    pub fn absent(attribute: &'static str) -> Expr<F> {
        Expr::new(Node::NotExists(Path::new(attribute)))
    }

    /// Render the expression, registering its names and values in `p`.
    #[doc(hidden)]
    pub fn render(&self, p: &mut Placeholders) -> Result<String, ExprError> {
        render(&self.node, p)
    }

    /// The top-level attributes the expression reads (what a check of where it may be
    /// evaluated needs: `address` for `address.city`), each once; an error when the
    /// expression cannot be rendered.
    #[doc(hidden)]
    pub fn attribute_names(&self) -> Result<Vec<String>, ExprError> {
        self.render(&mut Placeholders::new())?;
        let mut names: Vec<String> = Vec::new();
        for path in self.paths() {
            if !names.iter().any(|n| n == path.root()) {
                names.push(path.root().to_owned());
            }
        }
        Ok(names)
    }

    /// Every document path the expression reads, in order (`address.city`, `tags[0]`).
    pub fn paths(&self) -> Vec<&Path> {
        let mut out = Vec::new();
        self.node.paths(&mut out);
        out
    }
}

impl<F> BitAnd for Expr<F> {
    type Output = Expr<F>;
    fn bitand(self, rhs: Self) -> Self {
        self.and(rhs)
    }
}

impl<F> BitOr for Expr<F> {
    type Output = Expr<F>;
    fn bitor(self, rhs: Self) -> Self {
        self.or(rhs)
    }
}

impl<F> Not for Expr<F> {
    type Output = Expr<F>;
    fn not(self) -> Self {
        Expr::not(self)
    }
}

fn value(p: &mut Placeholders, v: &Value) -> Result<String, ExprError> {
    Ok(p.value(v.clone()?))
}

fn side(p: &mut Placeholders, s: &Side) -> Result<String, ExprError> {
    match s {
        Side::Value(v) => value(p, v),
        Side::Path(path) => Ok(path.render(p)),
        // Conditions take values and paths only (the types allow nothing else).
        Side::IfAbsent(..) | Side::Sum(..) => Err(ExprError::Value {
            field: "",
            reason: "a condition compares with a value or an attribute, not a sum".into(),
        }),
    }
}

fn render(node: &Node, p: &mut Placeholders) -> Result<String, ExprError> {
    Ok(match node {
        Node::Compare(path, op, v) => {
            let n = path.render(p);
            let v = side(p, v)?;
            format!("{n} {} {v}", op.symbol())
        }
        Node::Between(path, a, b) => {
            let n = path.render(p);
            let a = side(p, a)?;
            let b = side(p, b)?;
            format!("{n} BETWEEN {a} AND {b}")
        }
        Node::BeginsWith(path, v) => {
            let n = path.render(p);
            let v = value(p, v)?;
            format!("begins_with({n}, {v})")
        }
        Node::Contains(path, v) => {
            let n = path.render(p);
            let v = value(p, v)?;
            format!("contains({n}, {v})")
        }
        Node::In(path, values) => {
            if values.is_empty() || values.len() > 100 {
                return Err(ExprError::InListSize {
                    field: path.root(),
                    count: values.len(),
                });
            }
            let n = path.render(p);
            let vs = values
                .iter()
                .map(|v| value(p, v))
                .collect::<Result<Vec<_>, _>>()?;
            format!("{n} IN ({})", vs.join(", "))
        }
        Node::Exists(path) => format!("attribute_exists({})", path.render(p)),
        Node::NotExists(path) => format!("attribute_not_exists({})", path.render(p)),
        Node::AbsentOrNull(path) => {
            let n = path.render(p);
            let null = p.value(AttributeValue::S("NULL".into()));
            format!("attribute_not_exists({n}) OR attribute_type({n}, {null})")
        }
        Node::Size(path, op, size) => {
            let n = path.render(p);
            let v = p.value(AttributeValue::N(size.to_string()));
            format!("size({n}) {} {v}", op.symbol())
        }
        Node::And(a, b) => format!("({}) AND ({})", render(a, p)?, render(b, p)?),
        Node::Or(a, b) => format!("({}) OR ({})", render(a, p)?, render(b, p)?),
        Node::Not(a) => format!("NOT ({})", render(a, p)?),
    })
}

/// Whether a stored attribute satisfies [`Expr::stored_as`] of `expected` the way DynamoDB
/// evaluates it: numbers compare by value (`1.0` is `1`), sets whatever their order, lists
/// and maps member by member, and no value matches an absent attribute or `NULL`.
pub fn same_value(stored: Option<&AttributeValue>, expected: Option<&AttributeValue>) -> bool {
    match (stored, expected) {
        (None | Some(AttributeValue::Null(_)), None) => true,
        (Some(a), Some(b)) => same(a, b),
        _ => false,
    }
}

fn same(a: &AttributeValue, b: &AttributeValue) -> bool {
    use AttributeValue as A;
    fn as_set<T: Ord + Clone>(v: &[T]) -> Vec<T> {
        let mut v = v.to_vec();
        v.sort();
        v.dedup();
        v
    }
    match (a, b) {
        (A::N(x), A::N(y)) => decimal(x) == decimal(y),
        (A::Ss(x), A::Ss(y)) => as_set(x) == as_set(y),
        (A::Ns(x), A::Ns(y)) => {
            let canon = |v: &[String]| as_set(&v.iter().map(|n| decimal(n)).collect::<Vec<_>>());
            canon(x) == canon(y)
        }
        (A::Bs(x), A::Bs(y)) => {
            let bytes = |v: &[aws_sdk_dynamodb::primitives::Blob]| {
                as_set(&v.iter().map(|b| b.as_ref().to_vec()).collect::<Vec<_>>())
            };
            bytes(x) == bytes(y)
        }
        (A::L(x), A::L(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (A::M(x), A::M(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

/// A decimal number's canonical form: sign, significant digits, and the exponent of the
/// first digit (`"-0012.50e1"` → `(true, "125", 2)`); zero is `(false, "", 0)`. Text that is
/// not a number is kept as it is.
fn decimal(text: &str) -> (bool, String, i128) {
    let t = text.trim();
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => match t[i + 1..].parse::<i64>() {
            Ok(e) => (&t[..i], i128::from(e)),
            Err(_) => return (false, text.to_owned(), i128::MIN),
        },
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !(int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())) {
        return (false, text.to_owned(), i128::MIN);
    }
    let digits = format!("{int}{frac}");
    let leading = digits.bytes().take_while(|b| *b == b'0').count();
    let significant = digits[leading..].trim_end_matches('0');
    if significant.is_empty() {
        return (false, String::new(), 0);
    }
    let position = int.len() as i128 - leading as i128 + exponent;
    (negative, significant.to_owned(), position)
}

/// The comparisons, the same on a field and on a member inside one (`$path` gives the
/// document path, `$rhs` resolves an operand against it).
macro_rules! compare_ops {
    ($($bound:tt)*) => {
        fn compare(&self, op: Comparator, v: impl Operand<F, T>) -> Expr<F> $($bound)* {
            Expr::new(Node::Compare(self.cond_path(), op, self.side(v)))
        }

        /// `field = v`: `v` is a value, or another field of the record holding the same type
        /// (compared on the server).
        pub fn eq(&self, v: impl Operand<F, T>) -> Expr<F> $($bound)* {
            self.compare(Comparator::Eq, v)
        }

        /// `field <> v`
        pub fn ne(&self, v: impl Operand<F, T>) -> Expr<F> $($bound)* {
            self.compare(Comparator::Ne, v)
        }

        /// `field < v`
        pub fn lt(&self, v: impl Operand<F, T>) -> Expr<F> $($bound)* {
            self.compare(Comparator::Lt, v)
        }

        /// `field <= v`
        pub fn le(&self, v: impl Operand<F, T>) -> Expr<F> $($bound)* {
            self.compare(Comparator::Le, v)
        }

        /// `field > v`
        pub fn gt(&self, v: impl Operand<F, T>) -> Expr<F> $($bound)* {
            self.compare(Comparator::Gt, v)
        }

        /// `field >= v`
        pub fn ge(&self, v: impl Operand<F, T>) -> Expr<F> $($bound)* {
            self.compare(Comparator::Ge, v)
        }

        /// `field BETWEEN a AND b` (both included; values or fields).
        pub fn between(&self, a: impl Operand<F, T>, b: impl Operand<F, T>) -> Expr<F> $($bound)* {
            Expr::new(Node::Between(self.cond_path(), self.side(a), self.side(b)))
        }

        /// `field IN (v1, v2, …)` (1 to 100 values).
        pub fn is_in<V: FieldValue<T>>(&self, values: impl IntoIterator<Item = V>) -> Expr<F>
        $($bound)*
        {
            Expr::new(Node::In(
                self.cond_path(),
                values
                    .into_iter()
                    .map(|v| self.operand(v.into_field_value()))
                    .collect(),
            ))
        }

        /// `attribute_exists(field)`: the attribute is present (an optional field is `Some`).
        pub fn exists(&self) -> Expr<F> $($bound)* {
            Expr::new(Node::Exists(self.cond_path()))
        }

        /// `attribute_not_exists(field)`.
        pub fn not_exists(&self) -> Expr<F> $($bound)* {
            Expr::new(Node::NotExists(self.cond_path()))
        }

        /// `size(field)`: compare the length of a string, binary, list, map or set.
        pub fn size(&self) -> Size<F> $($bound)* {
            Size {
                path: self.cond_path(),
                _facet: PhantomData,
            }
        }
    };
}

/// `begins_with` and `contains` on string values.
macro_rules! string_ops {
    ($($bound:tt)*) => {
        /// `begins_with(field, prefix)`.
        pub fn begins_with(&self, prefix: impl FieldValue<String>) -> Expr<F> $($bound)* {
            Expr::new(Node::BeginsWith(
                self.cond_path(),
                self.operand(prefix.into_field_value()),
            ))
        }

        /// `contains(field, part)`: the string contains `part`.
        pub fn contains(&self, part: impl FieldValue<String>) -> Expr<F> $($bound)* {
            Expr::new(Node::Contains(
                self.cond_path(),
                self.operand(part.into_field_value()),
            ))
        }
    };
}

impl<F, T, S, K> Field<F, T, S, K> {
    fn cond_path(&self) -> Path {
        self.path()
    }

    fn side(&self, v: impl Operand<F, T>) -> Side {
        let path = self.path();
        v.into_rhs()
            .resolve(&path, self.codec(), &|v| self.operand(v))
    }

    compare_ops!(where K: Comparable);
}

impl<F, S, K> Field<F, String, S, K> {
    string_ops!(where K: Comparable);
}

impl<F, T, S, K> Field<F, T, S, K>
where
    T: Collection,
{
    /// `contains(field, element)`: the list or set contains `element` (as the field stores
    /// its elements).
    pub fn contains_element(&self, element: impl FieldValue<T::Element>) -> Expr<F>
    where
        K: Comparable,
    {
        let one: T = std::iter::once(element.into_field_value()).collect();
        Expr::new(Node::Contains(
            self.path(),
            only_member(self.name(), self.operand(one)),
        ))
    }
}

impl<F, T> Member<F, T> {
    fn cond_path(&self) -> Path {
        self.path().clone()
    }

    fn side(&self, v: impl Operand<F, T>) -> Side {
        v.into_rhs()
            .resolve(self.path(), self.codec_text(), &|v| self.operand(v))
    }

    compare_ops!();
}

impl<F> Member<F, String> {
    string_ops!();
}

/// `size(field)` of a [`Field`], compared with a length.
pub struct Size<F> {
    path: Path,
    _facet: PhantomData<fn() -> F>,
}

impl<F> Size<F> {
    fn compare(&self, op: Comparator, n: u64) -> Expr<F> {
        Expr::new(Node::Size(self.path.clone(), op, n))
    }
    /// `size(field) = n`
    pub fn eq(&self, n: u64) -> Expr<F> {
        self.compare(Comparator::Eq, n)
    }
    /// `size(field) <> n`
    pub fn ne(&self, n: u64) -> Expr<F> {
        self.compare(Comparator::Ne, n)
    }
    /// `size(field) < n`
    pub fn lt(&self, n: u64) -> Expr<F> {
        self.compare(Comparator::Lt, n)
    }
    /// `size(field) <= n`
    pub fn le(&self, n: u64) -> Expr<F> {
        self.compare(Comparator::Le, n)
    }
    /// `size(field) > n`
    pub fn gt(&self, n: u64) -> Expr<F> {
        self.compare(Comparator::Gt, n)
    }
    /// `size(field) >= n`
    pub fn ge(&self, n: u64) -> Expr<F> {
        self.compare(Comparator::Ge, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct T;

    #[test]
    fn renders_placeholders_only() {
        let status: Field<T, String> = Field::new("status");
        let count: Field<T, u32> = Field::new("count");
        let tags: Field<T, Vec<String>> = Field::new("tags");
        let e = (status.eq("open") & count.between(1u32, 5u32))
            | !status.begins_with("x\" OR 1=1")
            | tags.contains_element("a")
            | count.size().gt(3)
            | status.is_in(["a", "b"])
            | count.not_exists();
        let mut p = Placeholders::new();
        let text = e.render(&mut p).unwrap();
        assert!(
            !text.contains("status") && !text.contains("OR 1=1"),
            "{text}"
        );
        assert!(text.contains("#n0 = :v0"), "{text}");
        assert!(text.contains("#n1 BETWEEN :v1 AND :v2"), "{text}");
        assert!(text.contains("NOT (begins_with(#n0, :v3))"), "{text}");
        assert!(text.contains("IN (:v6, :v7)"), "{text}");
        let (names, values) = p.into_parts();
        assert_eq!(names.unwrap()["#n0"], "status");
        assert_eq!(values.unwrap()[":v1"], AttributeValue::N("1".into()));
    }

    #[test]
    fn stored_values_compare_as_dynamodb_compares_them() {
        use AttributeValue as A;
        let n = |s: &str| A::N(s.to_owned());
        assert!(same_value(Some(&n("1.0")), Some(&n("1"))));
        assert!(same_value(Some(&n("-0012.50e1")), Some(&n("-125"))));
        assert!(same_value(Some(&n("0.00")), Some(&n("-0"))));
        assert!(!same_value(Some(&n("10")), Some(&n("1"))));
        assert!(!same_value(Some(&n("-1")), Some(&n("1"))));
        let ss = |v: &[&str]| A::Ss(v.iter().map(|s| s.to_string()).collect());
        assert!(same_value(Some(&ss(&["b", "a"])), Some(&ss(&["a", "b"]))));
        assert!(same_value(
            Some(&A::Ns(vec!["2".into(), "1.0".into()])),
            Some(&A::Ns(vec!["1".into(), "2".into()]))
        ));
        assert!(same_value(Some(&A::Null(true)), None));
        assert!(same_value(None, None));
        assert!(!same_value(Some(&A::S("x".into())), None));
        assert!(!same_value(None, Some(&A::S("x".into()))));
        assert!(same_value(
            Some(&A::L(vec![n("1.50")])),
            Some(&A::L(vec![n("1.5")]))
        ));
    }

    #[test]
    fn members_and_references_render_as_paths() {
        #[derive(serde::Serialize)]
        struct Addr;
        let address: Field<T, Addr> = Field::new("address");
        let city: Field<T, String, String, crate::expr::NestedAttribute> =
            address.__member("city", crate::expr::encode_plain::<String>, "");
        let created: Field<T, u64> = Field::new("created");
        let updated: Field<T, u64> = Field::new("updated");
        let e = city.eq("Oslo") & updated.gt(created) & updated.between(created, 9u64);
        let mut p = Placeholders::new();
        let text = e.render(&mut p).unwrap();
        assert_eq!(
            text,
            "((#n0.#m0 = :v0) AND (#n1 > #n2)) AND (#n1 BETWEEN #n2 AND :v1)"
        );
        // Checks of where a filter may run see the top-level attributes, each once.
        assert_eq!(
            e.attribute_names().unwrap(),
            ["address", "updated", "created"]
        );
        let paths: Vec<String> = e.paths().iter().map(|p| p.to_string()).collect();
        assert_eq!(paths[0], "address.city");
    }

    #[test]
    fn references_between_differently_stored_fields_are_refused() {
        fn seconds(v: u64) -> (crate::expr::Encoded, u64) {
            (Ok(Some(AttributeValue::N(v.to_string()))), v)
        }
        let a: Field<T, u64> = Field::new("a");
        let b: Field<T, u64> =
            Field::coded("b", 1, seconds).with_codec("chrono::serde::ts_seconds::serialize");
        let c: Field<T, u64> =
            Field::coded("c", 2, seconds).with_codec("chrono::serde::ts_seconds_option::serialize");
        let err = a.lt(b).render(&mut Placeholders::new()).unwrap_err();
        assert!(
            matches!(&err, ExprError::CodecMismatch { left, right, .. } if left == "a" && right == "b"),
            "{err:?}"
        );
        // `_option` codecs store their values as the plain one does.
        assert!(b.lt(c).render(&mut Placeholders::new()).is_ok());
    }

    #[test]
    fn empty_in_list_is_an_error() {
        let status: Field<T, String> = Field::new("status");
        let e = status.is_in(Vec::<String>::new());
        assert!(matches!(
            e.render(&mut Placeholders::new()),
            Err(ExprError::InListSize { count: 0, .. })
        ));
    }
}
