//! Indexes, TTL and unique fields: index keys and memberships need a backfill; indexes new
//! to the table are created, replaced, or need a new table (a local one); dropped ones are
//! safe.

use super::fixtures::*;
use crate::design::fixtures::key;
use crate::lock::{Class, Effect, IndexAction};
use crate::schema::{
    IndexKind, IndexProjection, IndexSchema, KeyAttribute, NativeKeys, ScalarType, UniqueSchema,
    VectorDistance, VectorSchema, PK,
};
use crate::shard::ShardPeriod;

/// The order with `indexes`.
fn with_indexes(indexes: &'static [IndexSchema]) -> Spec {
    let mut s = order();
    s.schema.indexes = indexes;
    s
}

/// The index action of a change's `Index` effect.
fn action(change: &crate::lock::Change) -> Option<IndexAction> {
    change.effects.iter().find_map(|e| match e {
        Effect::Index { action, .. } => Some(*action),
        _ => None,
    })
}

#[test]
fn a_changed_index_key_needs_a_backfill() {
    static GSI1_DAY: [IndexSchema; 1] = [IndexSchema {
        sk: Some(key("GSI1SK", "#DAY", &["day"], &[false])),
        ..GSI1
    }];
    let report = diff(&[&order()], &[&with_indexes(&GSI1_DAY)]);
    let change = one(&report, Class::NeedsBackfill);
    assert_eq!(change.subject, "index GSI1 GSI1SK");
    assert_eq!(change.before.as_deref(), Some("#DATE_{day}"));
    assert_eq!(change.after.as_deref(), Some("#DAY_{day}"));
    let Effect::Backfill {
        facet, attributes, ..
    } = &change.effects[0]
    else {
        panic!("{report}")
    };
    assert_eq!(
        (facet.as_str(), attributes.as_slice()),
        ("ORDER", &["GSI1SK".to_owned()][..])
    );
    assert!(text(change).contains("Table::backfill::<F>()"), "{report}");
    assert!(!report.is_breaking());
}

#[test]
fn an_index_shard_count_needs_a_backfill_and_a_future_period_is_safe() {
    static MORE: [IndexSchema; 1] = [IndexSchema {
        pk: crate::schema::KeySchema {
            shard: Some(crate::schema::ShardSchema {
                count: 8,
                fields: &["orderId"],
                schedule: &[],
                time_field: None,
            }),
            ..GSI1.pk
        },
        ..GSI1
    }];
    let report = diff(&[&order()], &[&with_indexes(&MORE)]);
    let change = one(&report, Class::NeedsBackfill);
    assert_eq!(change.subject, "shard of GSI1 GSI1PK");

    static LATER: [IndexSchema; 1] = [IndexSchema {
        pk: crate::schema::KeySchema {
            shard: Some(crate::schema::ShardSchema {
                count: 4,
                fields: &["orderId"],
                schedule: &[ShardPeriod {
                    from: FUTURE,
                    count: 16,
                }],
                time_field: Some("day"),
            }),
            ..GSI1.pk
        },
        ..GSI1
    }];
    // A time field added with the period: the count's period is chosen otherwise.
    let report = diff(&[&order()], &[&with_indexes(&LATER)]);
    one(&report, Class::NeedsBackfill);
    static LATER_TOO: [IndexSchema; 1] = [IndexSchema {
        pk: crate::schema::KeySchema {
            shard: Some(crate::schema::ShardSchema {
                count: 4,
                fields: &["orderId"],
                schedule: &[],
                time_field: Some("day"),
            }),
            ..GSI1.pk
        },
        ..GSI1
    }];
    let report = diff(&[&with_indexes(&LATER_TOO)], &[&with_indexes(&LATER)]);
    let change = one(&report, Class::BreaksReaders);
    assert_eq!(classes(change), [Class::Safe, Class::BreaksReaders]);
}

#[test]
fn a_facet_joining_an_index_needs_a_backfill() {
    static TEAM_GSI1: [IndexSchema; 1] = [IndexSchema {
        alias: None,
        pk: key("GSI1PK", "#OWNER", &["name"], &[false]),
        sk: Some(key("GSI1SK", "#TEAM", &["teamId"], &[false])),
        ..GSI1
    }];
    let before = team();
    let mut after = team();
    after.schema.indexes = &TEAM_GSI1;
    let o = order();
    // GSI1 exists already (the order uses it): only the team's records need keys.
    let report = diff(&[&o, &before], &[&o, &after]);
    let change = one(&report, Class::NeedsBackfill);
    assert_eq!(change.facet.as_deref(), Some("TEAM"));
    assert_eq!(change.subject, "index GSI1");
    assert_eq!(
        change.after.as_deref(),
        Some("#OWNER_{name} / #TEAM_{teamId}")
    );
    assert!(text(change).contains("(GSI1PK, GSI1SK)"), "{report}");
}

