//! Typed update expressions (`UpdateItem`) over a facet's field handles.
//!
//! Each operation on a [`Field`] (or a nested [`Member`]) gives an
//! [`Update<F>`]; combine them with `&`:
//!
//! ```text
//! let f = Order::fields();
//! let change = f.status.set(OrderStatus::Shipped)
//!     & f.items_shipped.add(2)
//!     & f.history.append([event])
//!     & f.coupon.remove()
//!     & f.address.member::<String>("city").set("Lyon");
//! ```
//!
//! Updates render with placeholders only. Fields of the table's key have no update
//! operations: changing a key means writing a new record (a compile error says so).

use std::marker::PhantomData;
use std::ops::BitAnd;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use crate::expr::{ExprError, Field, FieldValue};
use crate::names::Placeholders;

/// One step below an attribute: a map member or a list element.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Member(String),
    Index(usize),
}

/// A document path: an attribute and the steps into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    root: &'static str,
    steps: Vec<Segment>,
}

impl Path {
    fn new(root: &'static str) -> Self {
        Path {
            root,
            steps: Vec::new(),
        }
    }

    fn child(&self, step: Segment) -> Path {
        let mut steps = self.steps.clone();
        steps.push(step);
        Path {
            root: self.root,
            steps,
        }
    }

    /// `#n0.#n1[2]`.
    fn render(&self, p: &mut Placeholders) -> String {
        let mut out = p.name(self.root);
        for step in &self.steps {
            match step {
                Segment::Member(name) => {
                    out.push('.');
                    out.push_str(&p.name(name));
                }
                Segment::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    /// Whether one path is the other or lies inside it (DynamoDB refuses two actions on
    /// overlapping paths).
    fn overlaps(&self, other: &Path) -> bool {
        self.root == other.root && self.steps.iter().zip(&other.steps).all(|(a, b)| a == b)
    }
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.root)?;
        for step in &self.steps {
            match step {
                Segment::Member(name) => write!(f, ".{name}")?,
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

type Value = Result<AttributeValue, ExprError>;

/// The right-hand side of a `SET`.
#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Value(Value),
    /// `if_not_exists(path, value)`.
    IfNotExists(Path, Value),
    /// `a + b` / `a - b`.
    Arithmetic(Box<Operand>, char, Box<Operand>),
    /// `list_append(a, b)`.
    ListAppend(Box<Operand>, Box<Operand>),
}

impl Operand {
    fn render(&self, p: &mut Placeholders) -> Result<String, ExprError> {
        Ok(match self {
            Operand::Value(v) => p.value(v.clone()?),
            Operand::IfNotExists(path, v) => {
                let path = path.render(p);
                format!("if_not_exists({path}, {})", p.value(v.clone()?))
            }
            Operand::Arithmetic(a, op, b) => format!("{} {op} {}", a.render(p)?, b.render(p)?),
            Operand::ListAppend(a, b) => {
                format!("list_append({}, {})", a.render(p)?, b.render(p)?)
            }
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Action {
    Set(Path, Operand),
    Remove(Path),
    Add(Path, Value),
    Delete(Path, Value),
}

impl Action {
    fn path(&self) -> &Path {
        match self {
            Action::Set(p, _) | Action::Remove(p) | Action::Add(p, _) | Action::Delete(p, _) => p,
        }
    }
}

/// Changes to the record of facet `F`: one or more actions, combined with `&`.
pub struct Update<F> {
    actions: Vec<Action>,
    /// The record's key (`PK`, `SK`) when the update was built from key field values (a
    /// generated setter whose index key includes them): it applies to that record only.
    expected_key: Option<(String, String)>,
    _facet: PhantomData<fn() -> F>,
}

impl<F> Clone for Update<F> {
    fn clone(&self) -> Self {
        Update {
            actions: self.actions.clone(),
            expected_key: self.expected_key.clone(),
            _facet: PhantomData,
        }
    }
}

impl<F> std::fmt::Debug for Update<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(&self.actions).finish()
    }
}

impl<F> PartialEq for Update<F> {
    fn eq(&self, other: &Self) -> bool {
        self.actions == other.actions
    }
}

impl<F> BitAnd for Update<F> {
    type Output = Update<F>;
    fn bitand(mut self, rhs: Update<F>) -> Update<F> {
        self.actions.extend(rhs.actions);
        if self.expected_key.is_none() {
            self.expected_key = rhs.expected_key;
        } else if rhs.expected_key.is_some() && rhs.expected_key != self.expected_key {
            // Two setters built for two records: no key can satisfy both.
            self.expected_key = Some((String::new(), String::new()));
        }
        self
    }
}

impl<F> Update<F> {
    fn from_actions(actions: Vec<Action>) -> Self {
        Update {
            actions,
            expected_key: None,
            _facet: PhantomData,
        }
    }

    /// No change yet (generated setters start here).
    pub fn empty() -> Self {
        Update::from_actions(Vec::new())
    }

    /// Set attribute `name` to `value`, or remove it when `value` serializes to nothing
    /// (`None`) (generated setters).
    pub fn assign<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Update<F> {
        let path = Path::new(name);
        let action = match crate::marshal::to_attribute_value(value) {
            Ok(Some(v)) => Action::Set(path, Operand::Value(Ok(v))),
            Ok(None) => Action::Remove(path),
            Err(e) => Action::Set(
                path,
                Operand::Value(Err(ExprError::Value {
                    field: name,
                    reason: e.to_string(),
                })),
            ),
        };
        self & Update::one(action)
    }

    /// The update applies only to the record with key (`pk`, `sk`) (generated setters whose
    /// index key is built from key fields).
    pub fn for_key(mut self, pk: String, sk: String) -> Update<F> {
        self.expected_key = Some((pk, sk));
        self
    }

    /// The record key this update was built for, if it was.
    pub fn expected_key(&self) -> Option<(&str, &str)> {
        self.expected_key
            .as_ref()
            .map(|(pk, sk)| (pk.as_str(), sk.as_str()))
    }

    /// `true` when the update changes nothing.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    fn one(action: Action) -> Self {
        Update::from_actions(vec![action])
    }

    /// The same changes and `other`'s.
    pub fn and(self, other: Update<F>) -> Update<F> {
        self & other
    }

    /// Set attribute `name` to `value` (generated code keeps index keys and the TTL in step
    /// with the fields they are built from).
    pub fn set_attribute(self, name: &'static str, value: AttributeValue) -> Update<F> {
        self & Update::one(Action::Set(Path::new(name), Operand::Value(Ok(value))))
    }

    /// Add 1 to number attribute `name` (the `#[version]` counter, on every update).
    pub fn increment_attribute(self, name: &'static str) -> Update<F> {
        self & Update::one(Action::Add(
            Path::new(name),
            Ok(AttributeValue::N("1".into())),
        ))
    }

    /// Remove attribute `name`.
    pub fn remove_attribute(self, name: &'static str) -> Update<F> {
        self & Update::one(Action::Remove(Path::new(name)))
    }

    /// Render as an `UpdateExpression` (`SET … REMOVE … ADD … DELETE …`), registering its
    /// names and values in `p`.
    pub fn render(&self, p: &mut Placeholders) -> Result<String, ExprError> {
        if self.is_empty() {
            return Err(ExprError::EmptyUpdate);
        }
        for (i, a) in self.actions.iter().enumerate() {
            if let Some(b) = self.actions[i + 1..]
                .iter()
                .find(|b| a.path().overlaps(b.path()))
            {
                return Err(ExprError::OverlappingPaths {
                    first: a.path().to_string(),
                    second: b.path().to_string(),
                });
            }
        }
        let (mut set, mut remove, mut add, mut delete) = (vec![], vec![], vec![], vec![]);
        for a in &self.actions {
            match a {
                Action::Set(path, operand) => {
                    let path = path.render(p);
                    set.push(format!("{path} = {}", operand.render(p)?));
                }
                Action::Remove(path) => remove.push(path.render(p)),
                Action::Add(path, v) => {
                    let path = path.render(p);
                    add.push(format!("{path} {}", p.value(v.clone()?)));
                }
                Action::Delete(path, v) => {
                    let path = path.render(p);
                    delete.push(format!("{path} {}", p.value(v.clone()?)));
                }
            }
        }
        let clauses = [
            ("SET", set),
            ("REMOVE", remove),
            ("ADD", add),
            ("DELETE", delete),
        ];
        Ok(clauses
            .into_iter()
            .filter(|(_, parts)| !parts.is_empty())
            .map(|(word, parts)| format!("{word} {}", parts.join(", ")))
            .collect::<Vec<_>>()
            .join(" "))
    }
}

/// A value as an attribute value, with faceteer's marshalling (absent values are refused:
/// use `remove()`).
fn value_of<T: Serialize + ?Sized>(path: &Path, v: &T) -> Value {
    match crate::marshal::to_attribute_value(v) {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(ExprError::Value {
            field: path.root,
            reason: format!("`{path}` would be set to nothing; use `remove()`"),
        }),
        Err(e) => Err(ExprError::Value {
            field: path.root,
            reason: e.to_string(),
        }),
    }
}

/// Whether a field's handle has update operations. Only plain attributes do: the table's
/// key fields cannot change (write a new record instead), and fields that index keys or
/// the TTL are built from are updated through the facet's generated setters, which keep
/// those attributes in step.
#[diagnostic::on_unimplemented(
    message = "this field cannot be updated: it is `{Self}`",
    label = "not updatable",
    note = "a key field identifies the record: to change it, put a record with the new key \
            and delete the old one (in a transaction to make it atomic)",
    note = "a field an index key or the TTL is built from is changed with the facet's \
            generated `set_<field>(..)` update, which rewrites those attributes too",
    note = "the `#[version]` counter is moved by every put and update; it is not set by hand"
)]
pub trait Updatable {}

/// The kind of a field that is a plain attribute: it has update operations.
#[derive(Debug, Clone, Copy)]
pub enum Attribute {}
impl Updatable for Attribute {}

/// The kind of a field the table's partition or sort key is built from.
#[derive(Debug, Clone, Copy)]
pub enum PartOfThePrimaryKey {}

/// The kind of a field an index key or the TTL attribute is built from.
#[derive(Debug, Clone, Copy)]
pub enum PartOfAnIndexKeyOrTheTtl {}

/// The kind of the `#[version]` counter: every put and update moves it.
#[derive(Debug, Clone, Copy)]
pub enum TheVersionCounter {}

/// A numeric field type: `add` and `subtract` apply.
pub trait Numeric: Serialize {}
macro_rules! numeric {
    ($($t:ty),*) => {$( impl Numeric for $t {} )*};
}
numeric!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);

/// A value that can be a member of a DynamoDB set: strings (`SS`) and numbers (`NS`).
pub trait SetMember: Sized {
    /// The set of `values`.
    fn set_of(values: Vec<Self>) -> AttributeValue;
}

impl SetMember for String {
    fn set_of(values: Vec<Self>) -> AttributeValue {
        AttributeValue::Ss(values)
    }
}

macro_rules! number_members {
    ($($t:ty),*) => {$(
        impl SetMember for $t {
            fn set_of(values: Vec<Self>) -> AttributeValue {
                AttributeValue::Ns(values.iter().map(ToString::to_string).collect())
            }
        }
    )*};
}
number_members!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// The set of `values` for `path`; DynamoDB has no empty sets.
fn set_value<E: SetMember>(path: &Path, values: impl IntoIterator<Item = E>) -> Value {
    let values: Vec<E> = values.into_iter().collect();
    if values.is_empty() {
        return Err(ExprError::Value {
            field: path.root,
            reason: format!("`{path}`: DynamoDB sets cannot be empty"),
        });
    }
    Ok(E::set_of(values))
}

/// A nested path below a field: a map member or a list element, typed by what it holds.
pub struct Member<F, T> {
    path: Path,
    _types: PhantomData<fn() -> (F, T)>,
}

impl<F, T> Clone for Member<F, T> {
    fn clone(&self) -> Self {
        Member {
            path: self.path.clone(),
            _types: PhantomData,
        }
    }
}

impl<F, T> std::fmt::Debug for Member<F, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Member({})", self.path)
    }
}

