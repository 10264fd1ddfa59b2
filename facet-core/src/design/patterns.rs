//! Key patterns ([`key_pattern`]) and access patterns ([`access_patterns`]), the index
//! summary and the legend: the text the Markdown and HTML pages share.

use std::fmt::Write as _;

use super::layout::IndexDesign;
use super::model::TableDesign;
use crate::layout::TableNames;
use crate::schema::{
    FacetSchema, IndexKind, IndexProjection, IndexSchema, KeySchema, ShardSchema, PK, SK,
};
use crate::shard::shard_ids;

/// How the access-pattern tables write their key conditions, `SK` as the table names its
/// sort key (`sk`).
pub(crate) fn legend(sk: &str) -> String {
    format!("`ATTR = pattern`: the key equals the pattern; `begins_with({sk}, \"prefix\")`: {LEGEND_REST}")
}

/// [`legend`] from its second sentence.
const LEGEND_REST: &str = "every record of the facet in the partition; \
`ATTR: pattern`: an index sort key, narrowed by any key condition \
(`=`, `<`, `<=`, `>`, `>=`, `between`, `begins_with`). `{field}` stands for a field's value, \
`{field?}` for an optional field's (absent: no value and no delimiter), \
`{shard a..b}` for a shard id.";

/// The pattern of the keys `key` produces with `delimiter`: a key as faceteer writes it
/// ([`crate::key`]), with a placeholder for each value. The prefix, then (for a sharded key)
/// the delimiter and `{shard first..last}`, then the delimiter and `{field}` for each key
/// field (`{field?}` for an optional one, which leaves out its delimiter too when absent):
/// `#ORDER_{orderId}`, `#STATUS_{shard 0..3}_{status}`.
pub fn key_pattern(key: &KeySchema, delimiter: &str) -> String {
    let mut out = key.prefix.to_owned();
    if let Some(shard) = &key.shard {
        let ids = shard_ids(shard.count, shard.schedule);
        let first = ids.first().map_or("0", String::as_str);
        let last = ids.last().map_or("0", String::as_str);
        out.push_str(delimiter);
        if first == last {
            let _ = write!(out, "{{shard {first}}}");
        } else {
            let _ = write!(out, "{{shard {first}..{last}}}");
        }
    }
    for (i, field) in key.fields.iter().enumerate() {
        let optional = key.optional.get(i).copied().unwrap_or(false);
        let mark = if optional { "?" } else { "" };
        // A key without a prefix has no delimiter before its first value.
        let before = if key.no_prefix && i == 0 {
            ""
        } else {
            delimiter
        };
        let _ = write!(out, "{before}{{{field}{mark}}}");
    }
    out
}

/// What every sort key of the facet starts with: the prefix, and the delimiter when the
/// first key field is required (the `begins_with` of a query of the partition).
fn sort_prefix(key: &KeySchema, delimiter: &str) -> String {
    let mut out = key.prefix.to_owned();
    if key.first_field_required() && !key.no_prefix {
        out.push_str(delimiter);
    }
    out
}

/// One way to read a facet's records, by the table's names of its attributes and indexes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessPattern {
    /// What the read does: `get one`, `query the partition`, `query GSI2 (byStatus)`.
    pub name: String,
    /// The index read, by the table's name (`None`: the table).
    pub index: Option<&'static str>,
    /// The partition-key condition: `PK = #USER_{userId}`.
    pub partition: String,
    /// The sort-key condition, when the read has one: `SK = #USER`,
    /// `begins_with(SK, "#ORDER_")`, or `GSI2SK: #DATE_{day}` for an index's sort key,
    /// which a query narrows with any key condition.
    pub sort: Option<String>,
    /// What else to know: sharding, sparseness, projection, consistency.
    pub notes: Vec<String>,
}

