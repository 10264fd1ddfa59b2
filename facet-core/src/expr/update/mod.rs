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
//!
//! # Index keys never go stale
//!
//! A field that an index key or the TTL is built from can be `set` (or `remove`d) like any
//! other; the update keeps the typed value, and when it is sent, every derived attribute
//! built from a changed field (`GSInPK`, `GSInSK`, `ttl`) is rebuilt in the same request,
//! byte-identical to what a put of the changed record writes. When such a key also needs a
//! field the update does not change, `Table::update` reads the stored record for it and is
//! conditioned on what it read; name its current value with [`Field::unchanged`] to skip
//! the read: it supplies the value and becomes a condition that the stored record holds it
//! (a mismatch fails the update and names the field). A transaction's update step reads
//! the same way when the transaction is sent; `plan()`, which sends nothing, names the
//! missing value ([`ExprError::KeyFieldNeeded`]).

use std::any::Any;
use std::marker::PhantomData;
use std::ops::BitAnd;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

mod apply;

use super::error::ExprError;
use super::field::{
    value_error, Collection, Field, FieldValue, NestedAttribute, Numeric, Settable, TopLevel,
    Updatable, Value,
};
use super::member::{only_entry, Member};
use super::operand::{IfAbsent, Rhs, SetValue, Side};
use super::path::{Path, Segment};
use crate::item::Item;
use crate::names::Placeholders;

/// The right-hand side of a `SET`.
#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Value(Value),
    /// Another attribute of the record.
    Path(Path),
    /// `if_not_exists(path, value)`.
    IfNotExists(Path, Value),
    /// `a + b` / `a - b`.
    Arithmetic(Box<Operand>, char, Box<Operand>),
    /// `list_append(a, b)`.
    ListAppend(Box<Operand>, Box<Operand>),
}

impl From<Side> for Operand {
    fn from(side: Side) -> Operand {
        match side {
            Side::Value(v) => Operand::Value(v),
            Side::Path(p) => Operand::Path(p),
            Side::IfAbsent(p, v) => Operand::IfNotExists(p, v),
            Side::Sum(a, op, b) => {
                Operand::Arithmetic(Box::new((*a).into()), op, Box::new((*b).into()))
            }
        }
    }
}

impl Operand {
    /// The operand evaluated on a record that does not exist yet and whose attributes would
    /// be `template`'s: a path reads the template (a path it does not hold is an error: the
    /// server would refuse it), and `if_not_exists(path, ..)` gives the template's value, or
    /// its own when the template has none.
    fn seeded(&self, template: &Item) -> Result<Operand, ExprError> {
        Ok(match self {
            Operand::Path(p) => match p.find(template) {
                Some(v) => Operand::Value(Ok(v.clone())),
                None => {
                    return Err(ExprError::Value {
                        field: p.root(),
                        reason: format!(
                            "an update that may create the record reads `{p}`, which the \
                             record to create does not hold"
                        ),
                    })
                }
            },
            Operand::IfNotExists(p, v) => Operand::Value(
                p.find(template)
                    .map_or_else(|| v.clone(), |t| Ok(t.clone())),
            ),
            Operand::Arithmetic(a, op, b) => Operand::Arithmetic(
                Box::new(a.seeded(template)?),
                *op,
                Box::new(b.seeded(template)?),
            ),
            Operand::ListAppend(a, b) => {
                Operand::ListAppend(Box::new(a.seeded(template)?), Box::new(b.seeded(template)?))
            }
            Operand::Value(v) => Operand::Value(v.clone()),
        })
    }

    fn render(&self, p: &mut Placeholders) -> Result<String, ExprError> {
        Ok(match self {
            Operand::Value(v) => p.value(v.clone()?),
            Operand::Path(path) => path.render(p),
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

/// A typed value an update holds for a field that keys or the TTL are built from.
type Held = Option<Arc<dyn Any + Send + Sync>>;

/// What an update says about one field that derived attributes may be built from.
#[derive(Clone)]
pub struct Keyed {
    position: u16,
    name: &'static str,
    /// The field's value after the update (`None`: absent).
    value: Held,
    /// `Some(stored)` when the field is named unchanged: the attribute the stored record must
    /// hold (`None` inside: no attribute).
    unchanged: Option<Option<AttributeValue>>,
    /// The encoding of the unchanged value failed.
    error: Option<ExprError>,
}

impl std::fmt::Debug for Keyed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyed")
            .field("field", &self.name)
            .field("unchanged", &self.unchanged)
            .finish()
    }
}

/// Changes to the record of facet `F`: one or more actions, combined with `&`.
pub struct Update<F> {
    actions: Vec<Action>,
    keyed: Vec<Keyed>,
    _facet: PhantomData<fn() -> F>,
}

impl<F> Clone for Update<F> {
    fn clone(&self) -> Self {
        Update {
            actions: self.actions.clone(),
            keyed: self.keyed.clone(),
            _facet: PhantomData,
        }
    }
}

/// Values given to the `#[sensitive]` fields of facets known to the process print masked
/// ([`crate::redact`]).
impl<F> std::fmt::Debug for Update<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sensitive = |name: &str| crate::redact::is_sensitive(None, name);
        let hidden = |p: &Path| sensitive(p.root());
        let masked = || Ok(AttributeValue::S(crate::redact::REDACTED.to_owned()));
        let actions = self.actions.iter().map(|a| match a {
            Action::Set(p, _) if hidden(p) => Action::Set(p.clone(), Operand::Value(masked())),
            Action::Add(p, _) if hidden(p) => Action::Add(p.clone(), masked()),
            Action::Delete(p, _) if hidden(p) => Action::Delete(p.clone(), masked()),
            other => other.clone(),
        });
        let keyed = self.keyed.iter().map(|k| {
            let mut k = k.clone();
            if sensitive(k.name) && k.unchanged.is_some() {
                k.unchanged = Some(Some(AttributeValue::S(crate::redact::REDACTED.to_owned())));
            }
            k
        });
        f.debug_list().entries(actions).entries(keyed).finish()
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
        self.keyed.extend(rhs.keyed);
        self
    }
}

