//! The validated model of a facet: every rule that can be checked at compile time is
//! checked here, with errors pointing at the offending attribute.

use std::collections::BTreeMap;

use darling::util::PathList;
use darling::Error;
use proc_macro2::Span;
use syn::{Ident, Type};

use crate::check;
use crate::names::{rename_field, snake_case};
use crate::parse::{field_attrs, ContainerKey, FacetInput, FieldAttrs};
use crate::serde_attrs;

/// Most sort-key fields a typed query supports.
const MAX_SORT_FIELDS: usize = 4;

/// How projected records are validated.
pub enum PickValidatorModel {
    /// `#[facet(pick_validator = trust)]`: accept them as read.
    Trust,
    /// `#[facet(pick_validator = path)]`.
    Path(syn::Path),
}

pub struct Field {
    pub ident: Ident,
    /// The declared type.
    pub ty: Type,
    /// The type with one `Option` removed.
    pub inner: Type,
    pub optional: bool,
    /// The attribute name after serde renaming.
    pub name: String,
    /// Stored as an attribute of its own (not skipped or flattened by serde).
    pub is_attribute: bool,
    /// The field's own serialize function (`#[serde(with = ..)]`, `serialize_with`).
    pub serializer: Option<syn::Path>,
    /// `#[serde(skip_serializing_if = ..)]`: when it holds, the attribute is left out.
    pub skip_if: Option<syn::ExprPath>,
}

#[derive(Clone, Copy)]
pub struct KeyPartRef {
    pub field: usize,
    pub sortable: bool,
}

pub struct ShardModel {
    pub count: u32,
    pub fields: Vec<usize>,
    /// Later counts: (from, epoch seconds; count).
    pub schedule: Vec<(i64, u32)>,
    /// The time field choosing a record's period.
    pub time: Option<usize>,
}

impl ShardModel {
    /// The fields the shard id is computed from: the hashed fields, then the time field.
    pub fn inputs(&self) -> impl Iterator<Item = usize> + '_ {
        self.fields.iter().copied().chain(self.time)
    }
}

pub struct KeyModel {
    pub attribute: String,
    pub prefix: String,
    pub parts: Vec<KeyPartRef>,
    pub shard: Option<ShardModel>,
}

/// What an index projects of the facet's records.
pub enum ProjectionModel {
    /// Whole items (the default).
    All,
    /// The keys, `facet` and the key fields.
    KeysOnly,
    /// Those and these fields.
    Include(Vec<usize>),
}

pub struct IndexModel {
    pub n: u8,
    pub alias: Option<String>,
    pub pk: KeyModel,
    pub sk: KeyModel,
    pub projection: ProjectionModel,
}

pub struct FacetModel {
    /// The path of the `faceteer` crate (`::faceteer` unless `#[facet(crate = ..)]`).
    pub krate: syn::Path,
    pub ident: Ident,
    pub vis: syn::Visibility,
    pub name: String,
    pub delimiter: String,
    pub validator: Option<syn::Path>,
    pub validate_on_write: bool,
    pub pick_validator: Option<PickValidatorModel>,
    pub fields: Vec<Field>,
    pub pk: KeyModel,
    pub sk: KeyModel,
    pub indexes: Vec<IndexModel>,
    pub ttl: Option<usize>,
    /// The `#[version]` field.
    pub version: Option<usize>,
}

impl IndexModel {
    /// `gsiN`.
    pub fn method(&self) -> String {
        format!("gsi{}", self.n)
    }

    /// `by_` + snake_case(alias).
    pub fn alias_method(&self) -> Option<String> {
        self.alias.as_ref().map(|a| format!("by_{}", snake_case(a)))
    }
}

/// A key being assembled from attributes.
#[derive(Default)]
struct KeyAcc {
    prefix: Option<(String, Span)>,
    parts: Vec<KeyPartRef>,
    shard: Option<(u32, Span)>,
    shard_fields: Vec<usize>,
    /// The schedule and its time field, once given.
    schedule: Option<(Vec<(i64, u32)>, usize)>,
    /// Where the key was first declared, for errors about the key as a whole.
    span: Option<Span>,
}

