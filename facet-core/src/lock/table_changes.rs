//! The table's changes: its names, indexes, vector indexes, TTL, stream and settings.

use std::collections::BTreeMap;

use super::report::{change, Change, Effect, IndexAction};
use super::rules::{self, safe};
use super::types::{
    LockAttribute, LockIndexKind, LockIndexName, LockNames, LockTable, LockTableIndex, LockVector,
};

/// The table's names changed: every item is stored under the old ones.
pub(super) fn names(b: &LockNames, a: &LockNames, out: &mut Vec<Change>) {
    let moved = |what: &str, old: &str, new: &str| {
        let why =
            format!("items are stored with {what} `{old}`; the code reads and writes `{new}`");
        vec![
            Effect::BreaksStored {
                facet: "every facet".to_owned(),
                records: "every item of the table".to_owned(),
                why,
                repair: "keep the table's names (`names = ..` of `faceteer::table!`), or copy \
                         the items to a table with the new names"
                    .to_owned(),
            },
            rules::readers(format!("Faceteer-TS must name {what} `{new}`")),
        ]
    };
    let pairs = [
        ("names.pk", "the partition key", &b.pk, &a.pk),
        ("names.sk", "the sort key", &b.sk, &a.sk),
        ("names.facet", "the facet attribute", &b.facet, &a.facet),
        ("names.ttl", "the TTL attribute", &b.ttl, &a.ttl),
    ];
    for (subject, what, old, new) in pairs {
        if old != new {
            out.push(change(
                None,
                subject,
                Some(old.clone()),
                Some(new.clone()),
                moved(what, old, new),
            ));
        }
    }
    for bi in &b.indexes {
        let Some(ai) = a.indexes.iter().find(|i| i.index == bi.index) else {
            continue;
        };
        if bi != ai {
            let text = |n: &LockIndexName| format!("{} ({})", n.name, n.keys.join(", "));
            let what = format!("index {}", bi.index);
            out.push(change(
                None,
                &format!("names.{}", bi.index),
                Some(text(bi)),
                Some(text(ai)),
                moved(&what, &text(bi), &text(ai)),
            ));
        }
    }
}

