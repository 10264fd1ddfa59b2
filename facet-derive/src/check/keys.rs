//! Rules about keys and indexes as their attributes are read.

use darling::util::SpannedValue;
use proc_macro2::Span;
use syn::Ident;

use crate::ctxt::Ctxt;
use crate::model::{native_type, Field, IndexKind, IndexModel, KeyModel, KeyRole, NativeType};
use crate::names::{alias_method, snake_case};

/// Most sort-key fields a typed query supports.
pub const MAX_SORT_FIELDS: usize = 4;

/// What the partition key of every guard item of a unique value starts with
/// (`faceteer_core::unique::GUARD_PREFIX`).
const GUARD_PREFIX: &str = "$unique";

/// The sort key of every guard item (`faceteer_core::unique::GUARD_SK`).
const GUARD_SK: &str = "$unique";

/// No key prefix (of `PK`, `SK` or an index's key) starts with `$unique` or is the guards'
/// sort key: the guard items of unique values live under `PK = $unique#..`, `SK = $unique`,
/// and a record's key must never be one of theirs (`what`: `the partition key`, `the sort
/// key of GSI1`, …). Keys that spell it otherwise (an empty prefix, the delimiter `$`, a
/// value `unique..`) are refused when they are built.
pub fn prefix_is_not_reserved(cx: &Ctxt, what: &str, prefix: &str, span: Span) {
    if prefix.starts_with(GUARD_PREFIX) || prefix == GUARD_SK {
        cx.error_at(
            span,
            format!(
                "the prefix {prefix:?} of {what} starts with `{GUARD_PREFIX}`, which faceteer \
                 reserves for the guard items of unique values (PK `{GUARD_PREFIX}#..`, SK \
                 `{GUARD_SK}`): a record under it could overwrite a guard; choose a prefix that \
                 does not start with `{GUARD_PREFIX}` (for example `#{}`)",
                prefix.trim_start_matches('$')
            ),
        );
    }
}

/// `no_prefix` (a key that is its values alone) is for a sort key with fields: a partition
/// key keeps its prefix (OneTable's `${_type}#${id}` is `prefix = "Type"` with the delimiter
/// `#`), and a key with no field would be empty, which DynamoDB refuses.
pub fn no_prefix_is_a_sort_key_with_fields(
    cx: &Ctxt,
    what: &str,
    role: KeyRole,
    parts: &[crate::model::KeyPartRef],
    span: Span,
) {
    if role == KeyRole::Partition {
        cx.error_at(
            span,
            format!(
                "{what} cannot be `no_prefix`: a partition key keeps a constant prefix, which \
                 keeps facets apart (OneTable's `${{_type}}#${{id}}` is `prefix = \"Type\"` \
                 with `#[facet(delimiter = \"#\")]`); `no_prefix` is for sort keys"
            ),
        );
    } else if parts.is_empty() {
        cx.error_at(
            span,
            format!(
                "{what} is `no_prefix` and has no field: it would be empty, which DynamoDB \
                 refuses; give it fields, or a prefix"
            ),
        );
    }
}

/// A key is declared on the struct (`#[facet(pk(..))]`) or on its fields (`#[pk]`), not
/// both (`on_struct`: the struct declares it). Returns whether the field's may be used.
pub fn key_declared_once(cx: &Ctxt, role: KeyRole, on_struct: bool, span: Span) -> bool {
    if on_struct {
        cx.error_at(
            span,
            format!(
                "{} is already declared with `#[facet({}(..))]`; declare it either on the \
                 struct or on its fields",
                role.what(),
                role.attr()
            ),
        );
    }
    !on_struct
}

/// An index number is 1 to 20, as DynamoDB's.
pub fn gsi_number_in_range(cx: &Ctxt, n: &SpannedValue<u32>) -> bool {
    let ok = (1..=20).contains(&**n);
    if !ok {
        cx.error_at(
            n.span(),
            format!(
                "`n` must be between 1 and 20 (DynamoDB indexes GSI1 … GSI20), found {}",
                **n
            ),
        );
    }
    ok
}

/// A `#[gsi(..)]` says which key of the index it is: exactly one of `pk` and `sk`.
pub fn gsi_names_its_key(cx: &Ctxt, pk: bool, sk: bool, span: Span) -> bool {
    if pk == sk {
        cx.error_at(
            span,
            "say which key of the index this field belongs to: add `pk` or `sk`",
        );
    }
    pk != sk
}

