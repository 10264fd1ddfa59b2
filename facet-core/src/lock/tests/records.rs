//! Fields, versions and facets: what stored records hold, and whether they still read.

use super::fixtures::*;
use crate::lock::{Class, Effect};

/// `spec` at schema version `version`.
fn at(mut spec: Spec, version: Option<u32>) -> Spec {
    spec.version = version;
    spec
}

#[test]
fn an_optional_or_defaulted_field_added_is_safe_but_new_to_readers() {
    let mut after = order();
    after.fields.push(opt("coupon", "Option<String>"));
    let report = diff(&[&order()], &[&after]);
    let change = one(&report, Class::BreaksReaders);
    assert_eq!(change.subject, "field coupon");
    assert_eq!(change.after.as_deref(), Some("Option<String>"));
    assert_eq!(classes(change), [Class::Safe, Class::BreaksReaders]);
    assert!(text(change).contains("read it as `None`"), "{report}");
    assert!(text(change).contains("a strict Faceteer-TS model of ORDER must declare it"));
    assert_eq!(report.without_other_readers().class(), Some(Class::Safe));

    let mut defaulted = order();
    defaulted.fields.push(crate::schema::FieldSchema {
        default: true,
        ..req("priority", "u8")
    });
    let report = diff(&[&order()], &[&defaulted]);
    let change = one(&report, Class::BreaksReaders);
    assert!(text(change).contains("read it as the default"), "{report}");
    assert_eq!(change.after.as_deref(), Some("u8 (default)"));
}

#[test]
fn a_required_field_added_breaks_stored_records_unless_the_version_is_raised() {
    let mut after = order();
    after.fields.push(req("currency", "String"));
    let report = diff(&[&order()], &[&after]);
    let change = one(&report, Class::BreaksStored);
    let Effect::BreaksStored { why, repair, .. } = &change.effects[0] else {
        panic!("{report}")
    };
    assert_eq!(
        why,
        "they have no `currency`, which is required, so they fail to read"
    );
    assert!(
        repair.contains("raise the facet's `schema_version`"),
        "{repair}"
    );

    let report = diff(&[&order()], &[&at(after, Some(2))]);
    // The version (a backfill, a new attribute) and the field (a backfill).
    assert_eq!(report.changes.len(), 2, "{report}");
    assert_eq!(report.changes[0].subject, "schema version");
    assert_eq!(
        classes(&report.changes[0]),
        [Class::NeedsBackfill, Class::BreaksReaders]
    );
    assert_eq!(
        classes(&report.changes[1]),
        [Class::NeedsBackfill, Class::BreaksReaders]
    );
    assert!(report
        .changes
        .iter()
        .all(|c| c.class() != Class::BreaksStored));
}

#[test]
fn a_field_removed_breaks_stored_records_unless_the_version_is_raised() {
    let after = order().without("total");
    let report = diff(&[&order()], &[&after]);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(change.subject, "field total");
    assert!(
        text(change).contains("the next write of such a record drops it"),
        "{report}"
    );

    let before = at(order(), Some(2));
    let report = diff(&[&before], &[&at(after, Some(3))]);
    assert_eq!(report.changes.len(), 2, "{report}");
    assert_eq!(report.changes[0].class(), Class::NeedsBackfill);
    assert!(text(&report.changes[0]).contains("records stored at version 2"));
    assert_eq!(report.changes[1].effects[0].class(), Class::NeedsBackfill);
}

#[test]
fn a_field_made_required_breaks_stored_records() {
    let mut after = order();
    let note = after.field("note");
    note.optional = false;
    note.rust_type = "String";
    let report = diff(&[&order()], &[&after]);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(change.before.as_deref(), Some("Option<String>"));
    assert_eq!(change.after.as_deref(), Some("String"));
    assert!(text(change).contains("`note` is now required"), "{report}");

    // Losing a `default` is the same.
    let mut before = order();
    before.field("total").default = true;
    let report = diff(&[&before], &[&order()]);
    one(&report, Class::BreaksStored);
}

#[test]
fn a_changed_codec_or_epoch_unit_breaks_stored_records_and_readers() {
    let mut after = order();
    after.field("day").codec = Some("faceteer::timestamp");
    let report = diff(&[&order()], &[&after]);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(classes(change), [Class::BreaksStored, Class::BreaksReaders]);
    assert!(
        text(change).contains(
            "`day` is stored with serde's default encoding and the code reads it with codec \
             faceteer::timestamp"
        ),
        "{report}"
    );

    let mut seconds = order();
    seconds.field("total").epoch = Some("seconds");
    let mut millis = order();
    millis.field("total").epoch = Some("millis");
    let report = diff(&[&seconds], &[&millis]);
    let change = one(&report, Class::BreaksStored);
    assert!(text(change).contains("epoch seconds and the code reads it with epoch millis"));
}

