//! The rules: what each kind of change needs or breaks, in plain words. Each function
//! judges one part of the design (a key, a shard, an index, a field, a version, …) and
//! returns the change's [`Effect`]s; [`compare`](super::compare) walks the two locks and
//! names the parts.
//!
//! The rules as a table: [the module's docs](super#rules).

use super::report::{Effect, IndexAction};
use super::types::{LockField, LockKey, LockPeriod, LockShard};
use crate::design::time_text;

/// The reader the table's other programs are taken to be.
pub(super) const TS: &str = "Faceteer-TS";

/// The facet a rule judges, and what the comparison knows of it.
pub(super) struct Ctx<'a> {
    /// The facet's name.
    pub facet: &'a str,
    /// The code raised the facet's schema version: older records are read through the
    /// upgrade functions, and a backfill rewrites them.
    pub bumped: bool,
    /// The time of the comparison (epoch seconds): a grow period from later is future.
    pub now: i64,
}

impl Ctx<'_> {
    /// `a backfill of F (..) what`.
    pub fn backfill(&self, attributes: &[&str], what: &str) -> Effect {
        Effect::Backfill {
            facet: self.facet.to_owned(),
            attributes: attributes.iter().map(|a| (*a).to_owned()).collect(),
            how: format!(
                "{what}; run `Table::backfill::<F>()` with the type of {} (or \
                 `Table::backfill_table::<S>()`)",
                self.facet
            ),
        }
    }

    /// Records of the facet break.
    pub fn breaks(&self, records: &str, why: String, repair: &str) -> Effect {
        Effect::BreaksStored {
            facet: self.facet.to_owned(),
            records: records.to_owned(),
            why,
            repair: repair.to_owned(),
        }
    }

    /// Records of the facet stored before break because their keys moved; a backfill moves
    /// them.
    fn keys_moved(&self, why: String) -> Effect {
        self.breaks(
            "every record stored before the change",
            format!(
                "{why}, so get and query miss them and a put of the same record writes a \
                 second copy"
            ),
            &format!(
                "a backfill moves them to their new keys (`Table::backfill::<F>()` with the \
                 type of {}, or `Table::backfill_table::<S>()`); until it has run, reads miss \
                 them",
                self.facet
            ),
        )
    }
}

/// A safe change.
pub(super) fn safe(note: impl Into<String>) -> Effect {
    Effect::Safe { note: note.into() }
}

/// Faceteer-TS must change too.
pub(super) fn readers(why: impl Into<String>) -> Effect {
    Effect::BreaksReaders {
        reader: TS.to_owned(),
        why: why.into(),
    }
}

/// A change the checker cannot judge.
pub(super) fn review(why: impl Into<String>) -> Effect {
    Effect::Review { why: why.into() }
}

/// An index to create, recreate, or a new table for.
pub(super) fn index(name: &str, action: IndexAction) -> Effect {
    let how = match action {
        IndexAction::Create => format!(
            "`Table::create_missing_indexes()` creates {name} on the table; DynamoDB fills it \
             from the items that hold its keys"
        ),
        IndexAction::Recreate => format!(
            "DynamoDB does not change an index in place: delete {name} from the table, then \
             create it again (`Table::create_missing_indexes()`); queries of it fail meanwhile"
        ),
        IndexAction::NewTable => format!(
            "DynamoDB creates local indexes with the table only: {name} needs a new table, \
             the records copied to it"
        ),
    };
    Effect::Index {
        index: name.to_owned(),
        action,
        how,
    }
}