/// The update operations, the same on a field and on a nested member.
macro_rules! update_ops {
    ($path:ident $(, $bound:ty)?) => {
        /// Set it to `value`.
        pub fn set(&self, value: impl FieldValue<T>) -> Update<F>
        $(where $bound: Updatable)?
        {
            let path = self.$path();
            let v = value_of(&path, &value.into_field_value());
            Update::one(Action::Set(path, Operand::Value(v)))
        }

        /// Set it to `value` only when it has no value yet (`if_not_exists`).
        pub fn set_if_not_exists(&self, value: impl FieldValue<T>) -> Update<F>
        $(where $bound: Updatable)?
        {
            let path = self.$path();
            let v = value_of(&path, &value.into_field_value());
            Update::one(Action::Set(path.clone(), Operand::IfNotExists(path, v)))
        }

        /// A member of this map or struct, holding values of type `U` (the name is not
        /// checked against the type: nested types are not known to the derive).
        pub fn member<U>(&self, name: impl Into<String>) -> Member<F, U>
        $(where $bound: Updatable)?
        {
            Member {
                path: self.$path().child(Segment::Member(name.into())),
                _types: PhantomData,
            }
        }
    };
}

macro_rules! number_ops {
    ($path:ident $(, $bound:ty)?) => {
        /// Add `n` (`ADD`: an absent value counts as 0).
        pub fn add(&self, n: impl FieldValue<T>) -> Update<F>
        $(where $bound: Updatable)?
        {
            let path = self.$path();
            let v = value_of(&path, &n.into_field_value());
            Update::one(Action::Add(path, v))
        }

        /// Subtract `n` (an absent value counts as 0).
        pub fn subtract(&self, n: impl FieldValue<T>) -> Update<F>
        $(where $bound: Updatable)?
        {
            let path = self.$path();
            let v = value_of(&path, &n.into_field_value());
            let zero = Ok(AttributeValue::N("0".into()));
            let current = Operand::IfNotExists(path.clone(), zero);
            Update::one(Action::Set(
                path,
                Operand::Arithmetic(Box::new(current), '-', Box::new(Operand::Value(v))),
            ))
        }
    };
}

