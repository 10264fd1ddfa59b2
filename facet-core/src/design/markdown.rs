//! The access patterns as a Markdown page.

use std::fmt::Write as _;

use super::model::TableDesign;
use super::patterns::{access_patterns, index_rows, key_pattern, legend, ttl_sources};
use crate::schema::{PK, SK};

/// A Markdown page of the design's table: its indexes (name, kind, keys, projection, the
/// facets using each), TTL and stream, then, for each facet, its keys and a table of the
/// reads they allow ([`access_patterns`](super::access_patterns)). Attributes and indexes
/// are named as the table names them ([`TableDesign::names`]).
pub fn access_patterns_markdown(design: &TableDesign<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Table {}\n", code(design.table));
    out.push_str("| Index | Kind | Partition key | Sort key | Projection | Facets |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for row in index_rows(design) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            code(row.name),
            row.kind,
            code(&row.partition_key),
            row.sort_key.as_deref().map_or_else(|| "—".to_owned(), code),
            cell(&row.projection),
            cell(&row.facets),
        );
    }
    out.push('\n');
    if let Some(attribute) = design.ttl_attribute() {
        let _ = writeln!(
            out,
            "Time to live: {} (epoch seconds), from {}.\n",
            code(attribute),
            ttl_sources(design).join(", ")
        );
    }
    if let Some(view) = design.stream {
        let _ = writeln!(out, "Stream: {}.\n", code(view.as_str()));
    }
    let _ = writeln!(out, "{}\n", legend(design.attribute(SK)));
    for facet in design.facets {
        let s = facet.schema;
        let _ = writeln!(out, "## {}\n", code(s.name));
        let _ = writeln!(
            out,
            "{} = {}, {} = {} (delimiter {}).\n",
            code(design.attribute(PK)),
            code(&key_pattern(&s.pk, s.delimiter)),
            code(design.attribute(SK)),
            code(&key_pattern(&s.sk, s.delimiter)),
            code(s.delimiter)
        );
        let attributes: Vec<String> = facet.attribute_names().iter().map(|a| code(a)).collect();
        let _ = writeln!(out, "Attributes: {}.\n", attributes.join(", "));
        out.push_str("| Access pattern | Index | Partition key | Sort key | Notes |\n");
        out.push_str("|---|---|---|---|---|\n");
        for p in access_patterns(s, &design.names) {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                p.name,
                code(p.index.unwrap_or("table")),
                code(&p.partition),
                p.sort.as_deref().map_or_else(|| "—".to_owned(), code),
                cell(&p.notes.join("; ")),
            );
        }
        out.push('\n');
    }
    out
}

