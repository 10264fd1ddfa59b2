//! Each facet's changes: added and removed facets, then, for a facet kept, its delimiter,
//! base keys, schema version, indexes, TTL, unique fields, write-time and version fields,
//! vector indexes and fields.

use super::field_changes::fields;
use super::hints;
use super::index_changes::{index_text, index_use, own_keys, Push};
use super::report::{change, Change};
use super::rules::{self, safe, Ctx};
use super::types::{DesignLock, LockFacet, LockKey, LockUnique};

/// Facets removed (their records break), added (safe), and kept (judged part by part),
/// with the renames they look like.
pub(super) fn facets(before: &DesignLock, after: &DesignLock, now: i64, out: &mut Vec<Change>) {
    let mut removed = Vec::new();
    for b in &before.facets {
        match after.facets.iter().find(|a| a.name == b.name) {
            Some(a) => facet(b, a, now, out),
            None => {
                removed.push((out.len(), b));
                out.push(change(
                    Some(&b.name),
                    "facet",
                    Some(b.name.clone()),
                    None,
                    vec![
                        rules::Ctx {
                            facet: &b.name,
                            bumped: false,
                            now,
                        }
                        .breaks(
                            "every record of the facet",
                            "the code has no facet to read them: they stay in the table, \
                             unread, and scans of the table skip them"
                                .to_owned(),
                            "keep the facet, or delete its records deliberately",
                        ),
                        rules::readers(format!(
                            "Faceteer-TS models still reading {} find no new records",
                            b.name
                        )),
                    ],
                ));
            }
        }
    }
    let mut added = Vec::new();
    for a in after
        .facets
        .iter()
        .filter(|a| !before.facets.iter().any(|b| b.name == a.name))
    {
        added.push((out.len(), a));
        out.push(change(
            Some(&a.name),
            "facet",
            None,
            Some(a.name.clone()),
            vec![safe("a new facet: no record of it is stored yet")],
        ));
    }
    hints::renamed_facets(&removed, &added, out);
}