macro_rules! list_ops {
    ($path:ident $(, $bound:ty)?) => {
        /// Append `values` at the end of the list (an absent list counts as empty).
        pub fn append(&self, values: impl IntoIterator<Item = E>) -> Update<F>
        $(where $bound: Updatable)?
        {
            self.join(values, false)
        }

        /// Insert `values` at the start of the list (an absent list counts as empty).
        pub fn prepend(&self, values: impl IntoIterator<Item = E>) -> Update<F>
        $(where $bound: Updatable)?
        {
            self.join(values, true)
        }

        fn join(&self, values: impl IntoIterator<Item = E>, before: bool) -> Update<F>
        $(where $bound: Updatable)?
        {
            let path = self.$path();
            let values: Vec<E> = values.into_iter().collect();
            let new = Operand::Value(value_of(&path, &values));
            let current = Operand::IfNotExists(path.clone(), Ok(AttributeValue::L(Vec::new())));
            let (a, b) = if before {
                (new, current)
            } else {
                (current, new)
            };
            Update::one(Action::Set(
                path,
                Operand::ListAppend(Box::new(a), Box::new(b)),
            ))
        }

        /// Element `i` of the list.
        pub fn at(&self, i: usize) -> Member<F, E>
        $(where $bound: Updatable)?
        {
            Member {
                path: self.$path().child(Segment::Index(i)),
                _types: PhantomData,
            }
        }
    };
}