/// The reads a facet's keys allow: get one record by its key; query the records of the
/// facet in a partition (unless the sort key is constant, so a partition holds one); query
/// each index the facet uses. Attributes and indexes are named as `names` says
/// ([`TableNames::DEFAULT`] for faceteer's own names); key values keep their patterns.
pub fn access_patterns(facet: &FacetSchema, names: &TableNames) -> Vec<AccessPattern> {
    let d = facet.delimiter;
    let (pk, sk) = (
        names.attribute(facet.pk.attribute),
        names.attribute(facet.sk.attribute),
    );
    let partition = format!("{pk} = {}", key_pattern(&facet.pk, d));
    let notes: Vec<String> = facet.pk.shard.iter().map(|s| shard_note(pk, s)).collect();
    let mut out = vec![AccessPattern {
        name: "get one".to_owned(),
        index: None,
        partition: partition.clone(),
        sort: Some(format!("{sk} = {}", key_pattern(&facet.sk, d))),
        notes: notes.clone(),
    }];
    if !facet.sk.is_constant() {
        out.push(AccessPattern {
            name: "query the partition".to_owned(),
            index: None,
            partition,
            sort: Some(format!(
                "begins_with({sk}, \"{}\")",
                sort_prefix(&facet.sk, d)
            )),
            notes,
        });
    }
    out.extend(facet.indexes.iter().map(|i| index_pattern(i, d, names)));
    out
}

fn index_pattern(index: &IndexSchema, delimiter: &str, names: &TableNames) -> AccessPattern {
    let index_name = names.index_name(index.name);
    let name = match index.alias {
        Some(alias) => format!("query {index_name} ({alias})"),
        None => format!("query {index_name}"),
    };
    let pk = names.attribute(index.pk.attribute);
    let mut notes: Vec<String> = index.pk.shard.iter().map(|s| shard_note(pk, s)).collect();
    if index.sparse {
        notes.push(format!(
            "sparse: only records with all of {}",
            sparse_fields(index).join(", ")
        ));
    }
    match index.projection {
        IndexProjection::All => {}
        IndexProjection::KeysOnly => notes.push("projection: keys only".to_owned()),
        IndexProjection::Include(fields) => {
            notes.push(format!("projection: include({})", fields.join(", ")))
        }
    }
    if index.kind == IndexKind::Local {
        notes.push("local index: strongly consistent reads".to_owned());
    }
    if let Some(native) = index.native {
        return native_pattern(name, index_name, native, notes, names);
    }
    AccessPattern {
        name,
        index: Some(index_name),
        partition: format!("{pk} = {}", key_pattern(&index.pk, delimiter)),
        sort: index.sk.map(|k| {
            let attribute = names.attribute(k.attribute);
            format!("{attribute}: {}", key_pattern(&k, delimiter))
        }),
        notes,
    }
}

/// The access pattern of a native (multi-attribute) index: equality on each partition
/// attribute; its sort attributes, typed, compared left to right.
fn native_pattern(
    name: String,
    index_name: &'static str,
    native: crate::schema::NativeKeys,
    mut notes: Vec<String>,
    names: &TableNames,
) -> AccessPattern {
    let typed = |k: &crate::schema::KeyAttribute| format!("{} ({})", names.attribute(k.name), k.ty);
    let partition: Vec<String> = native
        .pk
        .iter()
        .map(|k| format!("{} = {{{}}}", names.attribute(k.name), k.name))
        .collect();
    let sort: Vec<String> = native.sk.iter().map(typed).collect();
    notes.push(
        "multi-attribute keys: the records' own attributes; a record missing one is not in \
         the index; sort conditions: equalities on the first sort attributes, then one range"
            .to_owned(),
    );
    AccessPattern {
        name,
        index: Some(index_name),
        partition: partition.join(" AND "),
        sort: (!sort.is_empty()).then(|| sort.join(", ")),
        notes,
    }
}

/// The fields that decide whether a record is in sparse index `index`, as the derive writes
/// it: the optional fields among those its own keys (not a local index's partition key, the
/// table's) are built from, each once; every such field when none is optional (the schema
/// does not say whether a shard field is).
fn sparse_fields(index: &IndexSchema) -> Vec<&'static str> {
    let own = match index.kind {
        IndexKind::Global => Some(&index.pk),
        IndexKind::Local => None,
    };
    let keys: Vec<&KeySchema> = own.into_iter().chain(index.sk.as_ref()).collect();
    let mut optional: Vec<&'static str> = Vec::new();
    let mut inputs: Vec<&'static str> = Vec::new();
    for key in &keys {
        for (i, field) in key.fields.iter().enumerate() {
            if key.optional.get(i).copied().unwrap_or(false) && !optional.contains(field) {
                optional.push(field);
            }
        }
        for field in key.inputs() {
            if !inputs.contains(&field) {
                inputs.push(field);
            }
        }
    }
    if optional.is_empty() {
        inputs
    } else {
        optional
    }
}

