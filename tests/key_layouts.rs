//! The data `#[derive(Facet)]` generates for the runtime's schema-driven key writer
//! (`KEY_FIELDS`, `KEY_LAYOUT`) describes each facet's schema. Every test table checks its
//! facets as it is made (`faceteer_suite::fresh_table`); these check the README's facets and
//! the key designs of the examples without a server, and refuse key data that is not a
//! facet's schema's.

use faceteer::__private_0_1_0::KeyLayout;
use faceteer::schema::FacetSchema;
use faceteer::Facet;
use faceteer_suite::check_layouts;

use crate::common::{note, Note};

#[test]
fn the_examples_lay_out_their_keys_as_their_schemas_say() {
    check_layouts::<crate::examples::tasks::TasksTable>();
    check_layouts::<crate::common::TestTable>();
    check_layouts::<crate::key_designs::UserService>();
}

/// A `Note` whose key data is not its schema's: one layout short, and no key fields.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Skewed(Note);

impl Facet for Skewed {
    const SCHEMA: &'static FacetSchema = Note::SCHEMA;
    type Fields = <Note as Facet>::Fields;
    fn fields() -> Self::Fields {
        Note::fields()
    }
    const KEY_LAYOUT: &'static [KeyLayout] = {
        let all = <Note as Facet>::KEY_LAYOUT;
        all.split_at(all.len() - 1).0
    };
    fn primary_key(&self) -> Result<faceteer::Key<Self>, faceteer::error::KeyError> {
        faceteer::__private_0_1_0::schema_primary_key(self)
    }
    fn write_index_keys(
        &self,
        item: &mut faceteer::Item,
        keys: &mut faceteer::__private_0_1_0::KeyLengths,
    ) -> Result<(), faceteer::error::KeyError> {
        faceteer::__private_0_1_0::schema_index_keys(self, item, keys)
    }
    fn ttl_seconds(&self) -> Option<i64> {
        None
    }
}

#[test]
fn key_data_that_is_not_the_schemas_is_refused() {
    let e = faceteer::__private_0_1_0::check_layout::<Skewed>().unwrap_err();
    assert!(e.contains("layouts"), "{e}");
    // The key writer refuses such data with a typed error; it does not panic.
    let skewed = Skewed(note("book", 1));
    let e = skewed.primary_key().unwrap_err();
    assert!(
        matches!(
            e,
            faceteer::error::KeyError::NoKeyLayout { facet: "NOTE", .. }
        ),
        "{e}"
    );
    let mut keys = faceteer::__private_0_1_0::KeyLengths::default();
    let e = skewed
        .write_index_keys(&mut faceteer::Item::new(), &mut keys)
        .unwrap_err();
    assert!(
        matches!(
            e,
            faceteer::error::KeyError::NoKeyLayout { facet: "NOTE", .. }
        ),
        "{e}"
    );
}