impl<F> Update<F> {
    fn from_actions(actions: Vec<Action>) -> Self {
        Update {
            actions,
            keyed: Vec::new(),
            _facet: PhantomData,
        }
    }

    fn one(action: Action) -> Self {
        Update::from_actions(vec![action])
    }

    fn keyed(keyed: Keyed, action: Option<Action>) -> Self {
        Update {
            actions: action.into_iter().collect(),
            keyed: vec![keyed],
            _facet: PhantomData,
        }
    }

    /// No change yet.
    pub fn empty() -> Self {
        Update::from_actions(Vec::new())
    }

    /// `true` when the update changes nothing.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// The same changes and `other`'s.
    pub fn and(self, other: Update<F>) -> Update<F> {
        self & other
    }

    /// Set attribute `name` to `value` (derived attributes: index keys, `facet`, the TTL).
    #[doc(hidden)]
    pub fn set_attribute(self, name: &'static str, value: AttributeValue) -> Update<F> {
        self & Update::one(Action::Set(Path::new(name), Operand::Value(Ok(value))))
    }

    /// Add 1 to number attribute `name` (the `#[version]` counter, on every update).
    #[doc(hidden)]
    pub fn increment_attribute(self, name: &'static str) -> Update<F> {
        self & Update::one(Action::Add(
            Path::new(name),
            Ok(AttributeValue::N("1".into())),
        ))
    }

    /// Remove attribute `name`.
    #[doc(hidden)]
    pub fn remove_attribute(self, name: &'static str) -> Update<F> {
        self & Update::one(Action::Remove(Path::new(name)))
    }

    /// What this update leaves in attribute `name`, when it gives it a plain value: `None`
    /// when it does not change it, `Some(None)` when it removes it, `Some(Some(v))` when it
    /// sets it to `v`. `Err` names the change when it is another kind (an increment, an
    /// append, a change inside the value).
    #[doc(hidden)]
    pub fn assigned(&self, name: &str) -> Result<Option<Option<AttributeValue>>, String> {
        let mut out = None;
        for action in self.actions.iter().filter(|a| a.path().root() == name) {
            out = Some(match action {
                Action::Set(p, Operand::Value(Ok(v))) if p.is_top_level() => Some(v.clone()),
                Action::Remove(p) if p.is_top_level() => None,
                other => return Err(format!("{other:?}")),
            });
        }
        Ok(out)
    }

    /// Whether this update changes (sets or removes) a field derived attributes may be built
    /// from.
    #[doc(hidden)]
    pub fn changes_keyed(&self) -> bool {
        self.keyed.iter().any(|k| k.unchanged.is_none())
    }

    /// The paths this update changes inside an attribute (a member, an element), as the
    /// attribute and the path's text.
    #[doc(hidden)]
    pub fn paths_inside(&self) -> Vec<(&'static str, String)> {
        self.actions
            .iter()
            .map(Action::path)
            .filter(|p| !p.is_top_level())
            .map(|p| (p.root(), p.to_string()))
            .collect()
    }

    /// Whether an action of this update writes attribute `name` or a path inside it.
    #[doc(hidden)]
    pub fn touches(&self, name: &str) -> bool {
        self.actions.iter().any(|a| a.path().root() == name)
    }

