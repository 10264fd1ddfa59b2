//! The table as a Terraform resource.

use std::fmt::Write as _;

use super::layout::IndexDesign;
use super::model::TableDesign;
use super::settings::terraform::{self as settings, Entry};
use crate::schema::{IndexKind, PK, SK};

/// The design's table as a Terraform `aws_dynamodb_table` resource (HCL, laid out as
/// `terraform fmt` lays it out), the same table [`cloudformation`](super::cloudformation)
/// describes. The resource is named after the table in `snake_case` (`AppData` →
/// `app_data`). Every attribute and index is named as the table names it
/// ([`TableDesign::names`]).
pub fn terraform(design: &TableDesign<'_>) -> String {
    let mut hcl = Hcl::default();
    hcl.open(&format!(
        "resource {} {}",
        quote("aws_dynamodb_table"),
        quote(&snake_name(design.table))
    ));
    hcl.attr("name", quote(design.table));
    let capacity = settings::capacity(design);
    let (billing, capacity) = capacity.split_at(1);
    hcl.entries(billing);
    hcl.attr("hash_key", quote(design.attribute(PK)));
    hcl.attr("range_key", quote(design.attribute(SK)));
    hcl.entries(capacity);
    if let Some(view) = design.stream {
        hcl.attr("stream_enabled", "true".to_owned());
        hcl.attr("stream_view_type", quote(view.as_str()));
    }
    // Only the keys of the table and its secondary indexes: the provider refuses an
    // attribute no key uses, and a vector index resource types its search schema itself.
    for key in design.key_attributes() {
        hcl.open("attribute");
        hcl.attr("name", quote(key.name));
        hcl.attr("type", quote(key.ty.as_str()));
        hcl.close();
    }
    for index in design.indexes() {
        index_block(&mut hcl, design, &index);
    }
    if let Some(ttl) = design.ttl_attribute() {
        hcl.open("ttl");
        hcl.attr("attribute_name", quote(ttl));
        hcl.attr("enabled", "true".to_owned());
        hcl.close();
    }
    hcl.entries(&settings::table_settings(design));
    hcl.close();
    for (vector, _) in design.vectors() {
        vector_resource(&mut hcl, design.table, &vector);
    }
    for resource in settings::scaling_resources(design, &snake_name(design.table)) {
        hcl.open(&format!(
            "resource {} {}",
            quote(resource.kind),
            quote(&resource.name)
        ));
        hcl.entries(&resource.body);
        hcl.close();
    }
    hcl.out
}

/// A vector index: the provider's `aws_dynamodb_vector_index` resource on the table
/// (replaced when any argument changes).
fn vector_resource(hcl: &mut Hcl, table: &str, v: &crate::schema::VectorSchema) {
    hcl.open(&format!(
        "resource {} {}",
        quote("aws_dynamodb_vector_index"),
        quote(&snake_name(v.index))
    ));
    hcl.attr(
        "table_name",
        format!("aws_dynamodb_table.{}.name", snake_name(table)),
    );
    hcl.attr("index_name", quote(v.index));
    hcl.attr("dimensions", v.dimensions.to_string());
    hcl.attr("distance_function", quote(v.distance.as_str()));
    hcl.attr(
        "vector_attribute",
        format!("{{ attribute_name = {} }}", quote(v.attribute)),
    );
    hcl.open("projection");
    hcl.attr("projection_type", quote("ALL"));
    hcl.close();
    for (key, role) in v.search_schema() {
        hcl.open("search_schema");
        hcl.attr("attribute_name", quote(key.name));
        hcl.attr("attribute_type", quote(key.ty.as_str()));
        hcl.attr("type", quote(role));
        hcl.close();
    }
    hcl.close();
}

/// One index. A native (multi-attribute) index lists its keys as `key_schema` blocks, the
/// provider's spelling of multi-attribute keys (hashicorp/aws 6.30 and later); the others
/// keep `hash_key`/`range_key`.
fn index_block(hcl: &mut Hcl, design: &TableDesign<'_>, index: &IndexDesign) {
    match index.kind {
        IndexKind::Global => {
            hcl.open("global_secondary_index");
            hcl.attr("name", quote(index.name));
            if !index.native {
                let pk = index.partition_key.first().map_or("", |k| k.name);
                hcl.attr("hash_key", quote(pk));
            }
        }
        IndexKind::Local => {
            hcl.open("local_secondary_index");
            hcl.attr("name", quote(index.name));
        }
    }
    if index.native {
        let hash = index.partition_key.iter().map(|k| (k, "HASH"));
        for (key, key_type) in hash.chain(index.sort_key.iter().map(|k| (k, "RANGE"))) {
            hcl.open("key_schema");
            hcl.attr("attribute_name", quote(key.name));
            hcl.attr("key_type", quote(key_type));
            hcl.close();
        }
    } else if let Some(sk) = index.sort_key.first() {
        hcl.attr("range_key", quote(sk.name));
    }
    match &index.projection {
        None => hcl.attr("projection_type", quote("ALL")),
        Some(attributes) => {
            hcl.attr("projection_type", quote("INCLUDE"));
            let list: Vec<String> = attributes.iter().map(|a| quote(a)).collect();
            hcl.attr("non_key_attributes", format!("[{}]", list.join(", ")));
        }
    }
    if index.kind == IndexKind::Global {
        hcl.entries(&settings::index_settings(design, index.index));
    }
    hcl.close();
}

