//! The `Facet` impl and the inherent items of a facet (key builder, queries, field
//! handles), from every other part of the expansion.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::encoders::encoders;
use super::field_schemas::field_schemas;
use super::fields::fields_struct;
use super::keys::{
    all_key_fields, key_expr, keys, own_key_refs, put_index_key, sparse_membership, Source,
};
use super::projection::{index_key_types, projection};
use super::queries::{field_list, params, query_fns};
use super::schema::schema;
use super::tokens::{allow_many_args, lit, private};
use super::updates::derived_attributes;
use crate::model::FacetModel;

/// Generate the `Facet` impl and the inherent key builder and queries.
pub fn facet(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let ident = &m.ident;
    let schema = schema(m);
    let validate_on_write = m.validate_on_write;
    let refs = keys(m);
    let pk = key_expr(m, &refs[0], Source::Record);
    let sk = key_expr(m, &refs[1], Source::Record);
    let index_keys = m.indexes.iter().map(|i| {
        let writes = own_key_refs(i).map(|k| put_index_key(m, &k));
        // A sparse index holds the record only when every optional key field is present.
        match sparse_membership(m, i, |ident| quote!(self.#ident.is_some())) {
            Some(present) => quote! {
                if #present {
                    #(#writes)*
                }
            },
            None => quote!(#(#writes)*),
        }
    });

    let ttl = match m.ttl {
        Some(i) => {
            let f = &m.fields[i].ident;
            // Spanned at the field's type, so a wrong type is reported there.
            let ty = &m.fields[i].ty;
            quote_spanned!(ty.span()=> <#ty as #p::TtlValue>::ttl_seconds(&self.#f))
        }
        None => quote!(::core::option::Option::None),
    };
    let version = m.version.map(|i| {
        let f = &m.fields[i];
        let (ident, ty) = (&f.ident, &f.ty);
        let name = lit(&f.name);
        quote! {
            const VERSION: ::core::option::Option<&'static str> = ::core::option::Option::Some(#name);

            #[inline]
            fn version(&self) -> u64 {
                <u64 as ::core::convert::TryFrom<#ty>>::try_from(self.#ident).unwrap_or(0)
            }

            #[inline]
            fn with_version(mut self, __v: u64) -> Self {
                self.#ident = <#ty as ::core::convert::TryFrom<u64>>::try_from(__v).unwrap_or(<#ty>::MAX);
                self
            }
        }
    });
    let markers = batch_markers(m);
    let versioned = m.version.map(|_| {
        quote! {
            #[automatically_derived]
            impl #p::Versioned for #ident {}
        }
    });
    let written = written(m);
    let stamp = write_times(m);
    let schema_version = schema_version(m);
    let validate = m.validator.as_ref().map(|path| {
        quote! {
            #[inline]
            fn validate(&self) -> ::core::result::Result<(), ::std::string::String> {
                #path(self).map_err(|e| ::std::string::ToString::to_string(&e))
            }
        }
    });

    // Key builder: base PK fields, PK shard fields, then SK fields.
    let key_args = all_key_fields(&m.pk, Some(&m.sk));
    let key_params = params(m, &key_args);
    let allow = allow_many_args(key_params.len());
    let pk_args = key_expr(m, &refs[0], Source::Args);
    let sk_args = key_expr(m, &refs[1], Source::Args);
    let key_doc = format!(
        "The key of the `{}` record identified by {}.\n\n\
         Fails with `Error::Key` when a key value contains the delimiter where it would make the \
         key ambiguous, or when the partition key would start with `$unique`, the partition of \
         the guard items of unique values.",
        m.name,
        field_list(m, &key_args)
    );
    let queries = query_fns(m);
    let vector_searches = super::vectors::vector_fns(m);
    let (fields_decl, fields_ctor) = fields_struct(m);
    let fields_ident = format_ident!("{}Fields", ident);
    let projection = projection(m);
    let index_key_types = index_key_types(m);
    let encoders = encoders(m);
    let derived = derived_attributes(m);
    let key_values = super::updates::key_values(m);
    let attribute_names = m
        .fields
        .iter()
        .filter(|f| f.is_attribute)
        .map(|f| lit(&f.name));
    let field_schemas = field_schemas(m);
    let crypto = super::crypto::crypto_const(m);
    let beacon_text = super::crypto::beacon_text_fn(m);
    let sensitive = super::redact::sensitive_const(m);
    let debug = super::redact::facet_debug(m);
    let own_attributes = super::attributes::own_attributes(m);

    let private_use = super::tokens::private_use(m);

    quote! {
        #private_use
        #fields_decl
        #projection
        #index_key_types
        #debug

        #[automatically_derived]
        impl #p::Facet for #ident {
            const SCHEMA: &'static #p::FacetSchema = #schema;
            const VALIDATE_ON_WRITE: bool = #validate_on_write;
            #crypto
            #beacon_text
            #sensitive
            type Fields = #fields_ident;

            #[inline]
            fn fields() -> #fields_ident {
                #ident::fields()
            }

            #[inline]
            fn primary_key(&self) -> ::core::result::Result<#p::Key<Self>, #p::KeyError> {
                #p::Key::try_from_parts(#pk, #sk)
            }

            #[inline]
            fn write_index_keys(
                &self,
                __item: &mut #p::Item,
                __keys: &mut #p::KeyLengths,
            ) -> ::core::result::Result<(), #p::KeyError> {
                #(#index_keys)*
                let _ = (__item, __keys);
                ::core::result::Result::Ok(())
            }

            #[inline]
            fn ttl_seconds(&self) -> ::core::option::Option<i64> {
                #ttl
            }

            #own_attributes

            const ATTRIBUTES: &'static [&'static str] = &[#(#attribute_names),*];

            const FIELDS: &'static [#p::FieldSchema] = #field_schemas;

            #derived

            #key_values

            #validate

            #version

            #(#written)*

            #stamp

            #schema_version
        }

        #versioned
        #markers

        impl #ident {
            #fields_ctor

            #[doc = #key_doc]
            #allow
            #[inline]
            pub fn key(#(#key_params),*) -> ::core::result::Result<#p::Key<Self>, #p::Error> {
                ::core::result::Result::Ok(#p::Key::try_from_parts(#pk_args, #sk_args)?)
            }

            #queries
            #vector_searches


            #encoders
        }
    }
}

