//! Hints: a removed field (or facet) and an added one that look like one thing renamed.
//! A rename reads as a removal and an addition to the rules; the hint says what it likely
//! is and how to rename without breaking stored records.

use super::report::Change;
use super::types::{LockFacet, LockField};

/// Mark likely renamed facets: a removed facet and an added one keyed by the same fields,
/// holding mostly the same attributes. `removed` and `added` give each facet's change by
/// its position in `out`.
pub(super) fn renamed_facets(
    removed: &[(usize, &LockFacet)],
    added: &[(usize, &LockFacet)],
    out: &mut [Change],
) {
    for (ri, r) in removed {
        let Some((ai, a)) = added.iter().find(|(_, a)| same_shape(r, a)) else {
            continue;
        };
        let (old, new) = (&r.name, &a.name);
        out[*ri].hint = Some(format!(
            "{old} looks renamed to {new}: its stored records keep `facet = {old}`, which {new} \
             does not read; to rename the type only, keep the stored name with \
             `#[facet(name = \"{old}\")]`"
        ));
        out[*ai].hint = Some(format!(
            "{new} looks like {old} renamed: the records stored as {old} are not read as {new}"
        ));
    }
}

/// Whether two facets are keyed by the same fields and (when both list them) share at
/// least half of their stored attributes.
fn same_shape(r: &LockFacet, a: &LockFacet) -> bool {
    let keys = |f: &LockFacet| {
        [&f.pk, &f.sk].map(|k| k.fields.iter().map(|x| x.name.clone()).collect::<Vec<_>>())
    };
    if keys(r) != keys(a) {
        return false;
    }
    let (Some(rf), Some(af)) = (&r.fields, &a.fields) else {
        return true;
    };
    let names = |f: &[LockField]| {
        f.iter()
            .filter(|x| x.stored)
            .map(|x| x.attribute.clone())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let (rn, an) = (names(rf), names(af));
    let shared = rn.intersection(&an).count();
    let all = rn.union(&an).count();
    all == 0 || shared * 2 >= all
}

/// Mark likely renamed fields of one facet: a removed attribute and an added one of the same
/// Rust field, or the only pair of one value type.
pub(super) fn renamed_fields(
    removed: &[(usize, &LockField)],
    added: &[(usize, &LockField)],
    out: &mut [Change],
) {
    for (ri, r) in removed {
        let same_field = added.iter().find(|(_, a)| a.field == r.field);
        let same_type = || {
            let of_type = |f: &&(usize, &LockField)| f.1.value_type() == r.value_type();
            let removed_like = removed.iter().filter(of_type).count();
            let mut added_like = added.iter().filter(of_type);
            match (removed_like, added_like.next(), added_like.next()) {
                (1, Some(a), None) => Some(a),
                _ => None,
            }
        };
        let Some((ai, a)) = same_field.or_else(same_type) else {
            continue;
        };
        let (old, new) = (&r.attribute, &a.attribute);
        out[*ri].hint = Some(format!(
            "`{old}` looks renamed to `{new}`: stored records keep `{old}`; read it too with \
             `#[serde(alias = \"{old}\")]` on the field, then a backfill stores `{new}` (or \
             keep the stored name with `#[serde(rename = \"{old}\")]`)"
        ));
        out[*ai].hint = Some(format!("`{new}` looks like `{old}` renamed"));
    }
}
