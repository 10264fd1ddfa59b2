//! Rules about the assembled facet, run in order by [`facet`].

use std::collections::BTreeMap;

use proc_macro2::Span;

use super::keys::sort_key_fits_queries;
use crate::ctxt::Ctxt;
use crate::model::{FacetModel, Field, KeyModel};
use crate::types::is_integer;

/// Run every rule about the assembled facet, in this order.
pub fn facet(cx: &Ctxt, m: &FacetModel) {
    let at = m.ident.span();
    let keys = m.all_keys();
    alias_methods_are_distinct(cx, m, at);
    sort_keys_are_not_sharded(cx, &m.sk, at);
    sortable_is_one_encoding(cx, &m.fields, &keys);
    sortable_fields_are_integers(cx, &m.fields, &keys);
    sort_key_fits_queries(cx, "the sort key", &m.sk, at);
    name_is_not_empty(cx, &m.name, at);
    delimiter_is_not_empty(cx, &m.delimiter, m.delimiter_span);
    shard_ids_decode(cx, &m.delimiter, m.delimiter_span, &keys);
    write_times_are_not_primary_keys(cx, m);
    schema_versions_have_upgrades(cx, m);
    super::nested::nested_is_a_plain_attribute(cx, m);
    super::crypto::crypto_fits_the_facet(cx, m);
    super::sensitive::sensitive_keys_have_prefixes(cx, m);
}

