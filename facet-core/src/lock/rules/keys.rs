//! Keys and shards: a base key laid out otherwise moves stored records; an index key laid
//! out otherwise needs a backfill; a grow period from a future time is safe.

use super::effects::{readers, safe, Ctx};
use crate::design::time_text;
use crate::lock::report::Effect;
use crate::lock::types::{LockKey, LockPeriod, LockShard};

/// A key as a change shows it: its pattern, and its sortable fields.
pub(crate) fn key_text(key: &LockKey) -> String {
    let sortable: Vec<&str> = key
        .fields
        .iter()
        .filter(|f| f.sortable)
        .map(|f| f.name.as_str())
        .collect();
    let pattern = if key.template.is_empty() {
        let names: Vec<&str> = key.fields.iter().map(|f| f.name.as_str()).collect();
        names.join(", ")
    } else {
        key.template.clone()
    };
    if sortable.is_empty() {
        pattern
    } else {
        format!("{pattern} (sortable {})", sortable.join(", "))
    }
}

/// What differs in how two versions of a key are laid out (its prefix, `no_prefix`, fields
/// and their encoding), not counting its shard or which fields are optional.
pub(crate) fn key_layout(before: &LockKey, after: &LockKey) -> Vec<String> {
    let mut out = Vec::new();
    if before.prefix != after.prefix {
        out.push(format!(
            "the prefix is \"{}\", not \"{}\"",
            after.prefix, before.prefix
        ));
    }
    if before.no_prefix != after.no_prefix {
        out.push(if after.no_prefix {
            "it has no prefix (`no_prefix`)".to_owned()
        } else {
            "it has a prefix (no longer `no_prefix`)".to_owned()
        });
    }
    let names = |k: &LockKey| k.fields.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    if names(before) != names(after) {
        out.push(format!(
            "its fields are ({}), not ({})",
            names(after).join(", "),
            names(before).join(", ")
        ));
    } else {
        for (b, a) in before.fields.iter().zip(&after.fields) {
            if b.sortable != a.sortable {
                let how = if a.sortable { "is" } else { "is no longer" };
                out.push(format!("`{}` {how} written `sortable`", a.name));
            }
        }
    }
    out
}

/// The key fields made optional, and those made required, by the change of a key.
pub(crate) fn key_optionality(before: &LockKey, after: &LockKey) -> (Vec<String>, Vec<String>) {
    let (mut optional, mut required) = (Vec::new(), Vec::new());
    for (b, a) in before.fields.iter().zip(&after.fields) {
        if b.name == a.name && b.optional != a.optional {
            let list = if a.optional {
                &mut optional
            } else {
                &mut required
            };
            list.push(a.name.clone());
        }
    }
    (optional, required)
}

/// How a key's sharding changed.
pub(crate) enum ShardChange {
    /// It did not.
    Same,
    /// Periods appended, each beginning after the comparison: records written so far keep
    /// their shards.
    Future(Vec<LockPeriod>),
    /// Anything else: stored records have other shard ids than the code computes.
    Moved(String),
}

/// A shard as a change shows it: `4 shards by orderId, 16 from 2027-01-01T00:00:00Z (by
/// created)`.
pub(crate) fn shard_text(shard: Option<&LockShard>) -> String {
    let Some(s) = shard else {
        return "not sharded".to_owned();
    };
    let mut out = format!("{} shards by {}", s.count, s.fields.join(", "));
    for p in &s.schedule {
        out.push_str(&format!(", {} from {}", p.count, time_text(p.from)));
    }
    if let Some(t) = &s.time_field {
        out.push_str(&format!(" (by {t})"));
    }
    out
}

