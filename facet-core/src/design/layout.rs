//! What the table must have for its facets: the secondary indexes they use, the key
//! attributes to define, what each index projects, what an item of each facet holds. Every
//! renderer reads the table from here, by the table's names ([`TableDesign::names`]).

use super::model::{FacetDesign, TableDesign};
use crate::schema::{
    table_indexes, FacetSchema, IndexKind, IndexSchema, KeyAttribute, FACET_ATTRIBUTE, PK, SK,
    TTL_ATTRIBUTE,
};

/// One secondary index of a designed table, as its facets use it, by the table's names
/// ([`TableDesign::names`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDesign {
    /// The table's name of the index: faceteer's (`GSI1`, `LSI2`, …) unless the table
    /// renames it.
    pub name: &'static str,
    /// The index as the facets declare it (`GSI1`, `LSI2`, …: [`IndexSchema::name`]).
    pub index: &'static str,
    /// Global or local.
    pub kind: IndexKind,
    /// The index number.
    pub number: u8,
    /// The partition key's attributes, by the table's names: `GSInPK` (the table's
    /// partition key for a local index), or a native index's record attributes (one to
    /// four, in key-schema order).
    pub partition_key: Vec<KeyAttribute>,
    /// The sort key's attributes (`GSInSK`, `LSInSK`, or a native index's up to four) by
    /// the table's names; empty when the index has no sort key.
    pub sort_key: Vec<KeyAttribute>,
    /// A native index: its keys are the records' own attributes (DynamoDB's
    /// multi-attribute keys), so nothing is written for it.
    pub native: bool,
    /// What the index projects: `None` for whole items (`ALL`), else the non-key
    /// attributes it includes (`INCLUDE`): those
    /// [`index_projection`](crate::schema::index_projection) gives, by the table's names
    /// (`facet` as the table names it), sorted.
    pub projection: Option<Vec<&'static str>>,
    /// The facets that use the index, in declaration order.
    pub uses: Vec<IndexUse>,
}

/// One facet's use of an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexUse {
    /// The facet name.
    pub facet: &'static str,
    /// How the facet keys the index.
    pub index: &'static IndexSchema,
}

impl TableDesign<'_> {
    /// The facets' schemas, in declaration order.
    pub fn schemas(&self) -> Vec<&FacetSchema> {
        self.facets.iter().map(|f| f.schema).collect()
    }

    /// The table's name of attribute `name`, given by faceteer's name (`PK`, `GSI1SK`,
    /// `facet`, `ttl`, …); a record field keeps its name.
    pub fn attribute(&self, name: &'static str) -> &'static str {
        self.names.attribute(name)
    }

    /// Every secondary index some facet uses, each once: the global indexes by number, then
    /// the local ones. An index has a sort key when a facet gives it one.
    pub fn indexes(&self) -> Vec<IndexDesign> {
        let schemas = self.schemas();
        table_indexes(&schemas)
            .into_iter()
            .map(|index| {
                let uses = self
                    .facets
                    .iter()
                    .filter_map(|f| {
                        let facet = f.schema.name;
                        let indexes: &'static [IndexSchema] = f.schema.indexes;
                        let found = indexes.iter().find(|i| i.name == index.name);
                        found.map(|index| IndexUse { facet, index })
                    })
                    .collect();
                let declared = index.name;
                let index = self.names.index_of(index);
                IndexDesign {
                    name: index.name,
                    index: declared,
                    kind: index.kind,
                    number: index.number,
                    partition_key: index.pk,
                    sort_key: index.sk,
                    native: index.native,
                    projection: index.projection,
                    uses,
                }
            })
            .collect()
    }

    /// Every vector index the facets declare, each once, with the facets that use it.
    pub fn vectors(&self) -> Vec<(crate::schema::VectorSchema, Vec<&'static str>)> {
        crate::schema::table_vectors(&self.schemas())
    }

    /// The key attributes the table defines, each once, by the table's names, typed: `PK`,
    /// `SK`, then each index's own (`GSInPK`, `GSInSK`, `LSInSK`, all strings; a native
    /// index's record attributes with their types) in [`TableDesign::indexes`] order.
    pub fn key_attributes(&self) -> Vec<KeyAttribute> {
        let mut out = vec![
            KeyAttribute::text(self.attribute(PK)),
            KeyAttribute::text(self.attribute(SK)),
        ];
        for index in self.indexes() {
            let own = match index.kind {
                IndexKind::Global => index.partition_key,
                IndexKind::Local => Vec::new(),
            };
            for key in own.into_iter().chain(index.sort_key) {
                if !out.iter().any(|k| k.name == key.name) {
                    out.push(key);
                }
            }
        }
        out
    }

    /// The attributes the table's `CreateTable` defines: [`TableDesign::key_attributes`],
    /// then each vector index's search-schema attributes (its vector is not defined).
    pub fn defined_attributes(&self) -> Vec<KeyAttribute> {
        let mut out = self.key_attributes();
        for (vector, _) in self.vectors() {
            for key in vector.search_attributes() {
                if !out.iter().any(|k| k.name == key.name) {
                    out.push(key);
                }
            }
        }
        out
    }

    /// Whether some facet has a `#[ttl]` field, so the table expires items by their `ttl`
    /// attribute.
    pub fn has_ttl(&self) -> bool {
        self.facets.iter().any(|f| f.schema.ttl_field.is_some())
    }

    /// The table's name of its time-to-live attribute (faceteer's `ttl`), when some facet
    /// has a `#[ttl]` field ([`TableDesign::has_ttl`]).
    pub fn ttl_attribute(&self) -> Option<&'static str> {
        self.has_ttl().then(|| self.attribute(TTL_ATTRIBUTE))
    }

    /// [`FacetDesign::item_attributes`] of `facet`, by the table's names.
    pub fn item_attributes(&self, facet: &FacetDesign<'_>) -> Vec<&'static str> {
        facet
            .item_attributes()
            .into_iter()
            .map(|a| self.attribute(a))
            .collect()
    }
}