/// A key as a change shows it: its pattern, and its sortable fields.
pub(super) fn key_text(key: &LockKey) -> String {
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
pub(super) fn key_layout(before: &LockKey, after: &LockKey) -> Vec<String> {
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
pub(super) fn key_optionality(before: &LockKey, after: &LockKey) -> (Vec<String>, Vec<String>) {
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
pub(super) enum ShardChange {
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
pub(super) fn shard_text(shard: Option<&LockShard>) -> String {
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
pub(super) fn shard_change(
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
pub(super) fn base_shard(cx: &Ctx<'_>, attribute: &str, change: ShardChange) -> Vec<Effect> {
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
pub(super) fn base_key(cx: &Ctx<'_>, attribute: &str, reasons: &[String]) -> Vec<Effect> {
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
pub(super) fn delimiter(cx: &Ctx<'_>) -> Vec<Effect> {
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
pub(super) fn index_key(cx: &Ctx<'_>, attribute: &str, reasons: &[String]) -> Vec<Effect> {
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
pub(super) fn index_shard(cx: &Ctx<'_>, attribute: &str, change: ShardChange) -> Vec<Effect> {
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

/// A field as a change shows it: `String`, `Option<u32> (default, codec x, epoch seconds)`.
pub(super) fn field_text(f: &LockField) -> String {
    let mut notes: Vec<String> = Vec::new();
    if !f.stored {
        notes.push("not stored".to_owned());
    }
    if f.default {
        notes.push("default".to_owned());
    }
    if let Some(c) = &f.codec {
        notes.push(format!("codec {c}"));
    }
    if let Some(e) = &f.epoch {
        notes.push(format!("epoch {e}"));
    }
    if f.field != f.attribute {
        notes.push(format!("field {}", f.field));
    }
    if notes.is_empty() {
        f.rust_type.clone()
    } else {
        format!("{} ({})", f.rust_type, notes.join(", "))
    }
}

/// The effects of a stored field added to the facet.
pub(super) fn field_added(cx: &Ctx<'_>, f: &LockField) -> Vec<Effect> {
    let x = &f.attribute;
    let strict = readers(format!(
        "records now hold `{x}`: a strict Faceteer-TS model of {} must declare it",
        cx.facet
    ));
    if f.reads_when_absent() {
        let reads = if f.optional { "`None`" } else { "the default" };
        return vec![
            safe(format!("records stored without `{x}` read it as {reads}")),
            strict,
        ];
    }
    if cx.bumped {
        return vec![
            cx.backfill(
                &[x],
                &format!(
                    "records stored at the older version are read through its upgrade, which \
                     gives `{x}`; a backfill stores it"
                ),
            ),
            strict,
        ];
    }
    vec![
        cx.breaks(
            "every record stored before the change",
            format!("they have no `{x}`, which is required, so they fail to read"),
            &format!(
                "make `{x}` an `Option` or give it `#[serde(default)]`, or raise the facet's \
                 `schema_version` with an upgrade that sets it, then backfill"
            ),
        ),
        strict,
    ]
}

/// The effects of a stored field removed from the facet.
pub(super) fn field_removed(cx: &Ctx<'_>, f: &LockField) -> Vec<Effect> {
    let x = &f.attribute;
    let gone = readers(format!(
        "records written now lack `{x}`: a Faceteer-TS model of {} that requires it fails \
         to read them",
        cx.facet
    ));
    if cx.bumped {
        return vec![
            cx.backfill(
                &[x],
                &format!("a backfill rewrites stored records without `{x}`"),
            ),
            gone,
        ];
    }
    vec![
        cx.breaks(
            &format!("every record stored with `{x}`"),
            format!("the code no longer reads `{x}`: the next write of such a record drops it"),
            &format!(
                "keep the field (with `#[serde(default)]` if it may be absent), or raise the \
                 facet's `schema_version` with an upgrade that reads `{x}`, then backfill"
            ),
        ),
        gone,
    ]
}

/// The effects of a field changed in place (same attribute, both stored).
pub(super) fn field_changed(cx: &Ctx<'_>, b: &LockField, a: &LockField) -> Vec<Effect> {
    let x = &a.attribute;
    let mut out = Vec::new();
    if b.value_type() != a.value_type() {
        out.push(if cx.bumped {
            cx.backfill(
                &[x],
                &format!(
                    "records stored at the older version are read through its upgrade; a \
                     backfill stores `{x}` as `{}`",
                    a.value_type()
                ),
            )
        } else {
            review(format!(
                "`{x}` is now a `{}`, not a `{}`: whether stored values still read cannot be \
                 told from the types; read a stored record in a test, or raise the facet's \
                 `schema_version` with an upgrade",
                a.value_type(),
                b.value_type()
            ))
        });
    }
    if b.reads_when_absent() && !a.reads_when_absent() {
        out.push(if cx.bumped {
            cx.backfill(
                &[x],
                &format!("the upgrade gives `{x}` to older records; a backfill stores it"),
            )
        } else {
            cx.breaks(
                &format!("records stored without `{x}`"),
                format!("`{x}` is now required, so they fail to read"),
                &format!(
                    "keep `{x}` an `Option` or `#[serde(default)]`, or raise the facet's \
                     `schema_version` with an upgrade that fills it"
                ),
            )
        });
    } else if !b.reads_when_absent() && a.reads_when_absent() {
        out.push(safe(format!(
            "`{x}` may now be absent; stored records all have it"
        )));
    }
    if b.codec != a.codec || b.epoch != a.epoch {
        let how = |f: &LockField| match (&f.codec, &f.epoch) {
            (Some(c), _) => format!("codec {c}"),
            (None, Some(e)) => format!("epoch {e}"),
            (None, None) => "serde's default encoding".to_owned(),
        };
        out.push(if cx.bumped {
            cx.backfill(&[x], &format!("a backfill rewrites `{x}` with {}", how(a)))
        } else {
            cx.breaks(
                &format!("every record stored with `{x}`"),
                format!(
                    "`{x}` is stored with {} and the code reads it with {}",
                    how(b),
                    how(a)
                ),
                &format!(
                    "keep the old encoding, or raise the facet's `schema_version` with an \
                     upgrade that reads the old `{x}`, then backfill"
                ),
            )
        });
        out.push(readers(format!(
            "Faceteer-TS must read and write `{x}` with {}",
            how(a)
        )));
    }
    if out.is_empty() && b != a {
        out.push(safe(format!(
            "the Rust field is `{}` (was `{}`); the attribute is unchanged",
            a.field, b.field
        )));
    }
    out
}

/// The effects of a change of the schema version from `before` to `after`.
pub(super) fn schema_version(cx: &Ctx<'_>, before: Option<u32>, after: Option<u32>) -> Vec<Effect> {
    let (b, a) = (before.unwrap_or(1), after.unwrap_or(1));
    let mut out = Vec::new();
    if a < b {
        out.push(cx.breaks(
            &format!("records written at version {b}"),
            format!(
                "the code reads versions up to {a} only, so they fail to read \
                 (`ItemError::SchemaVersion`)"
            ),
            &format!("restore `schema_version = {b}`"),
        ));
    } else if a > b {
        out.push(cx.backfill(
            &[crate::schema::SCHEMA_VERSION_ATTRIBUTE],
            &format!(
                "records stored at version {b} are read through the upgrade; a backfill \
                 rewrites them at version {a}"
            ),
        ));
    }
    if before.is_none() && after.is_some() {
        if a == b {
            out.push(safe(format!(
                "records stored without `{}` are at version 1",
                crate::schema::SCHEMA_VERSION_ATTRIBUTE
            )));
        }
        out.push(readers(format!(
            "every write now stores `{}`: a strict Faceteer-TS model of {} must declare it",
            crate::schema::SCHEMA_VERSION_ATTRIBUTE,
            cx.facet
        )));
    } else if before.is_some() && after.is_none() && a == b {
        out.push(safe(format!(
            "writes no longer store `{}`; reads pass over it",
            crate::schema::SCHEMA_VERSION_ATTRIBUTE
        )));
    }
    out
}

/// One setting as a change shows it.
pub(super) fn setting_text(value: Option<&serde_json::Value>) -> Option<String> {
    value.map(|v| v.to_string())
}

/// Whether a setting named `name` (a path of keys: `protection.deletion`) protects the
/// table's data: deletion protection or point-in-time recovery.
pub(super) fn is_protection(name: &str) -> bool {
    let plain: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    ["deletionprotection", "pointintimerecovery", "pitr"]
        .iter()
        .any(|p| plain.contains(p))
}

/// The effects of a change of setting `name`.
pub(super) fn setting(
    name: &str,
    before: Option<&serde_json::Value>,
    after: Option<&serde_json::Value>,
) -> Vec<Effect> {
    let on = |v: Option<&serde_json::Value>| match v {
        Some(serde_json::Value::Bool(b)) => *b,
        Some(serde_json::Value::Null) | None => false,
        Some(serde_json::Value::String(s)) => !matches!(
            s.to_ascii_lowercase().as_str(),
            "" | "false" | "off" | "disabled"
        ),
        Some(_) => true,
    };
    if is_protection(name) && on(before) && !on(after) {
        return vec![review(format!(
            "`{name}` is switched off: the table loses a protection of its data; make sure \
             that is meant"
        ))];
    }
    vec![safe(
        "applied to the table that exists by applying the settings (`UpdateTable`)",
    )]
}