/// Writes HCL blocks, aligning the `=` of each block's consecutive attributes and
/// separating a block from what precedes it with a blank line, as `terraform fmt` does.
#[derive(Default)]
struct Hcl {
    out: String,
    depth: usize,
    /// The attributes of the current block not yet written.
    pending: Vec<(&'static str, String)>,
    /// Whether the current block has content yet (a block after content gets a blank line).
    started: bool,
}

impl Hcl {
    fn attr(&mut self, name: &'static str, value: String) {
        self.pending.push((name, value));
    }

    /// Write `entries`: arguments, maps and blocks.
    fn entries(&mut self, entries: &[Entry]) {
        for entry in entries {
            match entry {
                Entry::Text(name, text) => self.attr(name, quote(text)),
                Entry::Attr(name, value) => self.attr(name, value.clone()),
                Entry::Map(name, pairs) => {
                    let keys: Vec<String> = pairs.iter().map(|(k, _)| quote(k)).collect();
                    let width = keys.iter().map(String::len).max().unwrap_or(0);
                    let inner = "  ".repeat(self.depth + 1);
                    let mut value = String::from("{\n");
                    for (key, (_, v)) in keys.iter().zip(pairs) {
                        let _ = writeln!(value, "{inner}{key:width$} = {}", quote(v));
                    }
                    value.push_str(&"  ".repeat(self.depth));
                    value.push('}');
                    self.attr(name, value);
                }
                Entry::Block(name, body) => {
                    self.open(name);
                    self.entries(body);
                    self.close();
                }
                Entry::Comment(text) => {
                    self.flush();
                    self.indent();
                    let _ = writeln!(self.out, "# {text}");
                    self.started = true;
                }
            }
        }
    }

    fn open(&mut self, header: &str) {
        self.flush();
        if self.started {
            self.out.push('\n');
        }
        self.indent();
        let _ = writeln!(self.out, "{header} {{");
        self.depth += 1;
        self.started = false;
    }

    fn close(&mut self) {
        self.flush();
        self.depth -= 1;
        self.indent();
        self.out.push_str("}\n");
        self.started = true;
    }

    fn flush(&mut self) {
        let width = self.pending.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        for (name, value) in std::mem::take(&mut self.pending) {
            self.indent();
            let _ = writeln!(self.out, "{name:width$} = {value}");
            self.started = true;
        }
    }

    fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }
}

/// An HCL string literal: `\` and `"` escaped, control characters as escapes, and the
/// template sequences `${` and `%{` doubled so they stay literal text.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '$' | '%' if chars.peek() == Some(&'{') => {
                out.push(c);
                out.push(c);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Terraform resource name for table `name`: `snake_case` of its words, prefixed with