/// `text` as inline code in a table cell: `|` escaped, backticks fenced with more
/// backticks.
fn code(text: &str) -> String {
    let text = text.replace('|', "\\|");
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// Plain text in a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::super::{fixtures, StreamView};
    use super::*;

    fn page() -> String {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_stream(StreamView::KeysOnly);
        access_patterns_markdown(&design)
    }

    fn has_line(page: &str, line: &str) {
        assert_eq!(
            page.lines().filter(|l| *l == line).count(),
            1,
            "{line}\nin\n{page}"
        );
    }

    #[test]
    fn the_summary_lists_indexes_ttl_and_stream() {
        let page = page();
        assert!(page.starts_with("# Table `app`\n"));
        has_line(
            &page,
            "| `table` | table | `PK` | `SK` | ALL | USER, ORDER, TEAM |",
        );
        has_line(
            &page,
            "| `GSI1` | global | `GSI1PK` | — | ALL | USER (byEmail), TEAM (byOwner) |",
        );
        has_line(
            &page,
            "| `GSI3` | global | `GSI3PK` | `GSI3SK` | INCLUDE coupon, facet, orderId, total, \
             userId | ORDER |",
        );
        has_line(
            &page,
            "| `LSI1` | local | `PK` | `LSI1SK` | ALL | ORDER (byTotal) |",
        );
        has_line(
            &page,
            "Time to live: `ttl` (epoch seconds), from USER.expiresAt.",
        );
        has_line(&page, "Stream: `KEYS_ONLY`.");
    }

    #[test]
    fn each_facet_has_its_rows() {
        let page = page();
        has_line(&page, "## `ORDER`");
        has_line(
            &page,
            "`PK` = `#USER_{userId}`, `SK` = `#ORDER_{orderId}` (delimiter `_`).",
        );
        has_line(
            &page,
            "| get one | `table` | `PK = #USER_{userId}` | `SK = #ORDER_{orderId}` |  |",
        );
        has_line(
            &page,
            "| query the partition | `table` | `PK = #USER_{userId}` | \
             `begins_with(SK, \"#ORDER_\")` |  |",
        );
        has_line(
            &page,
            "| query GSI2 (byStatus) | `GSI2` | `GSI2PK = #STATUS_{shard 0..3}_{status}` | \
             `GSI2SK: #DATE_{day}` | GSI2PK sharded 4 ways by orderId; projection: keys only |",
        );
        has_line(
            &page,
            "| query GSI3 | `GSI3` | `GSI3PK = #COUPON_{coupon?}` | `GSI3SK: #ORDER_{orderId}` \
             | sparse: only records with all of coupon; projection: include(total) |",
        );
        has_line(
            &page,
            "| query LSI1 (byTotal) | `LSI1` | `PK = #USER_{userId}` | `LSI1SK: #TOTAL_{total}` \
             | local index: strongly consistent reads |",
        );
        has_line(
            &page,
            "| query GSI1 (byEmail) | `GSI1` | `GSI1PK = #EMAIL_{email}` | — |  |",
        );
        has_line(
            &page,
            "| get one | `table` | `PK = #USER_{userId}` | `SK = #USER` |  |",
        );
        has_line(&page, "Attributes: `teamId`, `ownerEmail`.");
        assert_eq!(page.matches("| query the partition |").count(), 1);
    }

    #[test]
    fn a_table_with_other_names_is_described_with_them() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_names(super::super::fixtures::ONETABLE);
        let page = access_patterns_markdown(&design);
        has_line(
            &page,
            "| `table` | table | `pk` | `sk` | ALL | USER, ORDER, TEAM |",
        );
        has_line(
            &page,
            "| `gsi1` | global | `gsi1pk` | — | ALL | USER (byEmail), TEAM (byOwner) |",
        );
        has_line(
            &page,
            "| `GSI3` | global | `GSI3PK` | `GSI3SK` | INCLUDE _type, coupon, orderId, total, \
             userId | ORDER |",
        );
        has_line(
            &page,
            "| `lsi1` | local | `pk` | `lsi1sk` | ALL | ORDER (byTotal) |",
        );
        has_line(
            &page,
            "Time to live: `expires` (epoch seconds), from USER.expiresAt.",
        );
        has_line(
            &page,
            "`pk` = `#USER_{userId}`, `sk` = `#ORDER_{orderId}` (delimiter `_`).",
        );
        assert!(page.contains("; `begins_with(sk, \"prefix\")`: every record"));
        has_line(
            &page,
            "| query the partition | `table` | `pk = #USER_{userId}` | \
             `begins_with(sk, \"#ORDER_\")` |  |",
        );
        has_line(
            &page,
            "| query gsi1 (byEmail) | `gsi1` | `gsi1pk = #EMAIL_{email}` | — |  |",
        );
        has_line(
            &page,
            "| query GSI2 (byStatus) | `GSI2` | `GSI2PK = #STATUS_{shard 0..3}_{status}` | \
             `GSI2SK: #DATE_{day}` | GSI2PK sharded 4 ways by orderId; projection: keys only |",
        );
        has_line(
            &page,
            "| query lsi1 (byTotal) | `lsi1` | `pk = #USER_{userId}` | `lsi1sk: #TOTAL_{total}` \
             | local index: strongly consistent reads |",
        );
        let tasks = fixtures::tasks();
        let design = TableDesign::new("tasks", &tasks).with_names(super::super::fixtures::ONETABLE);
        let page = access_patterns_markdown(&design);
        has_line(
            &page,
            "| query gsi1 (byDue) | `gsi1` | `gsi1pk = STATUS#{status}` | `gsi1sk: DUE#{due?}` \
             | sparse: only records with all of due; projection: include(title) |",
        );
        for canonical in ["`PK", "`SK", "GSI1PK", "GSI1SK", "`facet`", "`ttl`"] {
            assert!(!page.contains(canonical), "{canonical} in\n{page}");
        }
    }

    #[test]
    fn cells_escape_pipes() {
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("a`b"), "`` a`b ``");
    }
}