    /// The same changes, applied to a record that does not exist yet and whose attributes
    /// would be `template`'s: what an update that creates writes for the attributes it
    /// changes (`ADD 1` to a template's 10 gives 11; an append follows the template's list;
    /// `set_if_not_exists` keeps the template's value). Changes inside a template attribute
    /// (a member, an element) are applied to the template's value, and the whole attribute
    /// set to the result (DynamoDB cannot change a member of a map the request creates).
    #[doc(hidden)]
    pub fn applied_to(&self, template: &Item) -> Result<Update<F>, ExprError> {
        let mut actions = Vec::with_capacity(self.actions.len());
        // The template's attributes changed inside, in the order first changed.
        let mut inside: Vec<(&'static str, AttributeValue)> = Vec::new();
        let mut removes: Vec<&Action> = Vec::new();
        for action in &self.actions {
            let path = action.path();
            let Some(held) = template.get(path.root()) else {
                actions.push(match action {
                    Action::Set(p, operand) => Action::Set(p.clone(), operand.seeded(template)?),
                    other => other.clone(),
                });
                continue;
            };
            if !path.is_top_level() {
                // DynamoDB removes list elements by their indexes before the update: removes
                // of elements go last, the highest index first, so none shifts another.
                if matches!(action, Action::Remove(_))
                    && matches!(path.steps().last(), Some(Segment::Index(_)))
                {
                    removes.push(action);
                    continue;
                }
                let i = match inside.iter().position(|(r, _)| *r == path.root()) {
                    Some(i) => i,
                    None => {
                        inside.push((path.root(), held.clone()));
                        inside.len() - 1
                    }
                };
                apply::apply_inside(&mut inside[i].1, action, template)?;
                continue;
            }
            actions.push(match action {
                Action::Set(p, operand) => Action::Set(p.clone(), operand.seeded(template)?),
                Action::Remove(p) => Action::Remove(p.clone()),
                Action::Add(p, Ok(AttributeValue::N(n))) => Action::Set(
                    p.clone(),
                    Operand::Arithmetic(
                        Box::new(Operand::Value(Ok(held.clone()))),
                        '+',
                        Box::new(Operand::Value(Ok(AttributeValue::N(n.clone())))),
                    ),
                ),
                Action::Add(p, Ok(members)) | Action::Delete(p, Ok(members)) => {
                    let add = matches!(action, Action::Add(..));
                    match combine(held, members, add) {
                        Some(Some(v)) => Action::Set(p.clone(), Operand::Value(Ok(v))),
                        Some(None) => Action::Remove(p.clone()),
                        None => {
                            return Err(ExprError::Value {
                                field: path.root(),
                                reason: format!(
                                    "the record to create holds `{path}` as another kind than \
                                     the set the update changes"
                                ),
                            })
                        }
                    }
                }
                other => other.clone(),
            });
        }
        removes.sort_by(|a, b| {
            let index = |x: &Action| match x.path().steps().last() {
                Some(Segment::Index(i)) => *i,
                _ => 0,
            };
            index(b).cmp(&index(a))
        });
        for action in removes {
            let root = action.path().root();
            let i = match inside.iter().position(|(r, _)| *r == root) {
                Some(i) => i,
                None => match template.get(root) {
                    Some(held) => {
                        inside.push((root, held.clone()));
                        inside.len() - 1
                    }
                    None => continue,
                },
            };
            apply::apply_inside(&mut inside[i].1, action, template)?;
        }
        for (root, value) in inside {
            actions.push(Action::Set(Path::new(root), Operand::Value(Ok(value))));
        }
        Ok(Update {
            actions,
            keyed: self.keyed.clone(),
            _facet: PhantomData,
        })
    }

    /// The stored values the update expects: `(attribute, value)` for each field named
    /// [`Field::unchanged`] (`None`: no attribute), checked when it is sent.
    #[doc(hidden)]
    pub fn unchanged(&self) -> Result<Vec<(&'static str, Option<AttributeValue>)>, ExprError> {
        let mut out: Vec<(&'static str, Option<AttributeValue>)> = Vec::new();
        for k in &self.keyed {
            if let Some(e) = &k.error {
                return Err(e.clone());
            }
            let Some(stored) = &k.unchanged else { continue };
            if self.touches(k.name) {
                return Err(ExprError::Contradiction {
                    field: k.name,
                    what: "both changes and names unchanged",
                });
            }
            match out.iter().find(|(name, _)| *name == k.name) {
                Some((_, other)) if other != stored => {
                    return Err(ExprError::Contradiction {
                        field: k.name,
                        what: "names unchanged with two values",
                    })
                }
                Some(_) => {}
                None => out.push((k.name, stored.clone())),
            }
        }
        Ok(out)
    }

    /// Render as an `UpdateExpression` (`SET … REMOVE … ADD … DELETE …`), registering its
    /// names and values in `p`.
    #[doc(hidden)]
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

/// The values an update gives for the fields derived attributes are built from, read by the
/// code `#[derive(Facet)]` generates to rebuild them ([`crate::Facet::derived_attributes`]).
///
/// A value comes from the update (a field it sets, or names unchanged) or, for an update
/// that may create the record, from the record it would create (the *template*); values
/// taken from the template are reported so that the update checks them against the stored
/// record.
pub struct KeyedValues<'a, F> {
    keyed: &'a [Keyed],
    /// The values of the table key's fields, read back from the key updated.
    key: &'a [KeyValue],
    template: Option<&'a F>,
    from_template: Vec<&'static str>,
}

/// The value of one field of the table key, read back from a key's text: its position and
/// its typed value ([`crate::Facet::key_values`]).
pub type KeyValue = (u16, Arc<dyn Any + Send + Sync>);

/// The values a key's text holds after `prefix` (none for a key without one, `bare`): `n`
/// pieces split at `delimiter` from the left, the last taking the rest (the decoder the key
/// writer is a left inverse of, for keys of required fields). `None` when the text is not of
/// that shape.
#[doc(hidden)]
pub fn key_pieces<'t>(
    text: &'t str,
    prefix: &str,
    bare: bool,
    delimiter: &str,
    n: usize,
) -> Option<Vec<&'t str>> {
    let rest = text.strip_prefix(prefix)?;
    if n == 0 {
        return rest.is_empty().then(Vec::new);
    }
    let rest = if bare {
        rest
    } else {
        rest.strip_prefix(delimiter)?
    };
    let pieces: Vec<&str> = rest.splitn(n, delimiter).collect();
    (pieces.len() == n).then_some(pieces)
}

/// A key value of type `T` read back from its text: as a string, a number or a boolean
/// attribute, whichever `T` deserializes from (the caller checks that the value writes the
/// same text again).
#[doc(hidden)]
pub fn from_key_text<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    let tries = [
        AttributeValue::S(text.to_owned()),
        AttributeValue::N(text.to_owned()),
    ];
    for value in tries {
        if let Ok(v) = serde_dynamo::from_attribute_value(value) {
            return Some(v);
        }
    }
    match text {
        "true" | "false" => {
            serde_dynamo::from_attribute_value(AttributeValue::Bool(text == "true")).ok()
        }
        _ => None,
    }
}

impl<'a, F> KeyedValues<'a, F> {
    /// The values of `update`, with `template` for fields it does not give.
    pub fn new(update: &'a Update<F>, template: Option<&'a F>) -> Self {
        KeyedValues {
            keyed: &update.keyed,
            key: &[],
            template,
            from_template: Vec::new(),
        }
    }

