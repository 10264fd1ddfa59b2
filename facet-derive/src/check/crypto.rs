//! Rules about `#[encrypt]`, `#[sign_only]` and `#[beacon]` fields.

use super::markers::LibraryRole;
use crate::ctxt::Ctxt;
use crate::model::{FacetModel, Field};
use crate::parse::FieldAttrs;

/// The field's encryption attributes agree with each other and with the field: one action,
/// a beacon only on an encrypted field, of a length AWS's rule allows, on a field whose
/// values are many enough to hide.
pub fn crypto_attributes_agree(cx: &Ctxt, field: &Field, attrs: &FieldAttrs) {
    let name = &field.ident;
    if let (Some(_), Some(span)) = (attrs.encrypt, attrs.sign_only) {
        cx.error_at(
            span,
            format!(
                "`{name}` is `#[encrypt]` and `#[sign_only]`: an encrypted field is signed \
                 too; keep one"
            ),
        );
    }
    if let (Some((_, span)), None) = (&attrs.beacon, attrs.encrypt) {
        cx.error_at(
            *span,
            format!(
                "`#[beacon]` on `{name}` makes an encrypted value findable by equality; the \
                 field is not encrypted: add `#[encrypt]`, or drop the beacon and use the \
                 plain value in keys"
            ),
        );
    }
    let Some(crypto) = &field.crypto else { return };
    if !field.is_attribute {
        cx.error_at(
            crypto.span,
            format!(
                "`{name}` is not stored as an attribute of its own (`flatten` or `skip`): \
                 only a field stored as one attribute can be encrypted or signed"
            ),
        );
    }
    if let Some(span) = field.nested {
        cx.error_at(
            span,
            format!(
                "`{name}` is encrypted or signed whole: its members cannot be reached by \
                 conditions or updates, so it cannot be `#[nested]`"
            ),
        );
    }
    if let Some(b) = &crypto.beacon {
        beacon_length_hides_values(cx, field, b);
    }
}

/// How many distinct values a field of this type can take, when the type alone tells.
fn values_of_type(ty: &syn::Type) -> Option<u64> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?.ident.to_string();
    match last.as_str() {
        "bool" => Some(2),
        "u8" | "i8" => Some(1 << 8),
        "u16" | "i16" => Some(1 << 16),
        _ => None,
    }
}

/// AWS's rule for a standard beacon over `x` distinct values: `2^length` above `√x` (so each
/// beacon value is shared by several values of the field) and below `x / 2` (so that every
/// beacon value stands for at least two field values).
fn length_fits(length: u32, x: u64) -> bool {
    let n = 1u128 << length.min(127);
    n * n > x as u128 && n * 2 < x as u128
}

fn beacon_length_hides_values(cx: &Ctxt, field: &Field, b: &crate::model::Beacon) {
    let name = &field.ident;
    if !(1..=63).contains(&b.length) {
        cx.error_at(
            b.span,
            format!(
                "the beacon of `{name}` keeps {} bits: a beacon keeps 1 to 63 bits of the \
                 HMAC (AWS: choose the length from the number of distinct values: √X < 2^length < X/2, \
                 see `#[beacon(..)]` in `faceteer::guide::attributes`)",
                b.length
            ),
        );
        return;
    }
    let (x, source) = match (b.distinct, values_of_type(&field.inner)) {
        (Some(x), _) => (x, "`distinct`"),
        (None, Some(x)) => (x, "its type"),
        (None, None) => return,
    };
    if !(1..=63).any(|n| length_fits(n, x)) {
        cx.error_at(
            b.span,
            format!(
                "`{name}` takes {x} distinct values (from {source}): too few to hide behind a \
                 beacon. A beacon hides a value only when each beacon value stands for \
                 several field values, and no length does that for so few: anyone who reads \
                 the keys learns the value. Keep the field out of keys, or combine it with \
                 another field"
            ),
        );
    } else if !length_fits(b.length, x) {
        let fitting: Vec<String> = (1..=63)
            .filter(|n| length_fits(*n, x))
            .map(|n| n.to_string())
            .collect();
        cx.error_at(
            b.span,
            format!(
                "the beacon of `{name}` keeps {} bits for {x} distinct values (from \
                 {source}): AWS's rule asks for 2^length above √{x} (enough collisions to \
                 hide each value) and below {x}/2; lengths that fit: {}",
                b.length,
                fitting.join(", ")
            ),
        );
    }
}