/// `#[facet(schema_version = N)]` starts at 1, and names one upgrade function for each older
/// version: the reads of records stored at versions 1 to N - 1.
fn schema_versions_have_upgrades(cx: &Ctxt, m: &FacetModel) {
    let Some(v) = &m.schema_version else {
        return;
    };
    if v.version == 0 && !v.upgrades.is_empty() {
        cx.error_at(
            v.span,
            "`upgrade` reads records stored at older schema versions: declare the current \
             one too, `#[facet(schema_version = 2, upgrade = from_v1)]`",
        );
        return;
    }
    if v.version == 0 {
        cx.error_at(
            v.span,
            "schema versions start at 1 (an item without a stored version was written at \
             version 1)",
        );
        return;
    }
    let older = v.version as usize - 1;
    if v.upgrades.len() != older {
        let wanted = match older {
            0 => "no upgrade function (there is no older version: remove `upgrade`)".to_owned(),
            1 => "one upgrade function, reading a record stored at version 1: \
                  `upgrade = from_v1`"
                .to_owned(),
            2 | 3 => format!(
                "{older} upgrade functions, one per older version in order: `upgrade({})`",
                (1..=older)
                    .map(|i| format!("from_v{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            n => format!(
                "{n} upgrade functions, one per older version in order: `upgrade(from_v1, \
                 from_v2, .., from_v{n})`"
            ),
        };
        cx.error_at(
            v.upgrades_span,
            format!(
                "`schema_version = {}` needs {wanted}; {} given",
                v.version,
                v.upgrades.len()
            ),
        );
    }
}

/// A `#[created]` or `#[updated]` field is not part of the primary key: a write sets it, and
/// a record's key never changes.
fn write_times_are_not_primary_keys(cx: &Ctxt, m: &FacetModel) {
    for (field, what) in [(m.created, "created"), (m.updated, "updated")] {
        let Some(i) = field else { continue };
        let in_key = [&m.pk, &m.sk].iter().any(|k| {
            k.parts.iter().any(|p| p.field == i)
                || k.shard.as_ref().is_some_and(|s| s.inputs().any(|f| f == i))
        });
        if in_key {
            let ident = &m.fields[i].ident;
            cx.error_spanned_by(
                ident,
                format!(
                    "`{ident}` is `#[{what}]`, which every write sets, so it cannot be part of \
                     the primary key (a record's key never changes); an index key can be built \
                     from it"
                ),
            );
        }
    }
}

/// Two indexes cannot have one alias method: the aliases are compared as the methods they
/// generate (`Category` and `ByCategory` are both `by_category`).
fn alias_methods_are_distinct(cx: &Ctxt, m: &FacetModel, span: Span) {
    for (i, a) in m.indexes.iter().enumerate() {
        if let Some(method) = a.alias_method() {
            if m.indexes[..i]
                .iter()
                .any(|b| b.alias_method().as_deref() == Some(&method))
            {
                cx.error_at(
                    span,
                    format!("two indexes have the alias method `{method}`"),
                );
            }
        }
    }
}

/// Only partition keys are sharded.
fn sort_keys_are_not_sharded(cx: &Ctxt, sk: &KeyModel, span: Span) {
    if sk.shard.is_some() {
        cx.error_at(
            span,
            "only partition keys are sharded: move `shard(..)` to `pk(..)`",
        );
    }
}

/// A field's key encoding must not depend on which key it is in.
fn sortable_is_one_encoding(cx: &Ctxt, fields: &[Field], keys: &[&KeyModel]) {
    let mut seen: BTreeMap<usize, bool> = BTreeMap::new();
    for part in keys.iter().flat_map(|k| &k.parts) {
        if let Some(prev) = seen.insert(part.field, part.sortable) {
            if prev != part.sortable {
                let ident = &fields[part.field].ident;
                cx.error_spanned_by(
                    ident,
                    format!(
                        "field `{ident}` is `sortable` in one key but not in another; \
                         a field has one key encoding"
                    ),
                );
            }
        }
    }
}

/// `sortable` encodes primitive integers only; anything else is one error at the field
/// (rather than one per generated use of the field).
fn sortable_fields_are_integers(cx: &Ctxt, fields: &[Field], keys: &[&KeyModel]) {
    let mut reported = Vec::new();
    for part in keys.iter().flat_map(|k| &k.parts).filter(|p| p.sortable) {
        let field = &fields[part.field];
        if is_integer(&field.inner) || reported.contains(&part.field) {
            continue;
        }
        reported.push(part.field);
        cx.error_spanned_by(
            &field.ty,
            format!(
                "`sortable` encodes integers (u8..u64, i8..i64, usize, isize), but `{}` is not \
                 one; remove `sortable`, or store the value as an integer",
                field.ident
            ),
        );
    }
}

/// The facet name (stored in every record) is not empty.
fn name_is_not_empty(cx: &Ctxt, name: &str, span: Span) {
    if name.is_empty() {
        cx.error_at(span, "the facet name cannot be empty");
    }
}

/// The key delimiter is not empty.
fn delimiter_is_not_empty(cx: &Ctxt, delimiter: &str, span: Span) {
    if delimiter.is_empty() {
        cx.error_at(span, "the delimiter cannot be empty");
    }
}

/// A shard id is hex, as wide as its count needs. When a schedule changes that width, the
/// key is read back only if the delimiter after the shard id cannot be taken for one more
/// hex digit: with a delimiter starting with `0`–`9` or `a`–`f`, `#G` + `a` + `0` + `a` +
/// `a_x` and `#G` + `a` + `0a` + `a` + `_x` are one key.
fn shard_ids_decode(cx: &Ctxt, delimiter: &str, span: Span, keys: &[&KeyModel]) {
    let hex_start = delimiter
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || ('a'..='f').contains(&c));
    if !hex_start {
        return;
    }
    let width = |count: u32| format!("{:x}", count.saturating_sub(1)).len();
    for key in keys {
        let Some(shard) = &key.shard else { continue };
        let widths: Vec<usize> = std::iter::once(shard.count)
            .chain(shard.schedule.iter().map(|(_, c)| *c))
            .map(width)
            .collect();
        if widths.iter().any(|w| *w != widths[0]) {
            cx.error_at(
                span,
                format!(
                    "the delimiter {delimiter:?} starts with a hex digit and the shard schedule \
                     of `{}` changes how many hex digits a shard id has, so two records could \
                     get one key; choose a delimiter that does not start with 0-9 or a-f, or \
                     counts of one width",
                    key.attribute
                ),
            );
        }
    }
}
