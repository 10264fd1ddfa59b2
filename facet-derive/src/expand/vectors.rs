//! The vector searches: `similar_<field>` for each `#[vector(..)]` field (and `similar`
//! when the facet has one).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::{lit, private};
use crate::model::FacetModel;

/// The search entry points of the facet's vector indexes.
pub fn vector_fns(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let mut out = Vec::new();
    for (at, v) in m.vectors.iter().enumerate() {
        let field = &m.fields[v.field];
        let method = format_ident!("similar_{}", field.ident);
        let (param, value) = match v.partition {
            Some(f) => {
                let f = &m.fields[f];
                let (name, inner, stored) = (&f.ident, &f.inner, lit(&f.name));
                (
                    quote!(#name: impl #p::FieldValue<#inner>,),
                    quote!(#p::Some((
                        #stored,
                        Self::fields().#name.key_operand(#p::FieldValue::into_field_value(#name)),
                    ))),
                )
            }
            None => (TokenStream::new(), quote!(#p::None)),
        };
        let partition_doc = match v.partition {
            Some(f) => format!(
                " in the partition of the search schema given by `{}`",
                m.fields[f].ident
            ),
            None => String::new(),
        };
        let doc = format!(
            "The records nearest to `vector` by vector index `{}` over `{}` ({} dimensions, \
             {}){partition_doc}: run with `table.search_vectors(..)`.",
            v.index, field.ident, v.dimensions, v.distance
        );
        let args = v.partition.map(|f| {
            let name = &m.fields[f].ident;
            quote!(#name,)
        });
        out.push(quote! {
            #[doc = #doc]
            #[inline]
            pub fn #method(#param vector: impl ::core::convert::AsRef<[f32]>) -> #p::VectorSearch<Self> {
                #p::VectorSearch::new(
                    &<Self as #p::Facet>::SCHEMA.vectors[#at],
                    vector.as_ref().to_vec(),
                    #value,
                )
            }
        });
        if m.vectors.len() == 1 {
            let doc = format!("The same as [`Self::{method}`].");
            out.push(quote! {
                #[doc = #doc]
                #[inline]
                pub fn similar(#param vector: impl ::core::convert::AsRef<[f32]>) -> #p::VectorSearch<Self> {
                    Self::#method(#args vector)
                }
            });
        }
    }
    quote!(#(#out)*)
}
