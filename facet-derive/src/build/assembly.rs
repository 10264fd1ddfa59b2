//! The keys, indexes, TTL and version of a facet, assembled from the struct's key
//! attributes and then from each field's, in field order.

use std::collections::BTreeMap;

use proc_macro2::Span;

use super::indexes::{self, IndexAcc};
use super::key_acc::{apply_container_key, KeyAcc, ScheduleDecl};
use crate::check;
use crate::ctxt::Ctxt;
use crate::model::{Field, IndexKind, IndexModel, KeyModel, KeyRole, UniqueModel};
use crate::parse::{FacetInput, FieldAttrs, GsiAttr, ShardAttr, UniqueAttr};

/// Everything declared so far.
#[derive(Default)]
pub struct Assembly {
    /// The partition key.
    pub pk: KeyAcc,
    /// The sort key.
    pub sk: KeyAcc,
    /// The indexes, global ones first, each by number.
    pub indexes: BTreeMap<(IndexKind, u8), IndexAcc>,
    /// The `#[ttl]` field.
    pub ttl: Option<usize>,
    /// The `#[version]` field.
    pub version: Option<usize>,
    /// The `#[unique]` fields.
    pub unique: Vec<UniqueModel>,
    /// The `#[created]` field.
    pub created: Option<usize>,
    /// The `#[updated]` field.
    pub updated: Option<usize>,
}

impl Assembly {
    /// The base key of `role`.
    fn key_mut(&mut self, role: KeyRole) -> &mut KeyAcc {
        match role {
            KeyRole::Partition => &mut self.pk,
            KeyRole::Sort => &mut self.sk,
        }
    }

    /// The keys and indexes declared on the struct: `#[facet(pk(..), sk(..), gsi(..),
    /// lsi(..))]`.
    pub fn struct_keys(&mut self, input: &FacetInput, fields: &[Field], cx: &Ctxt) {
        for role in KeyRole::BOTH {
            if let Some(key) = container_key(input, role) {
                apply_container_key(role.what(), key, self.key_mut(role), fields, cx);
            }
        }
        for (kind, decls) in [
            (IndexKind::Global, &input.gsis),
            (IndexKind::Local, &input.lsis),
        ] {
            for decl in decls {
                indexes::apply_struct_index(kind, decl, &mut self.indexes, fields, cx);
            }
        }
    }

    /// The key attributes of field `i`: `#[pk]`/`#[sk]`, `#[gsi]`, `#[shard]`, `#[ttl]`,
    /// `#[version]`.
    pub fn field(
        &mut self,
        input: &FacetInput,
        i: usize,
        attrs: &FieldAttrs,
        fields: &[Field],
        cx: &Ctxt,
    ) {
        self.base_key_parts(input, i, attrs, cx);
        for (g, span) in &attrs.gsi {
            self.gsi_part(i, g, *span, cx);
        }
        for (s, span) in &attrs.shard {
            self.shard(input, i, s, *span, fields, cx);
        }
        if let Some(span) = attrs.ttl {
            self.ttl(i, &fields[i], span, cx);
        }
        if let Some(span) = attrs.version {
            self.version(i, attrs, &fields[i], span, cx);
        }
        if let Some((unique, span)) = &attrs.unique {
            self.unique(i, unique, *span, fields, cx);
        }
        for (span, slot, what) in [
            (attrs.created, &mut self.created, "created"),
            (attrs.updated, &mut self.updated, "updated"),
        ] {
            if let Some(span) = span {
                if check::at_most_one_timestamp(cx, what, *slot, span)
                    && check::timestamp_is_not_the_version(cx, what, attrs.version.is_some(), span)
                {
                    *slot = Some(i);
                }
            }
        }
    }

    /// `#[unique(..)]` on field `i`.
    fn unique(&mut self, i: usize, unique: &UniqueAttr, span: Span, fields: &[Field], cx: &Ctxt) {
        if !check::unique_field_is_stored(cx, &fields[i], span) {
            return;
        }
        let mut scope = Vec::new();
        for path in unique.scope.iter() {
            if let Some(j) = check::unique_scope_names_a_field(cx, i, path, fields) {
                if !scope.contains(&j) {
                    scope.push(j);
                }
            }
        }
        self.unique.push(UniqueModel { field: i, scope });
    }

    /// The finished keys (`PK` and `SK`, which every facet has), then the indexes, given
    /// what they project.
    pub fn finish(self, input: &FacetInput, fields: &[Field], cx: &Ctxt) -> Parts {
        let at = input.ident.span();
        check::facet_has_partition_key(cx, self.pk.declared(), at);
        check::facet_has_sort_key(cx, self.sk.declared(), at);
        let [pk, sk] =
            [(self.pk, KeyRole::Partition), (self.sk, KeyRole::Sort)].map(|(acc, role)| {
                acc.finish(
                    role,
                    role.what(),
                    role.attribute().into(),
                    &format!("the first `#[{}]`", role.attr()),
                    at,
                    cx,
                )
            });
        let mut declared = self.indexes;
        indexes::apply_declarations(&input.indexes, &mut declared, fields, cx);
        let indexes = indexes::finish(declared, &pk, fields, cx);
        Parts {
            pk,
            sk,
            indexes,
            ttl: self.ttl,
            version: self.version,
            unique: self.unique,
            created: self.created,
            updated: self.updated,
        }
    }