/// Field types stored as a DynamoDB set (with `serde_dynamo::string_set` /
/// `number_set`): their elements.
pub trait SetField {
    /// The element type.
    type Element: SetMember;
}

impl<E: SetMember> SetField for Vec<E> {
    type Element = E;
}

impl<E: SetMember, H> SetField for std::collections::HashSet<E, H> {
    type Element = E;
}

impl<E: SetMember> SetField for std::collections::BTreeSet<E> {
    type Element = E;
}

impl<F, T: SetField, S, K> Field<F, T, S, K> {
    /// Add `values` to the set (`ADD`; an absent set is created). For fields stored as a
    /// DynamoDB set (`#[serde(with = "serde_dynamo::string_set")]` or `number_set`).
    pub fn add_to_set(&self, values: impl IntoIterator<Item = T::Element>) -> Update<F>
    where
        K: Updatable,
    {
        let path = Path::new(self.name());
        let v = set_value(&path, values);
        Update::one(Action::Add(path, v))
    }

    /// Remove `values` from the set (`DELETE`).
    pub fn delete_from_set(&self, values: impl IntoIterator<Item = T::Element>) -> Update<F>
    where
        K: Updatable,
    {
        let path = Path::new(self.name());
        let v = set_value(&path, values);
        Update::one(Action::Delete(path, v))
    }
}

// The operations exist on every field and require `K: Updatable` per method, so that using
// one on a key field reports the trait's message (what to do) rather than "method not found".
impl<F, T: Serialize, S, K> Field<F, T, S, K> {
    fn update_path(&self) -> Path {
        Path::new(self.name())
    }

