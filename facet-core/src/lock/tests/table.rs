//! The table: its names, settings and stream; a difference no rule covers; the report's
//! text; the lock of a declared table.

use super::fixtures::*;
use crate::design::{FacetDesign, StreamView, TableDesign};
use crate::layout::{IndexNames, TableNames};
use crate::lock::{compare, Class, DesignLock};
use crate::schema::FacetSchema;
use crate::table::TableSchema;

fn named(names: TableNames) -> DesignLock {
    let facets = [order().design()];
    DesignLock::of_design(&TableDesign::new("app", &facets).with_names(names))
}

#[test]
fn changed_names_break_every_stored_item() {
    let onetable = TableNames {
        pk: "pk",
        ..TableNames::DEFAULT
    };
    let report = compare(&named(TableNames::DEFAULT), &named(onetable), NOW);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(change.subject, "names.pk");
    assert_eq!(
        (change.before.as_deref(), change.after.as_deref()),
        (Some("PK"), Some("pk"))
    );
    assert!(text(change).contains("every item of the table"), "{report}");

    static GSI1: [IndexNames; 1] = [IndexNames {
        index: "GSI1",
        name: "gsi1",
        pk: "gsi1pk",
        sk: "gsi1sk",
    }];
    let renamed = TableNames {
        indexes: &GSI1,
        ..TableNames::DEFAULT
    };
    let report = compare(&named(TableNames::DEFAULT), &named(renamed), NOW);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(change.subject, "names.GSI1");
    assert_eq!(change.before.as_deref(), Some("GSI1 (GSI1PK, GSI1SK)"));
    assert_eq!(change.after.as_deref(), Some("gsi1 (gsi1pk, gsi1sk)"));
}

#[test]
fn settings_are_safe_unless_a_protection_is_lost() {
    let base = lock(&[&order()]);
    let on = base.clone().with_settings(serde_json::json!({
        "billing": "PAY_PER_REQUEST",
        "deletion_protection": true,
        "recovery": { "point_in_time_recovery": true },
    }));
    let billing = base.clone().with_settings(serde_json::json!({
        "billing": "PROVISIONED",
        "deletion_protection": true,
        "recovery": { "point_in_time_recovery": true },
    }));
    let report = compare(&on, &billing, NOW);
    let change = one(&report, Class::Safe);
    assert_eq!(change.subject, "settings.billing");
    assert_eq!(change.after.as_deref(), Some("\"PROVISIONED\""));

    let unprotected = base.clone().with_settings(serde_json::json!({
        "billing": "PAY_PER_REQUEST",
        "recovery": { "point_in_time_recovery": false },
    }));
    let report = compare(&on, &unprotected, NOW);
    assert_eq!(report.changes.len(), 2, "{report}");
    assert!(
        report.changes.iter().all(|c| c.class() == Class::Review),
        "{report}"
    );
    assert_eq!(report.changes[0].subject, "settings.deletion_protection");
    assert_eq!(
        report.changes[1].subject,
        "settings.recovery.point_in_time_recovery"
    );
    // Switching a protection on is safe; so are settings added to a lock without them.
    let report = compare(&unprotected, &on, NOW);
    assert!(
        report.changes.iter().all(|c| c.class() == Class::Safe),
        "{report}"
    );
    let report = compare(&base, &on, NOW);
    assert!(
        report.changes.iter().all(|c| c.class() == Class::Safe),
        "{report}"
    );
}

#[test]
fn a_stream_added_is_safe_and_one_changed_needs_review() {
    let facets = [order().design()];
    let plain = DesignLock::of_design(&TableDesign::new("app", &facets));
    let keys =
        DesignLock::of_design(&TableDesign::new("app", &facets).with_stream(StreamView::KeysOnly));
    let images = DesignLock::of_design(
        &TableDesign::new("app", &facets).with_stream(StreamView::NewAndOldImages),
    );
    one(&compare(&plain, &keys, NOW), Class::Safe);
    one(&compare(&keys, &images, NOW), Class::Review);
    one(&compare(&keys, &plain, NOW), Class::Review);
}

#[test]
fn a_difference_no_rule_covers_needs_review() {
    let before = lock(&[&order()]);
    let mut after = before.clone();
    after.facets[0].pk.template = "#USER::{userId}".to_owned();
    let report = compare(&before, &after, NOW);
    let change = one(&report, Class::Review);
    assert!(text(change).contains("no rule covers"), "{report}");
}

#[test]
fn the_report_groups_changes_by_class_most_serious_first() {
    let mut after = order();
    after.schema.sk.prefix = "#ORD";
    after.fields.push(opt("coupon", "Option<String>"));
    after.field("total").rust_type = "u64";
    let report = diff(&[&order()], &[&after, &team()]);
    let text = report.to_string();
    assert!(
        text.starts_with(
            "4 changes to the design since the lock (1 needs review (not classified), \
             1 breaks stored records, 1 breaks other readers, 1 safe):\n"
        ),
        "{text}"
    );
    let groups: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(' ') && l.ends_with(':'))
        .skip(1)
        .collect();
    assert_eq!(
        groups,
        [
            "Needs review (not classified):",
            "Breaks stored records:",
            "Breaks other readers:",
            "Safe:"
        ]
    );
    assert!(text.contains("\n  ORDER: sort key SK: #ORDER_{orderId} → #ORD_{orderId}\n    - breaks stored records of ORDER: every record stored before the change: "), "{text}");
    assert!(
        text.contains("\n  TEAM: facet: added (TEAM)\n    - safe: a new facet"),
        "{text}"
    );
    assert_eq!(report.breaking().len(), 3);
}

/// A table declared by hand, with and without its designs.
struct Declared;
struct Bare;

impl TableSchema for Declared {
    const FACETS: &'static [&'static FacetSchema] = &[];
    const DESIGNS: &'static [FacetDesign<'static>] = &[FacetDesign::new(&TEAM_SCHEMA, &[])];
}

impl TableSchema for Bare {
    const FACETS: &'static [&'static FacetSchema] = &[&TEAM_SCHEMA];
}

#[test]
fn a_declared_table_locks_its_designs_or_its_facets() {
    let declared = DesignLock::of::<Declared>();
    let bare = DesignLock::of::<Bare>();
    assert_eq!(declared, bare);
    assert_eq!(bare.facets[0].name, "TEAM");
    assert_eq!(bare.facets[0].fields, None);
    assert_eq!(bare.names.pk, "PK");
}
