//! The `Facet` impl and the inherent items of a facet (key builder, queries, field
//! handles), from every other part of the expansion.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::encoders::encoders;
use super::field_schemas::field_schemas;
use super::fields::fields_struct;
use super::keys::{all_key_fields, key_of, Source};
use super::projection::{index_key_types, projection};
use super::queries::{field_list, params, query_fns};
use super::schema::schema;
use super::tokens::{allow_many_args, lit, private};
use super::updates::derived_ttl;
use crate::model::FacetModel;

/// Generate the `Facet` impl and the inherent key builder and queries.
pub fn facet(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let ident = &m.ident;
    let schema = schema(m);
    // The trait's default is `false`: only a facet that asks for it says so.
    let validate_on_write = m.validate_on_write.then(|| {
        quote!(
            const VALIDATE_ON_WRITE: bool = true;
        )
    });
    // A facet without a `#[ttl]` field keeps the trait's `ttl_seconds` (`None`).
    let ttl = m.ttl.map(|i| {
        let f = &m.fields[i].ident;
        // Spanned at the field's type, so a wrong type is reported there.
        let ty = &m.fields[i].ty;
        let seconds = quote_spanned!(ty.span()=> <#ty as #p::TtlValue>::ttl_seconds(&self.#f));
        quote! {
            #[inline]
            fn ttl_seconds(&self) -> #p::Option<i64> {
                #seconds
            }
        }
    });
    let version = m.version.map(|i| {
        let f = &m.fields[i];
        let (ident, ty) = (&f.ident, &f.ty);
        let name = lit(&f.name);
        quote! {
            const VERSION: #p::Option<&'static str> = #p::Some(#name);

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
            fn validate(&self) -> #p::Result<(), ::std::string::String> {
                #path(self).map_err(|e| ::std::string::ToString::to_string(&e))
            }
        }
    });

    // Key builder: base PK fields, PK shard fields, then SK fields.
    let key_args = all_key_fields(&m.pk, Some(&m.sk));
    let key_params = params(m, &key_args);
    let allow = allow_many_args(key_params.len());
    let key_of_args = key_of(m, Source::Args);
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
    let derived = derived_ttl(m);
    let key_layout = super::key_layout::key_layout(m);
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
            #validate_on_write
            #crypto
            #beacon_text
            #sensitive
            type Fields = #fields_ident;

            #[inline]
            fn fields() -> #fields_ident {
                #ident::fields()
            }

            #key_layout

            #ttl

            #own_attributes

            const ATTRIBUTES: &'static [&'static str] = &[#(#attribute_names),*];

            const FIELDS: &'static [#p::FieldSchema] = #field_schemas;

            #derived

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
            pub fn key(#(#key_params),*) -> #p::Result<#p::Key<Self>, #p::Error> {
                #p::Ok(#key_of_args?)
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
        const SCHEMA_VERSION: #p::Option<u32> = #p::Some(#version);

        #[inline]
        fn upgrade(
            __version: u32,
            __item: #p::Item,
        ) -> #p::Result<Self, #p::ItemError> {
            match __version {
                #(#arms)*
                _ => #p::Err(#p::ItemError::SchemaVersion {
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
        None => quote!(#p::None),
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
        ) -> #p::Result<#p::WriteTimeAttributes, #p::ItemError> {
            #p::Ok(#p::WriteTimeAttributes {
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
            let p = private(m);
            Some(quote! {
                const #constant: #p::Option<&'static str> =
                    #p::Some(#name);
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
