//! The indexes: declared on the struct with their keys (`#[facet(gsi(..))]`,
//! `#[facet(lsi(..))]`), or assembled by number from the fields' `#[gsi(..)]` and
//! `#[shard(gsi = ..)]` and given what they project by the struct's `#[facet(index(..))]`.

use std::collections::BTreeMap;

use darling::util::SpannedValue;
use proc_macro2::Span;

use darling::util::PathList;

use super::key_acc::{apply_container_key, resolve_fields, KeyAcc};
use crate::check;
use crate::ctxt::Ctxt;
use crate::model::{Field, IndexKind, IndexModel, KeyModel, KeyRole, ProjectionModel};
use crate::parse::{IndexDecl, IndexKeysDecl};

/// An index being assembled.
pub struct IndexAcc {
    /// Global or local.
    kind: IndexKind,
    /// Its partition key.
    pub pk: KeyAcc,
    /// Its sort key.
    pub sk: KeyAcc,
    /// Its alias, and where it was given.
    alias: Option<(String, Span)>,
    /// Where the index was first declared.
    span: Span,
    /// Declared on the struct (`#[facet(gsi(..))]`), keys included.
    pub on_struct: bool,
    /// `sparse`, and where it was given.
    sparse: Option<Span>,
    /// What it projects, once declared.
    projection: Option<ProjectionModel>,
    /// `native`, and where it was given.
    native: Option<Span>,
}

impl IndexAcc {
    /// An index first declared at `span`.
    pub fn new(kind: IndexKind, span: Span) -> Self {
        IndexAcc {
            kind,
            pk: KeyAcc::default(),
            sk: KeyAcc::default(),
            alias: None,
            span,
            on_struct: false,
            sparse: None,
            projection: None,
            native: None,
        }
    }

    /// The key of `role`.
    pub fn key_mut(&mut self, role: KeyRole) -> &mut KeyAcc {
        match role {
            KeyRole::Partition => &mut self.pk,
            KeyRole::Sort => &mut self.sk,
        }
    }

    /// Set the alias of the index `name`, which every field giving one must agree on.
    pub fn set_alias(&mut self, name: &str, alias: &SpannedValue<String>, cx: &Ctxt) {
        match &self.alias {
            Some((existing, _)) if existing != alias.as_str() => cx.error_at(
                alias.span(),
                format!(
                    "conflicting aliases for {name}: {existing:?} and {:?}",
                    alias.as_str()
                ),
            ),
            Some(_) => {}
            None => self.alias = Some((alias.to_string(), alias.span())),
        }
    }

    /// Declare the index sparse.
    pub fn set_sparse(&mut self, span: Span) {
        self.sparse.get_or_insert(span);
    }

    /// Index `n`, or `None` when its keys are wrong (reported). `base_pk` is the table's
    /// partition key, which a local index shares.
    fn finish(self, n: u8, base_pk: &KeyModel, fields: &[Field], cx: &Ctxt) -> Option<IndexModel> {
        let name = format!("{}{n}", self.kind.tag());
        let ok = match self.kind {
            IndexKind::Global => check::index_has_partition_key(
                cx,
                &name,
                self.pk.declared(),
                self.sk.declared(),
                self.span,
            ),
            IndexKind::Local => check::local_index_has_only_a_sort_key(
                cx,
                &name,
                self.pk.declared(),
                self.sk.declared(),
                self.span,
            ),
        };
        if !ok {
            return None;
        }
        let kind = self.kind;
        if let Some(native) = self.native {
            return self.finish_native(n, native, fields, cx);
        }
        let key = |acc: KeyAcc, role: KeyRole| {
            let attribute = format!("{name}{}", role.attribute());
            let hint = if self.on_struct {
                format!("`{}({}(..))`", kind.attr(), role.attr())
            } else {
                format!("the first `#[gsi(n = {n}, {})]`", role.attr())
            };
            acc.finish(
                role,
                &format!("{} of {name}", role.what()),
                attribute,
                &hint,
                self.span,
                cx,
            )
        };
        let pk = match kind {
            IndexKind::Global => key(self.pk, KeyRole::Partition),
            IndexKind::Local => base_pk.clone(),
        };
        let sk = self.sk.declared().then(|| key(self.sk, KeyRole::Sort));
        if let Some(sk) = &sk {
            check::sort_key_fits_queries(cx, &format!("the sort key of {name}"), sk, self.span);
        }
        if let Some((alias, span)) = &self.alias {
            check::alias_is_a_method_name(cx, alias, *span);
        }
        let model = IndexModel {
            kind,
            n,
            alias: self.alias.map(|(a, _)| a),
            pk,
            sk,
            projection: self.projection.unwrap_or(ProjectionModel::All),
            sparse: self.sparse.is_some(),
            native: false,
        };
        if let Some(span) = self.sparse {
            check::sparse_index_has_an_optional_field(cx, &model, fields, span);
        }
        Some(model)
    }
}

