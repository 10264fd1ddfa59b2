//! Fields and schema versions: whether stored records still read, and what a raised version
//! with its upgrade turns into a backfill.

use super::effects::{readers, review, safe, Ctx};
use crate::lock::report::Effect;
use crate::lock::types::LockField;

/// A field as a change shows it: `String`, `Option<u32> (default, codec x, epoch seconds)`.
pub(crate) fn field_text(f: &LockField) -> String {
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
pub(crate) fn field_added(cx: &Ctx<'_>, f: &LockField) -> Vec<Effect> {
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
pub(crate) fn field_removed(cx: &Ctx<'_>, f: &LockField) -> Vec<Effect> {
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
pub(crate) fn field_changed(cx: &Ctx<'_>, b: &LockField, a: &LockField) -> Vec<Effect> {
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
pub(crate) fn schema_version(cx: &Ctx<'_>, before: Option<u32>, after: Option<u32>) -> Vec<Effect> {
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