    /// `#[pk(..)]` and `#[sk(..)]` on field `i`.
    fn base_key_parts(&mut self, input: &FacetInput, i: usize, attrs: &FieldAttrs, cx: &Ctxt) {
        for role in KeyRole::BOTH {
            let attr = match role {
                KeyRole::Partition => &attrs.pk,
                KeyRole::Sort => &attrs.sk,
            };
            let Some((key, span)) = attr else { continue };
            let on_struct = container_key(input, role).is_some();
            if !check::key_declared_once(cx, role, on_struct, *span) {
                continue;
            }
            let acc = self.key_mut(role);
            if let Some(prefix) = &key.prefix {
                acc.set_prefix(role.what(), prefix, prefix.span(), cx);
            }
            if key.no_prefix.is_present() {
                acc.set_no_prefix(key.no_prefix.span());
            }
            acc.push_part(i, key.sortable, *span);
        }
    }

    /// One `#[gsi(..)]` on field `i`.
    fn gsi_part(&mut self, i: usize, g: &GsiAttr, span: Span, cx: &Ctxt) {
        if !check::gsi_number_in_range(cx, &g.n) || !check::gsi_names_its_key(cx, g.pk, g.sk, span)
        {
            return;
        }
        let n = *g.n as u8;
        let entry = self
            .indexes
            .entry((IndexKind::Global, n))
            .or_insert_with(|| IndexAcc::new(IndexKind::Global, span));
        if !check::index_keys_declared_once(cx, n, entry.on_struct, span) {
            return;
        }
        if let Some(alias) = &g.alias {
            entry.set_alias(&format!("GSI{n}"), alias, cx);
        }
        let role = if g.pk {
            KeyRole::Partition
        } else {
            KeyRole::Sort
        };
        let what = format!("{} of GSI{n}", role.what());
        let key = entry.key_mut(role);
        if let Some(prefix) = &g.prefix {
            key.set_prefix(&what, prefix, prefix.span(), cx);
        }
        if g.no_prefix.is_present() {
            key.set_no_prefix(g.no_prefix.span());
        }
        key.push_part(i, g.sortable, span);
    }

    /// One `#[shard(..)]` on field `i`: of the base partition key, or of an index's.
    fn shard(
        &mut self,
        input: &FacetInput,
        i: usize,
        s: &ShardAttr,
        span: Span,
        fields: &[Field],
        cx: &Ctxt,
    ) {
        let (what, key) = match &s.gsi {
            None => {
                let on_struct = input.pk.as_ref().is_some_and(|k| k.shard.is_some());
                if !check::shard_declared_once(cx, on_struct, span) {
                    return;
                }
                (KeyRole::Partition.what().to_owned(), &mut self.pk)
            }
            Some(n) => {
                let Ok(n8) = u8::try_from(**n) else {
                    cx.error_at(n.span(), "`gsi` must be between 1 and 20");
                    return;
                };
                let entry = self
                    .indexes
                    .entry((IndexKind::Global, n8))
                    .or_insert_with(|| IndexAcc::new(IndexKind::Global, span));
                if !check::index_keys_declared_once(cx, n8, entry.on_struct, span) {
                    return;
                }
                (format!("the partition key of GSI{n8}"), &mut entry.pk)
            }
        };
        key.set_shard(&what, *s.count, s.count.span(), cx);
        key.shard_fields.push(i);
        let decl = ScheduleDecl {
            grow: &s.grow,
            time: s.time.as_ref(),
            span,
        };
        key.set_schedule(&what, decl, fields, cx);
    }

    /// `#[ttl]` on field `i`.
    fn ttl(&mut self, i: usize, field: &Field, span: Span, cx: &Ctxt) {
        if check::at_most_one_ttl(cx, self.ttl, span) && check::ttl_holds_a_time(cx, field, span) {
            self.ttl = Some(i);
        }
    }

    /// `#[version]` on field `i`.
    fn version(&mut self, i: usize, attrs: &FieldAttrs, field: &Field, span: Span, cx: &Ctxt) {
        let elsewhere = attrs.pk.is_some()
            || attrs.sk.is_some()
            || !attrs.gsi.is_empty()
            || attrs.ttl.is_some();
        if check::at_most_one_version(cx, self.version, span)
            && check::version_is_a_counter(cx, field, span)
            && check::version_is_not_a_key(cx, field, elsewhere, span)
        {
            self.version = Some(i);
        }
    }
}

/// The assembled keys, indexes and markers of a facet.
pub struct Parts {
    /// `PK`.
    pub pk: KeyModel,
    /// `SK`.
    pub sk: KeyModel,
    /// The indexes, global ones first, each by number, with what they project.
    pub indexes: Vec<IndexModel>,
    /// The `#[ttl]` field.
    pub ttl: Option<usize>,
    /// The `#[version]` field.
    pub version: Option<usize>,
    /// The `#[unique]` fields.
    pub unique: Vec<UniqueModel>,
    /// The `#[created]` field.
    pub created: Option<usize>,
    /// The `#[updated]` field.
    pub updated: Option<usize>,
}

/// The key of `role` declared on the struct.
fn container_key(
    input: &FacetInput,
    role: KeyRole,
) -> Option<&darling::util::SpannedValue<crate::parse::ContainerKey>> {
    match role {
        KeyRole::Partition => input.pk.as_ref(),
        KeyRole::Sort => input.sk.as_ref(),
    }
}