/// `SCHEMA_VERSION` and the `upgrade` reading older records, for `#[facet(schema_version = N)]`.
fn schema_version(m: &FacetModel) -> Option<TokenStream> {
    let p = private(m);
    let v = m.schema_version.as_ref()?;
    let version = v.version;
    let arms = v.upgrades.iter().enumerate().map(|(i, path)| {
        let stored = i as u32 + 1;
        // The path keeps its span: a function of another shape is reported on it.
        quote! {
            #stored => #p::upgrade_with::<Self, _>(__item, #path),
        }
    });
    Some(quote! {
        const SCHEMA_VERSION: ::core::option::Option<u32> = ::core::option::Option::Some(#version);

        #[inline]
        fn upgrade(
            __version: u32,
            __item: #p::Item,
        ) -> ::core::result::Result<Self, #p::ItemError> {
            match __version {
                #(#arms)*
                _ => ::core::result::Result::Err(#p::ItemError::SchemaVersion {
                    facet: <Self as #p::Facet>::SCHEMA.name,
                    found: ::std::string::ToString::to_string(&__version),
                    current: #version,
                }),
            }
        }
    })
}

/// The value of write-time field `i` for a write at `__now` (its type without `Option`).
fn write_time_value(m: &FacetModel, i: usize) -> TokenStream {
    let p = private(m);
    let f = &m.fields[i];
    let inner = &f.inner;
    match f.epoch {
        None => quote_spanned!(inner.span()=> <#inner as #p::WriteTime>::at(__now)),
        Some(crate::parse::EpochUnit::Seconds) => {
            quote_spanned!(inner.span()=> <#inner as #p::EpochTime>::from_epoch(__now.timestamp()))
        }
        Some(crate::parse::EpochUnit::Millis) => quote_spanned!(inner.span()=>
            <#inner as #p::EpochTime>::from_epoch(__now.timestamp_millis())
        ),
    }
}

/// `stamp_update` (the `#[updated]` field set by every update, rebuilding the keys built
/// from it) and `write_time_attributes` (both fields' attributes, through their codecs).
fn write_times(m: &FacetModel) -> Option<TokenStream> {
    if m.created.is_none() && m.updated.is_none() {
        return None;
    }
    let p = private(m);
    let ident = &m.ident;
    let stamp = m.updated.map(|i| {
        let f = &m.fields[i].ident;
        let keyed = m.ttl == Some(i) || m.indexes.iter().any(|x| x.derives_from(i));
        let value = write_time_value(m, i);
        quote! {
            #[inline]
            fn stamp_update(
                __change: #p::Update<Self>,
                __now: &#p::DateTime<#p::Utc>,
            ) -> #p::Update<Self> {
                __change & #ident::fields().#f.stamp(#value, #keyed)
            }
        }
    });
    let attribute = |field: Option<usize>| match field {
        None => quote!(::core::option::Option::None),
        Some(i) => {
            let f = &m.fields[i].ident;
            let value = write_time_value(m, i);
            quote! {
                #ident::fields().#f.encoded(#value).map_err(|source| #p::ItemError::Serialize {
                    facet: <Self as #p::Facet>::SCHEMA.name,
                    source,
                })?
            }
        }
    };
    let (created, updated) = (attribute(m.created), attribute(m.updated));
    Some(quote! {
        #stamp
        #[inline]
        fn write_time_attributes(
            __now: &#p::DateTime<#p::Utc>,
        ) -> ::core::result::Result<#p::WriteTimeAttributes, #p::ItemError> {
            ::core::result::Result::Ok(#p::WriteTimeAttributes {
                created: #created,
                updated: #updated,
            })
        }
    })
}

