//! A key being assembled from the attributes that declare it, across fields.

use darling::util::{PathList, SpannedValue};
use proc_macro2::Span;

use crate::ctxt::Ctxt;
use crate::model::{Field, KeyModel, KeyPartRef, KeyRole, ShardModel};
use crate::parse::{ContainerKey, GrowAttr};
use crate::types::is_string_like;

/// A key being assembled from attributes.
#[derive(Default)]
pub struct KeyAcc {
    prefix: Option<(String, Span)>,
    /// `no_prefix`: the key is its values alone.
    no_prefix: Option<Span>,
    /// The fields declared so far, in order.
    pub parts: Vec<KeyPartRef>,
    shard: Option<(u32, Span)>,
    /// The fields hashed into the shard id.
    pub shard_fields: Vec<usize>,
    /// The schedule and its time field, once given.
    schedule: Option<(Vec<(i64, u32)>, usize)>,
    /// Where the key was first declared, for errors about the key as a whole.
    pub span: Option<Span>,
}

/// `grow(..)` and `time = ..` of one shard declaration.
#[derive(Clone, Copy)]
pub struct ScheduleDecl<'a> {
    /// The `grow(..)` periods.
    pub grow: &'a [SpannedValue<GrowAttr>],
    /// The `time = ..` field.
    pub time: Option<&'a syn::Path>,
    /// Where the shard is declared.
    pub span: Span,
}

impl KeyAcc {
    /// Whether any attribute declares the key.
    pub fn declared(&self) -> bool {
        !self.parts.is_empty() || self.span.is_some()
    }

    /// Add a field to the key.
    pub fn push_part(&mut self, field: usize, sortable: bool, span: Span) {
        self.span.get_or_insert(span);
        self.parts.push(KeyPartRef { field, sortable });
    }

    /// Set the prefix, which every declaration giving one must agree on.
    pub fn set_prefix(&mut self, what: &str, prefix: &str, span: Span, cx: &Ctxt) {
        match &self.prefix {
            Some((existing, _)) if existing != prefix => cx.error_at(
                span,
                format!(
                    "conflicting prefixes for {what}: {existing:?} and {prefix:?}; \
                     give the prefix once, or the same one on every field of the key"
                ),
            ),
            Some(_) => {}
            None => {
                crate::check::prefix_is_not_reserved(cx, what, prefix, span);
                self.prefix = Some((prefix.to_owned(), span));
            }
        }
    }

    /// Mark the key as its values alone (`no_prefix`).
    pub fn set_no_prefix(&mut self, span: Span) {
        self.no_prefix.get_or_insert(span);
    }

    /// Set the shard count, which every declaration must agree on.
    pub fn set_shard(&mut self, what: &str, count: u32, span: Span, cx: &Ctxt) {
        if count == 0 {
            cx.error_at(span, "`count` must be at least 1");
            return;
        }
        match self.shard {
            Some((existing, _)) if existing != count => cx.error_at(
                span,
                format!("conflicting shard counts for {what}: {existing} and {count}"),
            ),
            Some(_) => {}
            None => self.shard = Some((count, span)),
        }
    }

    /// Set the shard schedule of one shard declaration, if it has one; every declaration
    /// giving one must agree.
    pub fn set_schedule(&mut self, what: &str, decl: ScheduleDecl, fields: &[Field], cx: &Ctxt) {
        let Some((periods, time)) = schedule(decl, fields, cx) else {
            return;
        };
        match &self.schedule {
            Some(existing) if *existing != (periods.clone(), time) => cx.error_at(
                decl.span,
                format!("conflicting shard schedules for {what}; give the schedule once"),
            ),
            _ => self.schedule = Some((periods, time)),
        }
    }

    /// The key, with its stored `attribute`; `hint` says where a missing prefix goes and
    /// `at` is where to report it when no attribute declares the key.
    pub fn finish(
        self,
        role: KeyRole,
        what: &str,
        attribute: String,
        hint: &str,
        at: Span,
        cx: &Ctxt,
    ) -> KeyModel {
        let no_prefix = self.no_prefix.is_some();
        let prefix = match (self.prefix, self.no_prefix) {
            (Some((_, span)), Some(_)) => {
                cx.error_at(
                    span,
                    format!(
                        "{what} has both a prefix and `no_prefix`; keep one: `no_prefix` \
                         writes the values alone, `prefix = \"\"` writes a leading delimiter \
                         as Faceteer does"
                    ),
                );
                String::new()
            }
            (Some((p, _)), None) => p,
            (None, Some(span)) => {
                crate::check::no_prefix_is_a_sort_key_with_fields(
                    cx,
                    what,
                    role,
                    &self.parts,
                    span,
                );
                String::new()
            }
            (None, None) => {
                cx.error_at(
                    self.span.unwrap_or(at),
                    format!(
                        "{what} has no prefix: add `prefix = \"..\"` to {hint} (or, for a \
                         sort key, `no_prefix` to write its values alone, as OneTable's \
                         `${{a}}#${{b}}`)"
                    ),
                );
                String::new()
            }
        };
        let shard = self.shard.map(|(count, span)| {
            if self.shard_fields.is_empty() {
                cx.error_at(span, format!("{what} is sharded but names no shard field"));
            }
            let (schedule, time) = match self.schedule {
                Some((periods, time)) => (periods, Some(time)),
                None => (Vec::new(), None),
            };
            ShardModel {
                count,
                fields: self.shard_fields,
                schedule,
                time,
            }
        });
        KeyModel {
            role,
            attribute,
            prefix,
            no_prefix,
            parts: self.parts,
            shard,
        }
    }
}