    /// The same, with the values of the table key's fields read back from the key updated
    /// (they need no condition: the key holds them).
    pub fn with_key(mut self, key: &'a [KeyValue]) -> Self {
        self.key = key;
        self
    }

    /// The attributes of the fields whose values were taken from the template.
    pub fn from_template(&self) -> &[&'static str] {
        &self.from_template
    }

    /// The attribute name of the first of `positions` the update changes (sets or
    /// removes), if any.
    #[doc(hidden)]
    pub fn changed(&self, positions: &[u16]) -> Option<&'static str> {
        self.keyed
            .iter()
            .find(|k| k.unchanged.is_none() && positions.contains(&k.position))
            .map(|k| k.name)
    }

    /// Whether the update gives one of `positions` as absent (its last word on the field:
    /// removed, or named unchanged and absent). A record is then out of a sparse index built
    /// from the field, whatever the other fields hold.
    #[doc(hidden)]
    pub fn gives_absent(&self, positions: &[u16]) -> bool {
        positions.iter().any(|&p| {
            self.keyed
                .iter()
                .rev()
                .find(|k| k.position == p)
                .is_some_and(|k| k.value.is_none())
        })
    }

    /// Where the value of the field `need` names is ([`lookup`]).
    fn find(&mut self, need: Need) -> Result<Found<'a>, ExprError> {
        lookup(
            self.keyed,
            self.key,
            self.template.is_some(),
            &mut self.from_template,
            need,
        )
    }

    /// The value of the field `need` names: from the update, else from the template.
    #[doc(hidden)]
    pub fn optional<T: 'static>(
        &mut self,
        need: Need,
        template: impl FnOnce(&'a F) -> Option<&'a T>,
    ) -> Result<Option<&'a T>, ExprError> {
        // The generic part is the downcast and the template's accessor: the search is
        // compiled once, not once per field and facet.
        match self.find(need)? {
            Found::Absent => Ok(None),
            Found::Value(v) => v
                .downcast_ref::<T>()
                .map(Some)
                .ok_or_else(|| need.not_of_type()),
            Found::Template => Ok(self.template.and_then(template)),
        }
    }

    /// The value of the key field `need` names, as a key part: from the update (held as
    /// `dyn Any`, turned into a key part by `of_value`), else from the template (`present`
    /// reads it); `None` for an `optional` field without one (what the schema-driven key
    /// writer reads, [`crate::key_writer`]).
    pub(crate) fn key_part(
        &mut self,
        need: Need,
        optional: bool,
        of_value: impl FnOnce(&'a (dyn Any + Send + Sync)) -> Option<&'a dyn crate::key::KeyPart>,
        present: impl FnOnce(&'a F) -> Option<&'a dyn crate::key::KeyPart>,
    ) -> Result<Option<&'a dyn crate::key::KeyPart>, ExprError> {
        let part = match self.find(need)? {
            Found::Absent => None,
            Found::Value(v) => Some(of_value(v).ok_or_else(|| need.not_of_type())?),
            Found::Template => self.template.and_then(present),
        };
        if part.is_none() && !optional {
            return Err(need.missing());
        }
        Ok(part)
    }

    /// [`Self::optional`] for a field that always has a value.
    #[doc(hidden)]
    pub fn required<T: 'static>(
        &mut self,
        need: Need,
        template: impl FnOnce(&'a F) -> &'a T,
    ) -> Result<&'a T, ExprError> {
        self.optional(need, |t| Some(template(t)))?
            .ok_or_else(|| need.missing())
    }
}

/// A value a derived attribute needs to be rebuilt: which field, for which attribute, and
/// which changed field makes it stale (generated code names them).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Need {
    /// The field's position among the facet's fields.
    pub position: u16,
    /// Its attribute name.
    pub name: &'static str,
    /// Its Rust name.
    pub ident: &'static str,
    /// The derived attribute.
    pub attribute: &'static str,
    /// A changed field the attribute is built from.
    pub changed: &'static str,
}

/// Where the value of a field an update needs is: absent, held as `dyn Any`, or in the
/// template.
enum Found<'a> {
    Absent,
    Value(&'a (dyn Any + Send + Sync)),
    Template,
}

/// [`KeyedValues::optional`]'s search: the update's last word on the field, else the value
/// read back from the key, else the template (noted in `from_template`), else an error.
fn lookup<'a>(
    keyed: &'a [Keyed],
    key: &'a [KeyValue],
    has_template: bool,
    from_template: &mut Vec<&'static str>,
    need: Need,
) -> Result<Found<'a>, ExprError> {
    // The last word counts (two `set`s are refused as overlapping paths).
    if let Some(k) = keyed.iter().rev().find(|k| k.position == need.position) {
        return Ok(match &k.value {
            None => Found::Absent,
            Some(v) => Found::Value(&**v),
        });
    }
    if let Some((_, v)) = key.iter().find(|(p, _)| *p == need.position) {
        return Ok(Found::Value(&**v));
    }
    if !has_template {
        return Err(need.missing());
    }
    if !from_template.contains(&need.name) {
        from_template.push(need.name);
    }
    Ok(Found::Template)
}

impl Need {
    /// Field `name` (`ident` in Rust) at `position`, needed for `attribute`, stale because
    /// `changed` changed.
    pub const fn new(
        position: u16,
        name: &'static str,
        ident: &'static str,
        attribute: &'static str,
        changed: &'static str,
    ) -> Self {
        Need {
            position,
            name,
            ident,
            attribute,
            changed,
        }
    }

