//! The access patterns as a self-contained HTML page, with a picture of the partitions.

use std::fmt::Write as _;

use super::model::{FacetDesign, TableDesign};
use super::patterns::{access_patterns, index_rows, key_pattern, legend, ttl_sources};
use crate::schema::{FacetSchema, FACET_ATTRIBUTE, PK, SK, TTL_ATTRIBUTE};

/// Each facet's color (accent, background), by its position in the design (cycling).
const PALETTE: [(&str, &str); 8] = [
    ("#2563eb", "#eff6ff"),
    ("#059669", "#ecfdf5"),
    ("#d97706", "#fffbeb"),
    ("#db2777", "#fdf2f8"),
    ("#7c3aed", "#f5f3ff"),
    ("#0891b2", "#ecfeff"),
    ("#dc2626", "#fef2f2"),
    ("#65a30d", "#f7fee7"),
];

const STYLE: &str = "
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f8fafc; color: #0f172a;
  font: 14px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 32px 24px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid #e2e8f0; }
h3 { font-size: 15px; margin: 24px 0 8px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.meta, .help { color: #475569; margin: 0 0 8px; }
.help { font-size: 12.5px; }
.card { background: #fff; border: 1px solid #e2e8f0; border-radius: 8px; overflow-x: auto;
  box-shadow: 0 1px 2px rgba(15, 23, 42, .05); }
table { border-collapse: collapse; width: 100%; }
th { background: #f1f5f9; color: #334155; font-weight: 600; text-align: left;
  font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
th, td { padding: 7px 12px; border-bottom: 1px solid #e2e8f0; vertical-align: top; }
tr:last-child td { border-bottom: none; }
.grid td.pk { background: #fff; border-right: 1px solid #e2e8f0; vertical-align: middle; font-weight: 600; }
.grid td.pk, .grid td.sk { min-width: 9em; max-width: 22em; overflow-wrap: anywhere; }
.grid tr.item td:not(.pk) { background: var(--bg); }
.grid td.sk { border-left: 4px solid var(--fc); }
.grid .attrs { display: flex; flex-wrap: wrap; gap: 4px 14px; }
.grid .attr { min-width: 0; overflow-wrap: anywhere; }
.grid .name { display: block; color: #64748b; font-size: 11px; }
.grid .key .name { color: var(--fc); font-weight: 600; }
.chip { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px;
  font-weight: 600; color: #fff; background: var(--fc); }
.legend .chip { margin-right: 6px; }
.note { display: inline-block; margin: 1px 4px 1px 0; padding: 0 7px; border-radius: 4px;
  background: #f1f5f9; color: #334155; font-size: 12px; }
.muted { color: #94a3b8; }
";

/// A self-contained HTML page (inline CSS, no scripts, no external resources) of the
/// design's table: a picture of each partition the facets lay out, as NoSQL Workbench
/// draws one (facets sharing a partition-key prefix in one grid, one example item per
/// facet, colored per facet), then the content of
/// [`access_patterns_markdown`](super::access_patterns_markdown): the indexes, TTL and
/// stream, and each facet's access patterns. Attributes and indexes are named as the table
/// names them ([`TableDesign::names`]).
pub fn access_patterns_html(design: &TableDesign<'_>) -> String {
    let mut out = String::new();
    head(&mut out, design);
    partitions(&mut out, design);
    indexes(&mut out, design);
    facets(&mut out, design);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn head(out: &mut String, design: &TableDesign<'_>) {
    let table = escape(design.table);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Table {table}</title>\n<style>{STYLE}"
    );
    for (i, (accent, background)) in PALETTE.iter().enumerate() {
        let _ = writeln!(out, ".c{i} {{ --fc: {accent}; --bg: {background}; }}");
    }
    out.push_str("</style>\n</head>\n<body>\n<main>\n");
    let _ = writeln!(out, "<h1>Table <code>{table}</code></h1>");
    let mut meta = vec![
        plural(design.facets.len(), "facet"),
        plural(design.indexes().len(), "secondary index"),
    ];
    if let Some(ttl) = design.ttl_attribute() {
        meta.push(format!("time to live {}", code(ttl)));
    }
    if let Some(view) = design.stream {
        meta.push(format!("stream <code>{}</code>", view.as_str()));
    }
    let _ = writeln!(out, "<p class=\"meta\">{}</p>", meta.join(" · "));
}

fn plural(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('x')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{n} {stem}xes"),
        _ => format!("{n} {noun}s"),
    }
}

/// One grid per partition-key prefix, a row per facet stored under it.
fn partitions(out: &mut String, design: &TableDesign<'_>) {
    out.push_str("<h2>Partitions</h2>\n<p class=\"legend\">");
    for (i, facet) in design.facets.iter().enumerate() {
        let _ = write!(out, "{}", chip(i, facet.schema.name));
    }
    out.push_str("</p>\n");
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, facet) in design.facets.iter().enumerate() {
        let prefix = facet.schema.pk.prefix;
        match groups.iter_mut().find(|(p, _)| *p == prefix) {
            Some((_, members)) => members.push(i),
            None => groups.push((prefix, vec![i])),
        }
    }
    for (_, members) in groups {
        grid(out, design, &members);
    }
}

/// One row of a partition's grid: an example item of a facet.
struct ExampleItem<'a> {
    /// The facet's position in the design (its color).
    position: usize,
    schema: &'a FacetSchema,
    pk: String,
    sk: String,
    /// Each attribute but `facet`: its name in the table, whether the library writes it
    /// (a key attribute or `ttl`), and its example value.
    attributes: Vec<(&'static str, bool, String)>,
}

impl<'a> ExampleItem<'a> {
    fn of(position: usize, facet: &FacetDesign<'a>, design: &TableDesign<'_>) -> Self {
        let s = facet.schema;
        ExampleItem {
            position,
            schema: s,
            pk: key_pattern(&s.pk, s.delimiter),
            sk: key_pattern(&s.sk, s.delimiter),
            attributes: facet
                .item_attributes()
                .into_iter()
                .filter(|name| *name != FACET_ATTRIBUTE)
                .map(|name| {
                    let written = s.is_stored_only(name);
                    (design.attribute(name), written, example_value(s, name))
                })
                .collect(),
        }
    }
}

fn grid(out: &mut String, design: &TableDesign<'_>, members: &[usize]) {
    let rows: Vec<ExampleItem<'_>> = members
        .iter()
        .map(|&i| ExampleItem::of(i, &design.facets[i], design))
        .collect();
    let width = rows.iter().map(|r| r.attributes.len()).max().unwrap_or(0);
    let mut titles: Vec<String> = Vec::new();
    for row in &rows {
        let title = code(&row.pk);
        if !titles.contains(&title) {
            titles.push(title);
        }
    }
    let _ = writeln!(out, "<h3>Partition {}</h3>", titles.join(" / "));
    out.push_str("<div class=\"card\"><table class=\"grid\">\n<thead><tr>");
    for attribute in [PK, SK, FACET_ATTRIBUTE] {
        let _ = write!(out, "<th>{}</th>", escape(design.attribute(attribute)));
    }
    // A facet's attributes wrap in one cell, so a wide facet stays readable at any width.
    if width > 0 {
        out.push_str("<th>Attributes</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (n, row) in rows.iter().enumerate() {
        let _ = write!(out, "<tr class=\"item c{}\">", row.position % PALETTE.len());
        // The partition-key cell spans the run of rows with the same pattern.
        if n == 0 || rows[n - 1].pk != row.pk {
            let span = rows[n..].iter().take_while(|r| r.pk == row.pk).count();
            let _ = write!(
                out,
                "<td class=\"pk\" rowspan=\"{span}\">{}</td>",
                code(&row.pk)
            );
        }
        let _ = write!(
            out,
            "<td class=\"sk\">{}</td><td>{}</td>",
            code(&row.sk),
            chip(row.position, row.schema.name)
        );
        if width > 0 {
            out.push_str("<td><div class=\"attrs\">");
            for (name, written, value) in &row.attributes {
                let class = if *written { "attr key" } else { "attr" };
                let _ = write!(
                    out,
                    "<div class=\"{class}\"><span class=\"name\">{}</span>{}</div>",
                    escape(name),
                    code(value)
                );
            }
            out.push_str("</div></td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
}

/// An example value of attribute `name` (faceteer's name) of an item of facet `s`: an index
/// key's pattern, `{field}` for a field, the `#[ttl]` field for `ttl`.
fn example_value(s: &FacetSchema, name: &str) -> String {
    let keys = s.indexes.iter().flat_map(|i| i.written_keys());
    if let Some(key) = keys.into_iter().find(|k| k.attribute == name) {
        return key_pattern(key, s.delimiter);
    }
    match s.ttl_field {
        Some(field) if name == TTL_ATTRIBUTE => format!("{{{field}}} (epoch seconds)"),
        _ => format!("{{{name}}}"),
    }
}

fn indexes(out: &mut String, design: &TableDesign<'_>) {
    out.push_str("<h2>Indexes</h2>\n<div class=\"card\"><table>\n<thead><tr>");
    for title in [
        "Index",
        "Kind",
        "Partition key",
        "Sort key",
        "Projection",
        "Facets",
    ] {
        let _ = write!(out, "<th>{title}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in index_rows(design) {
        let sort = row
            .sort_key
            .as_deref()
            .map_or_else(|| "<span class=\"muted\">—</span>".to_owned(), code);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{sort}</td><td>{}</td><td>{}</td></tr>",
            code(row.name),
            row.kind,
            code(&row.partition_key),
            escape(&row.projection),
            escape(&row.facets),
        );
    }
    out.push_str("</tbody>\n</table></div>\n");
    if let Some(attribute) = design.ttl_attribute() {
        let _ = writeln!(
            out,
            "<p class=\"meta\">Time to live: {} (epoch seconds), from {}.</p>",
            code(attribute),
            escape(&ttl_sources(design).join(", "))
        );
    }
    if let Some(view) = design.stream {
        let _ = writeln!(
            out,
            "<p class=\"meta\">Stream: {}.</p>",
            code(view.as_str())
        );
    }
}

fn facets(out: &mut String, design: &TableDesign<'_>) {
    out.push_str("<h2>Access patterns</h2>\n");
    let _ = writeln!(
        out,
        "<p class=\"help\">{}</p>",
        inline_code(&legend(design.attribute(SK)))
    );
    for (i, facet) in design.facets.iter().enumerate() {
        let s = facet.schema;
        let _ = writeln!(out, "<h3>{}</h3>", chip(i, s.name));
        let attributes: Vec<String> = facet.attribute_names().iter().map(|a| code(a)).collect();
        let _ = writeln!(
            out,
            "<p class=\"meta\">{} = {}, {} = {} (delimiter {}). Attributes: {}.</p>",
            code(design.attribute(PK)),
            code(&key_pattern(&s.pk, s.delimiter)),
            code(design.attribute(SK)),
            code(&key_pattern(&s.sk, s.delimiter)),
            code(s.delimiter),
            attributes.join(", ")
        );
        out.push_str("<div class=\"card\"><table>\n<thead><tr>");
        for title in [
            "Access pattern",
            "Index",
            "Partition key",
            "Sort key",
            "Notes",
        ] {
            let _ = write!(out, "<th>{title}</th>");
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for p in access_patterns(s, &design.names) {
            let sort = p
                .sort
                .as_deref()
                .map_or_else(|| "<span class=\"muted\">—</span>".to_owned(), code);
            let notes: Vec<String> = p
                .notes
                .iter()
                .map(|n| format!("<span class=\"note\">{}</span>", escape(n)))
                .collect();
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{sort}</td><td>{}</td></tr>",
                escape(&p.name),
                code(p.index.unwrap_or("table")),
                code(&p.partition),
                notes.concat(),
            );
        }
        out.push_str("</tbody>\n</table></div>\n");
    }
}

fn chip(i: usize, name: &str) -> String {
    format!(
        "<span class=\"chip c{}\">{}</span>",
        i % PALETTE.len(),
        escape(name)
    )
}

fn code(text: &str) -> String {
    format!("<code>{}</code>", escape(text))
}

/// Markdown-style text with `inline code` spans, as HTML.
fn inline_code(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { code(part) } else { escape(part) })
        .collect()
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{fixtures, StreamView};
    use super::*;

    fn page() -> String {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_stream(StreamView::NewImage);
        access_patterns_html(&design)
    }

    #[test]
    fn the_page_is_self_contained_and_balanced() {
        let page = page();
        assert!(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
        assert!(page.ends_with("</html>\n"));
        for absent in [
            "<script", "src=", "href=", "http://", "https://", "@import", "url(",
        ] {
            assert!(!page.contains(absent), "{absent}");
        }
        for tag in [
            "table", "tr", "td", "th", "thead", "tbody", "div", "code", "span", "p",
        ] {
            let open = page.matches(&format!("<{tag}>")).count()
                + page.matches(&format!("<{tag} ")).count();
            assert_eq!(open, page.matches(&format!("</{tag}>")).count(), "<{tag}>");
        }
        assert!(page.contains(".c1 { --fc: #059669; --bg: #ecfdf5; }"));
        assert!(page.contains("3 facets · 4 secondary indexes · time to live"));
    }

    #[test]
    fn facets_sharing_a_partition_share_a_grid() {
        let page = page();
        assert_eq!(page.matches("<table class=\"grid\">").count(), 2);
        assert!(page.contains("<h3>Partition <code>#USER_{userId}</code></h3>"));
        assert!(page.contains("<h3>Partition <code>#TEAM_{teamId}</code></h3>"));
        let user_row = "<tr class=\"item c0\"><td class=\"pk\" rowspan=\"2\">\
            <code>#USER_{userId}</code></td><td class=\"sk\"><code>#USER</code></td>\
            <td><span class=\"chip c0\">USER</span></td><td><div class=\"attrs\">\
            <div class=\"attr key\"><span class=\"name\">GSI1PK</span><code>#EMAIL_{email}</code></div>\
            <div class=\"attr key\"><span class=\"name\">ttl</span>\
            <code>{expiresAt} (epoch seconds)</code></div>\
            <div class=\"attr\"><span class=\"name\">userId</span><code>{userId}</code></div>";
        assert!(page.contains(user_row), "{page}");
        // The order's row has no PK cell of its own: the user's spans it.
        let order_row = "<tr class=\"item c1\"><td class=\"sk\"><code>#ORDER_{orderId}</code>\
            </td><td><span class=\"chip c1\">ORDER</span></td><td><div class=\"attrs\">\
            <div class=\"attr key\"><span class=\"name\">GSI2PK</span>\
            <code>#STATUS_{shard 0..3}_{status}</code></div>";
        assert!(page.contains(order_row), "{page}");
        // Each row's attributes wrap in one cell: no padding, no columns to scroll to.
        assert!(page.contains("<th>Attributes</th>"));
        assert!(page.contains("<code>{expiresAt}</code></div></div></td></tr>"));
        assert!(!page.contains("colspan"));
    }

    #[test]
    fn indexes_and_access_patterns_are_listed() {
        let page = page();
        assert!(page.contains(
            "<tr><td><code>GSI2</code></td><td>global</td><td><code>GSI2PK</code></td>\
             <td><code>GSI2SK</code></td><td>INCLUDE day, facet, orderId, status, userId</td>\
             <td>ORDER (byStatus)</td></tr>"
        ));
        assert!(page.contains(
            "<tr><td>query the partition</td><td><code>table</code></td>\
             <td><code>PK = #USER_{userId}</code></td>\
             <td><code>begins_with(SK, &quot;#ORDER_&quot;)</code></td><td></td></tr>"
        ));
        assert!(page.contains(
            "<td><span class=\"note\">GSI2PK sharded 4 ways by orderId</span>\
             <span class=\"note\">projection: keys only</span></td>"
        ));
        assert!(page.contains("<p class=\"meta\">Stream: <code>NEW_IMAGE</code>.</p>"));
        assert!(page.contains("from USER.expiresAt.</p>"));
    }

    #[test]
    fn a_table_with_other_names_is_drawn_with_them() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_names(fixtures::ONETABLE);
        let page = access_patterns_html(&design);
        assert!(page.contains("3 facets · 4 secondary indexes · time to live <code>expires</code>"));
        assert_eq!(
            page.matches("<thead><tr><th>pk</th><th>sk</th><th>_type</th>")
                .count(),
            2,
            "{page}"
        );
        let user_row = "<div class=\"attr key\"><span class=\"name\">gsi1pk</span>\
            <code>#EMAIL_{email}</code></div>\
            <div class=\"attr key\"><span class=\"name\">expires</span>\
            <code>{expiresAt} (epoch seconds)</code></div>";
        assert!(page.contains(user_row), "{page}");
        assert!(page.contains("<div class=\"attr key\"><span class=\"name\">lsi1sk</span>"));
        assert!(page.contains(
            "<tr><td><code>lsi1</code></td><td>local</td><td><code>pk</code></td>\
             <td><code>lsi1sk</code></td><td>ALL</td><td>ORDER (byTotal)</td></tr>"
        ));
        assert!(page.contains(
            "<tr><td><code>GSI2</code></td><td>global</td><td><code>GSI2PK</code></td>\
             <td><code>GSI2SK</code></td><td>INCLUDE _type, day, orderId, status, userId</td>"
        ));
        assert!(page.contains("Time to live: <code>expires</code> (epoch seconds)"));
        assert!(page.contains("<code>begins_with(sk, &quot;prefix&quot;)</code>: every record"));
        assert!(page.contains(
            "<p class=\"meta\"><code>pk</code> = <code>#USER_{userId}</code>, \
             <code>sk</code> = <code>#ORDER_{orderId}</code>"
        ));
        assert!(page.contains(
            "<tr><td>query gsi1 (byEmail)</td><td><code>gsi1</code></td>\
             <td><code>gsi1pk = #EMAIL_{email}</code></td>"
        ));
        for canonical in [">PK<", ">SK<", ">facet<", ">ttl<", "GSI1", "LSI1SK"] {
            assert!(!page.contains(canonical), "{canonical} in\n{page}");
        }
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(inline_code("a `<b>` c"), "a <code>&lt;b&gt;</code> c");
        assert_eq!(plural(1, "secondary index"), "1 secondary index");
        assert_eq!(plural(2, "facet"), "2 facets");
    }
}