impl KeyAcc {
    /// The key of a native index: its fields alone. A prefix, `no_prefix`, a shard or a
    /// sortable field is refused: DynamoDB reads the fields' own attributes.
    pub fn finish_native(self, role: KeyRole, what: &str, at: Span, cx: &Ctxt) -> KeyModel {
        let refuse = |span: Span, what_it_is: &str| {
            cx.error_at(
                span,
                format!(
                    "{what} is a native index key: DynamoDB reads its fields' own attributes, \
                     so it has no {what_it_is}; remove it, or drop `native` to write the key \
                     as one text attribute"
                ),
            )
        };
        if let Some((_, span)) = self.prefix {
            refuse(span, "prefix");
        }
        if let Some(span) = self.no_prefix {
            refuse(span, "`no_prefix`");
        }
        if let Some((_, span)) = self.shard {
            refuse(span, "shard (shard by a field of the record instead)");
        }
        if self.parts.iter().any(|p| p.sortable) {
            refuse(
                self.span.unwrap_or(at),
                "`sortable` encoding (numbers sort as numbers in a native key)",
            );
        }
        KeyModel {
            role,
            attribute: String::new(),
            prefix: String::new(),
            no_prefix: false,
            parts: self.parts,
            shard: None,
        }
    }
}

/// A key declared on the struct: `#[facet(pk(prefix = .., fields(..), sortable(..),
/// shard(..)))]`.
pub fn apply_container_key(
    what: &str,
    key: &SpannedValue<ContainerKey>,
    acc: &mut KeyAcc,
    fields: &[Field],
    cx: &Ctxt,
) {
    let span = key.span();
    acc.span.get_or_insert(span);
    if let Some(prefix) = &key.prefix {
        acc.set_prefix(what, prefix, span, cx);
    }
    if key.no_prefix.is_present() {
        acc.set_no_prefix(key.no_prefix.span());
    }
    let sortable = resolve_fields(&key.sortable, fields, cx);
    for field in resolve_fields(&key.fields, fields, cx) {
        acc.parts.push(KeyPartRef {
            field,
            sortable: sortable.contains(&field),
        });
    }
    if let Some(shard) = &key.shard {
        acc.set_shard(what, *shard.count, shard.count.span(), cx);
        acc.shard_fields
            .extend(resolve_fields(&shard.fields, fields, cx));
        let decl = ScheduleDecl {
            grow: &shard.grow,
            time: shard.time.as_ref(),
            span: shard.count.span(),
        };
        acc.set_schedule(what, decl, fields, cx);
    }
}

/// The periods and time field of a shard declaration with a schedule; `None` without one,
/// or when it is wrong (reported).
fn schedule(decl: ScheduleDecl, fields: &[Field], cx: &Ctxt) -> Option<(Vec<(i64, u32)>, usize)> {
    let time = match (decl.time, decl.grow.is_empty()) {
        (None, true) => return None,
        (Some(t), true) => {
            cx.error_spanned_by(
                t,
                "`time` chooses a record's period of a shard schedule; add the periods: \
                 `grow(from = \"2027-01-01T00:00:00Z\", count = 16)`",
            );
            return None;
        }
        (None, false) => {
            cx.error_at(
                decl.span,
                "a shard schedule needs the field that chooses each record's period: \
                 add `time = created` (a creation time that never changes), so records \
                 keep the shard they were written with",
            );
            return None;
        }
        (Some(t), false) => t,
    };
    let time = *resolve_fields(&PathList::new(vec![time.clone()]), fields, cx).first()?;
    let field = &fields[time];
    if field.optional || is_string_like(&field.inner) {
        cx.error_at(
            decl.span,
            format!(
                "`{}` chooses each record's shard period, so it must always hold a time: \
                 make it a `DateTime<Utc>` or an integer of epoch seconds, not an `Option` \
                 or a string",
                field.ident
            ),
        );
        return None;
    }
    let mut periods: Vec<(i64, u32)> = Vec::new();
    for g in decl.grow {
        let from = match chrono::DateTime::parse_from_rfc3339(&g.from) {
            Ok(t) => t.timestamp(),
            Err(e) => {
                cx.error_at(
                    g.from.span(),
                    format!(
                        "`from` is not an RFC 3339 time ({e}); write it like \
                         \"2027-01-01T00:00:00Z\""
                    ),
                );
                continue;
            }
        };
        if *g.count == 0 {
            cx.error_at(g.count.span(), "`count` must be at least 1");
            continue;
        }
        if periods.last().is_some_and(|(last, _)| *last >= from) {
            cx.error_at(
                g.from.span(),
                "list the `grow(..)` periods in time order, each later than the last",
            );
            continue;
        }
        periods.push((from, *g.count));
    }
    Some((periods, time))
}

/// The positions of the named fields; an unknown name is reported and left out.
pub fn resolve_fields(list: &PathList, fields: &[Field], cx: &Ctxt) -> Vec<usize> {
    let mut out = Vec::new();
    for path in list.iter() {
        let found = path
            .get_ident()
            .and_then(|id| fields.iter().position(|f| f.ident == *id));
        match found {
            Some(i) => out.push(i),
            None => {
                let names: Vec<String> = fields.iter().map(|f| f.ident.to_string()).collect();
                cx.error_spanned_by(
                    path,
                    format!(
                        "unknown field `{}`; the struct's fields are: {}",
                        quote::ToTokens::to_token_stream(path),
                        names.join(", ")
                    ),
                );
            }
        }
    }
    out
}
