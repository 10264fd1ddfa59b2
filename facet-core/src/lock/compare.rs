//! The comparison: walk a lock and the code's design side by side, naming each part that
//! differs and judging it by the [rules](super::rules).

use std::collections::BTreeMap;

use super::hints;
use super::report::{Change, IndexAction, LockReport};
use super::rules::{self, safe, Ctx};
use super::types::{
    DesignLock, LockFacet, LockField, LockIndex, LockIndexKind, LockKey, LockNames, LockTable,
};

/// Every difference between `before` (the committed lock) and `after` (the code's design,
/// [`DesignLock::of`]), each classified. `now_secs` (epoch seconds) tells a shard grow
/// period that begins later (safe) from one already begun (records are stored under the old
/// count).
pub fn compare(before: &DesignLock, after: &DesignLock, now_secs: i64) -> LockReport {
    let mut out = Vec::new();
    names(&before.names, &after.names, &mut out);
    table_indexes(&before.table, &after.table, &mut out);
    vectors(&before.table, &after.table, &mut out);
    table_options(&before.table, &after.table, &mut out);
    facets(before, after, now_secs, &mut out);
    settings(before.settings.as_ref(), after.settings.as_ref(), &mut out);
    if out.is_empty() && normalized(before) != normalized(after) {
        out.push(change(
            None,
            "design",
            None,
            None,
            vec![rules::review(
                "the lock differs from the code in a way no rule covers (a hand edit, or a \
                 lock written by another faceteer version); compare the files",
            )],
        ));
    }
    LockReport { changes: out }
}

/// A change of `facet` (or the table).
fn change(
    facet: Option<&str>,
    subject: &str,
    before: Option<String>,
    after: Option<String>,
    effects: Vec<super::report::Effect>,
) -> Change {
    Change {
        facet: facet.map(str::to_owned),
        subject: subject.to_owned(),
        before,
        after,
        effects,
        hint: None,
    }
}

/// The lock with the order of facets, of vector indexes and of the facets using each index
/// left out: the order `faceteer::table!` lists facets in changes nothing stored.
fn normalized(lock: &DesignLock) -> DesignLock {
    let mut lock = lock.clone();
    lock.format = 0;
    lock.facets.sort_by(|a, b| a.name.cmp(&b.name));
    for i in &mut lock.table.indexes {
        i.used_by.sort();
    }
    lock.table.vectors.sort_by(|a, b| a.index.cmp(&b.index));
    for v in &mut lock.table.vectors {
        v.used_by.sort();
    }
    lock
}

