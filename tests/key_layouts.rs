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

/// A `Note` whose key data is not its schema's: one layout short, and no key fields, written
/// by the schema-driven key writer, as a derived facet's keys are.
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
    const KEY_WRITER: Option<&'static dyn faceteer::__private_0_1_0::WriteKeys<Self>> =
        Some(&faceteer::__private_0_1_0::SchemaKeys);
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

/// A hand-written `Note` that names no key writer and writes none of its keys itself.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Bare(Note);

impl Facet for Bare {
    const SCHEMA: &'static FacetSchema = Note::SCHEMA;
    type Fields = <Note as Facet>::Fields;
    fn fields() -> Self::Fields {
        Note::fields()
    }
}

/// A hand-written facet without a key writer
/// (`Facet::KEY_WRITER`, which `#[derive(Facet)]` names) gets a typed error from the key
/// methods it does not implement, never keys written from nothing; a derived facet names
/// the schema-driven writer.
#[test]
fn a_facet_without_a_key_writer_is_refused_its_keys() {
    use faceteer::error::KeyError;
    assert!(Note::KEY_WRITER.is_some());
    assert!(Bare::KEY_WRITER.is_none());
    let bare = Bare(note("book", 1));
    let e = bare.primary_key().unwrap_err();
    assert!(
        matches!(
            e,
            KeyError::NoKeyLayout {
                facet: "NOTE",
                reason: "it names no key writer"
            }
        ),
        "{e}"
    );
    // Its schema has indexes: leaving their keys out would drop the record from them.
    let mut keys = faceteer::__private_0_1_0::KeyLengths::default();
    let e = bare
        .write_index_keys(&mut faceteer::Item::new(), &mut keys)
        .unwrap_err();
    assert!(
        matches!(e, KeyError::NoKeyLayout { facet: "NOTE", .. }),
        "{e}"
    );
    // What an update derives and the key's values read back: nothing to rebuild from.
    assert!(Bare::key_values("#BOOK_book", "#NOTE_1").is_empty());
    assert_eq!(bare.ttl_seconds(), None);
    // The derived `Note` writes the same record's key as its key builder.
    let key = note("book", 1).primary_key().unwrap();
    assert_eq!(key, Note::key("book", "n001").unwrap());
}

/// A facet whose index sort key is built from two optional fields.
#[derive(Debug, Clone, PartialEq, Facet, serde::Serialize, serde::Deserialize)]
#[facet(name = "PAIR")]
struct Pair {
    #[pk(prefix = "#PAIR")]
    #[sk(prefix = "#PAIR")]
    id: String,
    #[gsi(n = 1, pk, prefix = "#A")]
    a: String,
    #[gsi(n = 1, sk, prefix = "#B")]
    b: Option<String>,
    #[gsi(n = 1, sk)]
    c: Option<String>,
}

/// The key writer keeps the rule of optional key values for every source of values: a
/// present value after an absent one is refused (the key would read as another), whether
/// the values come from a record or from an update.
#[test]
fn an_optional_value_after_an_absent_one_is_refused_from_every_source() {
    use faceteer::__private_0_1_0::{ExprError, KeyLengths, KeyedValues};
    use faceteer::error::KeyError;

    let record = Pair {
        id: "p".into(),
        a: "a".into(),
        b: None,
        c: Some("c".into()),
    };
    let mut item = faceteer::Item::new();
    let e = record
        .write_index_keys(&mut item, &mut KeyLengths::default())
        .unwrap_err();
    assert!(
        matches!(
            e,
            KeyError::OptionalAfterAbsent {
                absent: "b",
                present: "c"
            }
        ),
        "{e}"
    );

    let f = Pair::fields();
    let update = f.b.remove().and(f.c.set("c".to_owned()));
    let e = Pair::derived_attributes(&mut KeyedValues::new(&update, None)).unwrap_err();
    assert!(
        matches!(
            e,
            ExprError::Key {
                attribute: "GSI1SK",
                source: KeyError::OptionalAfterAbsent {
                    absent: "b",
                    present: "c"
                },
            }
        ),
        "{e}"
    );

    // Both present: the key is written from the update's values as a put writes it.
    let update = f.b.set("b".to_owned()).and(f.c.set("c".to_owned()));
    let derived = Pair::derived_attributes(&mut KeyedValues::new(&update, None)).unwrap();
    let both = Pair {
        b: Some("b".into()),
        ..record
    };
    let mut item = faceteer::Item::new();
    both.write_index_keys(&mut item, &mut KeyLengths::default())
        .unwrap();
    let written = item.get("GSI1SK").cloned();
    assert_eq!(
        derived
            .iter()
            .find(|(a, _)| *a == "GSI1SK")
            .and_then(|(_, v)| v.clone()),
        written
    );
    assert_eq!(written.unwrap().as_s().unwrap(), "#B_b_c");
}
