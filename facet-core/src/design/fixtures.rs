//! The facets the design tests render: a user with a TTL and a global index without a sort
//! key; an order with a sharded keys-only index, a sparse index projecting one attribute and
//! a local index; a team sharing the user's index, whose attributes are not given. And
//! OneTable's names for a table: [`ONETABLE`], with [`TASK`], a facet of such a table. And
//! a table whose partitions are scoped by team ([`projects`]): [`PROJECT`], [`EVENT`],
//! [`PLAN`].

use super::model::FacetDesign;
use crate::layout::{IndexNames, TableNames};
use crate::schema::{
    FacetSchema, IndexKind, IndexProjection, IndexSchema, KeyAttribute, KeySchema, ShardSchema,
    UniqueSchema, VectorDistance, VectorSchema, PK, SK,
};

pub(crate) const fn key(
    attribute: &'static str,
    prefix: &'static str,
    fields: &'static [&'static str],
    optional: &'static [bool],
) -> KeySchema {
    KeySchema::new(attribute, prefix, false, fields, optional)
}

const fn global(
    number: u8,
    alias: Option<&'static str>,
    pk: KeySchema,
    sk: Option<KeySchema>,
    projection: IndexProjection,
    sparse: bool,
) -> IndexSchema {
    let (name, _, _) = crate::schema::gsi_names(number);
    IndexSchema {
        kind: IndexKind::Global,
        number,
        name,
        alias,
        pk,
        sk,
        projection,
        sparse,
        native: None,
    }
}

const USER_PK: KeySchema = key(PK, "#USER", &["userId"], &[false]);

pub(crate) const USER: FacetSchema = FacetSchema {
    name: "USER",
    delimiter: "_",
    pk: USER_PK,
    sk: key(SK, "#USER", &[], &[]),
    indexes: &[global(
        1,
        Some("byEmail"),
        key("GSI1PK", "#EMAIL", &["email"], &[false]),
        None,
        IndexProjection::All,
        false,
    )],
    ttl_field: Some("expiresAt"),
    unique: &[],
    vectors: &[],
};

pub(crate) const ORDER: FacetSchema = FacetSchema {
    name: "ORDER",
    delimiter: "_",
    pk: USER_PK,
    sk: key(SK, "#ORDER", &["orderId"], &[false]),
    indexes: &[
        global(
            2,
            Some("byStatus"),
            KeySchema {
                attribute: "GSI2PK",
                prefix: "#STATUS",
                no_prefix: false,
                fields: &["status"],
                optional: &[false],
                shard: Some(ShardSchema {
                    count: 4,
                    fields: &["orderId"],
                    schedule: &[],
                    time_field: None,
                }),
            },
            Some(key("GSI2SK", "#DATE", &["day"], &[false])),
            IndexProjection::KeysOnly,
            false,
        ),
        global(
            3,
            None,
            key("GSI3PK", "#COUPON", &["coupon"], &[true]),
            Some(key("GSI3SK", "#ORDER", &["orderId"], &[false])),
            IndexProjection::Include(&["total"]),
            true,
        ),
        IndexSchema {
            kind: IndexKind::Local,
            number: 1,
            name: "LSI1",
            alias: Some("byTotal"),
            pk: USER_PK,
            sk: Some(key("LSI1SK", "#TOTAL", &["total"], &[false])),
            projection: IndexProjection::All,
            sparse: false,
            native: None,
        },
    ],
    ttl_field: None,
    unique: &[],
    vectors: &[],
};

pub(crate) const TEAM: FacetSchema = FacetSchema {
    name: "TEAM",
    delimiter: "_",
    pk: key(PK, "#TEAM", &["teamId"], &[false]),
    sk: key(SK, "#TEAM", &[], &[]),
    indexes: &[global(
        1,
        Some("byOwner"),
        key("GSI1PK", "#OWNER", &["ownerEmail"], &[false]),
        None,
        IndexProjection::All,
        false,
    )],
    ttl_field: None,
    unique: &[],
    vectors: &[],
};

/// The three facets, with the user's and the order's attributes.
pub(crate) fn facets() -> [FacetDesign<'static>; 3] {
    [
        FacetDesign::new(&USER, &["userId", "email", "name", "expiresAt"]),
        FacetDesign::new(
            &ORDER,
            &["userId", "orderId", "status", "day", "coupon", "total"],
        ),
        FacetDesign::new(&TEAM, &[]),
    ]
}

/// A table of one facet with no secondary index.
pub(crate) const PLAIN: FacetSchema = FacetSchema {
    name: "NOTE",
    delimiter: "#",
    pk: key(PK, "NOTE", &["book"], &[false]),
    sk: key(SK, "NOTE", &["id"], &[false]),
    indexes: &[],
    ttl_field: None,
    unique: &[],
    vectors: &[],
};

