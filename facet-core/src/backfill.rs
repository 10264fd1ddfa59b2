//! What a backfill writes: the difference between a stored item and the item a put of its
//! record writes under the facet as declared now (index keys, shard ids, `ttl`, a sparse
//! index's membership, renamed attributes, the schema version).
//!
//! [`Rewriter`] is one facet's rewrite with its type erased, so that a backfill can hold the
//! facets of a whole table; [`diff`] compares two items.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::convert::{from_item, is_foreign};
use crate::expr::same_value;
use crate::facet::{Facet, ItemError};
use crate::item::Item;
#[cfg(test)]
use crate::schema::WRITE_TOKEN;
use crate::schema::{FacetSchema, FACET_ATTRIBUTE, PK, SK};

/// One facet's rewrite: its schema, and the function reading a stored item as a record
/// (upgrading an older schema version) and writing it as a put would.
#[derive(Clone, Copy)]
pub struct Rewriter {
    schema: &'static FacetSchema,
    attributes: &'static [&'static str],
    put_item: fn(Item) -> Result<Item, ItemError>,
}

impl std::fmt::Debug for Rewriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rewriter")
            .field("facet", &self.schema.name)
            .finish()
    }
}

/// The item a put of `item`'s record writes.
/// An encrypted facet's item is encrypted anew: every backfill of it rewrites each record
/// (which is how its keys are rotated).
fn put_item_of<F: Facet>(item: Item) -> Result<Item, ItemError> {
    crate::convert::to_stored_item(&from_item::<F>(item)?)
}

impl Rewriter {
    /// The rewrite of facet `F`.
    pub const fn of<F: Facet>() -> Rewriter {
        Rewriter {
            schema: F::SCHEMA,
            attributes: F::ATTRIBUTES,
            put_item: put_item_of::<F>,
        }
    }

    /// The facet's schema.
    pub fn schema(&self) -> &'static FacetSchema {
        self.schema
    }

    /// Whether `item` is one of this facet's: its `facet` attribute names it (an item
    /// without one is no facet's, for a backfill).
    pub fn owns(&self, item: &Item) -> bool {
        item.contains_key(FACET_ATTRIBUTE) && !is_foreign(item, self.schema.name)
    }

    /// What to write to bring `stored` to what a put of its record writes.
    pub fn plan(&self, stored: &Item) -> Result<Rewrite, ItemError> {
        let target = (self.put_item)(stored.clone())?;
        Ok(diff(stored, target, self.attributes))
    }

    /// What to write to bring `stored` to `target`, the item a put of another record of
    /// this facet writes (a record a function of the user's made from the stored one).
    pub fn plan_to(&self, stored: &Item, target: Item) -> Rewrite {
        diff(stored, target, self.attributes)
    }
}

/// What a backfill writes for one stored item.
#[derive(Debug, Clone, PartialEq)]
pub enum Rewrite {
    /// The item is already what a put writes.
    Same,
    /// The item keeps its key: set these attributes, remove those.
    Update(Edits),
    /// The record's key changes (a new shard schedule of the base key, say): the item moves
    /// to `target`'s key, and the old one goes.
    Move {
        /// The whole item to write under its new key.
        target: Item,
        /// The attributes that differ, `PK` and `SK` among them.
        changed: Vec<String>,
        /// Attributes the stored item lacks and must still lack.
        absent: Vec<String>,
    },
}

impl Rewrite {
    /// The attributes this rewrite changes (added, changed or removed), by name.
    pub fn changed_attributes(&self) -> Vec<&str> {
        match self {
            Rewrite::Same => Vec::new(),
            Rewrite::Update(c) => c
                .set
                .iter()
                .map(|(n, _)| n.as_str())
                .chain(c.remove.iter().map(String::as_str))
                .collect(),
            Rewrite::Move { changed, .. } => changed.iter().map(String::as_str).collect(),
        }
    }
}

/// The attributes an in-place rewrite sets and removes, and those the stored item must
/// still hold as read (or still lack) for it to apply.
#[derive(Debug, Clone, PartialEq)]
pub struct Edits {
    /// Attributes to set, with their new values.
    pub set: Vec<(String, AttributeValue)>,
    /// Attributes to remove.
    pub remove: Vec<String>,
    /// Attributes the stored item lacks and must still lack.
    pub absent: Vec<String>,
}