#[test]
fn a_changed_type_needs_review_unless_the_version_is_raised() {
    let mut after = order();
    after.field("total").rust_type = "u64";
    let report = diff(&[&order()], &[&after]);
    let change = one(&report, Class::Review);
    assert!(
        text(change).contains("`total` is now a `u64`, not a `u32`"),
        "{report}"
    );
    assert!(report.is_breaking());

    let report = diff(&[&order()], &[&at(after, Some(2))]);
    assert_eq!(report.changes[1].subject, "field total");
    assert_eq!(report.changes[1].class(), Class::NeedsBackfill);
}

#[test]
fn a_rust_rename_keeping_the_attribute_is_safe() {
    let mut after = order();
    after.field("total").field = "amount";
    let report = diff(&[&order()], &[&after]);
    let change = one(&report, Class::Safe);
    assert!(
        text(change).contains("the Rust field is `amount`"),
        "{report}"
    );
}

#[test]
fn renamed_attributes_are_hinted() {
    // The Rust field kept, its attribute renamed.
    let mut after = order();
    after.field("note").attribute = "comment";
    let report = diff(&[&order()], &[&after]);
    assert_eq!(report.changes.len(), 2, "{report}");
    let removed = &report.changes[0];
    let hint = removed.hint.as_deref().unwrap_or_default();
    assert!(hint.contains("`note` looks renamed to `comment`"), "{hint}");
    assert!(hint.contains("#[serde(alias = \"note\")]"), "{hint}");
    assert_eq!(
        report.changes[1].hint.as_deref(),
        Some("`comment` looks like `note` renamed")
    );
    // Both renamed: the only pair of one type.
    let mut after = order().without("total");
    after.fields.push(req("amount", "u32"));
    let report = diff(&[&order()], &[&after]);
    assert!(report.changes[0].hint.is_some(), "{report}");
    assert!(report
        .to_string()
        .contains("hint: `total` looks renamed to `amount`"));
}

#[test]
fn a_first_schema_version_is_new_to_readers() {
    let report = diff(&[&order()], &[&at(order(), Some(1))]);
    let change = one(&report, Class::BreaksReaders);
    assert_eq!(classes(change), [Class::Safe, Class::BreaksReaders]);
    assert!(text(change).contains("`_facet_version`"), "{report}");
    let report = diff(&[&order()], &[&at(order(), Some(2))]);
    let change = one(&report, Class::BreaksReaders);
    assert_eq!(
        classes(change),
        [Class::NeedsBackfill, Class::BreaksReaders]
    );
    // Raised again: a backfill only.
    let report = diff(&[&at(order(), Some(2))], &[&at(order(), Some(3))]);
    let change = one(&report, Class::NeedsBackfill);
    let Effect::Backfill { attributes, .. } = &change.effects[0] else {
        panic!("{report}")
    };
    assert_eq!(attributes, &["_facet_version"]);
}

#[test]
fn a_lowered_schema_version_breaks_stored_records() {
    let report = diff(&[&at(order(), Some(3))], &[&at(order(), Some(2))]);
    let change = one(&report, Class::BreaksStored);
    assert!(
        text(change).contains("records written at version 3"),
        "{report}"
    );
    assert!(
        text(change).contains("restore `schema_version = 3`"),
        "{report}"
    );
    let report = diff(&[&at(order(), Some(2))], &[&order()]);
    one(&report, Class::BreaksStored);
}

#[test]
fn a_removed_facet_breaks_its_records_and_a_rename_is_hinted() {
    let (o, t) = (order(), team());
    let report = diff(&[&o, &t], &[&o]);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(
        (change.facet.as_deref(), change.subject.as_str()),
        (Some("TEAM"), "facet")
    );
    assert_eq!(classes(change), [Class::BreaksStored, Class::BreaksReaders]);
    assert!(change.hint.is_none());

    let mut renamed = team();
    renamed.schema.name = "GROUP";
    let report = diff(&[&o, &t], &[&o, &renamed]);
    assert_eq!(report.changes.len(), 2, "{report}");
    let hint = report.changes[0].hint.as_deref().unwrap_or_default();
    assert!(hint.contains("TEAM looks renamed to GROUP"), "{hint}");
    assert!(hint.contains("#[facet(name = \"TEAM\")]"), "{hint}");
    assert_eq!(report.changes[1].class(), Class::Safe);
    assert!(report.changes[1].hint.is_some());
}

#[test]
fn a_facet_added_is_safe() {
    let report = diff(&[&order()], &[&order(), &team()]);
    let change = one(&report, Class::Safe);
    assert_eq!(change.after.as_deref(), Some("TEAM"));
}

#[test]
fn fields_no_longer_listed_need_review() {
    let mut bare = order();
    bare.fields.clear();
    let report = diff(&[&order()], &[&bare]);
    one(&report, Class::Review);
    let report = diff(&[&bare], &[&order()]);
    one(&report, Class::Safe);
}
