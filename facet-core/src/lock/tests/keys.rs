//! Base keys and their shards: a changed prefix, delimiter, key fields, `no_prefix` or
//! `sortable` moves stored records; a grow period is safe only from a future time.

use super::fixtures::*;
use crate::lock::{Class, Effect};
use crate::shard::ShardPeriod;

#[test]
fn the_same_design_is_clean_whatever_the_facet_order() {
    let (o, t) = (order(), team());
    assert!(diff(&[&o, &t], &[&o, &t]).is_clean());
    assert!(diff(&[&o, &t], &[&t, &o]).is_clean());
    assert_eq!(
        diff(&[&o], &[&o]).to_string(),
        "the design matches the lock: no change\n"
    );
}

#[test]
fn a_changed_base_prefix_breaks_stored_records() {
    let before = order();
    let mut after = order();
    after.schema.sk.prefix = "#ORD";
    let report = diff(&[&before], &[&after]);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(change.subject, "sort key SK");
    assert_eq!(change.before.as_deref(), Some("#ORDER_{orderId}"));
    assert_eq!(change.after.as_deref(), Some("#ORD_{orderId}"));
    assert_eq!(classes(change), [Class::BreaksStored, Class::BreaksReaders]);
    let Effect::BreaksStored {
        facet, why, repair, ..
    } = &change.effects[0]
    else {
        panic!("{report}")
    };
    assert_eq!(facet, "ORDER");
    assert!(
        why.contains("the prefix is \"#ORD\", not \"#ORDER\""),
        "{why}"
    );
    assert!(why.contains("get and query miss them"), "{why}");
    assert!(repair.contains("a backfill moves them"), "{repair}");
    assert!(report.is_breaking());
}

#[test]
fn a_changed_delimiter_breaks_stored_records() {
    let before = order();
    let mut after = order();
    after.schema.delimiter = "#";
    let report = diff(&[&before], &[&after]);
    // The delimiter, and the key patterns it is part of (`#USER#{userId}`).
    assert_eq!(report.changes[0].subject, "delimiter");
    assert_eq!(report.changes[0].class(), Class::BreaksStored);
    assert!(text(&report.changes[0]).contains("joined with the old delimiter"));
    assert!(report.changes[0].effects[1].class() == Class::BreaksReaders);
}

#[test]
fn changed_key_fields_no_prefix_or_sortable_break_stored_records() {
    let before = order();
    let mut fields = order();
    fields.schema.pk.fields = &["teamId"];
    let report = diff(&[&before], &[&fields]);
    assert!(
        report.changes[0]
            .to_string()
            .contains("its fields are (teamId), not (userId)"),
        "{report}"
    );
    assert_eq!(report.changes[0].class(), Class::BreaksStored);

    let mut bare = order();
    bare.schema.sk.no_prefix = true;
    bare.schema.sk.prefix = "";
    let report = diff(&[&before], &[&bare]);
    let change = one(&report, Class::BreaksStored);
    assert!(
        text(change).contains("it has no prefix (`no_prefix`)"),
        "{report}"
    );

    // `sortable` is told by the fields (`sortable_in`), not the key schema.
    let mut sortable = order();
    sortable.field("orderId").sortable_in = &["SK"];
    let report = diff(&[&before], &[&sortable]);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(
        change.after.as_deref(),
        Some("#ORDER_{orderId} (sortable orderId)")
    );
    assert!(
        text(change).contains("`orderId` is written `sortable`"),
        "{report}"
    );
}

#[test]
fn a_key_field_made_optional_is_safe() {
    let before = order();
    let mut after = order();
    after.schema.sk.optional = &[true];
    let f = after.field("orderId");
    f.optional = true;
    f.rust_type = "Option<String>";
    let report = diff(&[&before], &[&after]);
    assert_eq!(report.changes.len(), 2, "{report}");
    assert!(
        report.changes.iter().all(|c| c.class() == Class::Safe),
        "{report}"
    );
    assert!(!report.is_breaking());
}

