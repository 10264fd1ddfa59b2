//! The role policies: read-only, writer and operations.

use super::actions::{
    BACKFILL, DESCRIBE, GUARD, KMS_DESCRIBE_KEY, KMS_GRANT, MANAGE, QUERY, READ, SCAN_INDEX,
    SEARCH, STREAM, WRITE,
};
use super::document::{Condition, Document, Resource, Statement};
use super::grant::area_grant;
use super::names::pascal;
use super::options::{PolicyKind, Role};
use super::planned::Planned;
use super::reach::Reaches;
use crate::design::model::TableDesign;

/// The three role policies of `design`, in [`Role`] order.
pub(crate) fn roles(design: &TableDesign<'_>, reaches: &Reaches) -> Vec<Planned> {
    vec![
        item_role(design, reaches, Role::ReadOnly),
        item_role(design, reaches, Role::Writer),
        operations(design, reaches),
    ]
}

/// The read-only or the writer role: item actions on the table, queries of each index,
/// vector searches, `DescribeTable`; scoped where the design's scopes reach.
fn item_role(design: &TableDesign<'_>, reaches: &Reaches, role: Role) -> Planned {
    let writer = role == Role::Writer;
    let mut notes = Vec::new();
    let mut doc = Document::default();
    let mut actions = READ.to_vec();
    if writer {
        actions.extend(WRITE);
    }
    let sid = if writer {
        "ReadWriteItems"
    } else {
        "ReadItems"
    };
    doc.statements
        .extend(area_grant(&reaches.table, &actions, sid, &mut notes));
    let (guarded, open): (Vec<_>, Vec<_>) = reaches.indexes.iter().partition(|a| a.guarded);
    if !open.is_empty() {
        let resources = open.iter().map(|a| a.resource).collect();
        doc.push(Statement::allow("QueryIndexes", QUERY, resources));
    }
    for area in guarded {
        let Resource::Index(name) = area.resource else {
            continue;
        };
        let sid = format!("Query{}", pascal(name));
        if let Some(s) = area_grant(area, QUERY, &sid, &mut notes) {
            doc.push(s);
        }
    }
    let (guarded, open): (Vec<_>, Vec<_>) = reaches.vectors.iter().partition(|a| a.guarded);
    if !open.is_empty() {
        let resources = open.iter().map(|a| a.resource).collect();
        doc.push(Statement::allow("SearchVectors", SEARCH, resources));
    }
    for area in guarded {
        notes.push(format!(
            "vector searches of {} are left out: DynamoDB evaluates no dynamodb:LeadingKeys \
             on SearchVectors, and the index holds scoped records",
            area.resource.describe(design.table)
        ));
    }
    if writer && reaches.table.guarded && !reaches.guards.is_empty() {
        let guards = Condition::Leading {
            globs: reaches.guards.clone(),
            tags: Vec::new(),
        };
        doc.push(Statement::allow("WriteUniqueGuards", GUARD, vec![Resource::Table]).when(guards));
        notes.push(
            "the guard items of unique values are not scoped: a write puts and deletes them in \
             the partitions of every facet's unique fields (`$unique#<facet>#<field>#…`), whose \
             keys hold each value after its length, which no pattern can scope"
                .to_owned(),
        );
    }
    doc.push(Statement::allow(
        "DescribeTable",
        DESCRIBE,
        vec![Resource::Table],
    ));
    doc.deny_unsafe_tags();
    let search = doc
        .statements
        .iter()
        .any(|s| s.actions.contains(&"SearchVectors"));
    let search = if search { ", SearchVectors" } else { "" };
    let description = if writer {
        format!(
            "Read and write access to DynamoDB table {}: the read-only policy's actions and \
             PutItem, UpdateItem, DeleteItem, BatchWriteItem (write transactions too){}",
            design.table,
            scope_text(&doc, &notes)
        )
    } else {
        format!(
            "Read-only access to DynamoDB table {}: GetItem, BatchGetItem, Query, \
             ConditionCheckItem (read transactions too){search}, DescribeTable{}",
            design.table,
            scope_text(&doc, &notes)
        )
    };
    Planned::new(design, PolicyKind::Role(role), description, notes, doc)
}

/// The operations role: the table's management, backfills and scans, its stream. Never
/// scoped: scans and stream reads cannot be.
fn operations(design: &TableDesign<'_>, reaches: &Reaches) -> Planned {
    let mut doc = Document::default();
    doc.push(Statement::allow(
        "ManageTable",
        MANAGE,
        vec![Resource::Table],
    ));
    doc.push(Statement::allow(
        "BackfillItems",
        BACKFILL,
        vec![Resource::Table],
    ));
    let indexes: Vec<Resource> = reaches.indexes.iter().map(|a| a.resource).collect();
    if !indexes.is_empty() {
        doc.push(Statement::allow("ScanIndexes", SCAN_INDEX, indexes));
    }
    if design.stream.is_some() {
        doc.push(Statement::allow(
            "ReadStream",
            STREAM,
            vec![Resource::Stream],
        ));
    }
    let mut notes = Vec::new();
    if reaches.scoped() {
        notes.push(
            "not scoped: operations scan, backfill and stream the whole table, which \
             dynamodb:LeadingKeys cannot scope"
                .to_owned(),
        );
    }
    match design.settings.encryption {
        // Creating or updating a table encrypted with a customer-managed key: DynamoDB
        // describes the key and creates a grant on it in the caller's name.
        Some(crate::settings::Encryption::CustomerKey(key)) if key.starts_with("arn:") => {
            doc.push(Statement::allow(
                "DescribeTableKey",
                KMS_DESCRIBE_KEY,
                vec![Resource::Key(key)],
            ));
            doc.push(
                Statement::allow("GrantTableKey", KMS_GRANT, vec![Resource::Key(key)]).when(
                    Condition::IsTrue {
                        key: "kms:GrantIsForAWSResource",
                    },
                ),
            );
        }
        Some(crate::settings::Encryption::CustomerKey(key)) => notes.push(format!(
            "not included: creating or updating the table encrypted with customer-managed \
             key {key} also needs kms:DescribeKey and kms:CreateGrant on that key; declare \
             the key by its ARN to have them here"
        )),
        _ => {}
    }
    let description = format!(
        "Operations on DynamoDB table {}: creating and updating it (indexes, TTL, backups, \
         tags), scans and backfills of its items and indexes{}; not scoped",
        design.table,
        if design.stream.is_some() {
            ", reads of its stream"
        } else {
            ""
        }
    );
    Planned::new(
        design,
        PolicyKind::Role(Role::Operations),
        description,
        notes,
        doc,
    )
}

/// What a description says of a document's scoping: the principal tags it is scoped by,
/// and whether some of it is not scoped (its notes say what).
pub(crate) fn scope_text(doc: &Document, notes: &[String]) -> String {
    let mut tags: Vec<&str> = Vec::new();
    for s in &doc.statements {
        if let Some(Condition::Leading { tags: named, .. }) = &s.condition {
            for (tag, _) in named {
                if !tags.contains(&tag.as_str()) {
                    tags.push(tag);
                }
            }
        }
    }
    let mut out = String::new();
    if !tags.is_empty() {
        let tags: Vec<String> = tags
            .iter()
            .map(|t| format!("aws:PrincipalTag/{t}"))
            .collect();
        out.push_str(&format!("; partitions scoped by {}", tags.join(", ")));
    }
    if notes.iter().any(|n| n.starts_with("not scoped")) {
        out.push_str("; NOT scoped to one tenant");
    }
    out
}
