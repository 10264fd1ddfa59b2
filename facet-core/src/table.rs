//! Table declarations: the facets that share one table, checked so that no two of them can
//! write the same `(PK, SK)`.
//!
//! Two facets overwrite each other's records when a key of one can equal a key of the other.
//! Values are free text, so the check reasons about what a key schema allows: a key with
//! fields (or a shard) can be any string starting with `prefix + delimiter`; a key with no
//! fields is exactly its prefix; a key whose fields are all optional can also be its prefix
//! alone. Two facets conflict when both their partition keys and their sort keys can be equal
//! (`#ORDER` + id and `#ORDER_LINE` + id: the order `LINE_5` and the line `5` share
//! `#ORDER_LINE_5`). Indexes are not checked: an index holds no unique keys, and every read of
//! a facet skips items of other facets.
//!
//! [`find_conflict`] is a `const fn`: a table declared with `faceteer::table!` is checked at
//! compile time ([`assert_table`]); [`check_table`] gives the same answer as a typed error at
//! run time.

use crate::const_text::{same, Message};
use crate::layout::TableNames;
use crate::schema::{
    FacetSchema, IndexSchema, KeyAttribute, KeySchema, FACET_ATTRIBUTE, PK, SK, TTL_ATTRIBUTE,
};

/// The facets stored in one table. Implement it with `faceteer::table!`.
pub trait TableSchema: 'static {
    /// The facets of the table.
    const FACETS: &'static [&'static FacetSchema];
    /// The facets with their attribute names, for the table's design documents
    /// ([`crate::design`]); `faceteer::table!` fills it in.
    const DESIGNS: &'static [crate::design::FacetDesign<'static>] = &[];
    /// The table's attribute and index names (faceteer's own unless
    /// `faceteer::table! { .. } names = ..` says otherwise).
    const NAMES: crate::layout::TableNames = crate::layout::TableNames::DEFAULT;

    /// Each facet's rewrite, for a backfill of the whole table; `faceteer::table!` fills it
    /// in (a hand-written implementation without it backfills no facet).
    const REWRITERS: &'static [crate::backfill::Rewriter] = &[];

    /// The table's settings (`faceteer::table! { .. } settings = ..`): capacity, recovery,
    /// deletion protection, encryption, class, tags, warm throughput
    /// ([`crate::settings`]).
    const SETTINGS: crate::settings::TableSettings = crate::settings::TableSettings::DEFAULT;

    /// Call `visitor` with each facet type of the table; `faceteer::table!` fills it in (a
    /// hand-written implementation without it visits none, which what needs every facet,
    /// such as a table-wide hook, reports).
    #[doc(hidden)]
    fn visit_facets<V: FacetVisitor>(visitor: &mut V) {
        let _ = visitor;
    }

    /// The design of the table named `table`, with the table's names ([`TableSchema::NAMES`]):
    /// its infrastructure code, NoSQL Workbench model and access patterns come from it
    /// ([`crate::design`]).
    fn design(table: &str) -> crate::design::TableDesign<'_> {
        crate::design::TableDesign::new(table, Self::DESIGNS)
            .with_names(Self::NAMES)
            .with_settings(Self::SETTINGS)
    }
}

/// What visits each facet type of a table ([`TableSchema::visit_facets`]).
#[doc(hidden)]
pub trait FacetVisitor {
    /// Visit facet `F`.
    fn visit<F: crate::Facet>(&mut self);
}

/// Why the facets of a table cannot share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// Two facets have the same name, so their items cannot be told apart.
    SameName {
        /// Position of the first facet in the declaration.
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// Both the partition keys and the sort keys of two facets can be equal.
    SharedKeys {
        /// Position of the first facet in the declaration.
        first: usize,
        /// Position of the second.
        second: usize,
    },
    /// Two facets use one index, one of them with a sort key and the other without: a
    /// DynamoDB index has one key schema.
    IndexShape {
        /// Position of the first facet in the declaration.
        first: usize,
        /// Position of the second.
        second: usize,
        /// The index (`GSI1`, `LSI2`, …).
        index: &'static str,
    },
    /// Two facets declare one vector index differently (attribute, dimensions, distance or
    /// search schema).
    VectorIndex {
        /// Position of the first facet in the declaration.
        first: usize,
        /// Position of the second.
        second: usize,
        /// The index.
        index: &'static str,
    },
    /// Two facets key an attribute of one name with two types (a native index key or a
    /// vector index's search attribute): the table defines each attribute once.
    KeyType {
        /// Position of the first facet in the declaration.
        first: usize,
        /// Position of the second.
        second: usize,
        /// The attribute.
        attribute: &'static str,
    },
    /// The facets declare more vector indexes than a table can have.
    TooManyVectorIndexes {
        /// How many.
        count: usize,
    },
    /// Two facets use one index with different native (multi-attribute) keys: one native
    /// and the other not, or other attribute names, order or types.
    NativeKeys {
        /// Position of the first facet in the declaration.
        first: usize,
        /// Position of the second.
        second: usize,
        /// The index (`GSI1`, …).
        index: &'static str,
    },
}