impl KeyAcc {
    fn set_prefix(&mut self, what: &str, prefix: &str, span: Span, errors: &mut Vec<Error>) {
        match &self.prefix {
            Some((existing, _)) if existing != prefix => errors.push(
                Error::custom(format!(
                    "conflicting prefixes for {what}: {existing:?} and {prefix:?}; \
                     give the prefix once, or the same one on every field of the key"
                ))
                .with_span(&span),
            ),
            Some(_) => {}
            None => self.prefix = Some((prefix.to_owned(), span)),
        }
    }

    fn set_shard(&mut self, what: &str, count: u32, span: Span, errors: &mut Vec<Error>) {
        if count == 0 {
            errors.push(Error::custom("`count` must be at least 1").with_span(&span));
            return;
        }
        match self.shard {
            Some((existing, _)) if existing != count => errors.push(
                Error::custom(format!(
                    "conflicting shard counts for {what}: {existing} and {count}"
                ))
                .with_span(&span),
            ),
            Some(_) => {}
            None => self.shard = Some((count, span)),
        }
    }

    /// `grow(..)` and `time = ..` of one shard declaration.
    fn set_schedule(
        &mut self,
        what: &str,
        grow: &[darling::util::SpannedValue<crate::parse::GrowAttr>],
        time: Option<&syn::Path>,
        span: Span,
        fields: &[Field],
        errors: &mut Vec<Error>,
    ) {
        let (time, grow) = match (time, grow.is_empty()) {
            (None, true) => return,
            (Some(t), true) => {
                errors.push(
                    Error::custom(
                        "`time` chooses a record's period of a shard schedule; add the periods: \
                         `grow(from = \"2027-01-01T00:00:00Z\", count = 16)`",
                    )
                    .with_span(t),
                );
                return;
            }
            (None, false) => {
                errors.push(
                    Error::custom(
                        "a shard schedule needs the field that chooses each record's period: \
                         add `time = created` (a creation time that never changes), so records \
                         keep the shard they were written with",
                    )
                    .with_span(&span),
                );
                return;
            }
            (Some(t), false) => (t, grow),
        };
        let Some(time) = resolve_fields(&PathList::new(vec![time.clone()]), fields, errors)
            .first()
            .copied()
        else {
            return;
        };
        let field = &fields[time];
        if field.optional || is_string_like(&field.inner) {
            errors.push(
                Error::custom(format!(
                    "`{}` chooses each record's shard period, so it must always hold a time: \
                     make it a `DateTime<Utc>` or an integer of epoch seconds, not an `Option` \
                     or a string",
                    field.ident
                ))
                .with_span(&span),
            );
            return;
        }
        let mut periods: Vec<(i64, u32)> = Vec::new();
        for g in grow {
            let from = match chrono::DateTime::parse_from_rfc3339(&g.from) {
                Ok(t) => t.timestamp(),
                Err(e) => {
                    errors.push(
                        Error::custom(format!(
                            "`from` is not an RFC 3339 time ({e}); write it like \
                             \"2027-01-01T00:00:00Z\""
                        ))
                        .with_span(&g.from.span()),
                    );
                    continue;
                }
            };
            if *g.count == 0 {
                errors.push(Error::custom("`count` must be at least 1").with_span(&g.count.span()));
                continue;
            }
            if periods.last().is_some_and(|(last, _)| *last >= from) {
                errors.push(
                    Error::custom(
                        "list the `grow(..)` periods in time order, each later than the last",
                    )
                    .with_span(&g.from.span()),
                );
                continue;
            }
            periods.push((from, *g.count));
        }
        match &self.schedule {
            Some(existing) if *existing != (periods.clone(), time) => errors.push(
                Error::custom(format!(
                    "conflicting shard schedules for {what}; give the schedule once"
                ))
                .with_span(&span),
            ),
            _ => self.schedule = Some((periods, time)),
        }
    }

