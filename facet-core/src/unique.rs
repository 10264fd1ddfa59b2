//! Unique fields (`#[unique]`, `#[unique(scope(..))]`): the guard item that owns each value.
//!
//! A record whose unique field holds a value owns one guard item, written in the same
//! transaction as the record. Its key is built from the facet, the field, the scope's values
//! and the value, so a second record with the same value (in the same scope) cannot write its
//! guard. Guards live in the table beside the records, under a partition key that starts
//! with [`GUARD_PREFIX`], which no facet's key can start with (the derive refuses such a
//! prefix, and [`check_table_partition`] every key spelling it otherwise), and under
//! [`GUARD_SK`]:
//!
//! | attribute | holds |
//! |---|---|
//! | `PK` | `$unique#<facet>#<field>#<scope value>#…#<value>`, each value as `<length>:<text>` |
//! | `SK` | `$unique` |
//! | `facet` | `$unique` (so that no facet reads a guard as its record) |
//! | `owner_pk`, `owner_sk` | the key of the record that owns the value |
//! | `unique_facet`, `unique_field` | the facet and the field |
//!
//! Values are written with their length in front, so no two different (scope, value) lists
//! give one key, whatever text they hold.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::Item;
use crate::key::KeyError;
pub use crate::schema::UniqueSchema;
use crate::schema::{FacetSchema, FACET_ATTRIBUTE, PK, SK};

/// What the partition key of every guard item starts with.
pub const GUARD_PREFIX: &str = "$unique";

/// The sort key of every guard item, and its `facet` attribute.
pub const GUARD_SK: &str = "$unique";

/// The attribute of a guard holding its owner's partition key.
pub const OWNER_PK: &str = "owner_pk";

/// The attribute of a guard holding its owner's sort key.
pub const OWNER_SK: &str = "owner_sk";

/// The attribute of a guard holding the facet name.
pub const GUARD_FACET: &str = "unique_facet";

/// The attribute of a guard holding the field's attribute name.
pub const GUARD_FIELD: &str = "unique_field";

/// DynamoDB's longest partition key, in bytes.
const MAX_PK_BYTES: usize = 2048;

/// Why a guard key cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GuardError {
    /// The unique field (or a field of its scope) holds a kind of value a guard cannot be
    /// built from: only strings, numbers and binary values can be unique.
    #[error(
        "`{facet}.{field}` is unique, but `{attribute}` holds a {kind}: only strings, numbers, \
         booleans and binary values can be unique"
    )]
    Kind {
        /// The facet.
        facet: &'static str,
        /// The unique field.
        field: &'static str,
        /// The attribute holding the value.
        attribute: &'static str,
        /// What it holds.
        kind: &'static str,
    },
    /// The guard's key would be longer than DynamoDB allows.
    #[error(
        "the unique value of `{facet}.{field}` is too long: its guard's key would be {bytes} \
         bytes, over DynamoDB's {MAX_PK_BYTES}"
    )]
    TooLong {
        /// The facet.
        facet: &'static str,
        /// The unique field.
        field: &'static str,
        /// The guard key's length.
        bytes: usize,
    },
}

/// One value owned by a record: the guard's key and what it shows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The unique field.
    pub field: &'static str,
    /// The guard's partition key.
    pub pk: String,
    /// The value, as text (for errors).
    pub value: String,
}

impl Guard {
    /// The guard's key item (`PK`, `SK`).
    pub fn key(&self) -> Item {
        Item::from([
            (PK.to_owned(), AttributeValue::S(self.pk.clone())),
            (SK.to_owned(), AttributeValue::S(GUARD_SK.to_owned())),
        ])
    }

    /// The guard item owned by the record under `owner` (`PK`, `SK`).
    pub fn item(&self, facet: &str, owner: (&str, &str)) -> Item {
        let mut item = self.key();
        let s = |v: &str| AttributeValue::S(v.to_owned());
        item.insert(FACET_ATTRIBUTE.to_owned(), s(GUARD_SK));
        item.insert(OWNER_PK.to_owned(), s(owner.0));
        item.insert(OWNER_SK.to_owned(), s(owner.1));
        item.insert(GUARD_FACET.to_owned(), s(facet));
        item.insert(GUARD_FIELD.to_owned(), s(self.field));
        item
    }
}

/// Refuse a base-table partition key (`PK`) that starts with [`GUARD_PREFIX`], the
/// partition of the guard items of unique values, whatever prefix, delimiter, shard id or
/// values spell it ([`KeyError::ReservedPartition`]). Every key of the table a facet builds (its records',
/// its key builders', its queries') passes here, so no record can share a guard's key.
pub fn check_table_partition(pk: &str) -> Result<(), KeyError> {
    if pk.starts_with(GUARD_PREFIX) {
        return Err(KeyError::ReservedPartition { key: pk.to_owned() });
    }
    Ok(())
}

/// Whether `item` is a guard item.
pub fn is_guard(item: &Item) -> bool {
    matches!(item.get(PK), Some(AttributeValue::S(pk)) if pk.starts_with(GUARD_PREFIX))
        && matches!(item.get(SK), Some(AttributeValue::S(sk)) if sk == GUARD_SK)
}

/// The text of a value in a guard key; `None` for a kind that cannot be unique.
fn value_text(value: &AttributeValue) -> Result<String, &'static str> {
    match value {
        AttributeValue::S(s) => Ok(s.clone()),
        AttributeValue::N(n) => Ok(canonical_number(n)),
        AttributeValue::B(b) => Ok(b
            .as_ref()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()),
        AttributeValue::Bool(b) => Ok(b.to_string()),
        AttributeValue::L(_) => Err("list"),
        AttributeValue::M(_) => Err("map"),
        AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => Err("set"),
        AttributeValue::Null(_) => Err("null"),
        _ => Err("value of an unknown kind"),
    }
}