/// The strings one key schema can produce, as far as the schema tells.
#[derive(Clone, Copy)]
struct KeySpace {
    prefix: &'static str,
    delimiter: &'static str,
    /// Any string starting with `prefix + delimiter`.
    open: bool,
    /// The prefix alone.
    bare: bool,
}

impl KeySpace {
    const fn of(key: &KeySchema, delimiter: &'static str) -> Self {
        if key.no_prefix {
            // Its values alone: any string at all (no head, never empty).
            return KeySpace {
                prefix: "",
                delimiter: "",
                open: true,
                bare: false,
            };
        }
        KeySpace {
            prefix: key.prefix,
            delimiter,
            open: !key.is_constant(),
            bare: key.can_be_prefix_alone(),
        }
    }

    /// Byte `i` of `prefix + delimiter`.
    const fn head_byte(&self, i: usize) -> u8 {
        let p = self.prefix.as_bytes();
        if i < p.len() {
            p[i]
        } else {
            self.delimiter.as_bytes()[i - p.len()]
        }
    }

    const fn head_len(&self) -> usize {
        self.prefix.len() + self.delimiter.len()
    }

    /// Whether `text` starts with this space's `prefix + delimiter`.
    const fn opens(&self, text: &str) -> bool {
        let t = text.as_bytes();
        if t.len() < self.head_len() {
            return false;
        }
        let mut i = 0;
        while i < self.head_len() {
            if t[i] != self.head_byte(i) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether some string belongs to both spaces.
    const fn meets(&self, other: &KeySpace) -> bool {
        if self.bare && other.bare && same(self.prefix, other.prefix) {
            return true;
        }
        if self.bare && other.open && other.opens(self.prefix) {
            return true;
        }
        if other.bare && self.open && self.opens(other.prefix) {
            return true;
        }
        if self.open && other.open {
            // One head is a prefix of the other.
            let n = if self.head_len() < other.head_len() {
                self.head_len()
            } else {
                other.head_len()
            };
            let mut i = 0;
            while i < n {
                if self.head_byte(i) != other.head_byte(i) {
                    return false;
                }
                i += 1;
            }
            return true;
        }
        false
    }
}

/// Whether records of `a` and `b` can have the same `(PK, SK)`.
pub const fn keys_can_collide(a: &FacetSchema, b: &FacetSchema) -> bool {
    KeySpace::of(&a.pk, a.delimiter).meets(&KeySpace::of(&b.pk, b.delimiter))
        && KeySpace::of(&a.sk, a.delimiter).meets(&KeySpace::of(&b.sk, b.delimiter))
}

/// Facet `f`'s index named `name`, if it uses one.
const fn index_named<'a>(f: &'a FacetSchema, name: &str) -> Option<&'a IndexSchema> {
    let mut i = 0;
    while i < f.indexes.len() {
        if same(f.indexes[i].name, name) {
            return Some(&f.indexes[i]);
        }
        i += 1;
    }
    None
}

/// The first index `a` and `b` both use with a sort key in one and none in the other.
pub const fn index_shapes_differ(a: &FacetSchema, b: &FacetSchema) -> Option<&'static str> {
    let mut i = 0;
    while i < a.indexes.len() {
        let x = &a.indexes[i];
        if let Some(y) = index_named(b, x.name) {
            if x.sk.is_some() != y.sk.is_some() {
                return Some(x.name);
            }
        }
        i += 1;
    }
    None
}

