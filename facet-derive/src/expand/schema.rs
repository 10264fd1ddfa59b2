//! The `FacetSchema` constant: names, keys, indexes and TTL, as the runtime reads them.

use std::fmt::Write as _;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::tokens::{joined, lit, lit_text, names_text, private, source};
use crate::model::{
    native_type, FacetModel, IndexKind, IndexModel, KeyModel, NativeType, ProjectionModel,
};

/// The typed attributes of a native index key: each field's stored name, and its type
/// from its codec or, through `KeyScalar`, from its Rust type (spanned there, so a type
/// without one is reported at the field).
fn native_attributes(m: &FacetModel, key: &KeyModel) -> TokenStream {
    let attributes = key.parts.iter().map(|part| key_attribute(m, part.field));
    quote!(&[#(#attributes),*])
}

/// The typed key attribute of field `i`: its stored name, and its type from its codec or,
/// through `KeyScalar`, from its Rust type (spanned there, so a type without one is
/// reported at the field).
fn key_attribute(m: &FacetModel, i: usize) -> TokenStream {
    let p = private(m);
    let f = &m.fields[i];
    let name = lit(&f.name);
    let ty = match native_type(f.serializer.as_ref()) {
        NativeType::Codec(t) => {
            let t = format_ident!("{t}");
            quote!(#p::ScalarType::#t)
        }
        NativeType::OfType | NativeType::Unknown => {
            let inner = &f.inner;
            quote_spanned!(inner.span()=> <#inner as #p::KeyScalar>::TYPE)
        }
    };
    quote!(#p::KeyAttribute { name: #name, ty: #ty })
}

/// The `VectorSchema` of each `#[vector(..)]` field.
fn vector_schemas(m: &FacetModel) -> Vec<TokenStream> {
    let p = private(m);
    m.vectors
        .iter()
        .map(|v| {
            let index = lit(&v.index);
            let attribute = lit(&m.fields[v.field].name);
            let dimensions = v.dimensions;
            let distance = format_ident!("{}", v.distance);
            let partition = match v.partition {
                Some(f) => {
                    let a = key_attribute(m, f);
                    quote!(#p::Some(#a))
                }
                None => quote!(#p::None),
            };
            let filters = v.filters.iter().map(|f| key_attribute(m, *f));
            quote!(#p::VectorSchema {
                index: #index,
                attribute: #attribute,
                dimensions: #dimensions,
                distance: #p::VectorDistance::#distance,
                partition: #partition,
                filters: &[#(#filters),*],
            })
        })
        .collect()
}

/// The `KeySchema` of `key`, as text.
fn key_schema(m: &FacetModel, key: &KeyModel) -> String {
    let p = private(m);
    let name = |f: usize| m.fields[f].name.as_str();
    let mut out = format!(
        "{p}::KeySchema::new({}, {}, {}, {}, &[{}])",
        lit_text(&key.attribute),
        lit_text(&key.prefix),
        key.no_prefix,
        names_text(key.parts.iter().map(|k| name(k.field))),
        joined(key.parts.iter().map(|k| m.fields[k.field].optional)),
    );
    if let Some(s) = &key.shard {
        let schedule = joined(s.schedule.iter().map(|(from, count)| {
            format!("{p}::ShardPeriod {{ from: {from}i64, count: {count}u32 }}")
        }));
        let time = match s.time {
            Some(t) => format!("{p}::Some({})", lit_text(name(t))),
            None => format!("{p}::None"),
        };
        let _ = write!(
            out,
            ".sharded({p}::ShardSchema {{ count: {}u32, fields: {}, schedule: &[{}], time_field: {time} }})",
            s.count,
            names_text(s.fields.iter().map(|&f| name(f))),
            schedule,
        );
    }
    out
}

/// The `IndexSchema` of index `i`, but for its native keys, as text.
fn index_schema(m: &FacetModel, i: &IndexModel) -> String {
    let p = private(m);
    let kind = match i.kind {
        IndexKind::Global => "Global",
        IndexKind::Local => "Local",
    };
    let mut out = format!(
        "{p}::IndexSchema::new({p}::IndexKind::{kind}, {}u8, {}, {})",
        i.n,
        lit_text(&i.name()),
        key_schema(m, &i.pk)
    );
    if let Some(sk) = &i.sk {
        let _ = write!(out, ".sorted({})", key_schema(m, sk));
    }
    if let Some(a) = &i.alias {
        let _ = write!(out, ".alias({})", lit_text(a));
    }
    match &i.projection {
        ProjectionModel::All => {}
        ProjectionModel::KeysOnly => {
            let _ = write!(out, ".projecting({p}::IndexProjection::KeysOnly)");
        }
        ProjectionModel::Include(fields) => {
            let names = names_text(fields.iter().map(|&f| m.fields[f].name.as_str()));
            let _ = write!(out, ".projecting({p}::IndexProjection::Include({names}))");
        }
    }
    if i.sparse {
        out.push_str(".sparse()");
    }
    out
}

pub fn schema(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let name = lit(&m.name);
    let delimiter = lit(&m.delimiter);
    let pk = source(&key_schema(m, &m.pk));
    let sk = source(&key_schema(m, &m.sk));
    // Each index's schema as text; a native index's typed key attributes, spanned at the
    // fields' types, as tokens after it.
    let indexes = m.indexes.iter().map(|i| {
        let index = source(&index_schema(m, i));
        let native = i.native.then(|| {
            let pk = native_attributes(m, &i.pk);
            let sk = i.sk.as_ref().map(|k| native_attributes(m, k));
            let sk = sk.unwrap_or_else(|| quote!(&[]));
            quote!(.native(#p::NativeKeys { pk: #pk, sk: #sk }))
        });
        quote!(#index #native)
    });
    let ttl = m.ttl.map(|i| {
        let n = lit(&m.fields[i].name);
        quote!(.ttl(#n))
    });
    let unique = (!m.unique.is_empty()).then(|| {
        let unique = m.unique.iter().map(|u| {
            let attribute = lit(&m.fields[u.field].name);
            let scope = u.scope.iter().map(|f| lit(&m.fields[*f].name));
            quote!(#p::UniqueSchema { attribute: #attribute, scope: &[#(#scope),*] })
        });
        quote!(.unique(&[#(#unique),*]))
    });
    let vectors = vector_schemas(m);
    let vectors = (!vectors.is_empty()).then(|| quote!(.vectors(&[#(#vectors),*])));
    quote!(&#p::FacetSchema::new(#name, #delimiter, #pk, #sk, &[#(#indexes),*])#ttl #unique #vectors)
}