/// `GSI2PK sharded 4 ways by orderId` (the key attribute `attribute` by the table's name),
/// with the counts of later periods.
fn shard_note(attribute: &str, shard: &ShardSchema) -> String {
    let mut out = format!(
        "{attribute} sharded {} ways by {}",
        shard.count,
        shard.fields.join(", ")
    );
    for period in shard.schedule {
        let _ = write!(out, ", {} from {}", period.count, time_text(period.from));
    }
    if let (Some(time), false) = (shard.time_field, shard.schedule.is_empty()) {
        let _ = write!(out, " (by {time})");
    }
    out
}

/// Epoch seconds as an RFC 3339 time (as epoch seconds without the `chrono` feature).
pub(crate) fn time_text(seconds: i64) -> String {
    #[cfg(feature = "chrono")]
    if let Some(t) = chrono::DateTime::from_timestamp(seconds, 0) {
        return t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    }
    format!("{seconds} (epoch seconds)")
}

/// One row of a page's index summary: the table itself, then each secondary index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexRow {
    pub name: &'static str,
    pub kind: &'static str,
    /// The partition key's attribute, or a native index's attributes with their types
    /// (`team (S), status (S)`).
    pub partition_key: String,
    /// The sort key's, likewise, if the index has one.
    pub sort_key: Option<String>,
    /// `ALL`, or `INCLUDE` and the attributes.
    pub projection: String,
    /// The facets that use the index, with their aliases: `USER (byEmail), TEAM`.
    pub facets: String,
}

/// The table and its secondary indexes, as the summary of a page lists them.
pub(crate) fn index_rows(design: &TableDesign<'_>) -> Vec<IndexRow> {
    let all: Vec<&str> = design.facets.iter().map(|f| f.schema.name).collect();
    let table = IndexRow {
        name: "table",
        kind: "table",
        partition_key: design.attribute(PK).to_owned(),
        sort_key: Some(design.attribute(SK).to_owned()),
        projection: "ALL".to_owned(),
        facets: all.join(", "),
    };
    let indexes = design.indexes().into_iter().map(|i| index_row(&i));
    let vectors = design
        .vectors()
        .into_iter()
        .map(|(v, used_by)| vector_row(&v, &used_by));
    std::iter::once(table)
        .chain(indexes)
        .chain(vectors)
        .collect()
}

