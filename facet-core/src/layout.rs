//! The names a table gives its key attributes, indexes, facet attribute and TTL attribute:
//! [`TableNames`], for tables laid out by another library or by hand.
//!
//! Facets always describe their keys with faceteer's names (`PK`, `SK`, `GSI1PK`, `LSI1SK`,
//! `facet`, `ttl`, indexes `GSI1`, `LSI1`); a table with other names renames them on the
//! wire, every request and every answer, so a OneTable table (`pk`, `sk`, `gsi1pk`,
//! `gsi1sk`, `_type`, index `gsi1`) is read and written as it lays itself out.
//!
//! ```
//! use faceteer_core::layout::{IndexNames, TableNames};
//!
//! /// OneTable's defaults.
//! const ONETABLE: TableNames = TableNames {
//!     pk: "pk",
//!     sk: "sk",
//!     facet: "_type",
//!     ttl: "expires",
//!     indexes: &[IndexNames { index: "GSI1", name: "gsi1", pk: "gsi1pk", sk: "gsi1sk" }],
//! };
//! assert_eq!(ONETABLE.attribute("GSI1SK"), "gsi1sk");
//! assert_eq!(ONETABLE.index_name("GSI1"), "gsi1");
//! assert_eq!(ONETABLE.attribute("title"), "title");
//! ```

use crate::schema::{TableIndex, FACET_ATTRIBUTE, PK, SK, TTL_ATTRIBUTE};

/// The names of a table's key attributes, indexes, facet attribute and TTL attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableNames {
    /// The partition-key attribute (faceteer: `PK`).
    pub pk: &'static str,
    /// The sort-key attribute (faceteer: `SK`).
    pub sk: &'static str,
    /// The attribute holding the facet name (faceteer: `facet`; OneTable: `_type`).
    pub facet: &'static str,
    /// The attribute holding expiry times (faceteer: `ttl`).
    pub ttl: &'static str,
    /// Indexes named otherwise; the others keep faceteer's names.
    pub indexes: &'static [IndexNames],
}

/// The names of one index in a table with [`TableNames`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexNames {
    /// The index as facets declare it: `GSI1`, `LSI2`, …
    pub index: &'static str,
    /// The table's name for it.
    pub name: &'static str,
    /// The table's name for its partition-key attribute (ignored for a local index, whose
    /// partition key is the table's).
    pub pk: &'static str,
    /// The table's name for its sort-key attribute.
    pub sk: &'static str,
}

impl TableNames {
    /// faceteer's own names.
    pub const DEFAULT: TableNames = TableNames {
        pk: PK,
        sk: SK,
        facet: FACET_ATTRIBUTE,
        ttl: TTL_ATTRIBUTE,
        indexes: &[],
    };

    /// Whether every name is faceteer's own (nothing to rename).
    pub fn is_default(&self) -> bool {
        self.renames().is_empty() && self.indexes.iter().all(|i| i.name == i.index)
    }

    /// The table's name of attribute `name` (faceteer's name: `PK`, `GSI1SK`, `facet`, …,
    /// or a record field's, which keeps its name).
    pub fn attribute<'a>(&self, name: &'a str) -> &'a str {
        self.renames()
            .into_iter()
            .find(|(from, _)| *from == name)
            .map_or(name, |(_, to)| to)
    }

    /// The table's name of index `index` (`GSI1`, `LSI1`).
    pub fn index_name<'a>(&self, index: &'a str) -> &'a str {
        self.indexes
            .iter()
            .find(|i| i.index == index)
            .map_or(index, |i| i.name)
    }

    /// Key attribute `key` as this table names it.
    fn key_attribute(&self, key: crate::schema::KeyAttribute) -> crate::schema::KeyAttribute {
        crate::schema::KeyAttribute {
            name: self.attribute(key.name),
            ty: key.ty,
        }
    }

    /// `index` as this table names it: its name, key attributes and included attributes
    /// (sorted again, as renamed).
    pub fn index_of(&self, index: TableIndex) -> TableIndex {
        TableIndex {
            name: self.index_name(index.name),
            pk: index.pk.iter().map(|k| self.key_attribute(*k)).collect(),
            sk: index.sk.iter().map(|k| self.key_attribute(*k)).collect(),
            projection: index.projection.map(|attributes| {
                let mut renamed: Vec<&'static str> =
                    attributes.into_iter().map(|a| self.attribute(a)).collect();
                renamed.sort_unstable();
                renamed
            }),
            ..index
        }
    }

    /// Every attribute renamed: (faceteer's name, the table's), the identical ones left out.
    pub fn renames(&self) -> Vec<(&'static str, &'static str)> {
        let mut out = vec![
            (PK, self.pk),
            (SK, self.sk),
            (FACET_ATTRIBUTE, self.facet),
            (TTL_ATTRIBUTE, self.ttl),
        ];
        for index in self.indexes {
            let (pk, sk) = index_attributes(index.index);
            if let Some(pk) = pk {
                out.push((pk, index.pk));
            }
            if let Some(sk) = sk {
                out.push((sk, index.sk));
            }
        }
        out.retain(|(from, to)| from != to);
        out
    }
}

/// The key attributes of index `index` by faceteer's names: (`GSInPK`, `GSInSK`) for a
/// global index, (none, `LSInSK`) for a local one, (none, none) for another name.
fn index_attributes(index: &str) -> (Option<&'static str>, Option<&'static str>) {
    let number = |rest: &str| rest.parse::<u8>().ok();
    if let Some(n) = index.strip_prefix("GSI").and_then(number) {
        if (1..=crate::schema::MAX_GSI).contains(&n) {
            let (_, pk, sk) = crate::schema::gsi_names(n);
            return (Some(pk), Some(sk));
        }
    }
    if let Some(n) = index.strip_prefix("LSI").and_then(number) {
        if (1..=crate::schema::MAX_LSI).contains(&n) {
            let (_, sk) = crate::schema::lsi_names(n);
            return (None, Some(sk));
        }
    }
    (None, None)
}