/// The `CREATED` and `UPDATED` constants.
fn written(m: &FacetModel) -> impl Iterator<Item = TokenStream> + '_ {
    [(m.created, quote!(CREATED)), (m.updated, quote!(UPDATED))]
        .into_iter()
        .filter_map(move |(field, constant)| {
            let name = lit(&m.fields[field?].name);
            Some(quote! {
                const #constant: ::core::option::Option<&'static str> =
                    ::core::option::Option::Some(#name);
            })
        })
}

/// `BatchWritable` for a facet without a `#[version]` field or `#[unique]` fields,
/// `BatchDeletable` for one without `#[unique]` fields, and a check of the types of the
/// unique fields and of the write times.
fn batch_markers(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let ident = &m.ident;
    let deletable = m.unique.is_empty().then(|| {
        quote! {
            #[automatically_derived]
            impl #p::BatchDeletable for #ident {}
        }
    });
    let writable = (m.unique.is_empty() && m.version.is_none()).then(|| {
        quote! {
            #[automatically_derived]
            impl #p::BatchWritable for #ident {}
        }
    });
    let unique_types = m.unique.iter().map(|u| {
        let ty = &m.fields[u.field].ty;
        quote_spanned!(ty.span()=> __unique_value::<#ty>();)
    });
    let checks = (!m.unique.is_empty()).then(|| {
        quote! {
            const _: fn() = || {
                fn __unique_value<__T: #p::UniqueValue + ?::core::marker::Sized>() {}
                #(#unique_types)*
            };
        }
    });
    quote!(#deletable #writable #checks)
}
