//! A stored item's JSON straight into a facet's record.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};

use super::tree::{self, CowStr, Tag};
use super::value::WireSeed;
use crate::convert::from_item;
use crate::facet::{Facet, ItemError};
use crate::schema::{FacetSchema, FACET_ATTRIBUTE, SCHEMA_VERSION_ATTRIBUTE, TTL_ATTRIBUTE};
use crate::unmarshal;

/// Read a record of `F` from the JSON of a stored item, as [`from_item`] reads the SDK's
/// item: the same records, validators and errors. The common case (an item of `F` at its
/// current schema version that reads) is decoded in one pass with no attribute-value tree;
/// any other item (another facet's, an older version's, one that does not read) is built
/// into the tree and read by [`from_item`], so that what it answers is exactly that.
pub fn from_wire<F: Facet>(json: &str) -> Result<F, ItemError> {
    match direct::<F>(json) {
        Some(record) => {
            record.validate().map_err(|message| ItemError::Validation {
                facet: F::SCHEMA.name,
                message,
            })?;
            Ok(record)
        }
        None => from_item::<F>(tree::item_of(json, F::SCHEMA.name)?),
    }
}

/// `F`'s record from `json` when it is an item of `F` at `F`'s schema version that reads;
/// `None` for every other item.
///
/// A member an item holds twice reads as its last one on the SDK's path (its decoder keeps
/// the last in its map). Here, every member of `facet` and of the schema version must name
/// `F` and its version (else the item is read from the tree, which keeps the last), the
/// attributes the library writes are passed over however often they come, and a field
/// given twice fails the record's own deserializer (serde refuses a duplicate field; a map
/// keeps its last entry, as the tree does): so the pass reads what the tree's last members
/// read, or gives way to it.
fn direct<F: Facet>(json: &str) -> Option<F> {
    let current = F::SCHEMA_VERSION.unwrap_or(1);
    // Whether the item holds a schema version (any other than `current` stops the pass).
    let mut versioned = false;
    let mut de = serde_json::Deserializer::from_str(json);
    let record = F::deserialize(ItemDe {
        de: &mut de,
        cx: Reading {
            schema: F::SCHEMA,
            versioned: &mut versioned,
            current,
            pass: None,
        },
    })
    .ok()?;
    // A field deserializer that swallowed an error inside a nested value leaves the reader
    // out of step with the item's nesting: only a reader at the item's very end read it all.
    de.end().ok()?;
    // An item without a version is at version 1.
    (versioned || current == 1).then_some(record)
}

/// What reading an item's members needs.
pub(super) struct Reading<'a, 'j> {
    pub(super) schema: &'static FacetSchema,
    /// Set when the item's schema version is read.
    pub(super) versioned: &'a mut bool,
    /// The facet's schema version: an item stored at another is read from the tree.
    pub(super) current: u32,
    /// Reading within an answer's one pass ([`super::pass`]): the attributes to note, and
    /// an item of another facet passed over instead of stopping the pass.
    pub(super) pass: Option<&'a mut Noting<'j>>,
}

/// A whole item: its members, less those the record does not read.
struct ItemDe<'a, 'j> {
    de: &'a mut serde_json::Deserializer<serde_json::de::StrRead<'j>>,
    cx: Reading<'a, 'j>,
}