/// A vector index as the summary lists it: its vector attribute with the dimensions and
/// distance in the partition-key column, its search schema in the sort-key column.
fn vector_row(v: &crate::schema::VectorSchema, used_by: &[&'static str]) -> IndexRow {
    let roles: Vec<String> = v
        .search_schema()
        .map(|(k, role)| format!("{} ({}, {role})", k.name, k.ty))
        .collect();
    IndexRow {
        name: v.index,
        kind: "vector",
        partition_key: format!(
            "{} ({} dimensions, {})",
            v.attribute,
            v.dimensions,
            v.distance.as_str()
        ),
        sort_key: (!roles.is_empty()).then(|| roles.join(", ")),
        projection: "ALL".to_owned(),
        facets: used_by.join(", "),
    }
}

/// A key's attributes as a page shows them: the attribute, or a native key's attributes
/// with their types, in key-schema order.
fn key_text(keys: &[crate::schema::KeyAttribute], native: bool) -> String {
    if !native {
        return keys.first().map_or_else(String::new, |k| k.name.to_owned());
    }
    let parts: Vec<String> = keys
        .iter()
        .map(|k| format!("{} ({})", k.name, k.ty))
        .collect();
    parts.join(", ")
}

fn index_row(index: &IndexDesign) -> IndexRow {
    let facets: Vec<String> = index
        .uses
        .iter()
        .map(|u| match u.index.alias {
            Some(alias) => format!("{} ({alias})", u.facet),
            None => u.facet.to_owned(),
        })
        .collect();
    IndexRow {
        name: index.name,
        kind: match (index.kind, index.native) {
            (IndexKind::Global, true) => "global, multi-attribute keys",
            (IndexKind::Global, false) => "global",
            (IndexKind::Local, _) => "local",
        },
        partition_key: key_text(&index.partition_key, index.native),
        sort_key: (!index.sort_key.is_empty()).then(|| key_text(&index.sort_key, index.native)),
        projection: match &index.projection {
            None => "ALL".to_owned(),
            Some(attributes) => format!("INCLUDE {}", attributes.join(", ")),
        },
        facets: facets.join(", "),
    }
}

/// What sets the `ttl` attribute: `USER.expiresAt` for each facet with a `#[ttl]` field.
pub(crate) fn ttl_sources(design: &TableDesign<'_>) -> Vec<String> {
    design
        .facets
        .iter()
        .filter_map(|f| f.schema.ttl_field.map(|t| format!("{}.{t}", f.schema.name)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, ORDER, USER};
    use super::*;
    use crate::schema::PK;
    use crate::shard::ShardPeriod;

    #[test]
    fn patterns_follow_the_wire_format() {
        // The wire format, as the key writer builds it.
        let mut w = crate::key::KeyWriter::new("#STATUS", "_");
        w.shard("2").part("status", "open");
        assert_eq!(w.finish().unwrap(), "#STATUS_2_open");
        let gsi2 = ORDER.index("GSI2").unwrap();
        assert_eq!(key_pattern(&gsi2.pk, "_"), "#STATUS_{shard 0..3}_{status}");
        assert_eq!(key_pattern(&USER.sk, "_"), "#USER");
        let gsi3 = ORDER.index("GSI3").unwrap();
        assert_eq!(key_pattern(&gsi3.pk, "::"), "#COUPON::{coupon?}");
        let two = fixtures::key(PK, "#P", &["a", "b"], &[false, true]);
        assert_eq!(key_pattern(&two, "#"), "#P#{a}#{b?}");
        let mut wide = gsi2.pk;
        wide.shard = Some(ShardSchema {
            count: 4,
            fields: &["orderId"],
            schedule: &[ShardPeriod {
                from: 1_798_761_600,
                count: 256,
            }],
            time_field: Some("created"),
        });
        assert_eq!(key_pattern(&wide, "_"), "#STATUS_{shard 0..ff}_{status}");
        assert_eq!(
            shard_note(wide.attribute, &wide.shard.unwrap()),
            if cfg!(feature = "chrono") {
                "GSI2PK sharded 4 ways by orderId, 256 from 2027-01-01T00:00:00Z (by created)"
            } else {
                "GSI2PK sharded 4 ways by orderId, 256 from 1798761600 (epoch seconds) \
                 (by created)"
            }
        );
    }

    #[test]
    fn a_facet_reads_by_key_partition_and_index() {
        let rows = access_patterns(&ORDER, &TableNames::DEFAULT);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "get one",
                "query the partition",
                "query GSI2 (byStatus)",
                "query GSI3",
                "query LSI1 (byTotal)"
            ]
        );
        assert_eq!(rows[0].partition, "PK = #USER_{userId}");
        assert_eq!(rows[0].sort.as_deref(), Some("SK = #ORDER_{orderId}"));
        assert_eq!(
            rows[1].sort.as_deref(),
            Some("begins_with(SK, \"#ORDER_\")")
        );
        assert_eq!(rows[2].index, Some("GSI2"));
        assert_eq!(rows[2].partition, "GSI2PK = #STATUS_{shard 0..3}_{status}");
        assert_eq!(rows[2].sort.as_deref(), Some("GSI2SK: #DATE_{day}"));
        assert_eq!(
            rows[2].notes,
            ["GSI2PK sharded 4 ways by orderId", "projection: keys only"]
        );
        assert_eq!(rows[3].partition, "GSI3PK = #COUPON_{coupon?}");
        assert_eq!(
            rows[3].notes,
            [
                "sparse: only records with all of coupon",
                "projection: include(total)"
            ]
        );
        assert_eq!(rows[4].partition, "PK = #USER_{userId}");
        assert_eq!(rows[4].sort.as_deref(), Some("LSI1SK: #TOTAL_{total}"));
        assert_eq!(rows[4].notes, ["local index: strongly consistent reads"]);
    }

    #[test]
    fn rows_name_attributes_and_indexes_as_the_table_does() {
        let rows = access_patterns(&ORDER, &fixtures::ONETABLE);
        assert_eq!(rows[0].partition, "pk = #USER_{userId}");
        assert_eq!(rows[0].sort.as_deref(), Some("sk = #ORDER_{orderId}"));
        assert_eq!(
            rows[1].sort.as_deref(),
            Some("begins_with(sk, \"#ORDER_\")")
        );
        // GSI2 keeps faceteer's names.
        assert_eq!(rows[2].partition, "GSI2PK = #STATUS_{shard 0..3}_{status}");
        assert_eq!(rows[4].name, "query lsi1 (byTotal)");
        assert_eq!(rows[4].index, Some("lsi1"));
        assert_eq!(rows[4].partition, "pk = #USER_{userId}");
        assert_eq!(rows[4].sort.as_deref(), Some("lsi1sk: #TOTAL_{total}"));
        let rows = access_patterns(&fixtures::TASK, &fixtures::ONETABLE);
        assert_eq!(rows[2].name, "query gsi1 (byDue)");
        assert_eq!(rows[2].partition, "gsi1pk = STATUS#{status}");
        assert_eq!(rows[2].sort.as_deref(), Some("gsi1sk: DUE#{due?}"));
        assert_eq!(
            rows[2].notes,
            [
                "sparse: only records with all of due",
                "projection: include(title)"
            ]
        );
        let mut sharded = *ORDER.index("GSI2").unwrap();
        sharded.pk.attribute = "GSI1PK";
        let row = index_pattern(&sharded, "_", &fixtures::ONETABLE);
        assert_eq!(row.notes[0], "gsi1pk sharded 4 ways by orderId");
    }

    #[test]
    fn sparse_notes_name_the_fields_deciding_membership() {
        // A local index: the table's partition key does not decide; each field once.
        let local = IndexSchema {
            kind: IndexKind::Local,
            number: 2,
            name: "LSI2",
            alias: None,
            pk: fixtures::key(PK, "#USER", &["userId"], &[false]),
            sk: Some(fixtures::key(
                "LSI2SK",
                "#TAG",
                &["tag", "tag", "rank"],
                &[true, true, false],
            )),
            projection: IndexProjection::All,
            sparse: true,
            native: None,
        };
        assert_eq!(sparse_fields(&local), ["tag"]);
        // Optional fields of both keys of a global index; no sort key at all.
        let mut global = local;
        global.kind = IndexKind::Global;
        global.pk = fixtures::key("GSI4PK", "#A", &["a", "b"], &[false, true]);
        assert_eq!(sparse_fields(&global), ["b", "tag"]);
        global.sk = None;
        assert_eq!(sparse_fields(&global), ["b"]);
        // No optional key field (an optional shard field): every input, each once.
        global.pk = KeySchema {
            shard: Some(ShardSchema {
                count: 2,
                fields: &["a", "c"],
                schedule: &[],
                time_field: None,
            }),
            ..fixtures::key("GSI4PK", "#A", &["a"], &[false])
        };
        assert_eq!(sparse_fields(&global), ["a", "c"]);
        let row = index_pattern(&global, "_", &TableNames::DEFAULT);
        assert_eq!(row.sort, None);
        assert_eq!(row.notes[1], "sparse: only records with all of a, c");
    }

    #[test]
    fn a_constant_sort_key_has_no_partition_query() {
        let rows = access_patterns(&USER, &TableNames::DEFAULT);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["get one", "query GSI1 (byEmail)"]);
        assert_eq!(rows[0].sort.as_deref(), Some("SK = #USER"));
        assert_eq!(rows[1].sort, None);
    }

    #[test]
    fn summary_lists_the_table_then_each_index() {
        let facets = fixtures::facets();
        let rows = index_rows(&TableDesign::new("app", &facets));
        let names: Vec<&str> = rows.iter().map(|r| r.name).collect();
        assert_eq!(names, ["table", "GSI1", "GSI2", "GSI3", "LSI1"]);
        assert_eq!(rows[0].facets, "USER, ORDER, TEAM");
        assert_eq!(rows[1].facets, "USER (byEmail), TEAM (byOwner)");
        assert_eq!(rows[1].sort_key, None);
        assert_eq!(
            rows[2].projection,
            "INCLUDE day, facet, orderId, status, userId"
        );
        assert_eq!(
            (rows[4].kind, rows[4].partition_key.as_str()),
            ("local", "PK")
        );
        let facets = fixtures::facets();
        assert_eq!(
            ttl_sources(&TableDesign::new("app", &facets)),
            ["USER.expiresAt"]
        );
    }
}
