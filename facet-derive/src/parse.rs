//! Parsing: the raw attributes of a `#[derive(Facet)]` input, as written.

use darling::util::{PathList, SpannedValue};
use darling::{FromDeriveInput, FromField, FromMeta};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Meta, Type};

use crate::ctxt::Ctxt;

/// `#[facet(..)]` on the struct.
#[derive(Debug, FromDeriveInput)]
#[darling(attributes(facet), supports(struct_named), forward_attrs(serde))]
pub struct FacetInput {
    pub ident: Ident,
    pub vis: syn::Visibility,
    pub generics: syn::Generics,
    pub data: darling::ast::Data<(), FieldInput>,
    pub attrs: Vec<Attribute>,
    /// The facet name stored in the `facet` attribute (default: the struct name).
    pub name: Option<SpannedValue<String>>,
    /// The key delimiter (default `_`).
    pub delimiter: Option<SpannedValue<String>>,
    /// `fn(&Self) -> Result<(), E>` with `E: Display`, run on every read.
    pub validator: Option<syn::Path>,
    /// Also run the validator before every write.
    #[darling(default)]
    pub validate_on_write: bool,
    /// How projected records are validated: a function path, or `trust`.
    pub pick_validator: Option<syn::Path>,
    /// Container-level partition key: `pk(prefix = "..", fields(a, b))`.
    pub pk: Option<SpannedValue<ContainerKey>>,
    /// Container-level sort key: `sk(prefix = "..", fields(a, b))`.
    pub sk: Option<SpannedValue<ContainerKey>>,
    /// `index(gsi = n, keys_only)` / `index(gsi = n, include(a, b))` / `index(gsi = n,
    /// sparse)`: what an index declared on fields projects, and whether it is sparse.
    #[darling(multiple, rename = "index")]
    pub indexes: Vec<SpannedValue<IndexDecl>>,
    /// `gsi(n = 1, alias = "..", pk(..), sk(..), sparse, keys_only | include(..))`: a global
    /// index declared on the struct, its keys naming fields in any order.
    #[darling(multiple, rename = "gsi")]
    pub gsis: Vec<SpannedValue<IndexKeysDecl>>,
    /// `lsi(n = 1, alias = "..", sk(..), sparse, keys_only | include(..))`: a local index
    /// (the table's partition key, another sort key).
    #[darling(multiple, rename = "lsi")]
    pub lsis: Vec<SpannedValue<IndexKeysDecl>>,
    /// The path of the `faceteer` crate, for code generated in a crate that renames it.
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
    /// `schema_version = N`: the schema version the facet's records are written at.
    pub schema_version: Option<SpannedValue<u32>>,
    /// `version = ..`: the old spelling of `schema_version`, refused with a message naming
    /// both (`#[version]` on a field is the optimistic-locking counter).
    pub version: Option<SpannedValue<syn::Expr>>,
    /// `upgrade = path` or `upgrade(from_v1, from_v2, ..)`: the functions reading a record
    /// stored at version 1, 2, .. into the current shape.
    pub upgrade: Option<SpannedValue<Upgrades>>,
}

/// The upgrade functions of `#[facet(schema_version = N, upgrade ..)]`, in version order.
#[derive(Debug, Default)]
pub struct Upgrades(pub Vec<syn::Path>);

impl FromMeta for Upgrades {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        match item {
            Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Path(p) => Ok(Upgrades(vec![p.path.clone()])),
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => s.parse().map(|p| Upgrades(vec![p])).map_err(Into::into),
                other => Err(darling::Error::custom(
                    "expected the path of an upgrade function: `upgrade = from_v1`",
                )
                .with_span(other)),
            },
            Meta::List(_) => PathList::from_meta(item).map(|l| Upgrades(l.to_vec())),
            Meta::Path(p) => Err(darling::Error::custom(
                "name the upgrade functions: `upgrade = from_v1` or `upgrade(from_v1, from_v2)`",
            )
            .with_span(p)),
        }
    }
}

impl FacetInput {
    /// Take the struct's fields out of the input (leaving none).
    pub fn take_fields(&mut self) -> Vec<FieldInput> {
        let none = darling::ast::Data::Struct(darling::ast::Fields::new(
            darling::ast::Style::Struct,
            Vec::new(),
        ));
        std::mem::replace(&mut self.data, none)
            .take_struct()
            .expect("darling checked struct_named")
            .fields
    }
}