/// Encrypted fields fit the facet: keys hold an encrypted field only as its beacon, a beacon
/// is only ever in a global index's partition key (never the table's key, never a sort key,
/// never sortable), and the library's own fields stay plaintext.
pub fn crypto_fits_the_facet(cx: &Ctxt, m: &FacetModel) {
    for (i, f) in m.fields.iter().enumerate() {
        let Some(crypto) = &f.crypto else { continue };
        let name = &f.ident;
        let in_key = m
            .all_keys()
            .iter()
            .any(|k| k.parts.iter().any(|p| p.field == i));
        // Shard ids hash their inputs with no key: an encrypted value would be open to
        // guessing, beacon or not.
        let in_shard = m
            .all_keys()
            .iter()
            .any(|k| k.shard.as_ref().is_some_and(|s| s.inputs().any(|f| f == i)));
        // A native index's keys, and a vector index's partition and filters, are the
        // attribute itself, compared by the server.
        let server_reads = m.indexes.iter().any(|x| x.native && x.uses(i))
            || m.vectors
                .iter()
                .any(|v| v.partition == Some(i) || v.filters.contains(&i));
        if crypto.encrypted && (in_shard || server_reads) {
            let what = if in_shard {
                "a shard id is hashed from it with no key, so the hash could be guessed back"
            } else {
                "a native index's key or a vector index's partition or filter is the attribute \
                 itself, which the server reads and compares"
            };
            cx.error_at(
                crypto.span,
                format!("`{name}` is encrypted, and {what}: keep it out of there"),
            );
        }
        if crypto.encrypted && crypto.beacon.is_none() && in_key {
            cx.error_at(
                crypto.span,
                format!(
                    "`{name}` is encrypted and a key is built from it: keys are stored in \
                     plaintext, so the key would show the value. Add \
                     `#[beacon(length = N)]` (the key then holds a truncated HMAC of the \
                     value, and queries by it still work), or keep the field out of keys"
                ),
            );
        }
        if let Some(b) = &crypto.beacon {
            let sortable = m
                .all_keys()
                .iter()
                .any(|k| k.parts.iter().any(|p| p.field == i && p.sortable));
            if sortable {
                cx.error_at(
                    b.span,
                    format!(
                        "`{name}` has a beacon and is a `sortable` key part: a beacon has no \
                         order; drop `sortable`"
                    ),
                );
            }
            let in_primary = m.pk.uses(i) || m.sk.uses(i);
            let in_sort_key = m
                .indexes
                .iter()
                .any(|x| x.sk.as_ref().is_some_and(|k| k.uses(i)));
            let misplaced = if in_primary {
                Some((
                    "the table's key",
                    "the table's key identifies a record, and beacons collide by design: two \
                     records whose values share a beacon would share a key, and the second \
                     write would overwrite the first",
                ))
            } else if in_sort_key {
                Some((
                    "an index's sort key",
                    "an index's sort key is compared by ranges and prefixes, which a beacon \
                     cannot answer",
                ))
            } else {
                None
            };
            if let Some((place, why)) = misplaced {
                cx.error_at(
                    b.span,
                    format!(
                        "`{name}` has a beacon and is part of {place}: {why}. A beacon belongs \
                         in a global index's partition key (`#[gsi(n = .., pk)]`), whose \
                         queries drop the records whose beacon merely collides"
                    ),
                );
            }
        }
        let role = match super::markers::LibraryRole::of(m, i) {
            // A signed-only unique value is readable: its guard's key may hold it.
            Some(LibraryRole::Unique) if !crypto.encrypted => None,
            Some(LibraryRole::Unique) => Some(format!(
                "{} (guard keys hold the value)",
                LibraryRole::Unique.noun()
            )),
            Some(role) => Some(role.noun().to_owned()),
            None => None,
        };
        if let Some(role) = role {
            cx.error_at(
                crypto.span,
                format!(
                    "`{name}` is {role}: the library writes it with updates and the server \
                     reads it, so it cannot be encrypted or signed"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::length_fits;

    #[test]
    fn awss_worked_example_fits_9_to_16_bits_for_100_000_values() {
        let fits: Vec<u32> = (1..=63).filter(|n| length_fits(*n, 100_000)).collect();
        assert_eq!(fits.first(), Some(&9));
        assert_eq!(fits.last(), Some(&15));
        assert!(!(1..=63).any(|n| length_fits(n, 2)));
        assert!(!(1..=63).any(|n| length_fits(n, 8)));
        assert_eq!(
            (1..=63)
                .filter(|n| length_fits(*n, 256))
                .collect::<Vec<_>>(),
            vec![5, 6]
        );
    }
}