/// An index declared on the struct with its keys (`on_struct`) takes no `#[gsi(..)]` or
/// `#[shard(gsi = ..)]` on fields. Returns whether the field's may be used.
pub fn index_keys_declared_once(cx: &Ctxt, n: u8, on_struct: bool, span: Span) -> bool {
    if on_struct {
        cx.error_at(
            span,
            format!(
                "GSI{n} is already declared with `#[facet(gsi(n = {n}, ..))]`; declare its \
                 keys either on the struct or on its fields"
            ),
        );
    }
    !on_struct
}

/// The partition key's shard is declared on the struct or on fields, not both
/// (`on_struct`: the struct's `pk(..)` has a `shard(..)`).
pub fn shard_declared_once(cx: &Ctxt, on_struct: bool, span: Span) -> bool {
    if on_struct {
        cx.error_at(
            span,
            "the partition key's shard is already declared on the struct",
        );
    }
    !on_struct
}

/// A facet has a partition key (`declared`: a field or the struct declares it).
pub fn facet_has_partition_key(cx: &Ctxt, declared: bool, span: Span) {
    if !declared {
        cx.error_at(
            span,
            "a facet needs a partition key: mark its field(s) `#[pk(prefix = \"..\")]`",
        );
    }
}

/// A facet has a sort key (`declared`: a field or the struct declares it).
pub fn facet_has_sort_key(cx: &Ctxt, declared: bool, span: Span) {
    if !declared {
        cx.error_at(
            span,
            "a facet needs a sort key: mark its field(s) `#[sk(prefix = \"..\")]`, or declare \
             `#[facet(sk(prefix = \"..\", fields()))]` for a constant one",
        );
    }
}

/// A global index has a partition key (`has_pk`, `has_sk`: some attribute declares them);
/// its sort key is optional. Returns whether it has one.
pub fn index_has_partition_key(
    cx: &Ctxt,
    name: &str,
    has_pk: bool,
    has_sk: bool,
    span: Span,
) -> bool {
    if has_pk {
        return true;
    }
    let n = name.trim_start_matches("GSI");
    let msg = if has_sk {
        format!(
            "{name} has a sort key but no partition key: mark a field \
             `#[gsi(n = {n}, pk, prefix = \"..\")]`, or declare \
             `#[facet(gsi(n = {n}, pk(prefix = \"..\", fields(..)), sk(..)))]` \
             (`fields()` for a constant partition)"
        )
    } else {
        format!(
            "{name} is sharded but has no keys: mark fields `#[gsi(n = {n}, pk, prefix = \"..\")]`, \
             or declare `#[facet(gsi(n = {n}, pk(prefix = \"..\", fields(..), shard(..))))]`"
        )
    };
    cx.error_at(span, msg);
    false
}

/// A local index has a sort key and no partition key of its own (it shares the table's).
/// Returns whether it is so.
pub fn local_index_has_only_a_sort_key(
    cx: &Ctxt,
    name: &str,
    has_pk: bool,
    has_sk: bool,
    span: Span,
) -> bool {
    let n = name.trim_start_matches("LSI");
    if has_pk {
        cx.error_at(
            span,
            format!(
                "{name} is a local index: it shares the table's partition key, so it takes \
                 no `pk(..)`; use a global index (`gsi(..)`) for another partition"
            ),
        );
        return false;
    }
    if !has_sk {
        cx.error_at(
            span,
            format!("{name} needs a sort key: `lsi(n = {n}, sk(prefix = \"..\", fields(..)))`"),
        );
        return false;
    }
    true
}

/// The number of an index declared on the struct is in DynamoDB's range (1 to 20 global
/// indexes, 1 to 5 local ones). Returns it as a `u8`.
pub fn index_number_in_range(cx: &Ctxt, kind: IndexKind, n: &SpannedValue<u32>) -> Option<u8> {
    let max = match kind {
        IndexKind::Global => 20,
        IndexKind::Local => 5,
    };
    if (1..=max).contains(&**n) {
        return Some(**n as u8);
    }
    let tag = kind.tag();
    cx.error_at(
        n.span(),
        format!(
            "`n` must be between 1 and {max} (DynamoDB's {tag}1 … {tag}{max}), found {}",
            **n
        ),
    );
    None
}