    fn finish(
        self,
        what: &str,
        attribute: String,
        hint: &str,
        at: Span,
        errors: &mut Vec<Error>,
    ) -> KeyModel {
        let prefix = match self.prefix {
            Some((p, _)) => p,
            None => {
                errors.push(
                    Error::custom(format!(
                        "{what} has no prefix: add `prefix = \"..\"` to {hint}"
                    ))
                    .with_span(&self.span.unwrap_or(at)),
                );
                String::new()
            }
        };
        let shard = self.shard.map(|(count, span)| {
            if self.shard_fields.is_empty() {
                errors.push(
                    Error::custom(format!("{what} is sharded but names no shard field"))
                        .with_span(&span),
                );
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
            attribute,
            prefix,
            parts: self.parts,
            shard,
        }
    }
}

/// An index being assembled: partition key, sort key, alias, where it was first declared.
type GsiAcc = (KeyAcc, KeyAcc, Option<(String, Span)>, Span);

fn strip_option(ty: &Type) -> Option<Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) if args.args.len() == 1 => Some(t.clone()),
        _ => None,
    }
}

/// Whether a type is `String`, `str`, `Cow<str>` or a reference to one of them.
pub fn is_string_like(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => is_string_like(&r.elem),
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "String" || s.ident == "str" || s.ident == "Cow"),
        _ => false,
    }
}

fn is_reserved(name: &str) -> bool {
    if matches!(name, "PK" | "SK" | "facet" | "ttl" | "_faceteer_write") {
        return true;
    }
    let Some(rest) = name.strip_prefix("GSI") else {
        return false;
    };
    let Some(num) = rest.strip_suffix("PK").or_else(|| rest.strip_suffix("SK")) else {
        return false;
    };
    !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit())
}

fn resolve_fields(list: &PathList, fields: &[Field], errors: &mut Vec<Error>) -> Vec<usize> {
    let mut out = Vec::new();
    for path in list.iter() {
        let found = path
            .get_ident()
            .and_then(|id| fields.iter().position(|f| f.ident == *id));
        match found {
            Some(i) => out.push(i),
            None => {
                let names: Vec<String> = fields.iter().map(|f| f.ident.to_string()).collect();
                errors.push(
                    Error::custom(format!(
                        "unknown field `{}`; the struct's fields are: {}",
                        quote::ToTokens::to_token_stream(path),
                        names.join(", ")
                    ))
                    .with_span(path),
                );
            }
        }
    }
    out
}

fn apply_container_key(
    what: &str,
    key: &ContainerKey,
    span: Span,
    acc: &mut KeyAcc,
    fields: &[Field],
    errors: &mut Vec<Error>,
) {
    acc.span.get_or_insert(span);
    if let Some(prefix) = &key.prefix {
        acc.set_prefix(what, prefix, span, errors);
    }
    let sortable = resolve_fields(&key.sortable, fields, errors);
    for field in resolve_fields(&key.fields, fields, errors) {
        acc.parts.push(KeyPartRef {
            field,
            sortable: sortable.contains(&field),
        });
    }
    if let Some(shard) = &key.shard {
        acc.set_shard(what, *shard.count, shard.count.span(), errors);
        acc.shard_fields
            .extend(resolve_fields(&shard.fields, fields, errors));
        acc.set_schedule(
            what,
            &shard.grow,
            shard.time.as_ref(),
            shard.count.span(),
            fields,
            errors,
        );
    }
}

