//! Key patterns ([`key_pattern`]) and access patterns ([`access_patterns`]), the index
//! summary and the legend: the text the Markdown and HTML pages share.

use std::fmt::Write as _;

use super::layout::IndexDesign;
use super::model::TableDesign;
use crate::schema::{FacetSchema, IndexKind, IndexProjection, IndexSchema, KeySchema, ShardSchema};
use crate::shard::shard_ids;

/// How the access-pattern tables write their key conditions.
pub(crate) const LEGEND: &str = "`ATTR = pattern`: the key equals the pattern; \
`begins_with(SK, \"prefix\")`: every record of the facet in the partition; \
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
        let _ = write!(out, "{delimiter}{{{field}{mark}}}");
    }
    out
}

/// What every sort key of the facet starts with: the prefix, and the delimiter when the
/// first key field is required (the `begins_with` of a query of the partition).
fn sort_prefix(key: &KeySchema, delimiter: &str) -> String {
    let mut out = key.prefix.to_owned();
    if key.first_field_required() {
        out.push_str(delimiter);
    }
    out
}

/// One way to read a facet's records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessPattern {
    /// What the read does: `get one`, `query the partition`, `query GSI2 (byStatus)`.
    pub name: String,
    /// The index read (`None`: the table).
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
/// each index the facet uses.
pub fn access_patterns(facet: &FacetSchema) -> Vec<AccessPattern> {
    let d = facet.delimiter;
    let partition = format!("{} = {}", facet.pk.attribute, key_pattern(&facet.pk, d));
    let notes: Vec<String> = facet
        .pk
        .shard
        .iter()
        .map(|s| shard_note(&facet.pk, s))
        .collect();
    let mut out = vec![AccessPattern {
        name: "get one".to_owned(),
        index: None,
        partition: partition.clone(),
        sort: Some(format!(
            "{} = {}",
            facet.sk.attribute,
            key_pattern(&facet.sk, d)
        )),
        notes: notes.clone(),
    }];
    if !facet.sk.is_constant() {
        out.push(AccessPattern {
            name: "query the partition".to_owned(),
            index: None,
            partition,
            sort: Some(format!(
                "begins_with({}, \"{}\")",
                facet.sk.attribute,
                sort_prefix(&facet.sk, d)
            )),
            notes,
        });
    }
    out.extend(facet.indexes.iter().map(|i| index_pattern(i, d)));
    out
}

fn index_pattern(index: &IndexSchema, delimiter: &str) -> AccessPattern {
    let name = match index.alias {
        Some(alias) => format!("query {} ({alias})", index.name),
        None => format!("query {}", index.name),
    };
    let mut notes: Vec<String> = index
        .pk
        .shard
        .iter()
        .map(|s| shard_note(&index.pk, s))
        .collect();
    if index.sparse {
        let fields: Vec<&str> = index
            .keys()
            .flat_map(|k| k.fields.iter().copied())
            .collect();
        let optional: Vec<&str> = index
            .keys()
            .flat_map(|k| k.fields.iter().zip(k.optional))
            .filter_map(|(f, o)| o.then_some(*f))
            .collect();
        let needed = if optional.is_empty() {
            fields
        } else {
            optional
        };
        notes.push(format!(
            "sparse: only records with all of {}",
            needed.join(", ")
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
    AccessPattern {
        name,
        index: Some(index.name),
        partition: format!(
            "{} = {}",
            index.pk.attribute,
            key_pattern(&index.pk, delimiter)
        ),
        sort: index
            .sk
            .map(|k| format!("{}: {}", k.attribute, key_pattern(&k, delimiter))),
        notes,
    }
}

/// `GSI2PK sharded 4 ways by orderId`, with the counts of later periods.
fn shard_note(key: &KeySchema, shard: &ShardSchema) -> String {
    let mut out = format!(
        "{} sharded {} ways by {}",
        key.attribute,
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
fn time_text(seconds: i64) -> String {
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
    pub partition_key: &'static str,
    pub sort_key: Option<&'static str>,
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
        partition_key: crate::schema::PK,
        sort_key: Some(crate::schema::SK),
        projection: "ALL".to_owned(),
        facets: all.join(", "),
    };
    let indexes = design.indexes().into_iter().map(|i| index_row(&i));
    std::iter::once(table).chain(indexes).collect()
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
        kind: match index.kind {
            IndexKind::Global => "global",
            IndexKind::Local => "local",
        },
        partition_key: index.partition_key,
        sort_key: index.sort_key,
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
            shard_note(&wide, &wide.shard.unwrap()),
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
        let rows = access_patterns(&ORDER);
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
    fn a_constant_sort_key_has_no_partition_query() {
        let rows = access_patterns(&USER);
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
        assert_eq!((rows[4].kind, rows[4].partition_key), ("local", "PK"));
        let facets = fixtures::facets();
        assert_eq!(
            ttl_sources(&TableDesign::new("app", &facets)),
            ["USER.expiresAt"]
        );
    }
}