fn names(b: &LockNames, a: &LockNames, out: &mut Vec<Change>) {
    let moved = |what: &str, old: &str, new: &str| {
        let why =
            format!("items are stored with {what} `{old}`; the code reads and writes `{new}`");
        vec![
            super::report::Effect::BreaksStored {
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
            let text =
                |n: &super::types::LockIndexName| format!("{} ({})", n.name, n.keys.join(", "));
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

fn table_indexes(b: &LockTable, a: &LockTable, out: &mut Vec<Change>) {
    let describe = |i: &super::types::LockTableIndex| {
        let keys = |k: &[super::types::LockAttribute]| {
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

fn vectors(b: &LockTable, a: &LockTable, out: &mut Vec<Change>) {
    let describe = |v: &super::types::LockVector| {
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
                effects.push(super::report::Effect::BreaksStored {
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

fn table_options(b: &LockTable, a: &LockTable, out: &mut Vec<Change>) {
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

fn on_off(on: bool) -> String {
    if on { "on" } else { "off" }.to_owned()
}

fn facets(before: &DesignLock, after: &DesignLock, now: i64, out: &mut Vec<Change>) {
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
        let text = |u: &[super::types::LockUnique]| {
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

/// The key attributes the facet writes for index `x`: `GSInPK` and `GSInSK`, or `LSInSK`.
fn own_keys(x: &LockIndex) -> impl Iterator<Item = &str> {
    let pk = (x.kind == LockIndexKind::Global).then_some(x.pk.attribute.as_str());
    pk.into_iter()
        .chain(x.sk.as_ref().map(|k| k.attribute.as_str()))
}

fn index_text(i: &LockIndex) -> String {
    let mut out = rules::key_text(&i.pk);
    if let Some(sk) = &i.sk {
        out.push_str(" / ");
        out.push_str(&rules::key_text(sk));
    }
    out
}

type Push<'a> = dyn FnMut(&str, Option<String>, Option<String>, Vec<super::report::Effect>) + 'a;

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

/// The changes of an index both versions of a facet use.
fn index_use(cx: &Ctx<'_>, b: &LockIndex, a: &LockIndex, push: &mut Push<'_>) {
    let name = &a.name;
    if b.native.is_some() != a.native.is_some() {
        let attributes: Vec<&str> = own_keys(b).chain(own_keys(a)).collect();
        push(
            &format!("index {name}"),
            Some(index_text(b)),
            Some(index_text(a)),
            vec![cx.backfill(
                &attributes,
                &format!(
                    "{name} is now keyed {}: a backfill {} the key attributes of stored records",
                    if a.native.is_some() {
                        "by the records' own attributes"
                    } else {
                        "by attributes faceteer writes"
                    },
                    if a.native.is_some() {
                        "removes"
                    } else {
                        "writes"
                    }
                ),
            )],
        );
    } else if a.native.is_none() {
        let written = [(Some(&b.pk), Some(&a.pk)), (b.sk.as_ref(), a.sk.as_ref())];
        // A local index's partition key is the table's: judged as the base key.
        let skip_pk = a.kind == LockIndexKind::Local;
        for (i, (bk, ak)) in written.into_iter().enumerate() {
            if i == 0 && skip_pk {
                continue;
            }
            index_key(cx, name, bk, ak, push);
        }
    }
    if b.sparse != a.sparse {
        let attributes: Vec<&str> = own_keys(a).collect();
        push(
            &format!("index {name} sparse"),
            Some(b.sparse.to_string()),
            Some(a.sparse.to_string()),
            vec![cx.backfill(
                &attributes,
                &format!(
                    "stored records {} {name} keys by the old rule; a backfill writes or \
                     removes them",
                    if a.sparse {
                        "without every key field hold"
                    } else {
                        "may lack"
                    }
                ),
            )],
        );
    }
    if b.projection != a.projection {
        push(
            &format!("index {name} projection"),
            Some(format!("{:?}", b.projection)),
            Some(format!("{:?}", a.projection)),
            vec![safe(format!(
                "what {} reads of {name} changes; the table's index is judged on its own",
                cx.facet
            ))],
        );
    }
    if b.alias != a.alias {
        push(
            &format!("index {name} alias"),
            b.alias.clone(),
            a.alias.clone(),
            vec![safe("an alias names a query method only")],
        );
    }
    if b.native != a.native && b.native.is_some() && a.native.is_some() {
        push(
            &format!("index {name} native keys"),
            Some(index_text(b)),
            Some(index_text(a)),
            vec![safe(format!(
                "DynamoDB reads {name}'s keys from the records' attributes; the table's \
                 index is judged on its own"
            ))],
        );
    }
}

/// The changes of one written key of an index.
fn index_key(
    cx: &Ctx<'_>,
    index: &str,
    b: Option<&LockKey>,
    a: Option<&LockKey>,
    push: &mut Push<'_>,
) {
    let (bk, ak) = match (b, a) {
        (None, None) => return,
        (Some(bk), Some(ak)) => (bk, ak),
        (bk, ak) => {
            let attribute = ak.or(bk).map_or("", |k| k.attribute.as_str());
            push(
                &format!("index {index} sort key"),
                bk.map(rules::key_text),
                ak.map(rules::key_text),
                rules::index_key(
                    cx,
                    attribute,
                    &["the index's sort key is added or removed".to_owned()],
                ),
            );
            return;
        }
    };
    let attribute = ak.attribute.as_str();
    let subject = format!("index {index} {attribute}");
    let mut reasons = rules::key_layout(bk, ak);
    if bk.attribute != ak.attribute {
        reasons.push(format!("it is stored in {attribute}, not {}", bk.attribute));
    }
    if !reasons.is_empty() {
        push(
            &subject,
            Some(rules::key_text(bk)),
            Some(rules::key_text(ak)),
            rules::index_key(cx, attribute, &reasons),
        );
    } else {
        let (optional, _) = rules::key_optionality(bk, ak);
        if !optional.is_empty() {
            push(
                &subject,
                Some(rules::key_text(bk)),
                Some(rules::key_text(ak)),
                vec![safe(format!(
                    "({}) may now be absent; stored records all have them",
                    optional.join(", ")
                ))],
            );
        }
    }
    let shard = rules::shard_change(bk.shard.as_ref(), ak.shard.as_ref(), cx.now);
    let effects = rules::index_shard(cx, attribute, shard);
    if !effects.is_empty() {
        push(
            &format!("shard of {index} {attribute}"),
            Some(rules::shard_text(bk.shard.as_ref())),
            Some(rules::shard_text(ak.shard.as_ref())),
            effects,
        );
    }
}

/// The changes of the facet's fields, when both versions list them.
fn fields(cx: &Ctx<'_>, b: &LockFacet, a: &LockFacet, out: &mut Vec<Change>) {
    let name = Some(a.name.as_str());
    let (bf, af) = match (&b.fields, &a.fields) {
        (None, None) => return,
        (Some(_), None) => {
            out.push(change(
                name,
                "fields",
                Some("listed".to_owned()),
                None,
                vec![rules::review(
                    "the code no longer lists the facet's fields (a hand-written `Facet`), so \
                     the field rules cannot be checked",
                )],
            ));
            return;
        }
        (None, Some(_)) => {
            out.push(change(
                name,
                "fields",
                None,
                Some("listed".to_owned()),
                vec![safe("the lock now lists the facet's fields")],
            ));
            return;
        }
        (Some(bf), Some(af)) => (bf, af),
    };
    let stored = |fields: &[LockField]| {
        fields
            .iter()
            .filter(|f| f.stored)
            .map(|f| (f.attribute.clone(), f.clone()))
            .collect::<BTreeMap<String, LockField>>()
    };
    let (before, after) = (stored(bf), stored(af));
    let mut removed = Vec::new();
    let mut added = Vec::new();
    // In declaration order: the lock's, then the code's.
    for f in bf.iter().filter(|f| f.stored) {
        let subject = format!("field {}", f.attribute);
        match after.get(&f.attribute) {
            Some(g) => {
                if f == g {
                    continue;
                }
                let effects = rules::field_changed(cx, f, g);
                out.push(change(
                    name,
                    &subject,
                    Some(rules::field_text(f)),
                    Some(rules::field_text(g)),
                    effects,
                ));
            }
            None => {
                removed.push((out.len(), f));
                out.push(change(
                    name,
                    &subject,
                    Some(rules::field_text(f)),
                    None,
                    rules::field_removed(cx, f),
                ));
            }
        }
    }
    for g in af
        .iter()
        .filter(|g| g.stored && !before.contains_key(&g.attribute))
    {
        added.push((out.len(), g));
        out.push(change(
            name,
            &format!("field {}", g.attribute),
            None,
            Some(rules::field_text(g)),
            rules::field_added(cx, g),
        ));
    }
    let unstored = |fields: &[LockField]| {
        fields
            .iter()
            .filter(|f| !f.stored)
            .map(|f| f.field.clone())
            .collect::<Vec<_>>()
    };
    if unstored(bf) != unstored(af) {
        out.push(change(
            name,
            "fields not stored",
            Some(unstored(bf).join(", ")),
            Some(unstored(af).join(", ")),
            vec![safe(
                "skipped and flattened fields are no attributes of their own",
            )],
        ));
    }
    hints::renamed_fields(&removed, &added, out);
}

fn settings(b: Option<&serde_json::Value>, a: Option<&serde_json::Value>, out: &mut Vec<Change>) {
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