    update_ops!(update_path, K);
}

impl<F, T, K> Field<F, T, Option<T>, K> {
    /// Remove the attribute (the field reads back as `None`).
    pub fn remove(&self) -> Update<F>
    where
        K: Updatable,
    {
        Update::one(Action::Remove(Path::new(self.name())))
    }
}

impl<F, T: Numeric, S, K> Field<F, T, S, K> {
    number_ops!(update_path, K);
}

impl<F, E: Serialize, S, K> Field<F, Vec<E>, S, K> {
    list_ops!(update_path, K);
}

impl<F, T: Serialize> Member<F, T> {
    fn member_path(&self) -> Path {
        self.path.clone()
    }

    update_ops!(member_path);

    /// Remove this member or element.
    pub fn remove(&self) -> Update<F> {
        Update::one(Action::Remove(self.member_path()))
    }
}

impl<F, T: Numeric> Member<F, T> {
    number_ops!(member_path);
}

impl<F, E: Serialize> Member<F, Vec<E>> {
    list_ops!(member_path);
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Doc;

    fn render(u: &Update<Doc>) -> (String, Placeholders) {
        let mut p = Placeholders::new();
        let text = u.render(&mut p).unwrap();
        (text, p)
    }

    #[test]
    fn actions_render_in_their_clauses_with_placeholders_only() {
        let status: Field<Doc, String, String> = Field::new("status");
        let count: Field<Doc, u32, u32> = Field::new("count");
        let note: Field<Doc, String, Option<String>> = Field::new("note");
        let history: Field<Doc, Vec<String>, Vec<String>> = Field::new("history");
        let address: Field<Doc, Addr, Addr> = Field::new("address");
        #[derive(Serialize)]
        struct Addr;
        let u = status.set("shipped")
            & count.add(2)
            & note.remove()
            & history.append(["a".to_owned()])
            & address.member::<String>("city").set("Lyon");
        let (text, p) = render(&u);
        assert_eq!(
            text,
            "SET #n0 = :v0, #n3 = list_append(if_not_exists(#n3, :v2), :v3), \
             #n4.#n5 = :v4 REMOVE #n2 ADD #n1 :v1"
        );
        let (names, values) = p.into_parts();
        let names = names.unwrap();
        assert_eq!(names["#n5"], "city");
        assert_eq!(values.unwrap()[":v0"], AttributeValue::S("shipped".into()));
    }

    #[test]
    fn subtract_and_list_elements() {
        let count: Field<Doc, i64, i64> = Field::new("count");
        let tags: Field<Doc, Vec<String>, Vec<String>> = Field::new("tags");
        let (text, _) = render(&(count.subtract(3) & tags.at(2).set("x")));
        assert_eq!(
            text,
            "SET #n0 = if_not_exists(#n0, :v0) - :v1, #n1[2] = :v2"
        );
    }

    #[test]
    fn sets_add_and_delete() {
        let tags: Field<Doc, Vec<String>, Vec<String>> = Field::new("tags");
        let ids: Field<Doc, std::collections::BTreeSet<u32>, std::collections::BTreeSet<u32>> =
            Field::new("ids");
        let (text, p) = render(&(tags.add_to_set(["a".to_owned()]) & ids.delete_from_set([7])));
        assert_eq!(text, "ADD #n0 :v0 DELETE #n1 :v1");
        let (_, values) = p.into_parts();
        assert_eq!(values.unwrap()[":v1"], AttributeValue::Ns(vec!["7".into()]));
        let mut p = Placeholders::new();
        assert!(tags
            .add_to_set(Vec::<String>::new())
            .render(&mut p)
            .is_err());
    }

    #[test]
    fn overlapping_paths_are_refused() {
        let address: Field<Doc, String, String> = Field::new("address");
        let u = address.set("x") & address.member::<String>("city").set("y");
        let mut p = Placeholders::new();
        assert!(matches!(
            u.render(&mut p),
            Err(ExprError::OverlappingPaths { .. })
        ));
    }

    #[test]
    fn values_that_serialize_to_nothing_are_errors() {
        let note: Field<Doc, Option<String>, Option<String>> = Field::new("note");
        let u = note.set(None::<String>);
        let mut p = Placeholders::new();
        assert!(matches!(u.render(&mut p), Err(ExprError::Value { .. })));
    }
}