/// Every change of one facet kept by both.
fn facet(b: &LockFacet, a: &LockFacet, now: i64, out: &mut Vec<Change>) {
    let cx = Ctx {
        facet: &a.name,
        bumped: a.schema_version.unwrap_or(1) > b.schema_version.unwrap_or(1),
        now,
    };
    let name = Some(a.name.as_str());
    let mut push = |subject: &str, before: Option<String>, after: Option<String>, effects| {
        out.push(change(name, subject, before, after, effects));
    };
    if b.delimiter != a.delimiter {
        push(
            "delimiter",
            Some(b.delimiter.clone()),
            Some(a.delimiter.clone()),
            rules::delimiter(&cx),
        );
    }
    let fields_known = b.fields.is_some() && a.fields.is_some();
    for (what, bk, ak) in [("partition key", &b.pk, &a.pk), ("sort key", &b.sk, &a.sk)] {
        base_key(&cx, what, bk, ak, fields_known, &mut push);
    }
    let version = |v: Option<u32>| v.map(|v| v.to_string());
    let effects = rules::schema_version(&cx, b.schema_version, a.schema_version);
    if !effects.is_empty() {
        push(
            "schema version",
            version(b.schema_version),
            version(a.schema_version),
            effects,
        );
    }
    for i in &b.indexes {
        match a.indexes.iter().find(|x| x.name == i.name) {
            Some(x) => index_use(&cx, i, x, &mut push),
            None => push(
                &format!("index {}", i.name),
                Some(index_text(i)),
                None,
                vec![safe(format!(
                    "its records keep their {} keys until a backfill of {} removes them",
                    i.name, a.name
                ))],
            ),
        }
    }
    for x in a
        .indexes
        .iter()
        .filter(|x| !b.indexes.iter().any(|i| i.name == x.name))
    {
        let effects = if x.native.is_some() {
            vec![safe(format!(
                "{} is keyed by the records' own attributes: DynamoDB indexes the stored \
                 records",
                x.name
            ))]
        } else {
            let attributes: Vec<&str> = own_keys(x).collect();
            vec![cx.backfill(
                &attributes,
                &format!(
                    "stored records have no {} keys, so queries of {} miss them until a \
                     backfill writes them",
                    x.name, x.name
                ),
            )]
        };
        push(
            &format!("index {}", x.name),
            None,
            Some(index_text(x)),
            effects,
        );
    }
    if b.ttl_field != a.ttl_field {
        push(
            "ttl field",
            b.ttl_field.clone(),
            a.ttl_field.clone(),
            vec![cx.backfill(
                &[crate::schema::TTL_ATTRIBUTE],
                "stored records hold the `ttl` of the old design (none, or another field's), \
                 so they expire by it until a backfill rewrites it",
            )],
        );
    }
    if b.unique != a.unique {
        let text = |u: &[LockUnique]| {
            let parts: Vec<String> = u
                .iter()
                .map(|u| match u.scope.is_empty() {
                    true => u.attribute.clone(),
                    false => format!("{} within {}", u.attribute, u.scope.join(", ")),
                })
                .collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        };
        push(
            "unique fields",
            text(&b.unique),
            text(&a.unique),
            vec![cx.backfill(
                &[],
                "the guard items of stored records are of the old unique fields; a backfill \
                 rebuilds them (values already taken twice are reported as `UniqueTaken`)",
            )],
        );
    }
    let counters = [
        ("version field", &b.version_field, &a.version_field),
        ("created field", &b.created, &a.created),
        ("updated field", &b.updated, &a.updated),
    ];
    for (what, bf, af) in counters {
        if bf != af {
            push(
                what,
                bf.clone(),
                af.clone(),
                vec![safe(
                    "writes set it from now on; what stored records hold is judged with \
                     their fields",
                )],
            );
        }
    }
    if b.vectors != a.vectors {
        let text = |v: &[String]| (!v.is_empty()).then(|| v.join(", "));
        push(
            "vector indexes",
            text(&b.vectors),
            text(&a.vectors),
            vec![safe(
                "DynamoDB indexes the stored vectors by their attribute (the table's vector \
                 indexes are judged on their own)",
            )],
        );
    }
    fields(&cx, b, a, out);
}

/// The changes of a base key: its layout, which of its fields are optional (only when the
/// facet's fields are unknown: otherwise the field rules judge it), its shard.
fn base_key(
    cx: &Ctx<'_>,
    what: &str,
    b: &LockKey,
    a: &LockKey,
    fields_known: bool,
    push: &mut Push<'_>,
) {
    let attribute = a.attribute.as_str();
    let subject = format!("{what} {attribute}");
    let reasons = rules::key_layout(b, a);
    if !reasons.is_empty() {
        push(
            &subject,
            Some(rules::key_text(b)),
            Some(rules::key_text(a)),
            rules::base_key(cx, attribute, &reasons),
        );
    } else {
        let (optional, required) = rules::key_optionality(b, a);
        let mut effects = Vec::new();
        if !optional.is_empty() {
            effects.push(safe(format!(
                "({}) may now be absent; stored records all have them and keep their keys",
                optional.join(", ")
            )));
        }
        if !required.is_empty() && !fields_known {
            effects.push(cx.breaks(
                "records stored without them",
                format!(
                    "({}) are now required, so they fail to read",
                    required.join(", ")
                ),
                "keep them optional",
            ));
        }
        if !effects.is_empty() {
            push(
                &subject,
                Some(rules::key_text(b)),
                Some(rules::key_text(a)),
                effects,
            );
        }
    }
    let shard = rules::shard_change(b.shard.as_ref(), a.shard.as_ref(), cx.now);
    let effects = rules::base_shard(cx, attribute, shard);
    if !effects.is_empty() {
        push(
            &format!("shard of {attribute}"),
            Some(rules::shard_text(b.shard.as_ref())),
            Some(rules::shard_text(a.shard.as_ref())),
            effects,
        );
    }
}