/// The first index `a` and `b` both use whose native keys differ: native in one and not in
/// the other, or other attributes (names, order or types).
pub const fn native_keys_differ(a: &FacetSchema, b: &FacetSchema) -> Option<&'static str> {
    let mut i = 0;
    while i < a.indexes.len() {
        let x = &a.indexes[i];
        if let Some(y) = index_named(b, x.name) {
            let differ = match (x.native, y.native) {
                (None, None) => false,
                (Some(p), Some(q)) => !same_attributes(p.pk, q.pk) || !same_attributes(p.sk, q.sk),
                _ => true,
            };
            if differ {
                return Some(x.name);
            }
        }
        i += 1;
    }
    None
}

/// The first vector index `a` and `b` both declare, differently.
pub const fn vectors_differ(a: &FacetSchema, b: &FacetSchema) -> Option<&'static str> {
    let mut i = 0;
    while i < a.vectors.len() {
        let x = &a.vectors[i];
        let mut j = 0;
        while j < b.vectors.len() {
            let y = &b.vectors[j];
            if same(x.index, y.index) {
                let partition = match (x.partition, y.partition) {
                    (None, None) => true,
                    (Some(p), Some(q)) => same_attributes(&[p], &[q]),
                    _ => false,
                };
                let same_definition = same(x.attribute, y.attribute)
                    && x.dimensions == y.dimensions
                    && x.distance as u8 == y.distance as u8
                    && partition
                    && same_attributes(x.filters, y.filters);
                if !same_definition {
                    return Some(x.index);
                }
            }
            j += 1;
        }
        i += 1;
    }
    None
}

/// The typed attributes `f` declares to DynamoDB besides its keys: its native index keys
/// and its vector indexes' search attributes, the `n`-th of them (`None` past the last).
const fn typed_attribute(f: &FacetSchema, n: usize) -> Option<KeyAttribute> {
    let mut seen = 0;
    let mut i = 0;
    while i < f.indexes.len() {
        if let Some(native) = f.indexes[i].native {
            let keys = [native.pk, native.sk];
            let mut k = 0;
            while k < 2 {
                if n < seen + keys[k].len() {
                    return Some(keys[k][n - seen]);
                }
                seen += keys[k].len();
                k += 1;
            }
        }
        i += 1;
    }
    let mut v = 0;
    while v < f.vectors.len() {
        if let Some(p) = f.vectors[v].partition {
            if n == seen {
                return Some(p);
            }
            seen += 1;
        }
        let filters = f.vectors[v].filters;
        if n < seen + filters.len() {
            return Some(filters[n - seen]);
        }
        seen += filters.len();
        v += 1;
    }
    None
}

/// The first attribute `a` and `b` both declare to DynamoDB (a native index key, a vector
/// search attribute) with two types.
pub const fn key_types_differ(a: &FacetSchema, b: &FacetSchema) -> Option<&'static str> {
    let mut i = 0;
    while let Some(x) = typed_attribute(a, i) {
        let mut j = 0;
        while let Some(y) = typed_attribute(b, j) {
            if same(x.name, y.name) && x.ty as u8 != y.ty as u8 {
                return Some(x.name);
            }
            j += 1;
        }
        i += 1;
    }
    None
}

/// How many distinct vector indexes the facets declare.
const fn vector_index_count(facets: &[&FacetSchema]) -> usize {
    let mut count = 0;
    let mut f = 0;
    while f < facets.len() {
        let mut v = 0;
        while v < facets[f].vectors.len() {
            let name = facets[f].vectors[v].index;
            // Counted at its first declaration only.
            let mut earlier = false;
            let mut g = 0;
            while g <= f && !earlier {
                let upto = if g == f { v } else { facets[g].vectors.len() };
                let mut w = 0;
                while w < upto {
                    if same(facets[g].vectors[w].index, name) {
                        earlier = true;
                    }
                    w += 1;
                }
                g += 1;
            }
            if !earlier {
                count += 1;
            }
            v += 1;
        }
        f += 1;
    }
    count
}

/// Whether two key schemas list the same attributes, in the same order, of the same types.
const fn same_attributes(a: &[KeyAttribute], b: &[KeyAttribute]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !same(a[i].name, b[i].name) || a[i].ty as u8 != b[i].ty as u8 {
            return false;
        }
        i += 1;
    }
    true
}

