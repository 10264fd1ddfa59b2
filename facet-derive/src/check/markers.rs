//! Rules about the `#[ttl]` and `#[version]` fields. Each returns whether the field is
//! accepted; the rules of one marker run in turn until one rejects it.

use proc_macro2::Span;

use crate::ctxt::Ctxt;
use crate::model::Field;
use crate::types::{is_counter, is_string_like};

/// A facet has at most one `#[ttl]` field (`seen`: the one already accepted).
pub fn at_most_one_ttl(cx: &Ctxt, seen: Option<usize>, span: Span) -> bool {
    if seen.is_some() {
        cx.error_at(span, "a facet has at most one `#[ttl]` field");
    }
    seen.is_none()
}

/// The TTL is a time or epoch seconds, not a string.
pub fn ttl_holds_a_time(cx: &Ctxt, field: &Field, span: Span) -> bool {
    let string = is_string_like(&field.inner);
    if string {
        cx.error_at(
            span,
            format!(
                "`#[ttl]` needs a time or an integer of epoch seconds \
                 (`DateTime<Utc>`, `SystemTime`, `i64`, `u64`, … or an `Option` of one), \
                 but `{}` is a string",
                field.ident
            ),
        );
    }
    !string
}

/// A facet has at most one `#[version]` field (`seen`: the one already accepted).
pub fn at_most_one_version(cx: &Ctxt, seen: Option<usize>, span: Span) -> bool {
    if seen.is_some() {
        cx.error_at(span, "a facet has at most one `#[version]` field");
    }
    seen.is_none()
}

/// The version counter is a plain `u32`, `u64`, `i32` or `i64`.
pub fn version_is_a_counter(cx: &Ctxt, field: &Field, span: Span) -> bool {
    let counter = is_counter(&field.ty);
    if !counter {
        cx.error_at(
            span,
            format!(
                "`#[version]` counts the writes of a record: make `{}` a `u64` (or \
                 `u32`, `i64`, `i32`), not an `Option` or another type; a new record \
                 starts at 0",
                field.ident
            ),
        );
    }
    counter
}

/// The version counter is neither part of a key nor the TTL (`elsewhere`: the field also
/// has one of those attributes).
pub fn version_is_not_a_key(cx: &Ctxt, field: &Field, elsewhere: bool, span: Span) -> bool {
    if elsewhere {
        cx.error_at(
            span,
            format!(
                "`{}` is the `#[version]` counter; it cannot also be part of a key or \
                 the TTL",
                field.ident
            ),
        );
    }
    !elsewhere
}