/// `#[facet(index(gsi = n, keys_only | include(..)))]`: set what each declared index
/// projects.
fn apply_index_declarations(
    decls: &[darling::util::SpannedValue<crate::parse::IndexDecl>],
    indexes: &mut [IndexModel],
    fields: &[Field],
    errors: &mut Vec<Error>,
) {
    let mut seen: Vec<u32> = Vec::new();
    for decl in decls {
        let n = *decl.gsi;
        let span = decl.gsi.span();
        if seen.contains(&n) {
            errors.push(
                Error::custom(format!(
                    "GSI{n} is declared twice; declare its projection once"
                ))
                .with_span(&span),
            );
            continue;
        }
        seen.push(n);
        let Some(index) = indexes.iter_mut().find(|i| u32::from(i.n) == n) else {
            let used: Vec<String> = indexes.iter().map(|i| format!("GSI{}", i.n)).collect();
            errors.push(
                Error::custom(format!(
                    "this facet does not use GSI{n}, so it declares no projection for it; \
                     the facet's indexes are: {}",
                    if used.is_empty() {
                        "none".to_owned()
                    } else {
                        used.join(", ")
                    }
                ))
                .with_span(&span),
            );
            continue;
        };
        index.projection = match (decl.keys_only.is_present(), &decl.include) {
            (true, None) => ProjectionModel::KeysOnly,
            (false, Some(list)) => {
                let included = resolve_fields(list, fields, errors);
                for path in list.iter() {
                    let skipped = path
                        .get_ident()
                        .and_then(|id| fields.iter().find(|f| f.ident == *id))
                        .is_some_and(|f| !f.is_attribute);
                    if skipped {
                        errors.push(
                            Error::custom(
                                "this field is not stored as an attribute of its own (serde \
                                 skips or flattens it), so no index can project it",
                            )
                            .with_span(path),
                        );
                    }
                }
                ProjectionModel::Include(included)
            }
            (true, Some(_)) => {
                errors.push(
                    Error::custom(
                        "give `keys_only` or `include(..)`, not both: `include(..)` projects the \
                         keys too",
                    )
                    .with_span(&decl.span()),
                );
                continue;
            }
            (false, None) => {
                errors.push(
                    Error::custom(format!(
                        "say what GSI{n} projects: `index(gsi = {n}, keys_only)` or \
                         `index(gsi = {n}, include(field, ..))` (without a declaration an index \
                         projects whole records)"
                    ))
                    .with_span(&decl.span()),
                );
                continue;
            }
        };
    }
}