/// Compare `stored` with `target`, the item a put of its record writes. `attributes` are the
/// facet's field attributes: besides those `target` holds, a concurrent writer could only
/// add these, so the rewrite checks they are still absent. Anything else the stored item holds
/// is removed: a write token ([`WRITE_TOKEN`](crate::schema::WRITE_TOKEN)) an earlier faceteer stored included, so that a
/// backfill leaves records a strict Faceteer validator reads.
pub fn diff(stored: &Item, target: Item, attributes: &[&str]) -> Rewrite {
    let mut changed: Vec<String> = target
        .iter()
        .filter(|(name, value)| !same_value(stored.get(name.as_str()), Some(value)))
        .map(|(name, _)| name.clone())
        .collect();
    changed.extend(
        stored
            .keys()
            .filter(|name| !target.contains_key(name.as_str()))
            .cloned(),
    );
    changed.sort();
    if changed.is_empty() {
        return Rewrite::Same;
    }
    let mut absent: Vec<String> = target
        .keys()
        .map(String::as_str)
        .chain(attributes.iter().copied())
        .filter(|name| !stored.contains_key(*name))
        .map(str::to_owned)
        .collect();
    absent.sort();
    absent.dedup();
    if changed.iter().any(|n| n == PK || n == SK) {
        return Rewrite::Move {
            target,
            changed,
            absent,
        };
    }
    let mut set = Vec::new();
    let mut remove = Vec::new();
    for name in changed {
        match target.get(&name) {
            Some(value) => set.push((name, value.clone())),
            None => remove.push(name),
        }
    }
    Rewrite::Update(Edits {
        set,
        remove,
        absent,
    })
}

/// `stored` with `edits` applied.
pub fn applied(stored: &Item, edits: &Edits) -> Item {
    let mut item = stored.clone();
    for (name, value) in &edits.set {
        item.insert(name.clone(), value.clone());
    }
    for name in &edits.remove {
        item.remove(name);
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), s(v))).collect()
    }

    #[test]
    fn same_items_need_nothing_and_old_tokens_are_removed() {
        let target = item(&[("PK", "a"), ("SK", "b"), ("x", "1")]);
        assert_eq!(diff(&target, target.clone(), &["x"]), Rewrite::Same);
        let mut stored = target.clone();
        stored.insert(WRITE_TOKEN.into(), s("t"));
        let Rewrite::Update(c) = diff(&stored, target.clone(), &["x"]) else {
            panic!("expected an update");
        };
        assert_eq!(c.remove, vec![WRITE_TOKEN.to_owned()]);
        assert_eq!(applied(&stored, &c), target);
    }

    #[test]
    fn changed_and_stale_attributes_are_set_and_removed() {
        let stored = item(&[
            ("PK", "a"),
            ("SK", "b"),
            ("GSI1PK", "old"),
            ("old_name", "v"),
        ]);
        let target = item(&[("PK", "a"), ("SK", "b"), ("GSI1PK", "new"), ("name", "v")]);
        let Rewrite::Update(c) = diff(&stored, target, &["name", "phone"]) else {
            panic!("expected an update");
        };
        assert_eq!(
            c.set,
            vec![("GSI1PK".to_owned(), s("new")), ("name".to_owned(), s("v"))]
        );
        assert_eq!(c.remove, vec!["old_name".to_owned()]);
        assert_eq!(c.absent, vec!["name".to_owned(), "phone".to_owned()]);
        assert_eq!(
            applied(&stored, &c),
            item(&[("PK", "a"), ("SK", "b"), ("GSI1PK", "new"), ("name", "v")])
        );
    }

    #[test]
    fn a_new_key_is_a_move() {
        let stored = item(&[("PK", "USER"), ("SK", "u1")]);
        let target = item(&[("PK", "USER_3"), ("SK", "u1")]);
        match diff(&stored, target.clone(), &[]) {
            Rewrite::Move {
                target: t, changed, ..
            } => {
                assert_eq!(t, target);
                assert_eq!(changed, vec!["PK".to_owned()]);
            }
            other => panic!("expected a move, got {other:?}"),
        }
    }
}
