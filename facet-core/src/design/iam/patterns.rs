//! One policy per access pattern: each of a facet's reads
//! ([`access_patterns`](crate::design::access_patterns)), and a search of each of its
//! vector indexes.

use super::actions::{GET, QUERY, SEARCH};
use super::document::{Document, Statement};
use super::grant::facet_grant;
use super::options::PolicyKind;
use super::planned::Planned;
use super::reach::{Area, Reaches};
use super::roles::scope_text;
use crate::design::model::{FacetDesign, TableDesign};
use crate::design::patterns::access_patterns;

/// The access-pattern policies of every facet of `design`, in declaration order, each
/// facet's in [`access_patterns`] order, then its vector searches.
pub(crate) fn patterns(design: &TableDesign<'_>, reaches: &Reaches) -> Vec<Planned> {
    let mut out = Vec::new();
    for f in design.facets {
        out.extend(facet_patterns(design, reaches, f));
    }
    out
}

/// One read: its name, what it does, where.
struct Read<'r> {
    name: String,
    actions: &'static [&'static str],
    sid: &'static str,
    area: &'r Area,
    vector: bool,
}

fn facet_patterns(
    design: &TableDesign<'_>,
    reaches: &Reaches,
    f: &FacetDesign<'_>,
) -> Vec<Planned> {
    let s = f.schema;
    let rows = access_patterns(s, &design.names);
    // The table's patterns come first (a get, then a query unless the sort key is
    // constant), then one per index, in the facet's index order.
    let (table_rows, index_rows) = rows.split_at(rows.len() - s.indexes.len());
    let mut reads = Vec::new();
    for (i, row) in table_rows.iter().enumerate() {
        let (actions, sid) = if i == 0 {
            (GET, "GetOne")
        } else {
            (QUERY, "QueryPartition")
        };
        reads.push(Read {
            name: row.name.clone(),
            actions,
            sid,
            area: &reaches.table,
            vector: false,
        });
    }
    for (row, index) in index_rows.iter().zip(s.indexes) {
        let name = design.names.index_name(index.name);
        reads.push(Read {
            name: row.name.clone(),
            actions: QUERY,
            sid: "QueryIndex",
            area: reaches
                .index(name)
                .expect("a facet's index is the design's"),
            vector: false,
        });
    }
    for v in s.vectors {
        reads.push(Read {
            name: format!("search {}", v.index),
            actions: SEARCH,
            sid: "SearchVectors",
            area: reaches
                .index(v.index)
                .expect("a facet's vector index is the design's"),
            vector: true,
        });
    }
    reads
        .into_iter()
        .map(|read| pattern(design, s.name, read))
        .collect()
}

/// The policy of one read of facet `facet`.
fn pattern(design: &TableDesign<'_>, facet: &'static str, read: Read<'_>) -> Planned {
    let mut notes = Vec::new();
    let statement = if read.vector {
        if read.area.guarded {
            notes.push(format!(
                "not scoped: DynamoDB evaluates no dynamodb:LeadingKeys on SearchVectors, so \
                 this searches every record of {}",
                read.area.resource.describe(design.table)
            ));
        }
        Statement::allow(read.sid, read.actions, vec![read.area.resource])
    } else {
        facet_grant(read.area, facet, read.actions, read.sid, &mut notes)
    };
    let mut doc = Document::default();
    doc.push(statement);
    doc.deny_unsafe_tags();
    let actions: Vec<String> = read
        .actions
        .iter()
        .map(|a| format!("dynamodb:{a}"))
        .collect();
    let description = format!(
        "{facet} {} in DynamoDB table {}: {} on {}{}",
        read.name,
        design.table,
        actions.join(", "),
        read.area.resource.describe(design.table),
        scope_text(&doc, &notes)
    );
    let kind = PolicyKind::Pattern {
        facet,
        pattern: read.name,
    };
    Planned::new(design, kind, description, notes, doc)
}
