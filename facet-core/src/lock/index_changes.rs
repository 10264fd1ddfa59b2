//! The changes of an index both versions of a facet use: its written keys and their
//! shards, `sparse`, projection, alias and native keys.

use super::report::Effect;
use super::rules::{self, safe, Ctx};
use super::types::{LockIndex, LockIndexKind, LockKey};

/// Records one change of the facet: its subject, before, after and effects.
pub(super) type Push<'a> = dyn FnMut(&str, Option<String>, Option<String>, Vec<Effect>) + 'a;

/// The key attributes the facet writes for index `x`: `GSInPK` and `GSInSK`, or `LSInSK`.
pub(super) fn own_keys(x: &LockIndex) -> impl Iterator<Item = &str> {
    let pk = (x.kind == LockIndexKind::Global).then_some(x.pk.attribute.as_str());
    pk.into_iter()
        .chain(x.sk.as_ref().map(|k| k.attribute.as_str()))
}

/// An index use as a change shows it: its keys' patterns.
pub(super) fn index_text(i: &LockIndex) -> String {
    let mut out = rules::key_text(&i.pk);
    if let Some(sk) = &i.sk {
        out.push_str(" / ");
        out.push_str(&rules::key_text(sk));
    }
    out
}

/// The changes of an index both versions of a facet use.
pub(super) fn index_use(cx: &Ctx<'_>, b: &LockIndex, a: &LockIndex, push: &mut Push<'_>) {
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