/// A struct deriving `Nested`: a value stored as a map inside a facet's attribute.
#[derive(Debug, FromDeriveInput)]
#[darling(supports(struct_named), forward_attrs(serde))]
pub struct NestedInput {
    pub ident: Ident,
    pub vis: syn::Visibility,
    pub generics: syn::Generics,
    pub data: darling::ast::Data<(), FieldInput>,
    pub attrs: Vec<Attribute>,
}

/// `#[pick(facet = Path)]` on a projection struct.
#[derive(Debug, FromDeriveInput)]
#[darling(attributes(pick), supports(struct_named))]
pub struct PickInput {
    pub ident: Ident,
    pub generics: syn::Generics,
    pub data: darling::ast::Data<(), PickField>,
    /// The facet projected.
    pub facet: syn::Path,
}

/// One field of a projection: `#[pick(at = address.city)]` reads a member of a
/// `#[nested]` field instead of the facet field of the same name.
#[derive(Debug, FromField)]
#[darling(attributes(pick))]
pub struct PickField {
    pub ident: Option<Ident>,
    pub ty: Type,
    pub at: Option<syn::Expr>,
}

/// `index(gsi = n, keys_only)`, `index(gsi = n, include(a, b))` or `index(gsi = n, sparse)`
/// on the struct.
#[derive(Debug, FromMeta)]
pub struct IndexDecl {
    pub gsi: SpannedValue<u32>,
    #[darling(default)]
    pub keys_only: darling::util::Flag,
    pub include: Option<PathList>,
    #[darling(default)]
    pub sparse: darling::util::Flag,
}

/// An index declared on the struct with its keys: `gsi(n = .., alias = .., native, pk(..),
/// sk(..), sparse, keys_only | include(..))`, or `lsi(..)` (no `pk`).
#[derive(Debug, FromMeta)]
pub struct IndexKeysDecl {
    pub n: SpannedValue<u32>,
    pub alias: Option<SpannedValue<String>>,
    pub pk: Option<SpannedValue<ContainerKey>>,
    pub sk: Option<SpannedValue<ContainerKey>>,
    #[darling(default)]
    pub sparse: darling::util::Flag,
    #[darling(default)]
    pub keys_only: darling::util::Flag,
    pub include: Option<PathList>,
    /// `native`: DynamoDB's multi-attribute keys, read from the key fields' own attributes.
    #[darling(default)]
    pub native: darling::util::Flag,
}

/// A key declared on the struct, naming its fields.
#[derive(Debug, FromMeta)]
pub struct ContainerKey {
    pub prefix: Option<String>,
    /// See [`KeyAttr::no_prefix`].
    #[darling(default)]
    pub no_prefix: darling::util::Flag,
    #[darling(default)]
    pub fields: PathList,
    #[darling(default)]
    pub sortable: PathList,
    pub shard: Option<ContainerShard>,
}

/// `shard(count = N, fields(a, b))` inside a container-level key.
#[derive(Debug, FromMeta)]
pub struct ContainerShard {
    pub count: SpannedValue<u32>,
    pub fields: PathList,
    #[darling(default, multiple)]
    pub grow: Vec<SpannedValue<GrowAttr>>,
    pub time: Option<syn::Path>,
}

/// `grow(from = "2027-01-01T00:00:00Z", count = 16)`: a later shard count.
#[derive(Debug, Clone, FromMeta)]
pub struct GrowAttr {
    pub from: SpannedValue<String>,
    pub count: SpannedValue<u32>,
}

/// One field, with its key attributes still raw.
#[derive(Debug, FromField)]
#[rustfmt::skip]
#[darling(forward_attrs(pk, sk, gsi, shard, ttl, version, unique, created, updated, vector, nested, encrypt, sign_only, beacon, sensitive, serde))]
pub struct FieldInput {
    pub ident: Option<Ident>,
    pub ty: Type,
    pub attrs: Vec<Attribute>,
}

/// `#[pk(..)]` / `#[sk(..)]` on a field.
#[derive(Debug, Default, FromMeta)]
pub struct KeyAttr {
    pub prefix: Option<SpannedValue<String>>,
    #[darling(default)]
    pub sortable: bool,
    /// A sort key that is its values alone, joined by the delimiter (OneTable's
    /// `${a}#${b}`): no prefix, no leading delimiter.
    #[darling(default)]
    pub no_prefix: darling::util::Flag,
}

/// `#[gsi(n = .., alias = .., pk | sk, prefix = .., sortable)]` on a field.
#[derive(Debug, FromMeta)]
pub struct GsiAttr {
    pub n: SpannedValue<u32>,
    pub alias: Option<SpannedValue<String>>,
    #[darling(default)]
    pub pk: bool,
    #[darling(default)]
    pub sk: bool,
    pub prefix: Option<SpannedValue<String>>,
    #[darling(default)]
    pub sortable: bool,
    /// See [`KeyAttr::no_prefix`].
    #[darling(default)]
    pub no_prefix: darling::util::Flag,
}