#[test]
fn a_new_global_index_is_created_and_its_keys_backfilled() {
    static TWO: [IndexSchema; 2] = [
        GSI1,
        IndexSchema {
            number: 2,
            name: "GSI2",
            alias: None,
            pk: key("GSI2PK", "#TOTAL", &["total"], &[false]),
            sk: None,
            ..GSI1
        },
    ];
    let report = diff(&[&order()], &[&with_indexes(&TWO)]);
    assert_eq!(report.changes.len(), 2, "{report}");
    let table = &report.changes[0];
    assert_eq!(
        (table.facet.as_deref(), table.subject.as_str()),
        (None, "index GSI2")
    );
    assert_eq!(action(table), Some(IndexAction::Create));
    assert!(
        text(table).contains("`Table::create_missing_indexes()`"),
        "{report}"
    );
    assert!(!table.is_breaking());
    assert_eq!(report.changes[1].class(), Class::NeedsBackfill);
    assert_eq!(report.class(), Some(Class::NeedsIndex));
}

#[test]
fn a_new_native_index_needs_no_backfill() {
    static NATIVE: [IndexSchema; 2] = [
        GSI1,
        IndexSchema {
            number: 2,
            name: "GSI2",
            alias: None,
            pk: key("", "", &["status"], &[false]),
            sk: None,
            native: Some(NativeKeys {
                pk: &[KeyAttribute {
                    name: "status",
                    ty: ScalarType::S,
                }],
                sk: &[],
            }),
            ..GSI1
        },
    ];
    let report = diff(&[&order()], &[&with_indexes(&NATIVE)]);
    assert_eq!(report.changes.len(), 2, "{report}");
    assert_eq!(action(&report.changes[0]), Some(IndexAction::Create));
    assert_eq!(report.changes[1].class(), Class::Safe);
}

#[test]
fn a_new_local_index_needs_a_new_table() {
    static LOCAL: [IndexSchema; 2] = [
        GSI1,
        IndexSchema {
            kind: IndexKind::Local,
            number: 1,
            name: "LSI1",
            alias: None,
            pk: key(PK, "#USER", &["userId"], &[false]),
            sk: Some(key("LSI1SK", "#TOTAL", &["total"], &[false])),
            ..GSI1
        },
    ];
    let report = diff(&[&order()], &[&with_indexes(&LOCAL)]);
    let table = &report.changes[0];
    assert_eq!(action(table), Some(IndexAction::NewTable));
    assert!(table.is_breaking());
    assert!(text(table).contains("a new table"), "{report}");
    let facet = &report.changes[1];
    assert_eq!(facet.class(), Class::NeedsBackfill);
    assert!(text(facet).contains("(LSI1SK)"), "{report}");

    // Its projection changed: a new table too.
    static NARROW: [IndexSchema; 2] = [
        GSI1,
        IndexSchema {
            projection: IndexProjection::KeysOnly,
            ..LOCAL[1]
        },
    ];
    let report = diff(&[&with_indexes(&LOCAL)], &[&with_indexes(&NARROW)]);
    assert_eq!(action(&report.changes[0]), Some(IndexAction::NewTable));
}

#[test]
fn a_changed_projection_recreates_the_index() {
    static KEYS_ONLY: [IndexSchema; 1] = [IndexSchema {
        projection: IndexProjection::KeysOnly,
        ..GSI1
    }];
    let report = diff(&[&order()], &[&with_indexes(&KEYS_ONLY)]);
    assert_eq!(report.changes.len(), 2, "{report}");
    let table = &report.changes[0];
    assert_eq!(action(table), Some(IndexAction::Recreate));
    assert_eq!(
        table.before.as_deref(),
        Some("keys (GSI1PK S; GSI1SK S), ALL")
    );
    assert_eq!(
        table.after.as_deref(),
        Some("keys (GSI1PK S; GSI1SK S), INCLUDE day, facet, orderId, status, userId")
    );
    assert!(table.is_breaking());
    assert_eq!(report.changes[1].class(), Class::Safe);
}

#[test]
fn an_index_dropped_by_the_facet_and_the_table_is_safe() {
    let report = diff(&[&order()], &[&with_indexes(&[])]);
    assert_eq!(report.changes.len(), 2, "{report}");
    assert!(
        report.changes.iter().all(|c| c.class() == Class::Safe),
        "{report}"
    );
    assert!(text(&report.changes[0]).contains("`Table::verify` lists it"));
    assert!(text(&report.changes[1]).contains("until a backfill of ORDER removes them"));
}