/// Why a table's names cannot be used with its facets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NamesError {
    /// Two of faceteer's attributes get one name.
    #[error(
        "the table names both `{first}` and `{second}` `{name}`: each needs its own attribute"
    )]
    Shared {
        /// The name.
        name: &'static str,
        /// One attribute, by faceteer's name.
        first: &'static str,
        /// The other.
        second: &'static str,
    },
    /// A facet stores a field under a name the table gives a key or the facet attribute.
    #[error(
        "facet `{facet}` stores a field as `{name}`, the table's name for `{attribute}`; rename \
         the field (`#[serde(rename = \"..\")]`) or the table's attribute"
    )]
    Field {
        /// The facet.
        facet: &'static str,
        /// The name.
        name: &'static str,
        /// The attribute the table names so, by faceteer's name.
        attribute: &'static str,
    },
    /// An index named that no facet of the table uses, or not `GSIn`/`LSIn`.
    #[error("the table renames index `{index}`, which is not `GSI1`…`GSI20` or `LSI1`…`LSI5`")]
    UnknownIndex {
        /// The index as given.
        index: &'static str,
    },
}

/// Check `names` against the attribute names of a table's facets: every renamed attribute
/// keeps a name of its own, and no facet field is stored under a key attribute's name.
pub fn check_names(
    names: &TableNames,
    facets: &[(&'static str, &[&'static str])],
) -> Result<(), NamesError> {
    for index in names.indexes {
        if index_attributes(index.index) == (None, None) {
            return Err(NamesError::UnknownIndex { index: index.index });
        }
    }
    // Every attribute faceteer writes, by its name on this table.
    let mut written: Vec<(&'static str, &'static str)> = vec![
        (PK, names.pk),
        (SK, names.sk),
        (FACET_ATTRIBUTE, names.facet),
        (TTL_ATTRIBUTE, names.ttl),
        (crate::schema::WRITE_TOKEN, crate::schema::WRITE_TOKEN),
    ];
    for n in 1..=crate::schema::MAX_GSI {
        let (index, pk, sk) = crate::schema::gsi_names(n);
        let renamed = names.indexes.iter().find(|i| i.index == index);
        written.push((pk, renamed.map_or(pk, |i| i.pk)));
        written.push((sk, renamed.map_or(sk, |i| i.sk)));
    }
    for n in 1..=crate::schema::MAX_LSI {
        let (index, sk) = crate::schema::lsi_names(n);
        let renamed = names.indexes.iter().find(|i| i.index == index);
        written.push((sk, renamed.map_or(sk, |i| i.sk)));
    }
    for (i, (first, name)) in written.iter().enumerate() {
        if let Some((second, _)) = written[i + 1..].iter().find(|(_, n)| n == name) {
            return Err(NamesError::Shared {
                name,
                first,
                second,
            });
        }
    }
    for (facet, attributes) in facets {
        for attribute in attributes.iter() {
            let taken = written
                .iter()
                .find(|(from, to)| to == attribute && from != attribute);
            if let Some((from, _)) = taken {
                return Err(NamesError::Field {
                    facet,
                    name: attribute,
                    attribute: from,
                });
            }
        }
    }
    Ok(())
}

/// The index key attribute (by faceteer's name) that `names` calls `attribute`, if any.
pub(crate) const fn index_key_named(names: &TableNames, attribute: &str) -> Option<&'static str> {
    use crate::const_text::same;
    let mut i = 0;
    while i < names.indexes.len() {
        let index = &names.indexes[i];
        if same(index.pk, attribute) || same(index.sk, attribute) {
            return Some(index.index);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONETABLE: TableNames = TableNames {
        pk: "pk",
        sk: "sk",
        facet: "_type",
        ttl: "expires",
        indexes: &[IndexNames {
            index: "GSI1",
            name: "gsi1",
            pk: "gsi1pk",
            sk: "gsi1sk",
        }],
    };

    #[test]
    fn renames_list_only_what_differs() {
        assert!(TableNames::DEFAULT.is_default());
        assert!(!ONETABLE.is_default());
        assert_eq!(
            ONETABLE.renames(),
            [
                ("PK", "pk"),
                ("SK", "sk"),
                ("facet", "_type"),
                ("ttl", "expires"),
                ("GSI1PK", "gsi1pk"),
                ("GSI1SK", "gsi1sk")
            ]
        );
        assert_eq!(ONETABLE.attribute("GSI2PK"), "GSI2PK");
        assert_eq!(ONETABLE.index_name("GSI2"), "GSI2");
    }

    #[test]
    fn names_are_checked_against_each_other_and_the_fields() {
        assert_eq!(
            check_names(&ONETABLE, &[("User", &["name", "email"])]),
            Ok(())
        );
        let shared = TableNames {
            sk: "pk",
            ..ONETABLE
        };
        assert_eq!(
            check_names(&shared, &[]),
            Err(NamesError::Shared {
                name: "pk",
                first: "PK",
                second: "SK"
            })
        );
        let err = check_names(&ONETABLE, &[("User", &["pk", "name"])]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "facet `User` stores a field as `pk`, the table's name for `PK`; rename the field \
             (`#[serde(rename = \"..\")]`) or the table's attribute"
        );
        let unknown = TableNames {
            indexes: &[IndexNames {
                index: "byEmail",
                name: "x",
                pk: "a",
                sk: "b",
            }],
            ..ONETABLE
        };
        assert!(matches!(
            check_names(&unknown, &[]),
            Err(NamesError::UnknownIndex { .. })
        ));
    }
}
