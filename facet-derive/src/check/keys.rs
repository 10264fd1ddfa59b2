//! Rules about keys and indexes as their attributes are read.

use darling::util::SpannedValue;
use proc_macro2::Span;
use syn::Ident;

use crate::ctxt::Ctxt;
use crate::model::{KeyModel, KeyRole};
use crate::names::{alias_method, snake_case};

/// Most sort-key fields a typed query supports.
pub const MAX_SORT_FIELDS: usize = 4;

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

/// An index has both keys (`has_pk`, `has_sk`: some field is part of them). Returns
/// whether it does.
pub fn index_has_both_keys(cx: &Ctxt, n: u8, has_pk: bool, has_sk: bool, span: Span) -> bool {
    let msg = match (has_pk, has_sk) {
        (true, true) => return true,
        (false, false) => format!(
            "GSI{n} is sharded but has no keys: mark fields `#[gsi(n = {n}, pk, prefix = \"..\")]` and `#[gsi(n = {n}, sk, prefix = \"..\")]`"
        ),
        (false, true) => format!(
            "GSI{n} has a sort key but no partition key: mark a field `#[gsi(n = {n}, pk, prefix = \"..\")]`"
        ),
        (true, false) => format!(
            "GSI{n} has a partition key but no sort key: mark a field \
             `#[gsi(n = {n}, sk, prefix = \"..\")]`"
        ),
    };
    cx.error_at(span, msg);
    false
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
