//! Rules about the `#[ttl]` and `#[version]` fields. Each returns whether the field is
//! accepted; the rules of one marker run in turn until one rejects it.

use proc_macro2::Span;

use crate::ctxt::Ctxt;
use crate::model::{FacetModel, Field};
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

/// What the library writes or the server reads a field as, beside its own value: the
/// rules of `#[nested]` and encrypted fields refuse the same roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LibraryRole {
    /// The `#[ttl]`.
    Ttl,
    /// The `#[version]` counter.
    Version,
    /// A `#[created]` or `#[updated]` time.
    WriteTime,
    /// A `#[unique]` field or a unique field's scope.
    Unique,
    /// A `#[vector]`.
    Vector,
}

impl LibraryRole {
    /// The role of field `i`, if it has one (the first, in this order).
    pub fn of(m: &FacetModel, i: usize) -> Option<LibraryRole> {
        if m.ttl == Some(i) {
            Some(LibraryRole::Ttl)
        } else if m.version == Some(i) {
            Some(LibraryRole::Version)
        } else if m.created == Some(i) || m.updated == Some(i) {
            Some(LibraryRole::WriteTime)
        } else if m
            .unique
            .iter()
            .any(|u| u.field == i || u.scope.contains(&i))
        {
            Some(LibraryRole::Unique)
        } else if m.vectors.iter().any(|v| v.field == i) {
            Some(LibraryRole::Vector)
        } else {
            None
        }
    }

    /// What the field is, in a message.
    pub fn noun(self) -> &'static str {
        match self {
            LibraryRole::Ttl => "the `#[ttl]`",
            LibraryRole::Version => "the `#[version]` counter",
            LibraryRole::WriteTime => "a write time",
            LibraryRole::Unique => "`#[unique]` or a unique field's scope",
            LibraryRole::Vector => "a `#[vector]`",
        }
    }
}