/// Validate the parsed input into a model, or return every error found.
pub fn build(input: FacetInput) -> Result<FacetModel, Error> {
    let mut errors: Vec<Error> = Vec::new();
    let mut acc = darling::Error::accumulator();

    if !input.generics.params.is_empty() {
        errors.push(
            Error::custom("`#[derive(Facet)]` does not support generic structs")
                .with_span(&input.generics),
        );
    }

    let serde_container = serde_attrs::container(&input.attrs, &mut errors);
    let rename_all = serde_container.rename_all.clone();

    let raw_fields = input
        .data
        .take_struct()
        .expect("darling checked struct_named")
        .fields;

    let mut fields = Vec::with_capacity(raw_fields.len());
    let mut attrs: Vec<FieldAttrs> = Vec::with_capacity(raw_fields.len());
    for f in raw_fields {
        let ident = f.ident.expect("named fields");
        let parsed = field_attrs(&f.attrs, &mut acc, &mut errors);
        let name = match &parsed.serde.rename {
            Some(n) => n.clone(),
            None => rename_field(&ident.to_string(), rename_all.as_deref()),
        };
        if is_reserved(&name) {
            errors.push(
                Error::custom(format!(
                    "field `{ident}` is stored as `{name}`, a name faceteer reserves for its own \
                     attributes (PK, SK, GSI<n>PK, GSI<n>SK, facet, ttl); rename the field or \
                     give it `#[serde(rename = \"..\")]`"
                ))
                .with_span(&ident),
            );
        }
        let inner = strip_option(&f.ty);
        if !parsed.serde.not_an_attribute {
            serde_attrs::check_field_type(
                &ident,
                inner.as_ref().unwrap_or(&f.ty),
                inner.is_some(),
                &parsed.serde,
                &serde_container,
                &mut errors,
            );
        }
        fields.push(Field {
            ident,
            optional: inner.is_some(),
            inner: inner.unwrap_or_else(|| f.ty.clone()),
            ty: f.ty,
            name,
            is_attribute: !parsed.serde.not_an_attribute,
            serializer: parsed.serde.serializer.clone(),
            skip_if: parsed.serde.skip_if.clone(),
        });
        attrs.push(parsed);
    }

    let ident_span = input.ident.span();

    // Base keys.
    let mut pk = KeyAcc::default();
    let mut sk = KeyAcc::default();
    if let Some(key) = &input.pk {
        apply_container_key(
            "the partition key",
            key,
            key.span(),
            &mut pk,
            &fields,
            &mut errors,
        );
    }
    if let Some(key) = &input.sk {
        apply_container_key(
            "the sort key",
            key,
            key.span(),
            &mut sk,
            &fields,
            &mut errors,
        );
    }

    // Indexes, by number.
    let mut gsi: BTreeMap<u8, GsiAcc> = BTreeMap::new();
    let mut ttl = None;
    let mut version = None;

    for (i, a) in attrs.iter().enumerate() {
        for (target, acc_key, what, attr) in [
            ("pk", &mut pk, "the partition key", &a.pk),
            ("sk", &mut sk, "the sort key", &a.sk),
        ] {
            let Some((key, span)) = attr else { continue };
            let container_declared = match target {
                "pk" => input.pk.is_some(),
                _ => input.sk.is_some(),
            };
            if container_declared {
                errors.push(
                    Error::custom(format!(
                        "{what} is already declared with `#[facet({target}(..))]`; declare it \
                         either on the struct or on its fields"
                    ))
                    .with_span(span),
                );
                continue;
            }
            acc_key.span.get_or_insert(*span);
            if let Some(prefix) = &key.prefix {
                acc_key.set_prefix(what, prefix, prefix.span(), &mut errors);
            }
            acc_key.parts.push(KeyPartRef {
                field: i,
                sortable: key.sortable,
            });
        }

        for (g, span) in &a.gsi {
            let n = *g.n;
            if !(1..=20).contains(&n) {
                errors.push(
                    Error::custom(format!(
                        "`n` must be between 1 and 20 (DynamoDB indexes GSI1 … GSI20), found {n}"
                    ))
                    .with_span(&g.n.span()),
                );
                continue;
            }
            if g.pk == g.sk {
                errors.push(
                    Error::custom(
                        "say which key of the index this field belongs to: add `pk` or `sk`",
                    )
                    .with_span(span),
                );
                continue;
            }
            let entry = gsi
                .entry(n as u8)
                .or_insert_with(|| (KeyAcc::default(), KeyAcc::default(), None, *span));
            if let Some(alias) = &g.alias {
                match &entry.2 {
                    Some((existing, _)) if existing != alias.as_str() => errors.push(
                        Error::custom(format!(
                            "conflicting aliases for GSI{n}: {existing:?} and {:?}",
                            alias.as_str()
                        ))
                        .with_span(&alias.span()),
                    ),
                    Some(_) => {}
                    None => entry.2 = Some((alias.to_string(), alias.span())),
                }
            }
            let (what, key) = if g.pk {
                (format!("the partition key of GSI{n}"), &mut entry.0)
            } else {
                (format!("the sort key of GSI{n}"), &mut entry.1)
            };
            key.span.get_or_insert(*span);
            if let Some(prefix) = &g.prefix {
                key.set_prefix(&what, prefix, prefix.span(), &mut errors);
            }
            key.parts.push(KeyPartRef {
                field: i,
                sortable: g.sortable,
            });
        }

        for (s, span) in &a.shard {
            let count = *s.count;
            match &s.gsi {
                None => {
                    if input.pk.as_ref().is_some_and(|k| k.shard.is_some()) {
                        errors.push(
                            Error::custom(
                                "the partition key's shard is already declared on the struct",
                            )
                            .with_span(span),
                        );
                        continue;
                    }
                    pk.set_shard("the partition key", count, s.count.span(), &mut errors);
                    pk.shard_fields.push(i);
                    pk.set_schedule(
                        "the partition key",
                        &s.grow,
                        s.time.as_ref(),
                        *span,
                        &fields,
                        &mut errors,
                    );
                }
                Some(n) => {
                    let Ok(n8) = u8::try_from(**n) else {
                        errors.push(
                            Error::custom("`gsi` must be between 1 and 20").with_span(&n.span()),
                        );
                        continue;
                    };
                    let entry = gsi
                        .entry(n8)
                        .or_insert_with(|| (KeyAcc::default(), KeyAcc::default(), None, *span));
                    entry.0.set_shard(
                        &format!("the partition key of GSI{n8}"),
                        count,
                        s.count.span(),
                        &mut errors,
                    );
                    entry.0.shard_fields.push(i);
                    entry.0.set_schedule(
                        &format!("the partition key of GSI{n8}"),
                        &s.grow,
                        s.time.as_ref(),
                        *span,
                        &fields,
                        &mut errors,
                    );
                }
            }
        }

        if let Some(span) = a.ttl {
            if ttl.is_some() {
                errors
                    .push(Error::custom("a facet has at most one `#[ttl]` field").with_span(&span));
            } else if is_string_like(&fields[i].inner) {
                errors.push(
                    Error::custom(format!(
                        "`#[ttl]` needs a time or an integer of epoch seconds \
                         (`DateTime<Utc>`, `SystemTime`, `i64`, `u64`, … or an `Option` of one), \
                         but `{}` is a string",
                        fields[i].ident
                    ))
                    .with_span(&span),
                );
            } else {
                ttl = Some(i);
            }
        }

        if let Some(span) = a.version {
            const COUNTERS: &[&str] = &["u32", "u64", "i32", "i64"];
            let is_counter = matches!(&fields[i].ty, syn::Type::Path(p)
                if p.qself.is_none() && p.path.get_ident().is_some_and(|id| COUNTERS.iter().any(|c| id == c)));
            if version.is_some() {
                errors.push(
                    Error::custom("a facet has at most one `#[version]` field").with_span(&span),
                );
            } else if !is_counter {
                errors.push(
                    Error::custom(format!(
                        "`#[version]` counts the writes of a record: make `{}` a `u64` (or \
                         `u32`, `i64`, `i32`), not an `Option` or another type; a new record \
                         starts at 0",
                        fields[i].ident
                    ))
                    .with_span(&span),
                );
            } else if a.pk.is_some() || a.sk.is_some() || !a.gsi.is_empty() || a.ttl.is_some() {
                errors.push(
                    Error::custom(format!(
                        "`{}` is the `#[version]` counter; it cannot also be part of a key or \
                         the TTL",
                        fields[i].ident
                    ))
                    .with_span(&span),
                );
            } else {
                version = Some(i);
            }
        }
    }

    if pk.parts.is_empty() && pk.span.is_none() {
        errors.push(
            Error::custom(
                "a facet needs a partition key: mark its field(s) `#[pk(prefix = \"..\")]`",
            )
            .with_span(&ident_span),
        );
    }
    if sk.parts.is_empty() && sk.span.is_none() {
        errors.push(
            Error::custom(
                "a facet needs a sort key: mark its field(s) `#[sk(prefix = \"..\")]`, or declare \
                 `#[facet(sk(prefix = \"..\", fields()))]` for a constant one",
            )
            .with_span(&ident_span),
        );
    }
    let pk = pk.finish(
        "the partition key",
        "PK".into(),
        "the first `#[pk]`",
        ident_span,
        &mut errors,
    );
    let sk = sk.finish(
        "the sort key",
        "SK".into(),
        "the first `#[sk]`",
        ident_span,
        &mut errors,
    );

    let mut indexes = Vec::new();
    for (n, (ipk, isk, alias, span)) in gsi {
        if ipk.parts.is_empty() {
            let msg = if isk.parts.is_empty() {
                format!("GSI{n} is sharded but has no keys: mark fields `#[gsi(n = {n}, pk, prefix = \"..\")]` and `#[gsi(n = {n}, sk, prefix = \"..\")]`")
            } else {
                format!("GSI{n} has a sort key but no partition key: mark a field `#[gsi(n = {n}, pk, prefix = \"..\")]`")
            };
            errors.push(Error::custom(msg).with_span(&span));
            continue;
        }
        if isk.parts.is_empty() {
            errors.push(
                Error::custom(format!(
                    "GSI{n} has a partition key but no sort key: mark a field \
                     `#[gsi(n = {n}, sk, prefix = \"..\")]`"
                ))
                .with_span(&span),
            );
            continue;
        }
        let ipk = ipk.finish(
            &format!("the partition key of GSI{n}"),
            format!("GSI{n}PK"),
            &format!("the first `#[gsi(n = {n}, pk)]`"),
            span,
            &mut errors,
        );
        let isk = isk.finish(
            &format!("the sort key of GSI{n}"),
            format!("GSI{n}SK"),
            &format!("the first `#[gsi(n = {n}, sk)]`"),
            span,
            &mut errors,
        );
        if isk.parts.len() > MAX_SORT_FIELDS {
            errors.push(
                Error::custom(format!(
                    "the sort key of GSI{n} has {} fields; typed queries support at most {MAX_SORT_FIELDS}",
                    isk.parts.len()
                ))
                .with_span(&span),
            );
        }
        if let Some((a, aspan)) = &alias {
            let method = snake_case(a);
            if method.is_empty() || syn::parse_str::<Ident>(&format!("by_{method}")).is_err() {
                errors.push(
                    Error::custom(format!("alias {a:?} does not give a valid method name"))
                        .with_span(aspan),
                );
            }
        }
        indexes.push(IndexModel {
            n,
            alias: alias.map(|(a, _)| a),
            pk: ipk,
            sk: isk,
            projection: ProjectionModel::All,
        });
    }
    apply_index_declarations(&input.indexes, &mut indexes, &fields, &mut errors);
    // Two indexes with the same alias would generate the same method.
    for (i, a) in indexes.iter().enumerate() {
        if let Some(m) = a.alias_method() {
            if indexes[..i]
                .iter()
                .any(|b| b.alias_method().as_deref() == Some(&m))
            {
                errors.push(
                    Error::custom(format!("two indexes have the alias method `{m}`"))
                        .with_span(&ident_span),
                );
            }
        }
    }
    if sk.shard.is_some() {
        errors.push(
            Error::custom("only partition keys are sharded: move `shard(..)` to `pk(..)`")
                .with_span(&ident_span),
        );
    }
    let all_keys: Vec<&KeyModel> = [&pk, &sk]
        .into_iter()
        .chain(indexes.iter().flat_map(|i| [&i.pk, &i.sk]))
        .collect();
    check::sortable_is_one_encoding(&fields, &all_keys, &mut errors);
    check::sortable_fields_are_integers(&fields, &all_keys, &mut errors);
    if sk.parts.len() > MAX_SORT_FIELDS {
        errors.push(
            Error::custom(format!(
                "the sort key has {} fields; typed queries support at most {MAX_SORT_FIELDS}",
                sk.parts.len()
            ))
            .with_span(&ident_span),
        );
    }

    let name = input
        .name
        .as_ref()
        .map(|n| n.to_string())
        .unwrap_or_else(|| input.ident.to_string());
    if name.is_empty() {
        errors.push(Error::custom("the facet name cannot be empty").with_span(&ident_span));
    }
    let delimiter = match &input.delimiter {
        Some(d) if d.is_empty() => {
            errors.push(Error::custom("the delimiter cannot be empty").with_span(&d.span()));
            String::new()
        }
        Some(d) => d.to_string(),
        None => "_".into(),
    };
    let delimiter_span = input.delimiter.as_ref().map_or(ident_span, |d| d.span());
    check::shard_ids_decode(&delimiter, delimiter_span, &all_keys, &mut errors);

    if let Err(e) = acc.finish() {
        errors.push(e);
    }
    if !errors.is_empty() {
        return Err(Error::multiple(errors));
    }

    Ok(FacetModel {
        vis: input.vis,
        krate: input.krate.unwrap_or_else(|| syn::parse_quote!(::faceteer)),
        ident: input.ident,
        name,
        delimiter,
        validator: input.validator,
        validate_on_write: input.validate_on_write,
        pick_validator: input.pick_validator.map(|p| {
            if p.is_ident("trust") {
                PickValidatorModel::Trust
            } else {
                PickValidatorModel::Path(p)
            }
        }),
        fields,
        pk,
        sk,
        indexes,
        ttl,
        version,
    })
}

#[cfg(test)]
mod tests {
    use super::is_reserved;

    #[test]
    fn reserved_names() {
        for n in [
            "PK",
            "SK",
            "facet",
            "ttl",
            "_faceteer_write",
            "GSI1PK",
            "GSI20SK",
            "GSI7PK",
        ] {
            assert!(is_reserved(n), "{n}");
        }
        for n in ["pk", "GSIPK", "GSI1", "facets", "teamId", "GSI1PKX"] {
            assert!(!is_reserved(n), "{n}");
        }
    }
}