/// The table's secondary indexes added, dropped, or with other keys or projections.
pub(super) fn table_indexes(b: &LockTable, a: &LockTable, out: &mut Vec<Change>) {
    let describe = |i: &LockTableIndex| {
        let keys = |k: &[LockAttribute]| {
            k.iter()
                .map(|k| format!("{} {}", k.name, k.ty))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let projection = match &i.projection {
            None => "ALL".to_owned(),
            Some(p) => format!("INCLUDE {}", p.join(", ")),
        };
        format!("keys ({}; {}), {projection}", keys(&i.pk), keys(&i.sk))
    };
    for bi in &b.indexes {
        let subject = format!("index {}", bi.name);
        match a.indexes.iter().find(|i| i.name == bi.name) {
            None => out.push(change(
                None,
                &subject,
                Some(describe(bi)),
                None,
                vec![safe(format!(
                    "no facet uses {} any more: delete it from the table once no other reader \
                     queries it (`Table::verify` lists it)",
                    bi.name
                ))],
            )),
            Some(ai) => {
                let same_keys = bi.pk == ai.pk && bi.sk == ai.sk && bi.native == ai.native;
                if same_keys && bi.projection == ai.projection {
                    continue;
                }
                let action = match ai.kind {
                    LockIndexKind::Global => IndexAction::Recreate,
                    LockIndexKind::Local => IndexAction::NewTable,
                };
                out.push(change(
                    None,
                    &subject,
                    Some(describe(bi)),
                    Some(describe(ai)),
                    vec![rules::index(&ai.name, action)],
                ));
            }
        }
    }
    for ai in a
        .indexes
        .iter()
        .filter(|ai| !b.indexes.iter().any(|bi| bi.name == ai.name))
    {
        let action = match ai.kind {
            LockIndexKind::Global => IndexAction::Create,
            LockIndexKind::Local => IndexAction::NewTable,
        };
        out.push(change(
            None,
            &format!("index {}", ai.name),
            None,
            Some(describe(ai)),
            vec![rules::index(&ai.name, action)],
        ));
    }
}

/// The table's vector indexes added, dropped or redefined.
pub(super) fn vectors(b: &LockTable, a: &LockTable, out: &mut Vec<Change>) {
    let describe = |v: &LockVector| {
        format!(
            "{} ({} dimensions, {})",
            v.attribute, v.dimensions, v.distance
        )
    };
    for bv in &b.vectors {
        let subject = format!("vector index {}", bv.index);
        let Some(av) = a.vectors.iter().find(|v| v.index == bv.index) else {
            out.push(change(
                None,
                &subject,
                Some(describe(bv)),
                None,
                vec![safe(format!(
                    "no facet uses {} any more: delete it from the table once nothing \
                     searches it",
                    bv.index
                ))],
            ));
            continue;
        };
        let same = bv.attribute == av.attribute
            && bv.dimensions == av.dimensions
            && bv.distance == av.distance
            && bv.partition == av.partition
            && bv.filters == av.filters;
        if same {
            continue;
        }
        let mut effects = vec![rules::index(&av.index, IndexAction::Recreate)];
        if bv.dimensions != av.dimensions {
            for facet in &av.used_by {
                effects.push(Effect::BreaksStored {
                    facet: facet.clone(),
                    records: format!("the vectors stored in `{}`", av.attribute),
                    why: format!(
                        "they have {} dimensions; the index takes {}",
                        bv.dimensions, av.dimensions
                    ),
                    repair: "embed them again with `Table::backfill_with::<F, _, _>(..)` once \
                             the index is recreated"
                        .to_owned(),
                });
            }
        }
        out.push(change(
            None,
            &subject,
            Some(describe(bv)),
            Some(describe(av)),
            effects,
        ));
    }
    for av in a
        .vectors
        .iter()
        .filter(|av| !b.vectors.iter().any(|bv| bv.index == av.index))
    {
        out.push(change(
            None,
            &format!("vector index {}", av.index),
            None,
            Some(describe(av)),
            vec![rules::index(&av.index, IndexAction::Create)],
        ));
    }
}

/// The table's time to live and stream.
pub(super) fn table_options(b: &LockTable, a: &LockTable, out: &mut Vec<Change>) {
    if b.ttl != a.ttl {
        let note = if a.ttl {
            "switch on expiry by `ttl` on the table (`Table::verify` reports it off)"
        } else {
            "no facet sets `ttl` any more: items that still hold one expire while the table's \
             expiry stays on"
        };
        out.push(change(
            None,
            "time to live",
            Some(on_off(b.ttl)),
            Some(on_off(a.ttl)),
            vec![safe(note)],
        ));
    }
    if b.stream != a.stream {
        let effect = match (&b.stream, &a.stream) {
            (None, Some(_)) => safe("enable the stream on the table (`Table::enable_stream`)"),
            _ => rules::review(
                "the stream is removed or its view changed: DynamoDB gives the new stream \
                 another ARN, and its consumers must move to it",
            ),
        };
        out.push(change(
            None,
            "stream",
            b.stream.clone(),
            a.stream.clone(),
            vec![effect],
        ));
    }
}

/// `on` or `off`.
fn on_off(on: bool) -> String {
    if on { "on" } else { "off" }.to_owned()
}

/// The table's settings, leaf by leaf (`settings.billing`,
/// `settings.recovery.point_in_time_recovery`).
pub(super) fn settings(
    b: Option<&serde_json::Value>,
    a: Option<&serde_json::Value>,
    out: &mut Vec<Change>,
) {
    if b == a {
        return;
    }
    let (mut before, mut after) = (BTreeMap::new(), BTreeMap::new());
    if let Some(b) = b {
        flatten("settings", b, &mut before);
    }
    if let Some(a) = a {
        flatten("settings", a, &mut after);
    }
    let mut names: Vec<&String> = before.keys().chain(after.keys()).collect();
    names.sort();
    names.dedup();
    for name in names {
        let (bv, av) = (before.get(name), after.get(name));
        if bv == av {
            continue;
        }
        out.push(change(
            None,
            name,
            rules::setting_text(bv),
            rules::setting_text(av),
            rules::setting(name, bv, av),
        ));
    }
}

/// Every leaf of `value` under `path` (`settings.billing.mode`); a list is one leaf.
fn flatten(path: &str, value: &serde_json::Value, out: &mut BTreeMap<String, serde_json::Value>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                flatten(&format!("{path}.{k}"), v, out);
            }
        }
        other => {
            out.insert(path.to_owned(), other.clone());
        }
    }
}