    fn not_of_type(self) -> ExprError {
        ExprError::Value {
            field: self.name,
            reason: "the value held is not of the field's type".into(),
        }
    }

    fn missing(self) -> ExprError {
        ExprError::KeyFieldNeeded {
            attribute: self.attribute,
            changed: self.changed,
            needed: self.name,
            needed_field: self.ident,
        }
    }
}

/// A derived attribute rebuilt by an update: its name and new value (`None`: remove it).
pub type Derived = (&'static str, Option<AttributeValue>);

#[doc(hidden)]
/// The derived key attribute `attribute` holding `key`, or the error naming it.
pub fn derived_key(
    attribute: &'static str,
    key: Result<String, crate::key::KeyError>,
) -> Result<Derived, ExprError> {
    match key {
        Ok(key) => Ok((attribute, Some(AttributeValue::S(key)))),
        Err(source) => Err(ExprError::Key { attribute, source }),
    }
}

/// `v` when it is of the kind `kind` accepts, else an error saying what `path` needs.
fn of_kind(path: &Path, v: Value, kind: impl Fn(&AttributeValue) -> bool, needs: &str) -> Value {
    let v = v?;
    if kind(&v) {
        Ok(v)
    } else {
        Err(ExprError::Value {
            field: path.root(),
            reason: format!("`{path}` {needs}"),
        })
    }
}

/// `held` with `members` added (`add`) or taken out, for sets of one kind: `Some(None)` when
/// the result is empty (DynamoDB has no empty set: the attribute goes), `None` when `held`
/// is not a set of the members' kind.
fn combine(
    held: &AttributeValue,
    members: &AttributeValue,
    add: bool,
) -> Option<Option<AttributeValue>> {
    fn merge<T: Clone + PartialEq>(held: &[T], members: &[T], add: bool) -> Vec<T> {
        let mut out: Vec<T> = held
            .iter()
            .filter(|h| add || !members.contains(h))
            .cloned()
            .collect();
        if add {
            for m in members {
                if !out.contains(m) {
                    out.push(m.clone());
                }
            }
        }
        out
    }
    let v = match (held, members) {
        (AttributeValue::Ss(h), AttributeValue::Ss(m)) => AttributeValue::Ss(merge(h, m, add)),
        (AttributeValue::Ns(h), AttributeValue::Ns(m)) => AttributeValue::Ns(merge(h, m, add)),
        (AttributeValue::Bs(h), AttributeValue::Bs(m)) => AttributeValue::Bs(merge(h, m, add)),
        _ => return None,
    };
    Some((set_len(&v) != Some(0)).then_some(v))
}

/// The number of members of a DynamoDB set (`None`: not a set).
fn set_len(v: &AttributeValue) -> Option<usize> {
    match v {
        AttributeValue::Ss(m) | AttributeValue::Ns(m) => Some(m.len()),
        AttributeValue::Bs(m) => Some(m.len()),
        _ => None,
    }
}

/// The update operations, the same on a field (`$bound: Updatable`) and on a nested member.
macro_rules! update_ops {
    ($path:ident $(, $bound:ty)?) => {
        /// Set it to `value` only when it has no value yet (`if_not_exists`).
        pub fn set_if_not_exists(&self, value: impl FieldValue<T>) -> Update<F>
        $(where $bound: Updatable)?
        {
            let path = self.$path();
            let v = self.operand(value.into_field_value());
            Update::one(Action::Set(path.clone(), Operand::IfNotExists(path, v)))
        }

        /// A member of this map or struct, holding values of type `U` (the name is not
        /// checked against the type: nested types are not known to the derive).
        pub fn member<U: Serialize>(&self, name: impl Into<String>) -> Member<F, U>
        $(where $bound: Updatable)?
        {
            Member::plain(
                self.$path().child(Segment::Member(name.into().into())),
                super::field::encode_plain::<U>,
            )
        }

        /// Its value, or `value` when it has none (`if_not_exists`): for a sum or a `set`
        /// (`f.balance.set(f.balance.or(0) + f.pending.or(0))`).
        pub fn or(&self, value: impl FieldValue<T>) -> IfAbsent<F, T> {
            IfAbsent::new(self.$path(), self.codec_text(), value.into_field_value())
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
            let v = self.operand(n.into_field_value());
            let v = of_kind(&path, v, |v| v.is_n(), "is not stored as a number");
            Update::one(Action::Add(path, v))
        }

        /// Subtract `n` (an absent value counts as 0).
        pub fn subtract(&self, n: impl FieldValue<T>) -> Update<F>
        $(where $bound: Updatable)?
        {
            let path = self.$path();
            let v = self.operand(n.into_field_value());
            let v = of_kind(&path, v, |v| v.is_n(), "is not stored as a number");
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
            let v = self.operand(values);
            let v = of_kind(&path, v, |v| v.is_l(), "is not stored as a list (a set? use `add_to_set`)");
            let new = Operand::Value(v);
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
    };
}

impl<F, T, S, K> Field<F, T, S, K> {
    fn update_path(&self) -> Path {
        self.path()
    }

    fn codec_text(&self) -> &'static str {
        self.codec()
    }

    /// Set it to `value`. On a field an index key or the TTL is built from, the update also
    /// rebuilds those attributes when it is sent (see the [module docs](crate::expr)).
    ///
    /// A plain attribute or a nested member may also be set from the record's own
    /// attributes, computed on the server: another field holding the same type
    /// (`f.a.set(f.b)`), a sum (`f.balance.set(f.balance + f.pending)`, `f.n.set(f.n - 1)`)
    /// or a default for a missing one (`f.total.set(f.total.or(0) + 5)`).
    pub fn set(&self, value: impl SetValue<F, T, K>) -> Update<F>
    where
        K: Settable,
        T: Send + Sync + 'static,
    {
        match value.into_rhs() {
            Rhs::Value(v) => self.assign(v, K::KEYED),
            rhs if K::KEYED => Update::one(Action::Set(
                self.path(),
                Operand::Value(Err(ExprError::Value {
                    field: self.name(),
                    reason: format!(
                        "index keys or the TTL are built from `{}`: it is set to a value, \
                         not computed from other attributes ({})",
                        self.path(),
                        rhs_kind(&rhs)
                    ),
                })),
            )),
            rhs => {
                let path = self.path();
                let side = rhs.resolve(&path, self.codec(), &|v| self.operand(v));
                Update::one(Action::Set(path, side.into()))
            }
        }
    }

    /// Set it to the time of the write (the `#[created]` and `#[updated]` fields, which have
    /// no `set`); `keyed` when index keys or the TTL are built from it.
    #[doc(hidden)]
    pub fn stamp(&self, value: T, keyed: bool) -> Update<F>
    where
        T: Send + Sync + 'static,
    {
        self.assign(value, keyed)
    }

    /// `value`'s attribute, through the field's codec (`None`: stored as nothing).
    #[doc(hidden)]
    pub fn encoded(&self, value: T) -> Result<Option<AttributeValue>, crate::marshal::Error> {
        self.encoder()(value).0
    }

    fn assign(&self, value: T, keyed: bool) -> Update<F>
    where
        T: Send + Sync + 'static,
    {
        let path = self.update_path();
        let (encoded, value) = self.encoder()(value);
        // A value the field stores as nothing (a `skip_serializing_if` that holds) removes
        // the attribute, as a put of it would leave it out.
        let action = match encoded {
            Ok(Some(v)) => Action::Set(path, Operand::Value(Ok(v))),
            Ok(None) => Action::Remove(path),
            Err(e) => Action::Set(path, Operand::Value(Err(value_error(self.name(), e)))),
        };
        if !keyed {
            return Update::one(action);
        }
        let held: Arc<dyn Any + Send + Sync> = Arc::new(value);
        Update::keyed(self.keyed_entry(Some(held), None), Some(action))
    }

    /// The stored value is `value`, and the update leaves it so: a condition (a mismatch
    /// fails the update, naming the field), and the value that derived keys built from this
    /// field and from fields the update changes are rebuilt with.
    pub fn unchanged(&self, value: impl FieldValue<T>) -> Update<F>
    where
        T: Send + Sync + 'static,
        K: TopLevel + crate::expr::field::Comparable,
    {
        let (encoded, value) = self.encoder()(value.into_field_value());
        let held: Arc<dyn Any + Send + Sync> = Arc::new(value);
        let (stored, error) = match encoded {
            Ok(stored) => (stored, None),
            Err(e) => (None, Some(value_error(self.name(), e))),
        };
        let mut entry = self.keyed_entry(Some(held), Some(stored));
        entry.error = error;
        Update::keyed(entry, None)
    }

    fn keyed_entry(&self, value: Held, unchanged: Option<Option<AttributeValue>>) -> Keyed {
        Keyed {
            position: self.position() as u16,
            name: self.name(),
            value,
            unchanged,
            error: None,
        }
    }

    update_ops!(update_path, K);
}

impl<F, T, K> Field<F, T, Option<T>, K> {
    /// Remove the attribute (the field reads back as `None`); derived attributes built from
    /// it are rebuilt, as for [`Field::set`].
    pub fn remove(&self) -> Update<F>
    where
        K: Settable,
    {
        let action = Action::Remove(self.path());
        if !K::KEYED {
            return Update::one(action);
        }
        Update::keyed(self.keyed_entry(None, None), Some(action))
    }

    /// The attribute is absent (the field is `None`) and the update leaves it so: the
    /// [`Field::unchanged`] of an absent value.
    pub fn unchanged_absent(&self) -> Update<F>
    where
        K: TopLevel,
    {
        Update::keyed(self.keyed_entry(None, Some(None)), None)
    }
}

impl<F, T: Numeric, S, K> Field<F, T, S, K> {
    number_ops!(update_path, K);
}

impl<F, E, S, K> Field<F, Vec<E>, S, K> {
    list_ops!(update_path, K);

    /// Element `i` of the list.
    pub fn at(&self, i: usize) -> Member<F, E>
    where
        K: Updatable,
    {
        Member::element(
            self.update_path().child(Segment::Index(i)),
            self.encoder(),
            self.codec(),
        )
    }
}

/// The entry under `key` of a map field, its values encoded as the field stores its entries.
fn entry<F, V, M, S, K>(field: &Field<F, M, S, K>, key: String) -> Member<F, V>
where
    M: FromIterator<(String, V)> + 'static,
    F: 'static,
    S: 'static,
    K: 'static,
{
    let field = *field;
    let encode_key = key.clone();
    Member::via(
        field.path().child(Segment::Member(key.into())),
        Arc::new(move |v: V| {
            let one: M = std::iter::once((encode_key.clone(), v)).collect();
            only_entry(field.name(), field.operand(one))
        }),
        field.codec(),
    )
}

impl<F: 'static, V: 'static, H, S: 'static, K: 'static>
    Field<F, std::collections::HashMap<String, V, H>, S, K>
where
    H: std::hash::BuildHasher + Default + 'static,
{
    /// The entry under `key` of the map (`f.scores.key("alice").add(2)`), its values encoded
    /// as the field stores its entries.
    pub fn key(&self, key: impl Into<String>) -> Member<F, V>
    where
        K: Updatable,
    {
        entry(self, key.into())
    }
}

impl<F: 'static, V: 'static, S: 'static, K: 'static>
    Field<F, std::collections::BTreeMap<String, V>, S, K>
{
    /// The entry under `key` of the map (`f.scores.key("alice").add(2)`), its values encoded
    /// as the field stores its entries.
    pub fn key(&self, key: impl Into<String>) -> Member<F, V>
    where
        K: Updatable,
    {
        entry(self, key.into())
    }
}

/// What a right-hand side that is not a value is, for messages.
fn rhs_kind<T>(rhs: &Rhs<T>) -> &'static str {
    match rhs {
        Rhs::Value(_) => "a value",
        Rhs::Path(..) => "another attribute",
        Rhs::IfAbsent(..) => "an `or(..)` default",
        Rhs::Sum(..) => "a sum",
    }
}

