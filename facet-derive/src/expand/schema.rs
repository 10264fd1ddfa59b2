//! The `FacetSchema` constant: names, keys, indexes and TTL, as the runtime reads them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::keys::schedule;
use super::tokens::{lit, private};
use crate::model::{native_type, FacetModel, IndexKind, KeyModel, NativeType, ProjectionModel};

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

fn key_schema(m: &FacetModel, key: &KeyModel) -> TokenStream {
    let p = private(m);
    let attribute = lit(&key.attribute);
    let prefix = lit(&key.prefix);
    let no_prefix = key.no_prefix;
    let names = key.parts.iter().map(|k| lit(&m.fields[k.field].name));
    let optional = key.parts.iter().map(|k| m.fields[k.field].optional);
    let shard = key.shard.as_ref().map(|s| {
        let count = s.count;
        let names = s.fields.iter().map(|f| lit(&m.fields[*f].name));
        let schedule = schedule(m, s);
        let time = match s.time {
            Some(t) => {
                let name = lit(&m.fields[t].name);
                quote!(#p::Some(#name))
            }
            None => quote!(#p::None),
        };
        quote!(.sharded(#p::ShardSchema {
            count: #count,
            fields: &[#(#names),*],
            schedule: #schedule,
            time_field: #time,
        }))
    });
    quote!(#p::KeySchema::new(#attribute, #prefix, #no_prefix, &[#(#names),*], &[#(#optional),*])#shard)
}

pub fn schema(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let name = lit(&m.name);
    let delimiter = lit(&m.delimiter);
    let pk = key_schema(m, &m.pk);
    let sk = key_schema(m, &m.sk);
    let indexes = m.indexes.iter().map(|i| {
        let n = i.n;
        let index_name = lit(&i.name());
        let kind = match i.kind {
            IndexKind::Global => quote!(#p::IndexKind::Global),
            IndexKind::Local => quote!(#p::IndexKind::Local),
        };
        let sparse = i.sparse.then(|| quote!(.sparse()));
        let alias = i.alias.as_ref().map(|a| {
            let a = lit(a);
            quote!(.alias(#a))
        });
        let pk = key_schema(m, &i.pk);
        let sk = i.sk.as_ref().map(|sk| {
            let sk = key_schema(m, sk);
            quote!(.sorted(#sk))
        });
        let projection = match &i.projection {
            ProjectionModel::All => None,
            ProjectionModel::KeysOnly => {
                Some(quote!(.projecting(#p::IndexProjection::KeysOnly)))
            }
            ProjectionModel::Include(fields) => {
                let names = fields.iter().map(|f| lit(&m.fields[*f].name));
                Some(quote!(.projecting(#p::IndexProjection::Include(&[#(#names),*]))))
            }
        };
        let native = i.native.then(|| {
            let pk = native_attributes(m, &i.pk);
            let sk = i.sk.as_ref().map(|k| native_attributes(m, k));
            let sk = sk.unwrap_or_else(|| quote!(&[]));
            quote!(.native(#p::NativeKeys { pk: #pk, sk: #sk }))
        });
        quote!(#p::IndexSchema::new(#kind, #n, #index_name, #pk)#sk #alias #projection #sparse #native)
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