/// A sparse index has an optional key field: a record is left out of it when one is
/// absent, so with none, every record would be in it.
pub fn sparse_index_has_an_optional_field(
    cx: &Ctxt,
    index: &IndexModel,
    fields: &[Field],
    span: Span,
) {
    let optional = index
        .own_keys()
        .flat_map(|k| k.inputs())
        .any(|f| fields[f].optional);
    if !optional {
        cx.error_at(
            span,
            format!(
                "{} is sparse, but every field of its keys is required, so every record would \
                 be in it; make the field that decides membership an `Option`, or drop `sparse`",
                index.name()
            ),
        );
    }
}

/// A sort key has at most [`MAX_SORT_FIELDS`] fields, the most a typed query takes
/// (`what`: `the sort key`, `the sort key of GSI1`).
pub fn sort_key_fits_queries(cx: &Ctxt, what: &str, sk: &KeyModel, span: Span) {
    if sk.parts.len() > MAX_SORT_FIELDS {
        cx.error_at(
            span,
            format!(
                "{what} has {} fields; typed queries support at most {MAX_SORT_FIELDS}",
                sk.parts.len()
            ),
        );
    }
}

/// An index alias gives a Rust method name.
pub fn alias_is_a_method_name(cx: &Ctxt, alias: &str, span: Span) {
    if snake_case(alias).is_empty() || syn::parse_str::<Ident>(&alias_method(alias)).is_err() {
        cx.error_at(
            span,
            format!("alias {alias:?} does not give a valid method name"),
        );
    }
}

/// Most fields of one native index key (partition or sort): DynamoDB's limit.
pub const MAX_NATIVE_FIELDS: usize = 4;

/// Only a global index has native keys: DynamoDB's table keys and local indexes take one
/// attribute each.
pub fn native_index_is_global(cx: &Ctxt, kind: IndexKind, span: Span) -> bool {
    if kind == IndexKind::Local {
        cx.error_at(
            span,
            "only a global index can be `native`: DynamoDB's multi-attribute keys are for \
             global secondary indexes; declare it with `gsi(n = .., native, ..)`",
        );
    }
    kind == IndexKind::Global
}

/// A native index holds exactly the records that have every key attribute: `sparse` says
/// nothing more.
pub fn native_index_is_not_sparse(cx: &Ctxt, name: &str, span: Span) {
    cx.error_at(
        span,
        format!(
            "{name} is native, so a record is in it exactly when it has every key attribute \
             (an absent `Option` leaves it out); remove `sparse`"
        ),
    );
}

/// The keys of a native index: one to four partition fields, up to four sort fields, each
/// a field stored as an attribute of its own, once, whose DynamoDB type can be told.
pub fn native_index_keys(cx: &Ctxt, index: &IndexModel, fields: &[Field], span: Span) {
    let name = index.name();
    let keys = std::iter::once(&index.pk).chain(index.sk.as_ref());
    let mut seen: Vec<usize> = Vec::new();
    for key in keys {
        let what = format!("{} of {name}", key.role.what());
        if key.parts.len() > MAX_NATIVE_FIELDS {
            cx.error_at(
                span,
                format!(
                    "{what} has {} fields; a native key has at most {MAX_NATIVE_FIELDS} \
                     (DynamoDB's limit for multi-attribute keys)",
                    key.parts.len()
                ),
            );
        }
        if key.parts.is_empty() {
            cx.error_at(span, format!("{what} names no field: give it `fields(..)`"));
        }
        for part in &key.parts {
            let f = &fields[part.field];
            if seen.contains(&part.field) {
                cx.error_spanned_by(
                    &f.ident,
                    format!(
                        "`{}` is named twice in the keys of {name}; DynamoDB's key schema \
                         names each attribute once",
                        f.ident
                    ),
                );
            }
            seen.push(part.field);
            if !f.is_attribute {
                cx.error_spanned_by(
                    &f.ident,
                    format!(
                        "`{}` is not stored as an attribute of its own (serde skips or \
                         flattens it), so it cannot key native index {name}",
                        f.ident
                    ),
                );
            } else if native_type(f.serializer.as_ref()) == NativeType::Unknown {
                cx.error_spanned_by(
                    &f.ident,
                    format!(
                        "`{}` is stored through its own codec, so faceteer cannot tell whether \
                         native index {name} keys it as `S`, `N` or `B`; key it by a type \
                         implementing `faceteer::key::KeyScalar` instead (a codec of \
                         `chrono::serde::ts_*`, `serde_bytes` or `faceteer::timestamp` is known)",
                        f.ident
                    ),
                );
            }
        }
    }
}