impl IndexAcc {
    /// A native index (`gsi(n = .., native, ..)`): its keys are the fields' own attributes,
    /// so they have no prefix, shard or sortable encoding, and no attribute of their own.
    fn finish_native(self, n: u8, native: Span, fields: &[Field], cx: &Ctxt) -> Option<IndexModel> {
        let name = format!("GSI{n}");
        if let Some(span) = self.sparse {
            check::native_index_is_not_sparse(cx, &name, span);
        }
        let key = |acc: KeyAcc, role: KeyRole| {
            acc.finish_native(role, &format!("{} of {name}", role.what()), native, cx)
        };
        let pk = key(self.pk, KeyRole::Partition);
        let sk = self.sk.declared().then(|| key(self.sk, KeyRole::Sort));
        if let Some((alias, span)) = &self.alias {
            check::alias_is_a_method_name(cx, alias, *span);
        }
        let model = IndexModel {
            kind: self.kind,
            n,
            alias: self.alias.map(|(a, _)| a),
            pk,
            sk,
            projection: self.projection.unwrap_or(ProjectionModel::All),
            sparse: false,
            native: true,
        };
        check::native_index_keys(cx, &model, fields, native);
        Some(model)
    }
}

/// The indexes with their keys, global ones first, each by number.
pub fn finish(
    indexes: BTreeMap<(IndexKind, u8), IndexAcc>,
    base_pk: &KeyModel,
    fields: &[Field],
    cx: &Ctxt,
) -> Vec<IndexModel> {
    indexes
        .into_iter()
        .filter_map(|((_, n), acc)| acc.finish(n, base_pk, fields, cx))
        .collect()
}

/// An index declared on the struct with its keys: `#[facet(gsi(..))]` or `#[facet(lsi(..))]`.
pub fn apply_struct_index(
    kind: IndexKind,
    decl: &SpannedValue<IndexKeysDecl>,
    indexes: &mut BTreeMap<(IndexKind, u8), IndexAcc>,
    fields: &[Field],
    cx: &Ctxt,
) {
    let Some(n) = check::index_number_in_range(cx, kind, &decl.n) else {
        return;
    };
    let name = format!("{}{n}", kind.tag());
    if indexes.contains_key(&(kind, n)) {
        cx.error_at(
            decl.n.span(),
            format!("{name} is declared twice; declare each index once"),
        );
        return;
    }
    let mut acc = IndexAcc::new(kind, decl.span());
    acc.on_struct = true;
    if decl.native.is_present() {
        let span = decl.native.span();
        if !check::native_index_is_global(cx, kind, span) {
            return;
        }
        acc.native = Some(span);
    }
    if let Some(alias) = &decl.alias {
        acc.set_alias(&name, alias, cx);
    }
    for (role, key) in [(KeyRole::Partition, &decl.pk), (KeyRole::Sort, &decl.sk)] {
        if let Some(key) = key {
            let what = format!("{} of {name}", role.what());
            apply_container_key(&what, key, acc.key_mut(role), fields, cx);
        }
    }
    if decl.sparse.is_present() {
        acc.set_sparse(decl.sparse.span());
    }
    if decl.keys_only.is_present() || decl.include.is_some() {
        acc.projection = projection(
            decl.keys_only.is_present(),
            decl.include.as_ref(),
            decl.span(),
            fields,
            cx,
        );
    }
    indexes.insert((kind, n), acc);
}

/// `#[facet(index(gsi = n, keys_only | include(..), sparse))]`: set what each index
/// declared on fields projects, and whether it is sparse.
pub fn apply_declarations(
    decls: &[SpannedValue<IndexDecl>],
    indexes: &mut BTreeMap<(IndexKind, u8), IndexAcc>,
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
        let found = u8::try_from(n)
            .ok()
            .and_then(|n| indexes.get_mut(&(IndexKind::Global, n)));
        let Some(index) = found else {
            let used: Vec<String> = indexes
                .keys()
                .map(|(kind, n)| format!("{}{n}", kind.tag()))
                .collect();
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
        if index.on_struct {
            cx.error_at(
                span,
                format!(
                    "GSI{n} is declared with `#[facet(gsi(n = {n}, ..))]`; say what it projects \
                     and whether it is sparse there"
                ),
            );
            continue;
        }
        if decl.sparse.is_present() {
            index.set_sparse(decl.sparse.span());
        }
        let (keys_only, include) = (decl.keys_only.is_present(), decl.include.as_ref());
        if keys_only || include.is_some() {
            index.projection = projection(keys_only, include, decl.span(), fields, cx);
        } else if !decl.sparse.is_present() {
            missing_projection(n, decl.span(), cx);
        }
    }
}

/// A declaration that says nothing.
fn missing_projection(n: u32, span: Span, cx: &Ctxt) {
    cx.error_at(
        span,
        format!(
            "say what GSI{n} projects: `index(gsi = {n}, keys_only)` or \
             `index(gsi = {n}, include(field, ..))` (without a declaration an index \
             projects whole records), or that it is sparse: `index(gsi = {n}, sparse)`"
        ),
    );
}

/// What a declaration says an index projects: `None` when it says nothing (whole records)
/// or says it wrongly (reported).
fn projection(
    keys_only: bool,
    include: Option<&PathList>,
    span: Span,
    fields: &[Field],
    cx: &Ctxt,
) -> Option<ProjectionModel> {
    match (keys_only, include) {
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
                span,
                "give `keys_only` or `include(..)`, not both: `include(..)` projects the \
                 keys too",
            );
            None
        }
        (false, None) => None,
    }
}