#[test]
fn sparse_ttl_and_unique_need_a_backfill() {
    static SPARSE: [IndexSchema; 1] = [IndexSchema {
        sparse: true,
        ..GSI1
    }];
    let report = diff(&[&order()], &[&with_indexes(&SPARSE)]);
    assert_eq!(
        one(&report, Class::NeedsBackfill).subject,
        "index GSI1 sparse"
    );

    let mut ttl = order();
    ttl.schema.ttl_field = Some("day");
    let report = diff(&[&order()], &[&ttl]);
    // The table's expiry (safe) and the records' `ttl` (a backfill).
    assert_eq!(report.changes.len(), 2, "{report}");
    assert_eq!(report.changes[0].subject, "time to live");
    assert_eq!(report.changes[0].class(), Class::Safe);
    let Effect::Backfill { attributes, .. } = &report.changes[1].effects[0] else {
        panic!("{report}")
    };
    assert_eq!(attributes, &["ttl"]);

    static UNIQUE: [UniqueSchema; 1] = [UniqueSchema {
        attribute: "note",
        scope: &["userId"],
    }];
    let mut unique = order();
    unique.schema.unique = &UNIQUE;
    let report = diff(&[&order()], &[&unique]);
    let change = one(&report, Class::NeedsBackfill);
    assert_eq!(change.after.as_deref(), Some("note within userId"));
    assert!(text(change).contains("`UniqueTaken`"), "{report}");
}

#[test]
fn alias_changes_are_safe() {
    static RENAMED: [IndexSchema; 1] = [IndexSchema {
        alias: Some("byState"),
        ..GSI1
    }];
    let report = diff(&[&order()], &[&with_indexes(&RENAMED)]);
    assert_eq!(one(&report, Class::Safe).subject, "index GSI1 alias");
}

static EMBEDDING: VectorSchema = VectorSchema {
    index: "embedding_vector",
    attribute: "embedding",
    dimensions: 3,
    distance: VectorDistance::Cosine,
    partition: None,
    filters: &[],
};

fn with_vector(vector: &'static [VectorSchema]) -> Spec {
    let mut s = order();
    s.schema.vectors = vector;
    s.fields.push(req("embedding", "Vec<f32>"));
    s
}

#[test]
fn a_new_vector_index_is_created() {
    static ONE: [VectorSchema; 1] = [EMBEDDING];
    let before = order();
    let mut before_field = before.clone();
    before_field.fields.push(req("embedding", "Vec<f32>"));
    let report = diff(&[&before_field], &[&with_vector(&ONE)]);
    assert_eq!(report.changes.len(), 2, "{report}");
    assert_eq!(report.changes[0].subject, "vector index embedding_vector");
    assert_eq!(action(&report.changes[0]), Some(IndexAction::Create));
    assert_eq!(report.changes[1].subject, "vector indexes");
    assert_eq!(report.changes[1].class(), Class::Safe);
}

#[test]
fn vector_dimensions_changed_recreate_the_index_and_break_the_vectors() {
    static THREE: [VectorSchema; 1] = [EMBEDDING];
    static FOUR: [VectorSchema; 1] = [VectorSchema {
        dimensions: 4,
        ..EMBEDDING
    }];
    let report = diff(&[&with_vector(&THREE)], &[&with_vector(&FOUR)]);
    let change = one(&report, Class::BreaksStored);
    assert_eq!(classes(change), [Class::NeedsIndex, Class::BreaksStored]);
    assert_eq!(action(change), Some(IndexAction::Recreate));
    assert!(
        text(change).contains("they have 3 dimensions; the index takes 4"),
        "{report}"
    );
    assert!(text(change).contains("backfill_with"), "{report}");

    static EUCLIDEAN: [VectorSchema; 1] = [VectorSchema {
        distance: VectorDistance::Euclidean,
        ..EMBEDDING
    }];
    let report = diff(&[&with_vector(&THREE)], &[&with_vector(&EUCLIDEAN)]);
    let change = one(&report, Class::NeedsIndex);
    assert_eq!(action(change), Some(IndexAction::Recreate));
}

#[test]
fn the_order_of_facets_sharing_vector_indexes_changes_nothing() {
    static ONE: [VectorSchema; 1] = [EMBEDDING];
    static OTHER: [VectorSchema; 1] = [VectorSchema {
        index: "summary_vector",
        attribute: "summary",
        ..EMBEDDING
    }];
    let o = with_vector(&ONE);
    let mut t = team();
    t.schema.vectors = &OTHER;
    t.fields.push(req("summary", "Vec<f32>"));
    assert!(diff(&[&o, &t], &[&t, &o]).is_clean());
}