/// `#[shard(count = N)]` or `#[shard(count = N, gsi = n)]` on a field.
#[derive(Debug, FromMeta)]
pub struct ShardAttr {
    pub count: SpannedValue<u32>,
    pub gsi: Option<SpannedValue<u32>>,
    #[darling(default, multiple)]
    pub grow: Vec<SpannedValue<GrowAttr>>,
    pub time: Option<syn::Path>,
}

/// `#[vector(dimensions = N, distance = cosine, index = "..", partition = field,
/// filters(a, b))]` on a list-of-numbers field: a vector index over it.
#[derive(Debug, FromMeta)]
pub struct VectorAttr {
    /// The vectors' dimension count (1 to 4096).
    pub dimensions: SpannedValue<u32>,
    /// `cosine`, `euclidean` or `dot_product`.
    pub distance: syn::Path,
    /// The index name (default: the attribute's name and `_vector`).
    pub index: Option<SpannedValue<String>>,
    /// The search schema's `HASH` field: every search names one value of it.
    pub partition: Option<syn::Path>,
    /// The search schema's `INLINE_FILTER` fields.
    #[darling(default)]
    pub filters: darling::util::PathList,
}

/// `#[unique]` or `#[unique(scope(team, ..))]` on a field.
#[derive(Debug, Default, FromMeta)]
pub struct UniqueAttr {
    /// The fields the value is unique within.
    #[darling(default)]
    pub scope: darling::util::PathList,
}

/// `#[beacon(length = N)]` or `#[beacon(length = N, distinct = X)]` on an encrypted field.
#[derive(Debug, FromMeta)]
pub struct BeaconAttr {
    /// How many bits of the HMAC the beacon keeps.
    pub length: SpannedValue<u32>,
    /// How many distinct values the field takes, when known: the length is checked
    /// against AWS's rule.
    pub distinct: Option<SpannedValue<u64>>,
}

/// The key attributes found on one field.
#[derive(Debug, Default)]
pub struct FieldAttrs {
    pub pk: Option<(KeyAttr, Span)>,
    pub sk: Option<(KeyAttr, Span)>,
    pub gsi: Vec<(GsiAttr, Span)>,
    pub shard: Vec<(ShardAttr, Span)>,
    pub ttl: Option<Span>,
    /// `#[version]`: the optimistic-locking counter.
    pub version: Option<Span>,
    /// `#[unique(..)]`.
    pub unique: Option<(UniqueAttr, Span)>,
    /// `#[vector(..)]`.
    pub vector: Option<(VectorAttr, Span)>,
    /// `#[created]`: set when the record is created.
    pub created: Option<Span>,
    /// `#[updated]`: set by every write.
    pub updated: Option<Span>,
    /// `#[created(seconds)]`, `#[updated(millis)]`: the write time is an epoch number.
    pub epoch: Option<EpochUnit>,
    /// `#[nested]`: the field's type derives `Nested`, and its members get handles.
    pub nested: Option<Span>,
    /// `#[encrypt]`: encrypted and signed on the client.
    pub encrypt: Option<Span>,
    /// `#[sign_only]`: signed on the client, stored readable.
    pub sign_only: Option<Span>,
    /// `#[beacon(..)]`: keys hold the value's beacon.
    pub beacon: Option<(BeaconAttr, Span)>,
    /// `#[sensitive]`: the value is masked in `Debug`, errors and events.
    pub sensitive: Option<Span>,
    /// What serde does with the field.
    pub serde: crate::serde_attrs::SerdeField,
}

/// The epoch number an integer `#[created]` or `#[updated]` field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpochUnit {
    /// Seconds since 1970 (Entity Manager's `created`).
    Seconds,
    /// Milliseconds since 1970 (`Date.now()`).
    Millis,
}