impl<F, T: Collection, S, K> Field<F, T, S, K> {
    fn set_operand(&self, values: impl IntoIterator<Item = T::Element>) -> (Path, Value) {
        let path = self.update_path();
        let values: T = values.into_iter().collect();
        let v = self.operand(values).and_then(|v| {
            let reason = match set_len(&v) {
                Some(0) => format!("`{path}`: DynamoDB sets cannot be empty"),
                Some(_) => return Ok(v),
                None => format!(
                    "`{path}` is not stored as a DynamoDB set; store it as one with \
                     `#[serde(with = \"serde_dynamo::string_set\")]` (or `number_set`)"
                ),
            };
            Err(ExprError::Value {
                field: path.root(),
                reason,
            })
        });
        (path, v)
    }

    /// Add `values` to the set (`ADD`; an absent set is created). For fields stored as a
    /// DynamoDB set (`#[serde(with = "serde_dynamo::string_set")]` or `number_set`).
    pub fn add_to_set(&self, values: impl IntoIterator<Item = T::Element>) -> Update<F>
    where
        K: Updatable,
    {
        let (path, v) = self.set_operand(values);
        Update::one(Action::Add(path, v))
    }

    /// Remove `values` from the set (`DELETE`).
    pub fn delete_from_set(&self, values: impl IntoIterator<Item = T::Element>) -> Update<F>
    where
        K: Updatable,
    {
        let (path, v) = self.set_operand(values);
        Update::one(Action::Delete(path, v))
    }
}

