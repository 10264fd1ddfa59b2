//! The facets the lock tests change: an order (a global index sharded 4 ways, six fields)
//! and a team; each a [`Spec`] a test edits before locking it.

use crate::design::fixtures::key;
use crate::design::{FacetDesign, TableDesign};
use crate::lock::{compare, Change, Class, DesignLock, Effect, LockReport};
use crate::schema::{
    FacetSchema, FieldSchema, IndexKind, IndexProjection, IndexSchema, KeySchema, ShardSchema, PK,
    SK,
};
use crate::shard::ShardPeriod;

/// 2026-01-01T00:00:00Z: the time of every comparison.
pub const NOW: i64 = 1_767_225_600;
/// 2025-01-01T00:00:00Z: before [`NOW`].
pub const PAST: i64 = 1_735_689_600;
/// 2027-01-01T00:00:00Z: after [`NOW`].
pub const FUTURE: i64 = 1_798_761_600;

/// A required field.
pub const fn req(name: &'static str, rust_type: &'static str) -> FieldSchema {
    FieldSchema {
        field: name,
        attribute: name,
        rust_type,
        stored: true,
        optional: false,
        default: false,
        codec: None,
        epoch: None,
        sortable_in: &[],
    }
}

/// An `Option` field (`rust_type` is the whole type, `Option<..>`).
pub const fn opt(name: &'static str, rust_type: &'static str) -> FieldSchema {
    FieldSchema {
        optional: true,
        ..req(name, rust_type)
    }
}

/// `GSI1` of the order: `#STATUS_{shard 0..3}_{status}` / `#DATE_{day}`.
pub const GSI1: IndexSchema = IndexSchema {
    kind: IndexKind::Global,
    number: 1,
    name: "GSI1",
    alias: Some("byStatus"),
    pk: KeySchema {
        shard: Some(ShardSchema {
            count: 4,
            fields: &["orderId"],
            schedule: &[],
            time_field: None,
        }),
        ..key("GSI1PK", "#STATUS", &["status"], &[false])
    },
    sk: Some(key("GSI1SK", "#DATE", &["day"], &[false])),
    projection: IndexProjection::All,
    sparse: false,
    native: None,
};

/// A facet as a test declares it.
#[derive(Clone)]
pub struct Spec {
    pub schema: FacetSchema,
    pub fields: Vec<FieldSchema>,
    pub version: Option<u32>,
}

impl Spec {
    /// Its design, leaked for `'static`.
    pub fn design(&self) -> FacetDesign<'static> {
        let schema: &'static FacetSchema = Box::leak(Box::new(self.schema));
        let fields: &'static [FieldSchema] = self.fields.clone().leak();
        FacetDesign::new(schema, &[])
            .with_fields(fields)
            .with_versions(self.version, None, None, None)
    }

    /// The field with attribute `name`, to edit.
    pub fn field(&mut self, name: &str) -> &mut FieldSchema {
        self.fields
            .iter_mut()
            .find(|f| f.attribute == name)
            .expect("a field of the spec")
    }

    /// Without the field `name`.
    pub fn without(mut self, name: &str) -> Spec {
        self.fields.retain(|f| f.attribute != name);
        self
    }
}

/// The order: `#USER_{userId}` / `#ORDER_{orderId}`, [`GSI1`]; fields `userId`, `orderId`,
/// `status`, `day`, `total` and the optional `note`.
pub fn order() -> Spec {
    Spec {
        schema: FacetSchema {
            name: "ORDER",
            delimiter: "_",
            pk: key(PK, "#USER", &["userId"], &[false]),
            sk: key(SK, "#ORDER", &["orderId"], &[false]),
            indexes: &[GSI1],
            ttl_field: None,
            unique: &[],
            vectors: &[],
        },
        fields: vec![
            req("userId", "String"),
            req("orderId", "String"),
            req("status", "String"),
            req("day", "String"),
            req("total", "u32"),
            opt("note", "Option<String>"),
        ],
        version: None,
    }
}

/// The team's schema: `#TEAM_{teamId}` / `#TEAM`.
pub const TEAM_SCHEMA: FacetSchema = FacetSchema {
    name: "TEAM",
    delimiter: "_",
    pk: key(PK, "#TEAM", &["teamId"], &[false]),
    sk: key(SK, "#TEAM", &[], &[]),
    indexes: &[],
    ttl_field: None,
    unique: &[],
    vectors: &[],
};

/// The team ([`TEAM_SCHEMA`]); fields `teamId`, `name`.
pub fn team() -> Spec {
    Spec {
        schema: TEAM_SCHEMA,
        fields: vec![req("teamId", "String"), req("name", "String")],
        version: None,
    }
}

/// The order with its base partition key sharded 4 ways by `orderId`, the period chosen by
/// `day`, with `schedule`.
pub fn sharded(schedule: &'static [ShardPeriod]) -> Spec {
    let mut s = order();
    s.schema.pk.shard = Some(ShardSchema {
        count: 4,
        fields: &["orderId"],
        schedule,
        time_field: Some("day"),
    });
    s
}

/// The lock of a table of `specs`.
pub fn lock(specs: &[&Spec]) -> DesignLock {
    let facets: Vec<FacetDesign<'static>> = specs.iter().map(|s| s.design()).collect();
    DesignLock::of_design(&TableDesign::new("app", &facets))
}

/// The report of changing a table of `before` into one of `after`, at [`NOW`].
pub fn diff(before: &[&Spec], after: &[&Spec]) -> LockReport {
    compare(&lock(before), &lock(after), NOW)
}

/// The report's one change, after checking there is one, of class `class`.
#[track_caller]
pub fn one(report: &LockReport, class: Class) -> &Change {
    assert_eq!(report.changes.len(), 1, "{report}");
    let change = &report.changes[0];
    assert_eq!(change.class(), class, "{report}");
    change
}

/// The classes of a change's effects, in order.
pub fn classes(change: &Change) -> Vec<Class> {
    change.effects.iter().map(Effect::class).collect()
}

/// The text of a change's effects, joined.
pub fn text(change: &Change) -> String {
    change.to_string()
}