/// The first conflict between the facets of a table, if any.
pub const fn find_conflict(facets: &[&FacetSchema]) -> Option<Conflict> {
    let count = vector_index_count(facets);
    if count > crate::schema::MAX_VECTOR_INDEXES {
        return Some(Conflict::TooManyVectorIndexes { count });
    }
    let mut first = 0;
    while first < facets.len() {
        let mut second = first + 1;
        while second < facets.len() {
            if same(facets[first].name, facets[second].name) {
                return Some(Conflict::SameName { first, second });
            }
            if keys_can_collide(facets[first], facets[second]) {
                return Some(Conflict::SharedKeys { first, second });
            }
            if let Some(index) = index_shapes_differ(facets[first], facets[second]) {
                return Some(Conflict::IndexShape {
                    first,
                    second,
                    index,
                });
            }
            if let Some(index) = vectors_differ(facets[first], facets[second]) {
                return Some(Conflict::VectorIndex {
                    first,
                    second,
                    index,
                });
            }
            if let Some(index) = native_keys_differ(facets[first], facets[second]) {
                return Some(Conflict::NativeKeys {
                    first,
                    second,
                    index,
                });
            }
            if let Some(attribute) = key_types_differ(facets[first], facets[second]) {
                return Some(Conflict::KeyType {
                    first,
                    second,
                    attribute,
                });
            }
            second += 1;
        }
        first += 1;
    }
    None
}

impl Message {
    /// `prefix`, `prefix_…` or both, as the key can be.
    const fn key(self, key: &KeySchema, delimiter: &str) -> Self {
        if key.no_prefix {
            return self.push("`…` (no prefix: any text)");
        }
        let space_is_open = !key.is_constant();
        let mut m = self.push("`").push(key.prefix);
        if space_is_open {
            if key.can_be_prefix_alone() {
                m = m.push("` or `").push(key.prefix);
            }
            m = m.push(delimiter).push("…");
        }
        m.push("`")
    }
}

/// Fail compilation (in a `const` context) when the facets of a table conflict, with a
/// message naming them and saying what to change.
pub const fn assert_table(facets: &[&FacetSchema]) {
    let Some(conflict) = find_conflict(facets) else {
        return;
    };
    let m = match conflict {
        Conflict::SameName { first, .. } => Message::new()
            .push("two facets of this table are named `")
            .push(facets[first].name)
            .push("`; items are told apart by their `facet` attribute, so give one of them ")
            .push("another `#[facet(name = \"..\")]`"),
        Conflict::SharedKeys { first, second } => {
            let (a, b) = (facets[first], facets[second]);
            Message::new()
                .push("facets `")
                .push(a.name)
                .push("` and `")
                .push(b.name)
                .push("` can write the same (PK, SK), so one record could silently overwrite ")
                .push("the other: their partition keys ")
                .key(&a.pk, a.delimiter)
                .push(" and ")
                .key(&b.pk, b.delimiter)
                .push(" can be equal, and so can their sort keys ")
                .key(&a.sk, a.delimiter)
                .push(" and ")
                .key(&b.sk, b.delimiter)
                .push("; give one of them a sort-key (or partition-key) prefix that neither ")
                .push("starts the other's nor starts with it (`#ORDER` and `#LINE`, not ")
                .push("`#ORDER` and `#ORDER_LINE`); a facet whose sort key has no prefix ")
                .push("needs a partition-key prefix of its own")
        }
        Conflict::IndexShape {
            first,
            second,
            index,
        } => {
            let (a, b) = (facets[first], facets[second]);
            let (with, without) = if has_sort_key(a, index) {
                (a, b)
            } else {
                (b, a)
            };
            Message::new()
                .push("facets `")
                .push(with.name)
                .push("` and `")
                .push(without.name)
                .push("` share index `")
                .push(index)
                .push("`, but `")
                .push(with.name)
                .push("` gives it a sort key and `")
                .push(without.name)
                .push("` does not; an index has one key schema, so give both a sort key ")
                .push("(`sk(prefix = \"..\", fields(..))`) or neither, or use another index")
        }
        Conflict::VectorIndex {
            first,
            second,
            index,
        } => Message::new()
            .push("facets `")
            .push(facets[first].name)
            .push("` and `")
            .push(facets[second].name)
            .push("` declare vector index `")
            .push(index)
            .push("` differently; a table has one definition of each index, so give both the ")
            .push("same attribute, dimensions, distance and search schema, or name one of them ")
            .push("otherwise (`#[vector(index = \"..\", ..)]`)"),
        Conflict::KeyType {
            first,
            second,
            attribute,
        } => Message::new()
            .push("facets `")
            .push(facets[first].name)
            .push("` and `")
            .push(facets[second].name)
            .push("` key attribute `")
            .push(attribute)
            .push("` with two types (a native index key or a vector search attribute); a ")
            .push("table defines each attribute once, so DynamoDB would refuse one facet's ")
            .push("writes: give both fields one type, or rename one (`#[serde(rename = \"..\")]`)"),
        Conflict::TooManyVectorIndexes { .. } => Message::new()
            .push("the facets of this table declare more than 5 vector indexes, DynamoDB's ")
            .push("limit for one table; share an index between facets (the same ")
            .push("`#[vector(index = \"..\", ..)]`) or drop one"),
        Conflict::NativeKeys {
            first,
            second,
            index,
        } => Message::new()
            .push("facets `")
            .push(facets[first].name)
            .push("` and `")
            .push(facets[second].name)
            .push("` share index `")
            .push(index)
            .push("` with different keys: a native index is keyed by the records' own ")
            .push("attributes, so both must declare it `native` with the same attribute names, ")
            .push("in the same order, of the same types (`S`, `N` or `B`), or neither; rename ")
            .push("a field (`#[serde(rename = \"..\")]`) or use another index"),
    };
    panic!("{}", m.as_str());
}

