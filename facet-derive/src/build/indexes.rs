//! The indexes: assembled by number from the fields' `#[gsi(..)]` and `#[shard(gsi = ..)]`,
//! then given what they project by the struct's `#[facet(index(..))]`.

use std::collections::BTreeMap;

use darling::util::SpannedValue;
use proc_macro2::Span;

use super::key_acc::{resolve_fields, KeyAcc};
use crate::check;
use crate::ctxt::Ctxt;
use crate::model::{Field, IndexModel, KeyRole, ProjectionModel};
use crate::parse::IndexDecl;

/// An index being assembled.
pub struct GsiAcc {
    /// Its partition key.
    pub pk: KeyAcc,
    /// Its sort key.
    pub sk: KeyAcc,
    /// Its alias, and where it was given.
    alias: Option<(String, Span)>,
    /// Where the index was first declared.
    span: Span,
}

impl GsiAcc {
    /// An index first declared at `span`.
    pub fn new(span: Span) -> Self {
        GsiAcc {
            pk: KeyAcc::default(),
            sk: KeyAcc::default(),
            alias: None,
            span,
        }
    }

    /// The key of `role`.
    pub fn key_mut(&mut self, role: KeyRole) -> &mut KeyAcc {
        match role {
            KeyRole::Partition => &mut self.pk,
            KeyRole::Sort => &mut self.sk,
        }
    }

    /// Set the alias of GSI`n`, which every field giving one must agree on.
    pub fn set_alias(&mut self, n: u8, alias: &SpannedValue<String>, cx: &Ctxt) {
        match &self.alias {
            Some((existing, _)) if existing != alias.as_str() => cx.error_at(
                alias.span(),
                format!(
                    "conflicting aliases for GSI{n}: {existing:?} and {:?}",
                    alias.as_str()
                ),
            ),
            Some(_) => {}
            None => self.alias = Some((alias.to_string(), alias.span())),
        }
    }

    /// Index `n`, or `None` when it lacks a key (reported).
    fn finish(self, n: u8, cx: &Ctxt) -> Option<IndexModel> {
        let has_keys = !self.pk.parts.is_empty();
        if !check::index_has_both_keys(cx, n, has_keys, !self.sk.parts.is_empty(), self.span) {
            return None;
        }
        let key = |acc: KeyAcc, role: KeyRole| {
            acc.finish(
                role,
                &format!("{} of GSI{n}", role.what()),
                format!("GSI{n}{}", role.attribute()),
                &format!("the first `#[gsi(n = {n}, {})]`", role.attr()),
                self.span,
                cx,
            )
        };
        let pk = key(self.pk, KeyRole::Partition);
        let sk = key(self.sk, KeyRole::Sort);
        check::sort_key_fits_queries(cx, &format!("the sort key of GSI{n}"), &sk, self.span);
        if let Some((alias, span)) = &self.alias {
            check::alias_is_a_method_name(cx, alias, *span);
        }
        Some(IndexModel {
            n,
            alias: self.alias.map(|(a, _)| a),
            pk,
            sk,
            projection: ProjectionModel::All,
        })
    }
}

/// The indexes with both keys, by number.
pub fn finish(gsi: BTreeMap<u8, GsiAcc>, cx: &Ctxt) -> Vec<IndexModel> {
    gsi.into_iter()
        .filter_map(|(n, acc)| acc.finish(n, cx))
        .collect()
}

/// `#[facet(index(gsi = n, keys_only | include(..)))]`: set what each declared index
/// projects.
pub fn apply_declarations(
    decls: &[SpannedValue<IndexDecl>],
    indexes: &mut [IndexModel],
    fields: &[Field],
    cx: &Ctxt,
) {
    let mut seen: Vec<u32> = Vec::new();
    for decl in decls {
        let n = *decl.gsi;
        let span = decl.gsi.span();
        if seen.contains(&n) {
            cx.error_at(
                span,
                format!("GSI{n} is declared twice; declare its projection once"),
            );
            continue;
        }
        seen.push(n);
        let Some(index) = indexes.iter_mut().find(|i| u32::from(i.n) == n) else {
            let used: Vec<String> = indexes.iter().map(|i| format!("GSI{}", i.n)).collect();
            cx.error_at(
                span,
                format!(
                    "this facet does not use GSI{n}, so it declares no projection for it; \
                     the facet's indexes are: {}",
                    if used.is_empty() {
                        "none".to_owned()
                    } else {
                        used.join(", ")
                    }
                ),
            );
            continue;
        };
        if let Some(projection) = projection(decl, n, fields, cx) {
            index.projection = projection;
        }
    }
}

/// What one declaration says index `n` projects, or `None` when it says it wrongly
/// (reported).
fn projection(
    decl: &SpannedValue<IndexDecl>,
    n: u32,
    fields: &[Field],
    cx: &Ctxt,
) -> Option<ProjectionModel> {
    match (decl.keys_only.is_present(), &decl.include) {
        (true, None) => Some(ProjectionModel::KeysOnly),
        (false, Some(list)) => {
            let included = resolve_fields(list, fields, cx);
            for path in list.iter() {
                let skipped = path
                    .get_ident()
                    .and_then(|id| fields.iter().find(|f| f.ident == *id))
                    .is_some_and(|f| !f.is_attribute);
                if skipped {
                    cx.error_spanned_by(
                        path,
                        "this field is not stored as an attribute of its own (serde \
                         skips or flattens it), so no index can project it",
                    );
                }
            }
            Some(ProjectionModel::Include(included))
        }
        (true, Some(_)) => {
            cx.error_at(
                decl.span(),
                "give `keys_only` or `include(..)`, not both: `include(..)` projects the \
                 keys too",
            );
            None
        }
        (false, None) => {
            cx.error_at(
                decl.span(),
                format!(
                    "say what GSI{n} projects: `index(gsi = {n}, keys_only)` or \
                     `index(gsi = {n}, include(field, ..))` (without a declaration an index \
                     projects whole records)"
                ),
            );
            None
        }
    }
}