/// A number's text as DynamoDB compares it: `1.50`, `01.5` and `+1.5` are all `1.5`.
fn canonical_number(n: &str) -> String {
    let (sign, digits) = match n.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", n.strip_prefix('+').unwrap_or(n)),
    };
    if digits.contains(['e', 'E']) {
        return n.to_owned();
    }
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    if int == "0" && frac.is_empty() {
        return "0".to_owned();
    }
    match frac {
        "" => format!("{sign}{int}"),
        frac => format!("{sign}{int}.{frac}"),
    }
}

/// The guards the item `item` of facet `schema` owns: one per unique field that holds a
/// value (an absent field owns none; an absent scope field counts as a scope of its own).
pub fn guards(schema: &FacetSchema, item: &Item) -> Result<Vec<Guard>, GuardError> {
    let mut out = Vec::with_capacity(schema.unique.len());
    for unique in schema.unique {
        let Some(value) = item.get(unique.attribute) else {
            continue;
        };
        if matches!(value, AttributeValue::Null(_)) {
            continue;
        }
        let text = |attribute: &'static str, v: &AttributeValue| {
            value_text(v).map_err(|kind| GuardError::Kind {
                facet: schema.name,
                field: unique.attribute,
                attribute,
                kind,
            })
        };
        let value_text = text(unique.attribute, value)?;
        let mut pk = format!("{GUARD_PREFIX}#{}#{}", schema.name, unique.attribute);
        for scope in unique.scope {
            match item.get(*scope) {
                None | Some(AttributeValue::Null(_)) => pk.push_str("#~"),
                Some(v) => {
                    let t = text(scope, v)?;
                    pk.push_str(&format!("#{}:{t}", t.len()));
                }
            }
        }
        pk.push_str(&format!("#{}:{value_text}", value_text.len()));
        if pk.len() > MAX_PK_BYTES {
            return Err(GuardError::TooLong {
                facet: schema.name,
                field: unique.attribute,
                bytes: pk.len(),
            });
        }
        out.push(Guard {
            field: unique.attribute,
            pk,
            value: value_text,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::KeySchema;

    const SCOPED: &[UniqueSchema] = &[
        UniqueSchema {
            attribute: "email",
            scope: &["team"],
        },
        UniqueSchema {
            attribute: "badge",
            scope: &[],
        },
    ];

    fn schema() -> FacetSchema {
        let key = |attribute| KeySchema {
            attribute,
            prefix: "#U",
            no_prefix: false,
            fields: &[],
            optional: &[],
            shard: None,
        };
        FacetSchema {
            name: "User",
            delimiter: "_",
            pk: key(PK),
            sk: key(SK),
            indexes: &[],
            ttl_field: None,
            unique: SCOPED,
            vectors: &[],
        }
    }

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }

    #[test]
    fn scoped_values_give_distinct_unambiguous_keys() {
        let schema = schema();
        let a = guards(&schema, &item(&[("email", s("x#1:y")), ("team", s("t"))])).unwrap();
        let b = guards(&schema, &item(&[("email", s("y")), ("team", s("t#1:x"))])).unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].pk, "$unique#User#email#1:t#5:x#1:y");
        assert_ne!(a[0].pk, b[0].pk);
        let absent_scope = guards(&schema, &item(&[("email", s("x"))])).unwrap();
        assert_eq!(absent_scope[0].pk, "$unique#User#email#~#1:x");
        assert!(guards(&schema, &item(&[("team", s("t"))]))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn numbers_are_compared_as_numbers() {
        let schema = schema();
        let g = |n: &str| guards(&schema, &item(&[("badge", AttributeValue::N(n.into()))]));
        assert_eq!(g("1.50").unwrap(), g("01.5").unwrap());
        assert_eq!(g("0.0").unwrap()[0].value, "0");
        assert_eq!(g("-2.10").unwrap()[0].value, "-2.1");
        assert_ne!(g("15").unwrap(), g("1.5").unwrap());
    }

    #[test]
    fn other_kinds_and_long_values_are_refused() {
        let schema = schema();
        let err = guards(&schema, &item(&[("badge", AttributeValue::L(vec![]))])).unwrap_err();
        assert!(err.to_string().contains("list"), "{err}");
        let long = "x".repeat(MAX_PK_BYTES);
        let err = guards(&schema, &item(&[("badge", s(&long))])).unwrap_err();
        assert!(matches!(err, GuardError::TooLong { .. }), "{err}");
    }

    #[test]
    fn partitions_spelling_the_guard_prefix_are_refused() {
        use crate::key::KeyWriter;
        // An empty prefix, the delimiter `$` and a value `unique#..`: a guard's partition.
        let mut w = KeyWriter::new("", "$");
        w.part("a", "unique#User#email#1:x");
        let pk = w.finish().unwrap();
        assert!(pk.starts_with(GUARD_PREFIX));
        let err = check_table_partition(&pk).unwrap_err();
        assert_eq!(err, KeyError::ReservedPartition { key: pk });
        assert!(err.to_string().contains(GUARD_PREFIX), "{err}");
        assert!(check_table_partition("#USER_$unique").is_ok());
        assert!(check_table_partition("$uniqu").is_ok());
    }

    #[test]
    fn a_guard_item_is_recognised_and_owned() {
        let schema = schema();
        let g = &guards(&schema, &item(&[("badge", s("b"))])).unwrap()[0];
        let stored = g.item("User", ("#U_1", "#U_1"));
        assert!(is_guard(&stored));
        assert_eq!(stored.get(OWNER_PK), Some(&s("#U_1")));
        assert!(!is_guard(&item(&[("PK", s("#U_1")), ("SK", s("#U_1"))])));
    }
}