#[test]
fn a_key_field_made_required_breaks_records_when_fields_are_unknown() {
    let mut before = order();
    before.schema.sk.optional = &[true];
    before.fields.clear();
    let mut after = order();
    after.fields.clear();
    let report = diff(&[&before], &[&after]);
    let change = one(&report, Class::BreaksStored);
    assert!(
        text(change).contains("(orderId) are now required"),
        "{report}"
    );
}

#[test]
fn a_shard_added_or_its_count_changed_breaks_stored_records() {
    let plain = order();
    let sharded4 = sharded(&[]);
    let report = diff(&[&plain], &[&sharded4]);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(change.subject, "shard of PK");
    assert_eq!(change.before.as_deref(), Some("not sharded"));
    assert_eq!(
        change.after.as_deref(),
        Some("4 shards by orderId (by day)")
    );
    assert!(text(change).contains("the key is now sharded"), "{report}");
    // The pattern changes with it, but the shard is the change.
    assert!(change.effects[0]
        .to_string()
        .contains("their PK was built with the old sharding (the key is now sharded)"));

    let mut sharded8 = sharded(&[]);
    if let Some(s) = sharded8.schema.pk.shard.as_mut() {
        s.count = 8;
    }
    let report = diff(&[&sharded4], &[&sharded8]);
    let change = one(&report, Class::BreaksStored);
    assert!(
        text(change).contains("the shard count is 8, not 4"),
        "{report}"
    );
    assert_eq!(classes(change), [Class::BreaksStored, Class::BreaksReaders]);
}

#[test]
fn a_grow_period_from_a_future_time_is_safe_but_breaks_readers() {
    static LATER: [ShardPeriod; 1] = [ShardPeriod {
        from: FUTURE,
        count: 16,
    }];
    let report = diff(&[&sharded(&[])], &[&sharded(&LATER)]);
    let change = one(&report, Class::BreaksReaders);
    assert_eq!(classes(change), [Class::Safe, Class::BreaksReaders]);
    let expected = if cfg!(feature = "chrono") {
        "4 shards by orderId, 16 from 2027-01-01T00:00:00Z (by day)"
    } else {
        "4 shards by orderId, 16 from 1798761600 (epoch seconds) (by day)"
    };
    assert_eq!(change.after.as_deref(), Some(expected));
    assert!(text(change).contains("records stored so far keep their shards"));
    // With no other reader, it is safe.
    let alone = report.without_other_readers();
    assert_eq!(alone.class(), Some(Class::Safe));
    assert!(!alone.is_breaking());
}

#[test]
fn a_grow_period_already_begun_or_edited_breaks_stored_records() {
    static BEGUN: [ShardPeriod; 1] = [ShardPeriod {
        from: PAST,
        count: 16,
    }];
    let report = diff(&[&sharded(&[])], &[&sharded(&BEGUN)]);
    let change = one(&report, Class::BreaksStored);
    assert!(text(change).contains("before now"), "{report}");

    static LATER: [ShardPeriod; 1] = [ShardPeriod {
        from: FUTURE,
        count: 16,
    }];
    static EDITED: [ShardPeriod; 1] = [ShardPeriod {
        from: FUTURE,
        count: 32,
    }];
    let report = diff(&[&sharded(&LATER)], &[&sharded(&EDITED)]);
    let change = one(&report, Class::BreaksStored);
    assert!(text(change).contains("was edited or removed"), "{report}");
    let report = diff(&[&sharded(&LATER)], &[&sharded(&[])]);
    one(&report, Class::BreaksStored);
}

#[test]
fn a_second_future_period_after_a_kept_one_is_safe() {
    static ONE: [ShardPeriod; 1] = [ShardPeriod {
        from: PAST,
        count: 16,
    }];
    static TWO: [ShardPeriod; 2] = [
        ShardPeriod {
            from: PAST,
            count: 16,
        },
        ShardPeriod {
            from: FUTURE,
            count: 64,
        },
    ];
    let report = diff(&[&sharded(&ONE)], &[&sharded(&TWO)]);
    let change = one(&report, Class::BreaksReaders);
    assert_eq!(classes(change), [Class::Safe, Class::BreaksReaders]);
}