/// Parse the forwarded attributes of a field: its serde options (their errors reported in
/// turn), then its key attributes (their syntax errors reported last).
pub fn field_attrs(attrs: &[Attribute], cx: &Ctxt) -> FieldAttrs {
    let mut out = FieldAttrs {
        serde: crate::serde_attrs::field(attrs, cx),
        ..FieldAttrs::default()
    };
    for attr in attrs {
        let span = attr.path().span();
        let path = attr.path();
        if path.is_ident("pk") || path.is_ident("sk") {
            let parsed = match &attr.meta {
                Meta::Path(_) => Some(KeyAttr::default()),
                meta => cx.syntax(KeyAttr::from_meta(meta)),
            };
            if let Some(parsed) = parsed {
                let slot = if path.is_ident("pk") {
                    &mut out.pk
                } else {
                    &mut out.sk
                };
                if slot.is_some() {
                    cx.syntax_error(
                        darling::Error::custom(
                            "duplicate key attribute: a field takes part in a key once",
                        )
                        .with_span(&span),
                    );
                } else {
                    *slot = Some((parsed, span));
                }
            }
        } else if path.is_ident("gsi") {
            if let Some(parsed) = cx.syntax(GsiAttr::from_meta(&attr.meta)) {
                out.gsi.push((parsed, span));
            }
        } else if path.is_ident("shard") {
            if let Some(parsed) = cx.syntax(ShardAttr::from_meta(&attr.meta)) {
                out.shard.push((parsed, span));
            }
        } else if path.is_ident("ttl") {
            if !matches!(attr.meta, Meta::Path(_)) {
                cx.syntax_error(
                    darling::Error::custom("`#[ttl]` takes no arguments").with_span(&span),
                );
            }
            out.ttl = Some(span);
        } else if path.is_ident("encrypt") || path.is_ident("sign_only") {
            let name = if path.is_ident("encrypt") {
                "encrypt"
            } else {
                "sign_only"
            };
            if !matches!(attr.meta, Meta::Path(_)) {
                cx.syntax_error(
                    darling::Error::custom(format!("`#[{name}]` takes no arguments"))
                        .with_span(&span),
                );
            }
            if name == "encrypt" {
                out.encrypt = Some(span);
            } else {
                out.sign_only = Some(span);
            }
        } else if path.is_ident("sensitive") {
            if !matches!(attr.meta, Meta::Path(_)) {
                cx.syntax_error(
                    darling::Error::custom("`#[sensitive]` takes no arguments").with_span(&span),
                );
            }
            out.sensitive = Some(span);
        } else if path.is_ident("beacon") {
            if let Some(parsed) = cx.syntax(BeaconAttr::from_meta(&attr.meta)) {
                out.beacon = Some((parsed, span));
            }
        } else if path.is_ident("nested") {
            if !matches!(attr.meta, Meta::Path(_)) {
                cx.syntax_error(
                    darling::Error::custom("`#[nested]` takes no arguments").with_span(&span),
                );
            }
            out.nested = Some(span);
        } else if path.is_ident("version") {
            if !matches!(attr.meta, Meta::Path(_)) {
                cx.syntax_error(
                    darling::Error::custom("`#[version]` takes no arguments").with_span(&span),
                );
            }
            out.version = Some(span);
        } else if path.is_ident("vector") {
            if let Some(parsed) = cx.syntax(VectorAttr::from_meta(&attr.meta)) {
                if out.vector.is_some() {
                    cx.syntax_error(
                        darling::Error::custom(
                            "a field has one `#[vector(..)]`: one vector index per field",
                        )
                        .with_span(&span),
                    );
                } else {
                    out.vector = Some((parsed, span));
                }
            }
        } else if path.is_ident("unique") {
            let parsed = match &attr.meta {
                Meta::Path(_) => Some(UniqueAttr::default()),
                meta => cx.syntax(UniqueAttr::from_meta(meta)),
            };
            if let Some(parsed) = parsed {
                if out.unique.is_some() {
                    cx.syntax_error(
                        darling::Error::custom("a field is `#[unique]` once").with_span(&span),
                    );
                } else {
                    out.unique = Some((parsed, span));
                }
            }
        } else if path.is_ident("created") || path.is_ident("updated") {
            let name = if path.is_ident("created") {
                "created"
            } else {
                "updated"
            };
            let unit = match &attr.meta {
                Meta::Path(_) => Some(None),
                Meta::List(list) => match list.parse_args::<syn::Ident>() {
                    Ok(word) if word == "seconds" => Some(Some(EpochUnit::Seconds)),
                    Ok(word) if word == "millis" => Some(Some(EpochUnit::Millis)),
                    _ => None,
                },
                Meta::NameValue(_) => None,
            };
            let Some(unit) = unit else {
                cx.syntax_error(
                    darling::Error::custom(format!(
                        "`#[{name}]` stores a `DateTime<Utc>` as Faceteer stores dates; on an \
                         integer field, say which epoch number it holds: `#[{name}(seconds)]` \
                         or `#[{name}(millis)]`"
                    ))
                    .with_span(&span),
                );
                continue;
            };
            if name == "created" {
                out.created = Some(span);
            } else {
                out.updated = Some(span);
            }
            out.epoch = unit;
        }
    }
    out
}