/// OneTable's names (`pk`, `sk`, `_type`, `expires`, index `gsi1` keyed `gsi1pk`/`gsi1sk`),
/// and `lsi1` keyed `lsi1sk`; `GSI2` and `GSI3` keep faceteer's names.
pub(crate) const ONETABLE: TableNames = TableNames {
    pk: "pk",
    sk: "sk",
    facet: "_type",
    ttl: "expires",
    indexes: &[
        IndexNames {
            index: "GSI1",
            name: "gsi1",
            pk: "gsi1pk",
            sk: "gsi1sk",
        },
        IndexNames {
            index: "LSI1",
            name: "lsi1",
            pk: "pk",
            sk: "lsi1sk",
        },
    ],
};

/// A task of a OneTable table: one global index with a sort key, sparse on the optional
/// `due`, projecting `title`; a TTL.
pub(crate) const TASK: FacetSchema = FacetSchema {
    name: "TASK",
    delimiter: "#",
    pk: key(PK, "TEAM", &["teamId"], &[false]),
    sk: key(SK, "TASK", &["taskId"], &[false]),
    indexes: &[global(
        1,
        Some("byDue"),
        key("GSI1PK", "STATUS", &["status"], &[false]),
        Some(key("GSI1SK", "DUE", &["due"], &[true])),
        IndexProjection::Include(&["title"]),
        true,
    )],
    ttl_field: Some("expiresAt"),
    unique: &[],
    vectors: &[],
};

/// The task with its attributes.
pub(crate) fn tasks() -> [FacetDesign<'static>; 1] {
    [FacetDesign::new(
        &TASK,
        &["teamId", "taskId", "status", "due", "title", "expiresAt"],
    )]
}

/// A project of a team: its partition is the team's; an index by the team and the owner
/// (scoped), one by its slug (unique within the team, and keyed by no scope field), a
/// vector index.
pub(crate) const PROJECT: FacetSchema = FacetSchema {
    name: "PROJECT",
    delimiter: "_",
    pk: key(PK, "#TEAM", &["team"], &[false]),
    sk: key(SK, "#PROJECT", &["projectId"], &[false]),
    indexes: &[
        global(
            1,
            Some("byOwner"),
            key("GSI1PK", "#OWNER", &["team", "owner"], &[false, false]),
            Some(key("GSI1SK", "#PROJECT", &["projectId"], &[false])),
            IndexProjection::All,
            false,
        ),
        global(
            2,
            Some("bySlug"),
            key("GSI2PK", "#SLUG", &["slug"], &[false]),
            None,
            IndexProjection::All,
            false,
        ),
    ],
    ttl_field: None,
    unique: &[UniqueSchema {
        attribute: "slug",
        scope: &["team"],
    }],
    vectors: &[VectorSchema {
        index: "byEmbedding",
        attribute: "embedding",
        dimensions: 3,
        distance: VectorDistance::Cosine,
        partition: Some(KeyAttribute::text("team")),
        filters: &[],
    }],
};

/// An event of a team, delimited by `#`: its partition sharded 4 ways by its id, then the
/// team and the day.
pub(crate) const EVENT: FacetSchema = FacetSchema {
    name: "EVENT",
    delimiter: "#",
    pk: KeySchema {
        shard: Some(ShardSchema {
            count: 4,
            fields: &["eventId"],
            schedule: &[],
            time_field: None,
        }),
        ..key(PK, "EVENT", &["team", "day"], &[false, false])
    },
    sk: key(SK, "EVENT", &["eventId"], &[false]),
    indexes: &[],
    ttl_field: None,
    unique: &[],
    vectors: &[],
};

/// A plan every team reads (bound to no scope), sharing the project's owner index.
pub(crate) const PLAN: FacetSchema = FacetSchema {
    name: "PLAN",
    delimiter: "_",
    pk: key(PK, "#PLAN", &["planId"], &[false]),
    sk: key(SK, "#PLAN", &[], &[]),
    indexes: &[global(
        1,
        Some("byTier"),
        key("GSI1PK", "#TIER", &["tier"], &[false]),
        Some(key("GSI1SK", "#PLAN", &["planId"], &[false])),
        IndexProjection::All,
        false,
    )],
    ttl_field: None,
    unique: &[],
    vectors: &[],
};

/// The team-scoped table's facets.
pub(crate) fn projects() -> [FacetDesign<'static>; 3] {
    [
        FacetDesign::new(&PROJECT, &[]),
        FacetDesign::new(&EVENT, &[]),
        FacetDesign::new(&PLAN, &[]),
    ]
}