impl FacetDesign<'_> {
    /// The facet's own attribute names: [`FacetDesign::attributes`], or, when those are
    /// not given, the fields its keys are built from, each once.
    pub fn attribute_names(&self) -> Vec<&'static str> {
        if !self.attributes.is_empty() {
            return self.attributes.to_vec();
        }
        let s = self.schema;
        let keys = [&s.pk, &s.sk]
            .into_iter()
            .chain(s.indexes.iter().flat_map(|i| i.keys()));
        let mut out: Vec<&'static str> = Vec::new();
        for name in keys.flat_map(|k| k.inputs()).chain(s.ttl_field) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    /// Every attribute an item of the facet holds besides `PK` and `SK`, by faceteer's
    /// names: its index key attributes, `facet`, `ttl` (with a `#[ttl]` field), then
    /// [`FacetDesign::attribute_names`], each once. [`TableDesign::item_attributes`] gives
    /// them by a table's names.
    pub fn item_attributes(&self) -> Vec<&'static str> {
        let s = self.schema;
        let stored = s.key_attributes().filter(|a| *a != PK && *a != SK);
        let mut out: Vec<&'static str> = Vec::new();
        let names = stored
            .chain([FACET_ATTRIBUTE])
            .chain(s.ttl_field.map(|_| TTL_ATTRIBUTE))
            .chain(self.attribute_names());
        for name in names {
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;

    fn key_names(keys: &[KeyAttribute]) -> Vec<&'static str> {
        keys.iter().map(|k| k.name).collect()
    }

    fn keys(index: &IndexDesign) -> (Vec<&'static str>, Vec<&'static str>) {
        (key_names(&index.partition_key), key_names(&index.sort_key))
    }

    #[test]
    fn indexes_are_those_the_facets_use_each_once() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets);
        let indexes = design.indexes();
        let names: Vec<&str> = indexes.iter().map(|i| i.name).collect();
        assert_eq!(names, ["GSI1", "GSI2", "GSI3", "LSI1"]);
        let gsi1 = &indexes[0];
        assert_eq!(keys(gsi1), (vec!["GSI1PK"], vec![]));
        let users: Vec<&str> = gsi1.uses.iter().map(|u| u.facet).collect();
        assert_eq!(users, ["USER", "TEAM"]);
        assert_eq!(gsi1.projection, None);
        assert_eq!(
            indexes[1].projection.as_deref(),
            Some(&["day", "facet", "orderId", "status", "userId"][..])
        );
        assert_eq!(
            indexes[2].projection.as_deref(),
            Some(&["coupon", "facet", "orderId", "total", "userId"][..])
        );
        let lsi = &indexes[3];
        assert_eq!(lsi.kind, IndexKind::Local);
        assert_eq!(keys(lsi), (vec![PK], vec!["LSI1SK"]));
    }

    #[test]
    fn key_attributes_are_defined_once() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets);
        assert_eq!(
            key_names(&design.key_attributes()),
            ["PK", "SK", "GSI1PK", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "LSI1SK"]
        );
        assert!(design.has_ttl());
        let plain = [FacetDesign::new(&fixtures::PLAIN, &[])];
        let design = TableDesign::new("notes", &plain);
        assert_eq!(key_names(&design.key_attributes()), ["PK", "SK"]);
        assert!(design.indexes().is_empty());
        assert!(!design.has_ttl());
    }

    #[test]
    fn a_table_with_other_names_has_them_everywhere() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_names(fixtures::ONETABLE);
        let indexes = design.indexes();
        let names: Vec<(&str, &str)> = indexes.iter().map(|i| (i.index, i.name)).collect();
        assert_eq!(
            names,
            [
                ("GSI1", "gsi1"),
                ("GSI2", "GSI2"),
                ("GSI3", "GSI3"),
                ("LSI1", "lsi1")
            ]
        );
        assert_eq!(keys(&indexes[0]), (vec!["gsi1pk"], vec![]));
        assert_eq!(indexes[0].uses[1].index.name, "GSI1");
        // `facet` is included as `_type`, which sorts first.
        assert_eq!(
            indexes[1].projection.as_deref(),
            Some(&["_type", "day", "orderId", "status", "userId"][..])
        );
        assert_eq!(keys(&indexes[3]), (vec!["pk"], vec!["lsi1sk"]));
        assert_eq!(
            key_names(&design.key_attributes()),
            ["pk", "sk", "gsi1pk", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "lsi1sk"]
        );
        assert_eq!(design.ttl_attribute(), Some("expires"));
        assert_eq!(
            design.item_attributes(&facets[0]),
            [
                "gsi1pk",
                "_type",
                "expires",
                "userId",
                "email",
                "name",
                "expiresAt"
            ]
        );
        let plain = [FacetDesign::new(&fixtures::PLAIN, &[])];
        let design = TableDesign::new("notes", &plain).with_names(fixtures::ONETABLE);
        assert_eq!(key_names(&design.key_attributes()), ["pk", "sk"]);
        assert_eq!(design.ttl_attribute(), None);
    }

    #[test]
    fn items_hold_index_keys_facet_ttl_and_fields() {
        let [user, _, team] = fixtures::facets();
        assert_eq!(
            user.item_attributes(),
            [
                "GSI1PK",
                "facet",
                "ttl",
                "userId",
                "email",
                "name",
                "expiresAt"
            ]
        );
        assert_eq!(
            team.item_attributes(),
            ["GSI1PK", "facet", "teamId", "ownerEmail"]
        );
    }
}