/// `table_` when it would not start with a letter.
fn snake_name(name: &str) -> String {
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            let boundary = c.is_ascii_uppercase()
                && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            if boundary {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
        previous = Some(c);
    }
    let out = out.trim_end_matches('_');
    if out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out.to_owned()
    } else if out.is_empty() {
        "table".to_owned()
    } else {
        format!("table_{out}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fixtures, FacetDesign, StreamView};
    use super::*;

    #[test]
    fn a_small_table_in_full() {
        let facets = [FacetDesign::new(&fixtures::PLAIN, &[])];
        let design = TableDesign::new("Notes", &facets).with_stream(StreamView::NewImage);
        let expected = r#"resource "aws_dynamodb_table" "notes" {
  name             = "Notes"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "PK"
  range_key        = "SK"
  stream_enabled   = true
  stream_view_type = "NEW_IMAGE"

  attribute {
    name = "PK"
    type = "S"
  }

  attribute {
    name = "SK"
    type = "S"
  }
}
"#;
        assert_eq!(terraform(&design), expected);
    }

    #[test]
    fn every_index_attribute_and_the_ttl_have_their_block() {
        let facets = fixtures::facets();
        let text = terraform(&TableDesign::new("app-data", &facets));
        assert!(text.starts_with("resource \"aws_dynamodb_table\" \"app_data\" {\n"));
        assert!(!text.contains("stream_"), "{text}");
        let blocks = [
            "  attribute {\n    name = \"GSI3SK\"\n    type = \"S\"\n  }\n",
            "  global_secondary_index {\n    name            = \"GSI1\"\n    \
             hash_key        = \"GSI1PK\"\n    projection_type = \"ALL\"\n  }\n",
            "  global_secondary_index {\n    name               = \"GSI2\"\n    \
             hash_key           = \"GSI2PK\"\n    range_key          = \"GSI2SK\"\n    \
             projection_type    = \"INCLUDE\"\n    non_key_attributes = \
             [\"day\", \"facet\", \"orderId\", \"status\", \"userId\"]\n  }\n",
            "  local_secondary_index {\n    name            = \"LSI1\"\n    \
             range_key       = \"LSI1SK\"\n    projection_type = \"ALL\"\n  }\n",
            "  ttl {\n    attribute_name = \"ttl\"\n    enabled        = true\n  }\n}\n",
        ];
        for block in blocks {
            assert_eq!(text.matches(block).count(), 1, "{block}\nin\n{text}");
        }
        assert_eq!(text.matches("  attribute {").count(), 8);
        assert_eq!(text.matches("  global_secondary_index {").count(), 3);
        assert_eq!(text.matches("  local_secondary_index {").count(), 1);
        assert_eq!(text.matches("hash_key").count(), 4, "{text}");
    }

    #[test]
    fn a_onetable_table_is_written_with_its_names() {
        let facets = fixtures::tasks();
        let design = TableDesign::new("tasks", &facets).with_names(fixtures::ONETABLE);
        let expected = r#"resource "aws_dynamodb_table" "tasks" {
  name         = "tasks"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  range_key    = "sk"

  attribute {
    name = "pk"
    type = "S"
  }

  attribute {
    name = "sk"
    type = "S"
  }

  attribute {
    name = "gsi1pk"
    type = "S"
  }

  attribute {
    name = "gsi1sk"
    type = "S"
  }

  global_secondary_index {
    name               = "gsi1"
    hash_key           = "gsi1pk"
    range_key          = "gsi1sk"
    projection_type    = "INCLUDE"
    non_key_attributes = ["_type", "due", "expires", "status", "taskId", "teamId", "title"]
  }

  ttl {
    attribute_name = "expires"
    enabled        = true
  }
}
"#;
        assert_eq!(terraform(&design), expected);
    }

    #[test]
    fn renamed_local_and_keyless_indexes_have_their_blocks() {
        let facets = fixtures::facets();
        let design = TableDesign::new("app", &facets).with_names(fixtures::ONETABLE);
        let text = terraform(&design);
        let blocks = [
            "  global_secondary_index {\n    name            = \"gsi1\"\n    \
             hash_key        = \"gsi1pk\"\n    projection_type = \"ALL\"\n  }\n",
            "  global_secondary_index {\n    name               = \"GSI3\"\n    \
             hash_key           = \"GSI3PK\"\n    range_key          = \"GSI3SK\"\n    \
             projection_type    = \"INCLUDE\"\n    non_key_attributes = \
             [\"_type\", \"coupon\", \"orderId\", \"total\", \"userId\"]\n  }\n",
            "  local_secondary_index {\n    name            = \"lsi1\"\n    \
             range_key       = \"lsi1sk\"\n    projection_type = \"ALL\"\n  }\n",
            "  attribute {\n    name = \"lsi1sk\"\n    type = \"S\"\n  }\n",
            "  ttl {\n    attribute_name = \"expires\"\n    enabled        = true\n  }\n}\n",
        ];
        for block in blocks {
            assert_eq!(text.matches(block).count(), 1, "{block}\nin\n{text}");
        }
        assert!(text.contains("  hash_key     = \"pk\"\n  range_key    = \"sk\"\n"));
        assert!(
            !text.contains("\"PK\"") && !text.contains("\"facet\""),
            "{text}"
        );
    }

    #[test]
    fn strings_are_quoted() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quote("${x} %{y} $z\n"), r#""$${x} %%{y} $z\n""#);
        assert_eq!(quote("\u{1}"), r#""\u0001""#);
    }

    #[test]
    fn resource_names_are_snake_case() {
        assert_eq!(snake_name("AppData"), "app_data");
        assert_eq!(snake_name("app-data.v2"), "app_data_v2");
        assert_eq!(snake_name("orders2Archive"), "orders2_archive");
        assert_eq!(snake_name("2024-data"), "table_2024_data");
        assert_eq!(snake_name("--"), "table");
    }
}