/// Whether `facet`'s index `name` has a sort key.
const fn has_sort_key(facet: &FacetSchema, name: &str) -> bool {
    match index_named(facet, name) {
        Some(index) => index.sk.is_some(),
        None => false,
    }
}

/// The check of [`check_names`](crate::layout::check_names) for a table declared with `faceteer::table! { .. } names =
/// ..`, at compile time: fails compilation, naming the facet and field, when a field of a
/// facet is stored under the table's name of a key attribute or of the facet attribute, or
/// when two of those attributes get one name.
pub const fn assert_names(facets: &[crate::design::FacetDesign<'static>], names: &TableNames) {
    let written = [
        (PK, names.pk),
        (SK, names.sk),
        (FACET_ATTRIBUTE, names.facet),
        (TTL_ATTRIBUTE, names.ttl),
    ];
    let mut i = 0;
    while i < written.len() {
        let mut j = i + 1;
        while j < written.len() {
            if same(written[i].1, written[j].1) {
                let m = Message::new()
                    .push("the table names both `")
                    .push(written[i].0)
                    .push("` and `")
                    .push(written[j].0)
                    .push("` `")
                    .push(written[i].1)
                    .push("`: each needs its own attribute");
                panic!("{}", m.as_str());
            }
            j += 1;
        }
        i += 1;
    }
    let mut f = 0;
    while f < facets.len() {
        let facet = &facets[f];
        let mut a = 0;
        while a < facet.attributes.len() {
            let attribute = facet.attributes[a];
            let mut w = 0;
            while w < written.len() {
                let (ours, theirs) = written[w];
                let index_key = crate::layout::index_key_named(names, attribute);
                if (same(attribute, theirs) && !same(attribute, ours)) || index_key.is_some() {
                    let taken = match index_key {
                        Some(key) => key,
                        None => ours,
                    };
                    let m = Message::new()
                        .push("facet `")
                        .push(facet.schema.name)
                        .push("` stores a field as `")
                        .push(attribute)
                        .push("`, the table's name for `")
                        .push(taken)
                        .push("`; rename the field (`#[serde(rename = \"..\")]`) or the table's attribute");
                    panic!("{}", m.as_str());
                }
                w += 1;
            }
            a += 1;
        }
        f += 1;
    }
}

/// The same check at run time, for tables whose facets are chosen at run time.
pub fn check_table(facets: &[&FacetSchema]) -> Result<(), TableError> {
    match find_conflict(facets) {
        None => Ok(()),
        Some(Conflict::SameName { first, .. }) => Err(TableError::SameName {
            name: facets[first].name,
        }),
        Some(Conflict::SharedKeys { first, second }) => {
            let describe = |f: &FacetSchema| {
                let m = Message::new()
                    .key(&f.pk, f.delimiter)
                    .push(", ")
                    .key(&f.sk, f.delimiter);
                m.as_str().to_owned()
            };
            Err(TableError::SharedKeys {
                first: facets[first].name,
                second: facets[second].name,
                first_keys: describe(facets[first]),
                second_keys: describe(facets[second]),
            })
        }
        Some(Conflict::IndexShape {
            first,
            second,
            index,
        }) => {
            let (a, b) = (facets[first], facets[second]);
            let (with, without) = if has_sort_key(a, index) {
                (a, b)
            } else {
                (b, a)
            };
            Err(TableError::IndexShape {
                index,
                with_sort_key: with.name,
                without_sort_key: without.name,
            })
        }
        Some(Conflict::VectorIndex {
            first,
            second,
            index,
        }) => Err(TableError::VectorIndex {
            index,
            first: facets[first].name,
            second: facets[second].name,
        }),
        Some(Conflict::KeyType {
            first,
            second,
            attribute,
        }) => Err(TableError::KeyType {
            attribute,
            first: facets[first].name,
            second: facets[second].name,
        }),
        Some(Conflict::TooManyVectorIndexes { count }) => {
            Err(TableError::TooManyVectorIndexes { count })
        }
        Some(Conflict::NativeKeys {
            first,
            second,
            index,
        }) => Err(TableError::NativeKeys {
            index,
            first: facets[first].name,
            second: facets[second].name,
            first_keys: describe_native(facets[first], index),
            second_keys: describe_native(facets[second], index),
        }),
    }
}

/// Facet `f`'s keys of index `name`: `native (a S, b N | c S)` or `written (GSInPK, GSInSK)`.
fn describe_native(f: &FacetSchema, name: &str) -> String {
    let Some(index) = f.index(name) else {
        return "not used".to_owned();
    };
    let (pk, sk) = index.key_schema();
    let list = |keys: &[KeyAttribute]| {
        keys.iter()
            .map(|k| format!("{} {}", k.name, k.ty))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match index.native {
        Some(_) => format!("native: {} | {}", list(&pk), list(&sk)),
        None => format!("written: {} | {}", list(&pk), list(&sk)),
    }
}

/// Why facets cannot share a table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// Two facets have the same name.
    #[error(
        "two facets of this table are named `{name}`; items are told apart by their `facet` \
         attribute, so give one of them another name"
    )]
    SameName {
        /// The shared name.
        name: &'static str,
    },
    /// Two facets can write the same `(PK, SK)`.
    #[error(
        "facets `{first}` ({first_keys}) and `{second}` ({second_keys}) can write the same \
         (PK, SK), so one record could silently overwrite the other; give one of them a \
         sort-key (or partition-key) prefix that neither starts the other's nor starts with it"
    )]
    SharedKeys {
        /// The first facet.
        first: &'static str,
        /// The second facet.
        second: &'static str,
        /// The first facet's partition and sort key patterns.
        first_keys: String,
        /// The second's.
        second_keys: String,
    },
    /// Two facets share an index, one with a sort key and one without.
    #[error(
        "facets `{with_sort_key}` and `{without_sort_key}` share index `{index}`, but only \
         `{with_sort_key}` gives it a sort key; an index has one key schema, so give both a \
         sort key or neither, or use another index"
    )]
    IndexShape {
        /// The index.
        index: &'static str,
        /// The facet whose index has a sort key.
        with_sort_key: &'static str,
        /// The facet whose index has none.
        without_sort_key: &'static str,
    },
    /// Two facets declare one vector index differently.
    #[error(
        "facets `{first}` and `{second}` declare vector index `{index}` differently; give both \
         the same attribute, dimensions, distance and search schema, or another index name"
    )]
    VectorIndex {
        /// The index.
        index: &'static str,
        /// The first facet.
        first: &'static str,
        /// The second.
        second: &'static str,
    },
    /// Two facets key one attribute with two types.
    #[error(
        "facets `{first}` and `{second}` key attribute `{attribute}` with two types; a table \
         defines each attribute once: give both one type, or rename one"
    )]
    KeyType {
        /// The attribute.
        attribute: &'static str,
        /// The first facet.
        first: &'static str,
        /// The second.
        second: &'static str,
    },
    /// More vector indexes than a table can have.
    #[error("the facets declare {count} vector indexes; a DynamoDB table has at most 5")]
    TooManyVectorIndexes {
        /// How many.
        count: usize,
    },
    /// Two facets share an index with different native keys.
    #[error(
        "facets `{first}` ({first_keys}) and `{second}` ({second_keys}) share index `{index}` \
         with different keys; a native index has one key schema of record attributes, so \
         declare it `native` in both with the same attribute names, order and types, or in \
         neither"
    )]
    NativeKeys {
        /// The index.
        index: &'static str,
        /// The first facet.
        first: &'static str,
        /// The second.
        second: &'static str,
        /// The first facet's keys of the index.
        first_keys: String,
        /// The second's.
        second_keys: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{FacetSchema, KeySchema};

    const fn key(
        attribute: &'static str,
        prefix: &'static str,
        fields: &'static [&'static str],
        optional: &'static [bool],
    ) -> KeySchema {
        KeySchema::new(attribute, prefix, false, fields, optional)
    }

    const fn facet(name: &'static str, pk: KeySchema, sk: KeySchema) -> FacetSchema {
        FacetSchema {
            name,
            delimiter: "_",
            pk,
            sk,
            indexes: &[],
            ttl_field: None,
            unique: &[],
            vectors: &[],
        }
    }

    const CUSTOMER: KeySchema = key("PK", "#CUSTOMER", &["customerId"], &[false]);
    const ORDER: FacetSchema = facet(
        "ORDER",
        CUSTOMER,
        key("SK", "#ORDER", &["orderId"], &[false]),
    );
    const LINE: FacetSchema = facet(
        "ORDER_LINE",
        CUSTOMER,
        key("SK", "#ORDER_LINE", &["lineId"], &[false]),
    );
    const ITEM: FacetSchema = facet("ITEM", CUSTOMER, key("SK", "#ITEM", &["itemId"], &[false]));
    const USER: FacetSchema = facet(
        "USER",
        key("PK", "#USER", &["id"], &[false]),
        key("SK", "#USER", &["id"], &[false]),
    );
    const SETTINGS: FacetSchema = facet(
        "USER_SETTINGS",
        key("PK", "#USER", &["id"], &[false]),
        key("SK", "#USER_SETTINGS", &[], &[]),
    );
    const PROFILE: FacetSchema = facet(
        "PROFILE",
        key("PK", "#USER", &["id"], &[false]),
        key("SK", "#PROFILE", &[], &[]),
    );
    const OTHER_PARTITION: FacetSchema = facet(
        "OTHER",
        key("PK", "#SHOP", &["id"], &[false]),
        key("SK", "#ORDER_LINE", &["id"], &[false]),
    );

    // The compile-time check accepts a table without conflicts.
    const _: () = assert_table(&[&ORDER, &ITEM, &OTHER_PARTITION]);

    #[test]
    fn prefix_of_another_sort_key_conflicts() {
        assert_eq!(
            find_conflict(&[&ORDER, &ITEM, &LINE]),
            Some(Conflict::SharedKeys {
                first: 0,
                second: 2
            })
        );
        let err = check_table(&[&ORDER, &LINE]).unwrap_err();
        assert!(err.to_string().contains("`ORDER`"), "{err}");
        assert!(err.to_string().contains("`#ORDER_…`"), "{err}");
    }

    #[test]
    fn constant_sort_key_inside_another_facets_space_conflicts() {
        assert!(keys_can_collide(&USER, &SETTINGS));
        assert!(!keys_can_collide(&USER, &PROFILE));
    }

    #[test]
    fn disjoint_partitions_or_sort_keys_do_not_conflict() {
        assert_eq!(
            find_conflict(&[&ORDER, &ITEM, &OTHER_PARTITION, &USER, &PROFILE]),
            None
        );
        assert!(check_table(&[&ORDER, &ITEM]).is_ok());
    }

    #[test]
    fn names_must_differ() {
        let again = facet(
            "ORDER",
            key("PK", "#X", &["x"], &[false]),
            key("SK", "#X", &[], &[]),
        );
        assert_eq!(
            check_table(&[&ORDER, &again]),
            Err(TableError::SameName { name: "ORDER" })
        );
    }

    #[test]
    fn all_optional_keys_can_be_their_prefix() {
        let bare = facet("A", CUSTOMER, key("SK", "#ORDER", &["maybe"], &[true]));
        let constant = facet("B", CUSTOMER, key("SK", "#ORDER", &[], &[]));
        assert!(keys_can_collide(&bare, &constant));
        let required = facet("A", CUSTOMER, key("SK", "#ORDER", &["id"], &[false]));
        assert!(!keys_can_collide(&required, &constant));
    }
}