impl<'de> Deserializer<'de> for ItemDe<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.de.deserialize_map(ItemVisitor {
            visitor,
            cx: self.cx,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct ItemVisitor<'a, 'j, V> {
    visitor: V,
    cx: Reading<'a, 'j>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for ItemVisitor<'_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an item")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(ItemMembers { map, cx: self.cx })
    }
}

/// An item's members as the record's deserializer sees them: those the library writes are
/// read here (checked, noted or passed over), the record's own handed on.
pub(super) struct ItemMembers<'a, 'j, A> {
    pub(super) map: A,
    pub(super) cx: Reading<'a, 'j>,
}

impl<'de, A: MapAccess<'de>> ItemMembers<'_, 'de, A> {
    /// Within an answer's pass, an item whose `facet` names another facet: its members
    /// are passed over to the item's end, the last `facet` member deciding (the SDK's
    /// decoder keeps the last).
    fn pass_over(&mut self) -> Result<(), A::Error> {
        while let Some(name) = self.map.next_key_seed(CowStr)? {
            if name == FACET_ATTRIBUTE {
                let facet = self.map.next_value_seed(Scalar(Tag::S))?;
                let foreign = facet.as_deref() != Some(self.cx.schema.name);
                if let Some(pass) = self.cx.pass.as_deref_mut() {
                    pass.foreign = Some(foreign);
                }
            } else {
                self.map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for ItemMembers<'_, 'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        while let Some(name) = self.map.next_key_seed(CowStr)? {
            if name == FACET_ATTRIBUTE {
                let facet = self.map.next_value_seed(Scalar(Tag::S))?;
                if facet.as_deref() != Some(self.cx.schema.name) {
                    if let Some(pass) = self.cx.pass.as_deref_mut() {
                        pass.foreign = Some(true);
                        self.pass_over()?;
                        return Ok(None);
                    }
                    return Err(A::Error::custom("an item of another facet"));
                }
            } else if name == SCHEMA_VERSION_ATTRIBUTE {
                let version = self.map.next_value_seed(Scalar(Tag::N))?;
                let version = version.and_then(|v| v.parse::<u32>().ok());
                *self.cx.versioned = true;
                if version != Some(self.cx.current) {
                    // Upgraded or refused from the tree: stop here.
                    return Err(A::Error::custom("an item of another schema version"));
                }
            } else if self.cx.schema.is_stored_only(&name) {
                match self.cx.pass.as_deref_mut() {
                    Some(pass) => pass.note(&name, &mut self.map)?,
                    None => {
                        self.map.next_value::<IgnoredAny>()?;
                    }
                }
            } else {
                return seed
                    .deserialize(unmarshal::Key(&name))
                    .map(Some)
                    .map_err(A::Error::custom);
            }
        }
        Ok(None)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.map.next_value_seed(WireSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// At most this many attributes are noted of each item.
pub const MOST_NOTED: usize = 4;

/// The attributes a pass notes of each item, besides reading its record: attributes the
/// library writes (the keys of the table and of an index), strings or numbers. The `ttl`
/// of a facet with a `#[ttl]` field is always noted.
#[derive(Debug, Clone, Copy)]
pub struct Notes {
    names: [&'static str; MOST_NOTED],
    len: usize,
}

impl Notes {
    /// Notes of `names`; `None` for more than [`MOST_NOTED`].
    pub fn new(names: impl IntoIterator<Item = &'static str>) -> Option<Notes> {
        let mut notes = Notes {
            names: [""; MOST_NOTED],
            len: 0,
        };
        for name in names {
            if notes.position(name).is_some() {
                continue;
            }
            *notes.names.get_mut(notes.len)? = name;
            notes.len += 1;
        }
        Some(notes)
    }

    /// The attributes noted.
    pub fn names(&self) -> &[&'static str] {
        &self.names[..self.len]
    }

    pub(super) fn position(&self, name: &str) -> Option<usize> {
        self.names().iter().position(|n| *n == name)
    }
}

/// What a pass notes while reading one item's members.
pub(super) struct Noting<'j> {
    pub(super) notes: Notes,
    pub(super) values: [Option<(Tag, Cow<'j, str>)>; MOST_NOTED],
    pub(super) ttl: Option<Cow<'j, str>>,
    /// `Some(true)` when the item's (last) `facet` names another facet; `Some(false)` when a
    /// later `facet` member named this one again.
    pub(super) foreign: Option<bool>,
}

impl<'j> Noting<'j> {
    pub(super) fn new(notes: Notes) -> Self {
        Noting {
            notes,
            values: [const { None }; MOST_NOTED],
            ttl: None,
            foreign: None,
        }
    }

    /// Read the value of member `name`, an attribute the library writes: noted when asked
    /// for (a member given twice: its last), else passed over.
    pub(super) fn note<A: MapAccess<'j>>(
        &mut self,
        name: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        if let Some(at) = self.notes.position(name) {
            match map.next_value_seed(Scalars(KEY_KINDS))? {
                Some(value) => self.values[at] = Some(value),
                None => return Err(A::Error::custom("a key neither a string nor a number")),
            }
        } else if name == TTL_ATTRIBUTE {
            self.ttl = map.next_value_seed(Scalar(Tag::N))?;
        } else {
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// The text of an attribute value of kind `.0` (`S` or `N`); `None` for any other kind.
pub(crate) struct Scalar(pub(crate) Tag);

impl<'de> DeserializeSeed<'de> for Scalar {
    type Value = Option<Cow<'de, str>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let read = d.deserialize_map(Scalars(std::slice::from_ref(&self.0)))?;
        Ok(read.map(|(_, text)| text))
    }
}

/// A key attribute's value: a string (`S`) or a number (`N`), with its kind.
const KEY_KINDS: &[Tag] = &[Tag::S, Tag::N];

/// The text of an attribute value of one of the kinds `.0` (each `S` or `N`), with its
/// kind; `None` for any other kind.
struct Scalars<'k>(&'k [Tag]);

impl<'de> DeserializeSeed<'de> for Scalars<'_> {
    type Value = Option<(Tag, Cow<'de, str>)>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Scalars<'_> {
    type Value = Option<(Tag, Cow<'de, str>)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an attribute value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut value = None;
        while let Some(tag) = map.next_key::<Tag>()? {
            if self.0.contains(&tag) && value.is_none() {
                value = Some((tag, map.next_value_seed(CowStr)?));
            } else {
                map.next_value::<IgnoredAny>()?;
                // A second member: not one value of these kinds.
                while map.next_key::<IgnoredAny>()?.is_some() {
                    map.next_value::<IgnoredAny>()?;
                }
                return Ok(None);
            }
        }
        Ok(value)
    }
}

/// The top-level attributes `names` of an item's JSON, in one pass: for each, `None` when
/// the item has none, else its text when it is a string (`S`), `Some(None)` when it is of
/// another kind.
///
/// A name the item holds more than once reads as its last member, as the SDK's decoder
/// (and [`tree::item`]) reads it: the pass reads the whole item, never stopping at the
/// first member of a name.
pub(crate) fn attribute_texts<'j, const N: usize>(
    json: &'j str,
    names: [&str; N],
) -> [Option<Option<Cow<'j, str>>>; N] {
    attribute_scalars(json, names, Tag::S)
}

/// [`attribute_texts`] for attributes of kind `kind` (`S` or `N`).
fn attribute_scalars<'j, const N: usize>(
    json: &'j str,
    names: [&str; N],
    kind: Tag,
) -> [Option<Option<Cow<'j, str>>>; N] {
    /// Reads the attributes `names` into `found`, each member of one of them replacing what
    /// an earlier member of the same name gave (the last one wins).
    struct Find<'n, 'o, 'j, const N: usize> {
        names: [&'n str; N],
        kind: Tag,
        found: &'o mut [Option<Option<Cow<'j, str>>>; N],
    }
    impl<'j, const N: usize> Visitor<'j> for Find<'_, '_, 'j, N> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an item")
        }
        fn visit_map<A: MapAccess<'j>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key_seed(CowStr)? {
                match self.names.iter().position(|n| *n == key) {
                    Some(at) => self.found[at] = Some(map.next_value_seed(Scalar(self.kind))?),
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    let mut found = [const { None }; N];
    let mut de = serde_json::Deserializer::from_str(json);
    let read = de::Deserializer::deserialize_map(
        &mut de,
        Find {
            names,
            kind,
            found: &mut found,
        },
    );
    match read {
        Ok(()) => found,
        Err(_) => [const { None }; N],
    }
}

/// The text of the top-level number (`N`) attribute `name` of an item's JSON, if it has one.
pub(crate) fn attribute_number<'j>(json: &'j str, name: &str) -> Option<Cow<'j, str>> {
    let [number] = attribute_scalars(json, [name], Tag::N);
    number.flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_found_in_any_order_and_told_apart_by_kind() {
        let json =
            r#"{"a":{"M":{"PK":{"S":"inner"}}},"SK":{"S":"s\"1"},"n":{"N":"7"},"PK":{"S":"p"}}"#;
        let [pk, sk, n, missing] = attribute_texts(json, ["PK", "SK", "n", "x"]);
        assert_eq!(pk, Some(Some(Cow::Borrowed("p"))));
        assert_eq!(sk.flatten().as_deref(), Some("s\"1"));
        assert_eq!(n, Some(None), "a number is not a string");
        assert_eq!(missing, None);
        assert_eq!(attribute_number(json, "n").as_deref(), Some("7"));
        // Text that is not an item holds nothing, even with the attributes asked for in
        // front: a later member could have replaced them.
        let [pk] = attribute_texts(r#"{"PK":{"S":"p"},"rest":{"L":[{"S":"#, ["PK"]);
        assert_eq!(pk, None);
        assert_eq!(attribute_texts("{\"PK\":", ["PK"]), [None]);
    }

    #[test]
    fn a_duplicated_attribute_reads_as_its_last_member() {
        let json = r#"{"facet":{"S":"A"},"PK":{"S":"p1"},"ttl":{"N":"1"},"facet":{"S":"B"},"PK":{"N":"2"},"ttl":{"N":"3"},"SK":{"S":"s"}}"#;
        let [facet, pk, sk] = attribute_texts(json, ["facet", "PK", "SK"]);
        assert_eq!(facet.flatten().as_deref(), Some("B"));
        assert_eq!(pk, Some(None), "the last PK is a number");
        assert_eq!(sk.flatten().as_deref(), Some("s"));
        assert_eq!(attribute_number(json, "ttl").as_deref(), Some("3"));
        // As the tree reads it.
        let item = tree::item(json).unwrap();
        assert_eq!(item["facet"].as_s().unwrap(), "B");
        assert_eq!(item["PK"].as_n().unwrap(), "2");
        assert_eq!(item["ttl"].as_n().unwrap(), "3");
    }
}
