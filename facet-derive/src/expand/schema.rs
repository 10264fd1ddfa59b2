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
                    quote!(::core::option::Option::Some(#a))
                }
                None => quote!(::core::option::Option::None),
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
    let shard = match &key.shard {
        None => quote!(::core::option::Option::None),
        Some(s) => {
            let count = s.count;
            let names = s.fields.iter().map(|f| lit(&m.fields[*f].name));
            let schedule = schedule(m, s);
            let time = match s.time {
                Some(t) => {
                    let name = lit(&m.fields[t].name);
                    quote!(::core::option::Option::Some(#name))
                }
                None => quote!(::core::option::Option::None),
            };
            quote!(::core::option::Option::Some(#p::ShardSchema {
                count: #count,
                fields: &[#(#names),*],
                schedule: #schedule,
                time_field: #time,
            }))
        }
    };
    quote!(#p::KeySchema {
        attribute: #attribute,
        prefix: #prefix,
        no_prefix: #no_prefix,
        fields: &[#(#names),*],
        optional: &[#(#optional),*],
        shard: #shard,
    })
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
        let sparse = i.sparse;
        let alias = match &i.alias {
            Some(a) => {
                let a = lit(a);
                quote!(::core::option::Option::Some(#a))
            }
            None => quote!(::core::option::Option::None),
        };
        let pk = key_schema(m, &i.pk);
        let sk = match &i.sk {
            Some(sk) => {
                let sk = key_schema(m, sk);
                quote!(::core::option::Option::Some(#sk))
            }
            None => quote!(::core::option::Option::None),
        };
        let projection = match &i.projection {
            ProjectionModel::All => quote!(#p::IndexProjection::All),
            ProjectionModel::KeysOnly => quote!(#p::IndexProjection::KeysOnly),
            ProjectionModel::Include(fields) => {
                let names = fields.iter().map(|f| lit(&m.fields[*f].name));
                quote!(#p::IndexProjection::Include(&[#(#names),*]))
            }
        };
        let native = if i.native {
            let pk = native_attributes(m, &i.pk);
            let sk = i.sk.as_ref().map(|k| native_attributes(m, k));
            let sk = sk.unwrap_or_else(|| quote!(&[]));
            quote!(::core::option::Option::Some(#p::NativeKeys { pk: #pk, sk: #sk }))
        } else {
            quote!(::core::option::Option::None)
        };
        quote!(#p::IndexSchema {
            kind: #kind,
            number: #n,
            name: #index_name,
            alias: #alias,
            pk: #pk,
            sk: #sk,
            projection: #projection,
            sparse: #sparse,
            native: #native,
        })
    });
    let ttl = match m.ttl {
        Some(i) => {
            let n = lit(&m.fields[i].name);
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    };
    let unique = m.unique.iter().map(|u| {
        let attribute = lit(&m.fields[u.field].name);
        let scope = u.scope.iter().map(|f| lit(&m.fields[*f].name));
        quote!(#p::UniqueSchema { attribute: #attribute, scope: &[#(#scope),*] })
    });
    let vectors = vector_schemas(m);
    quote!(&#p::FacetSchema {
        name: #name,
        delimiter: #delimiter,
        pk: #pk,
        sk: #sk,
        indexes: &[#(#indexes),*],
        ttl_field: #ttl,
        unique: &[#(#unique),*],
        vectors: &[#(#vectors),*],
    })
}