impl<F, T> Member<F, T> {
    fn member_path(&self) -> Path {
        self.path().clone()
    }

    /// Set it to `value`, or to another attribute, a sum or an `or(..)` default computed on
    /// the server (as [`Field::set`]).
    pub fn set(&self, value: impl SetValue<F, T, NestedAttribute>) -> Update<F> {
        let side = value
            .into_rhs()
            .resolve(self.path(), self.codec_text(), &|v| self.operand(v));
        Update::one(Action::Set(self.member_path(), side.into()))
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

    /// Element `i` of the list.
    pub fn at(&self, i: usize) -> Member<F, E> {
        Member::element(
            self.member_path().child(Segment::Index(i)),
            super::field::encode_plain::<Vec<E>>,
            "",
        )
    }
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
             #n4.#m0 = :v4 REMOVE #n2 ADD #n1 :v1"
        );
        let (names, values) = p.into_parts();
        let names = names.unwrap();
        assert_eq!(names["#m0"], "city");
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
        use std::collections::BTreeSet;
        #[derive(Serialize)]
        struct Strings(#[serde(with = "serde_dynamo::string_set")] Vec<String>);
        #[derive(Serialize)]
        struct Numbers(#[serde(with = "serde_dynamo::number_set")] BTreeSet<u32>);
        fn strings(v: Vec<String>) -> (crate::expr::Encoded, Vec<String>) {
            let w = Strings(v);
            (crate::marshal::to_attribute_value(&w), w.0)
        }
        fn numbers(v: BTreeSet<u32>) -> (crate::expr::Encoded, BTreeSet<u32>) {
            let w = Numbers(v);
            (crate::marshal::to_attribute_value(&w), w.0)
        }
        let tags: Field<Doc, Vec<String>, Vec<String>> = Field::coded("tags", 0, strings);
        let ids: Field<Doc, BTreeSet<u32>, BTreeSet<u32>> = Field::coded("ids", 1, numbers);
        let (text, p) = render(&(tags.add_to_set(["a".to_owned()]) & ids.delete_from_set([7])));
        assert_eq!(text, "ADD #n0 :v0 DELETE #n1 :v1");
        let (_, values) = p.into_parts();
        let values = values.unwrap();
        assert_eq!(values[":v0"], AttributeValue::Ss(vec!["a".into()]));
        assert_eq!(values[":v1"], AttributeValue::Ns(vec!["7".into()]));
        let mut p = Placeholders::new();
        assert!(tags
            .add_to_set(Vec::<String>::new())
            .render(&mut p)
            .is_err());
        // A list field is not a set: ADD would fail on the server, so it fails here.
        let list: Field<Doc, Vec<String>, Vec<String>> = Field::new("list");
        let err = list
            .add_to_set(["a".to_owned()])
            .render(&mut p)
            .unwrap_err();
        assert!(
            err.to_string().contains("not stored as a DynamoDB set"),
            "{err}"
        );
        // Elements of a set field compare as the field stores them.
        let f = tags.contains_element("x".to_owned());
        let mut p = Placeholders::new();
        f.render(&mut p).unwrap();
        assert_eq!(
            p.into_parts().1.unwrap()[":v0"],
            AttributeValue::S("x".into())
        );
    }

    #[test]
    fn references_sums_and_defaults_render_on_the_server() {
        let balance: Field<Doc, i64, i64> = Field::new("balance");
        let pending: Field<Doc, i64, i64> = Field::new("pending");
        let other: Field<Doc, i64, i64> = Field::new("other");
        let (text, _) = render(
            &(balance.set(balance + pending) & pending.set(pending.or(0) - 5) & other.set(balance)),
        );
        assert_eq!(
            text,
            "SET #n0 = #n0 + #n1, #n1 = if_not_exists(#n1, :v0) - :v1, #n2 = #n0"
        );
        // A record to create reads the references from the template.
        let template: Item = [
            ("balance".to_owned(), AttributeValue::N("10".into())),
            ("pending".to_owned(), AttributeValue::N("3".into())),
        ]
        .into();
        let seeded = (other.set(balance + pending) & pending.set(pending.or(0) - 1))
            .applied_to(&template)
            .unwrap();
        let (text, p) = render(&seeded);
        assert_eq!(text, "SET #n0 = :v0 + :v1, #n1 = :v2 - :v3");
        let values = p.into_parts().1.unwrap();
        assert_eq!(values[":v0"], AttributeValue::N("10".into()));
        assert_eq!(values[":v2"], AttributeValue::N("3".into()));
        // A reference the template does not hold is refused before sending.
        let missing: Field<Doc, i64, i64> = Field::new("missing");
        assert!(other.set(missing).applied_to(&template).is_err());
    }

    #[test]
    fn map_entries_and_nested_members_encode_as_their_field() {
        use std::collections::BTreeMap;
        let scores: Field<Doc, BTreeMap<String, u32>, BTreeMap<String, u32>> = Field::new("scores");
        #[derive(Serialize)]
        struct Meta;
        let meta: Field<Doc, Meta, Meta> = Field::new("meta");
        let hits: Field<Doc, u32, u32, super::NestedAttribute> =
            meta.__member("hits", super::super::field::encode_plain::<u32>, "");
        let u = scores.key("ann").add(2) & hits.add(1) & scores.key("bob").set(3);
        let (text, p) = render(&u);
        assert_eq!(text, "SET #n0.#m2 = :v2 ADD #n0.#m0 :v0, #n1.#m1 :v1");
        let names = p.into_parts().0.unwrap();
        assert_eq!(names["#m0"], "ann");
        assert_eq!(names["#m1"], "hits");
        assert_eq!(
            u.paths_inside()
                .into_iter()
                .map(|(root, _)| root)
                .collect::<Vec<_>>(),
            ["scores", "meta", "scores"]
        );
    }

    #[test]
    fn changes_inside_a_template_attribute_apply_to_its_value() {
        #[derive(Serialize)]
        struct Stats;
        let stats: Field<Doc, Stats, Stats> = Field::new("stats");
        let hits: Field<Doc, u32, u32, NestedAttribute> =
            stats.__member("hits", super::super::field::encode_plain::<u32>, "");
        let tags: Field<Doc, Vec<String>, Vec<String>, NestedAttribute> =
            stats.__member("tags", super::super::field::encode_plain::<Vec<String>>, "");
        let template: Item = [(
            "stats".to_owned(),
            AttributeValue::M(
                [
                    ("hits".to_owned(), AttributeValue::N("10".into())),
                    ("note".to_owned(), AttributeValue::S("x".into())),
                    ("tags".to_owned(), AttributeValue::L(vec![])),
                ]
                .into(),
            ),
        )]
        .into();
        let u = hits.add(2) & tags.append(["a".to_owned()]);
        let seeded = u.applied_to(&template).unwrap();
        let (text, p) = render(&seeded);
        assert_eq!(text, "SET #n0 = :v0");
        let values = p.into_parts().1.unwrap();
        let AttributeValue::M(m) = &values[":v0"] else {
            panic!("{values:?}")
        };
        assert_eq!(m["hits"], AttributeValue::N("12".into()));
        assert_eq!(m["note"], AttributeValue::S("x".into()));
        assert_eq!(
            m["tags"],
            AttributeValue::L(vec![AttributeValue::S("a".into())])
        );
    }

    #[test]
    fn removes_of_template_elements_use_the_indexes_before_the_update() {
        let l: Field<Doc, Vec<String>, Vec<String>> = Field::new("l");
        let template: Item = [(
            "l".to_owned(),
            AttributeValue::L(vec![
                AttributeValue::S("a".into()),
                AttributeValue::S("b".into()),
                AttributeValue::S("c".into()),
            ]),
        )]
        .into();
        let seeded = (l.at(0).remove() & l.at(1).remove())
            .applied_to(&template)
            .unwrap();
        let (_, p) = render(&seeded);
        assert_eq!(
            p.into_parts().1.unwrap()[":v0"],
            AttributeValue::L(vec![AttributeValue::S("c".into())])
        );
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
    fn values_that_serialize_to_nothing() {
        // `set` of a value stored as nothing removes the attribute, as a put leaves it out;
        // where nothing cannot stand (if_not_exists, a comparison), it is an error.
        let note: Field<Doc, Option<String>, Option<String>> = Field::new("note");
        let (text, _) = render(&note.set(None::<String>));
        assert_eq!(text, "REMOVE #n0");
        let mut p = Placeholders::new();
        let u = note.set_if_not_exists(None::<String>);
        assert!(matches!(u.render(&mut p), Err(ExprError::Value { .. })));
        let e = note.eq(None::<String>);
        assert!(matches!(e.render(&mut p), Err(ExprError::Value { .. })));
    }
}