/// How the sharding of a key changed from `before` to `after`, at time `now`.
pub(crate) fn shard_change(
    before: Option<&LockShard>,
    after: Option<&LockShard>,
    now: i64,
) -> ShardChange {
    let (b, a) = match (before, after) {
        (None, None) => return ShardChange::Same,
        (None, Some(_)) => return ShardChange::Moved("the key is now sharded".to_owned()),
        (Some(_), None) => return ShardChange::Moved("the key is no longer sharded".to_owned()),
        (Some(b), Some(a)) if b == a => return ShardChange::Same,
        (Some(b), Some(a)) => (b, a),
    };
    if b.count != a.count {
        return ShardChange::Moved(format!("the shard count is {}, not {}", a.count, b.count));
    }
    if b.fields != a.fields {
        return ShardChange::Moved(format!(
            "the shard is hashed from ({}), not ({})",
            a.fields.join(", "),
            b.fields.join(", ")
        ));
    }
    if b.time_field != a.time_field {
        return ShardChange::Moved(format!(
            "a record's period is chosen by {}, not {}",
            a.time_field.as_deref().unwrap_or("no field"),
            b.time_field.as_deref().unwrap_or("no field")
        ));
    }
    let kept = a.schedule.starts_with(&b.schedule);
    let added = &a.schedule[b.schedule.len().min(a.schedule.len())..];
    if !kept {
        return ShardChange::Moved(
            "a grow period that records may already be stored in was edited or removed".to_owned(),
        );
    }
    match added.iter().find(|p| p.from <= now) {
        Some(p) => ShardChange::Moved(format!(
            "the new period of {} shards began at {}, before now: records written since are \
             stored with {} shards",
            p.count,
            time_text(p.from),
            b.schedule.last().map_or(b.count, |l| l.count)
        )),
        None => ShardChange::Future(added.to_vec()),
    }
}

/// The effects of a change of the base key's sharding.
pub(crate) fn base_shard(cx: &Ctx<'_>, attribute: &str, change: ShardChange) -> Vec<Effect> {
    match change {
        ShardChange::Same => Vec::new(),
        ShardChange::Future(periods) => vec![
            safe(future_note(&periods)),
            readers(format!(
                "Faceteer-TS writes and reads {attribute} with the first shard count only: \
                 from {} its writes go to the old shards and its queries miss the new ones",
                time_text(periods[0].from)
            )),
        ],
        ShardChange::Moved(why) => vec![
            cx.keys_moved(format!(
                "their {attribute} was built with the old sharding ({why})"
            )),
            readers(format!(
                "Faceteer-TS must compute the same shard ids for {attribute}"
            )),
        ],
    }
}

fn future_note(periods: &[LockPeriod]) -> String {
    let parts: Vec<String> = periods
        .iter()
        .map(|p| format!("{} shards from {}", p.count, time_text(p.from)))
        .collect();
    format!(
        "records written from then on get {}; records stored so far keep their shards",
        parts.join(", then ")
    )
}

/// The effects of a change of the layout of a base key (`reasons` from [`key_layout`]).
pub(crate) fn base_key(cx: &Ctx<'_>, attribute: &str, reasons: &[String]) -> Vec<Effect> {
    vec![
        cx.keys_moved(format!(
            "their {attribute} was built the old way ({})",
            reasons.join("; ")
        )),
        readers(format!(
            "a Faceteer-TS model of {} must build {attribute} the same way",
            cx.facet
        )),
    ]
}

/// The effects of a change of the delimiter.
pub(crate) fn delimiter(cx: &Ctx<'_>) -> Vec<Effect> {
    vec![
        cx.keys_moved("their keys are joined with the old delimiter".to_owned()),
        readers(format!(
            "a Faceteer-TS model of {} must use the same delimiter",
            cx.facet
        )),
    ]
}

/// The effects of a change of a key the facet writes for an index (`reasons`: what
/// differs).
pub(crate) fn index_key(cx: &Ctx<'_>, attribute: &str, reasons: &[String]) -> Vec<Effect> {
    vec![cx.backfill(
        &[attribute],
        &format!(
            "stored records hold {attribute} built the old way ({}), so queries of the index \
             miss or misplace them until a backfill rewrites it",
            reasons.join("; ")
        ),
    )]
}

/// The effects of a change of the sharding of an index key.
pub(crate) fn index_shard(cx: &Ctx<'_>, attribute: &str, change: ShardChange) -> Vec<Effect> {
    match change {
        ShardChange::Same => Vec::new(),
        ShardChange::Future(periods) => vec![
            safe(future_note(&periods)),
            readers(format!(
                "Faceteer-TS writes and queries {attribute} with the first shard count only"
            )),
        ],
        ShardChange::Moved(why) => index_key(cx, attribute, &[why]),
    }
}
