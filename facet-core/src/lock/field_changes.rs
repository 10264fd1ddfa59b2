//! The changes of a facet's fields: each stored attribute removed, added or changed, the
//! fields serde does not store, and the renames they look like.

use std::collections::BTreeMap;

use super::hints;
use super::report::{change, Change};
use super::rules::{self, safe, Ctx};
use super::types::{LockFacet, LockField};

/// The changes of the facet's fields, when both versions list them.
pub(super) fn fields(cx: &Ctx<'_>, b: &LockFacet, a: &LockFacet, out: &mut Vec<Change>) {
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
