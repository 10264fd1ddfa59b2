//! Code generation from the validated model. Every runtime item is reached through
//! `::faceteer::__private`, so the generated code does not depend on the caller's imports.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, LitStr};

use crate::model::{is_string_like, FacetModel, Field, IndexModel, KeyModel, PickValidatorModel};

fn lit(s: &str) -> LitStr {
    LitStr::new(s, Span::call_site())
}

/// The type a key field's argument must have: the field type without `Option`, wrapped in
/// `Sortable` for sortable key fields.
fn arg_type(field: &Field, sortable: bool) -> TokenStream {
    let inner = &field.inner;
    if sortable {
        quote!(::faceteer::__private::Sortable<#inner>)
    } else {
        quote!(#inner)
    }
}

/// The parameter type of a key builder or query for a key field: `impl KeyArg<T>` for a
/// required field; for an optional one, `Option<&str>` when it holds a string and `Option<T>`
/// otherwise, so that `None` (an absent field, which Faceteer leaves out of the key) can be
/// passed without naming a type.
fn param_type(field: &Field, sortable: bool) -> TokenStream {
    let inner = &field.inner;
    match (field.optional, is_string_like(inner)) {
        (false, _) => {
            let ty = arg_type(field, sortable);
            quote!(impl ::faceteer::__private::KeyArg<#ty>)
        }
        (true, true) => quote!(::core::option::Option<&str>),
        (true, false) => quote!(::core::option::Option<#inner>),
    }
}

fn key_schema(m: &FacetModel, key: &KeyModel) -> TokenStream {
    let attribute = lit(&key.attribute);
    let prefix = lit(&key.prefix);
    let names = key.parts.iter().map(|p| lit(&m.fields[p.field].name));
    let optional = key.parts.iter().map(|p| m.fields[p.field].optional);
    let shard = match &key.shard {
        None => quote!(::core::option::Option::None),
        Some(s) => {
            let count = s.count;
            let names = s.fields.iter().map(|f| lit(&m.fields[*f].name));
            quote!(::core::option::Option::Some(::faceteer::__private::ShardSchema {
                count: #count,
                fields: &[#(#names),*],
            }))
        }
    };
    quote!(::faceteer::__private::KeySchema {
        attribute: #attribute,
        prefix: #prefix,
        fields: &[#(#names),*],
        optional: &[#(#optional),*],
        shard: #shard,
    })
}

fn schema(m: &FacetModel) -> TokenStream {
    let name = lit(&m.name);
    let delimiter = lit(&m.delimiter);
    let pk = key_schema(m, &m.pk);
    let sk = key_schema(m, &m.sk);
    let indexes = m.indexes.iter().map(|i| {
        let n = i.n;
        let index_name = lit(&format!("GSI{n}"));
        let alias = match &i.alias {
            Some(a) => {
                let a = lit(a);
                quote!(::core::option::Option::Some(#a))
            }
            None => quote!(::core::option::Option::None),
        };
        let pk = key_schema(m, &i.pk);
        let sk = key_schema(m, &i.sk);
        quote!(::faceteer::__private::IndexSchema {
            number: #n,
            name: #index_name,
            alias: #alias,
            pk: #pk,
            sk: #sk,
        })
    });
    let ttl = match m.ttl {
        Some(i) => {
            let n = lit(&m.fields[i].name);
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    };
    quote!(&::faceteer::__private::FacetSchema {
        name: #name,
        delimiter: #delimiter,
        pk: #pk,
        sk: #sk,
        indexes: &[#(#indexes),*],
        ttl_field: #ttl,
    })
}

/// Where key values come from: the record's fields, or a key builder's arguments.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    /// `self.field` (a record).
    Record,
    /// `__k.field` (a generated key-fields struct).
    Keys,
    /// A builder's argument named like the field.
    Args,
}

/// The expression reading `field` in a record-like source.
fn read_field(src: Source, ident: &Ident) -> TokenStream {
    match src {
        Source::Keys => quote!(__k.#ident),
        _ => quote!(self.#ident),
    }
}

fn part_stmt(m: &FacetModel, field: usize, sortable: bool, src: Source) -> TokenStream {
    let f = &m.fields[field];
    let ident = &f.ident;
    let name = lit(&f.ident.to_string());
    match src {
        Source::Record | Source::Keys if sortable => {
            let read = read_field(src, ident);
            quote!(__w.part(#name, &::faceteer::__private::Sortable(&#read));)
        }
        Source::Record | Source::Keys => {
            let read = read_field(src, ident);
            // Spanned at the field's type, so a type that is not a key value is reported there.
            let ty = &f.ty;
            let check = quote::quote_spanned!(syn::spanned::Spanned::span(ty)=>
                ::faceteer::__private::key_part::<#ty>
            );
            quote!(__w.part(#name, #check(&#read));)
        }
        Source::Args if f.optional && sortable => {
            quote!(__w.part(#name, &::faceteer::__private::Sortable(#ident));)
        }
        Source::Args if f.optional => quote!(__w.part(#name, &#ident);),
        Source::Args => {
            let ty = arg_type(f, sortable);
            quote!(__w.arg::<#ty>(#name, &#ident);)
        }
    }
}

fn shard_input_stmt(m: &FacetModel, field: usize, src: Source) -> TokenStream {
    let f = &m.fields[field];
    let ident = &f.ident;
    let name = lit(&f.ident.to_string());
    match src {
        Source::Record | Source::Keys => {
            let read = read_field(src, ident);
            quote!(__s.push(#name, &#read);)
        }
        Source::Args if f.optional => quote!(__s.push(#name, &#ident);),
        Source::Args => {
            let inner = &f.inner;
            quote!(::faceteer::__private::KeyArg::<#inner>::with_key_part(&#ident, |__p| { __s.push(#name, __p); });)
        }
    }
}

/// A block evaluating to `Result<String, KeyError>`: the complete key string.
fn full_key(m: &FacetModel, key: &KeyModel, src: Source) -> TokenStream {
    let prefix = lit(&key.prefix);
    let delim = lit(&m.delimiter);
    let shard = key.shard.as_ref().map(|s| {
        let count = s.count;
        let inputs = s.fields.iter().map(|f| shard_input_stmt(m, *f, src));
        quote! {
            let mut __s = ::faceteer::__private::ShardInputs::new();
            #(#inputs)*
            __w.shard(&__s.shard_id(#count)?);
        }
    });
    let parts = key
        .parts
        .iter()
        .map(|p| part_stmt(m, p.field, p.sortable, src));
    quote!({
        let mut __w = ::faceteer::__private::KeyWriter::new(#prefix, #delim);
        #shard
        #(#parts)*
        __w.finish()
    })
}

/// An expression of type `PartitionKey` for a query built from arguments.
fn partition_key(m: &FacetModel, key: &KeyModel) -> TokenStream {
    let prefix = lit(&key.prefix);
    let attribute = lit(&key.attribute);
    let delim = lit(&m.delimiter);
    let parts = key
        .parts
        .iter()
        .map(|p| part_stmt(m, p.field, p.sortable, Source::Args));
    let shard = match &key.shard {
        None => quote!(::faceteer::__private::ShardChoice::Unsharded),
        Some(s) => {
            let count = s.count;
            let all_in_key = s
                .fields
                .iter()
                .all(|f| key.parts.iter().any(|p| p.field == *f));
            if all_in_key {
                let inputs = s
                    .fields
                    .iter()
                    .map(|f| shard_input_stmt(m, *f, Source::Args));
                quote!(::faceteer::__private::ShardChoice::Computed {
                    count: #count,
                    id: {
                        let mut __s = ::faceteer::__private::ShardInputs::new();
                        #(#inputs)*
                        __s.shard_id(#count)
                    },
                })
            } else {
                quote!(::faceteer::__private::ShardChoice::Choose { count: #count })
            }
        }
    };
    quote!(::faceteer::__private::PartitionKey::new(
        #attribute,
        #prefix,
        #delim,
        #shard,
        {
            let mut __w = ::faceteer::__private::KeyWriter::new("", #delim);
            #(#parts)*
            __w.finish()
        },
    ))
}

/// The sort-key shape type of a key.
fn shape(m: &FacetModel, key: &KeyModel) -> TokenStream {
    let tys: Vec<TokenStream> = key
        .parts
        .iter()
        .map(|p| arg_type(&m.fields[p.field], p.sortable))
        .collect();
    match tys.len() {
        0 => quote!(::faceteer::__private::NoFields),
        1 => quote!(::faceteer::__private::One<#(#tys),*>),
        2 => quote!(::faceteer::__private::Two<#(#tys),*>),
        3 => quote!(::faceteer::__private::Three<#(#tys),*>),
        _ => quote!(::faceteer::__private::Four<#(#tys),*>),
    }
}

/// Parameters `name: impl KeyArg<T>` for the given fields (deduplicated, in order).
fn params(m: &FacetModel, fields: &[(usize, bool)]) -> Vec<TokenStream> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for &(field, sortable) in fields {
        if seen.contains(&field) {
            continue;
        }
        seen.push(field);
        let f = &m.fields[field];
        let ident = &f.ident;
        let ty = param_type(f, sortable);
        out.push(quote!(#ident: #ty));
    }
    out
}

fn key_fields(key: &KeyModel) -> Vec<(usize, bool)> {
    key.parts.iter().map(|p| (p.field, p.sortable)).collect()
}

fn shard_fields(key: &KeyModel) -> Vec<(usize, bool)> {
    key.shard
        .iter()
        .flat_map(|s| s.fields.iter().map(|f| (*f, false)))
        .collect()
}

fn field_list(m: &FacetModel, fields: &[(usize, bool)]) -> String {
    let mut names: Vec<String> = Vec::new();
    for (f, _) in fields {
        let n = format!("`{}`", m.fields[*f].ident);
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names.join(", ")
}

fn query_fn(m: &FacetModel, method: &Ident, index: Option<(usize, &IndexModel)>) -> TokenStream {
    let (pk, sk) = match index {
        Some((_, i)) => (&i.pk, &i.sk),
        None => (&m.pk, &m.sk),
    };
    let args = key_fields(pk);
    let params = params(m, &args);
    let shape = shape(m, sk);
    let partition = partition_key(m, pk);
    let (index_expr, doc) = match index {
        Some((pos, i)) => (
            quote!(::core::option::Option::Some(&<Self as ::faceteer::__private::Facet>::SCHEMA.indexes[#pos])),
            format!(
                "Query index `GSI{}`{} in the partition given by {}.\n\n\
                 Sort-key arguments of the operators are the index's sort-key field(s): {}.",
                i.n,
                i.alias
                    .as_ref()
                    .map(|a| format!(" (`{a}`)"))
                    .unwrap_or_default(),
                field_list(m, &args),
                field_list(m, &key_fields(sk)),
            ),
        ),
        None => (
            quote!(::core::option::Option::None),
            format!(
                "Query the base table in the partition given by {}.\n\n\
                 Sort-key arguments of the operators are the sort-key field(s): {}.",
                field_list(m, &args),
                field_list(m, &key_fields(sk)),
            ),
        ),
    };
    let sk_schema = match index {
        Some((pos, _)) => {
            quote!(&<Self as ::faceteer::__private::Facet>::SCHEMA.indexes[#pos].sk)
        }
        None => quote!(&<Self as ::faceteer::__private::Facet>::SCHEMA.sk),
    };
    let index_keys = match index {
        Some((_, i)) => {
            let name = index_keys_ident(m, i);
            quote!(#name)
        }
        None => quote!(::faceteer::__private::BaseTable),
    };
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments)]
        pub fn #method(#(#params),*) -> ::faceteer::__private::PartitionQuery<Self, #shape, #index_keys> {
            ::faceteer::__private::PartitionQuery::new(#index_expr, #sk_schema, #partition)
        }
    }
}

/// `TaskGsi1Keys`: the key fields of index `n`.
fn index_keys_ident(m: &FacetModel, i: &IndexModel) -> Ident {
    format_ident!("{}Gsi{}Keys", m.ident, i.n)
}

/// The fields of a key (partition, shard, sort), deduplicated, in order.
fn all_key_fields(pk: &KeyModel, sk: &KeyModel) -> Vec<(usize, bool)> {
    let mut out = key_fields(pk);
    out.extend(shard_fields(pk));
    out.extend(key_fields(sk));
    let mut seen = Vec::new();
    out.retain(|(f, _)| {
        let new = !seen.contains(f);
        seen.push(*f);
        new
    });
    out
}

/// A struct holding key fields, readable from a projected item.
fn key_fields_struct(
    m: &FacetModel,
    name: &Ident,
    fields: &[(usize, bool)],
    doc: &str,
) -> TokenStream {
    let vis = &m.vis;
    let decls = fields.iter().map(|(f, _)| {
        let f = &m.fields[*f];
        let (id, ty) = (&f.ident, &f.ty);
        let doc = format!("The `{}` key field.", f.name);
        quote!(#[doc = #doc] pub #id: #ty)
    });
    let names: Vec<LitStr> = fields
        .iter()
        .map(|(f, _)| lit(&m.fields[*f].name))
        .collect();
    let reads = fields.iter().map(|(f, _)| {
        let f = &m.fields[*f];
        let id = &f.ident;
        let attr = lit(&f.name);
        quote!(#id: ::faceteer::__private::read_attribute(__item, #attr)?)
    });
    // Debug and Clone when every field has them: the higher-ranked bounds keep the impls
    // from failing to compile when a field type lacks them.
    let ids: Vec<&Ident> = fields.iter().map(|(f, _)| &m.fields[*f].ident).collect();
    let tys: Vec<&syn::Type> = fields.iter().map(|(f, _)| &m.fields[*f].ty).collect();
    let id_strs: Vec<LitStr> = ids.iter().map(|i| lit(&i.to_string())).collect();
    let name_str = lit(&name.to_string());
    quote! {
        #[doc = #doc]
        #[allow(dead_code)]
        #vis struct #name {
            #(#decls,)*
        }

        impl ::core::fmt::Debug for #name
        where
            #(for<'__faceteer> #tys: ::core::fmt::Debug,)*
        {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#name_str)
                    #(.field(#id_strs, &self.#ids))*
                    .finish()
            }
        }

        impl ::core::clone::Clone for #name
        where
            #(for<'__faceteer> #tys: ::core::clone::Clone,)*
        {
            fn clone(&self) -> Self {
                #name { #(#ids: ::core::clone::Clone::clone(&self.#ids),)* }
            }
        }

        impl ::faceteer::__private::FromPicked for #name {
            const ATTRIBUTES: &'static [&'static str] = &[#(#names),*];
            fn from_picked(
                __item: &::faceteer::__private::Item,
            ) -> ::core::result::Result<Self, ::faceteer::__private::DynamoError> {
                ::core::result::Result::Ok(#name { #(#reads,)* })
            }
        }

        impl ::faceteer::__private::KeyFields for #name {}
    }
}

/// Generate the `Facet` impl and the inherent key builders and queries.
pub fn generate(m: &FacetModel) -> TokenStream {
    let ident = &m.ident;
    let schema = schema(m);
    let validate_on_write = m.validate_on_write;
    let pk = full_key(m, &m.pk, Source::Record);
    let sk = full_key(m, &m.sk, Source::Record);

    let index_keys = m.indexes.iter().map(|i| {
        let pk_attr = lit(&i.pk.attribute);
        let sk_attr = lit(&i.sk.attribute);
        let pk = full_key(m, &i.pk, Source::Record);
        let sk = full_key(m, &i.sk, Source::Record);
        quote! {
            __item.insert(
                ::std::string::String::from(#pk_attr),
                ::faceteer::__private::AttributeValue::S(#pk?),
            );
            __item.insert(
                ::std::string::String::from(#sk_attr),
                ::faceteer::__private::AttributeValue::S(#sk?),
            );
        }
    });

    let ttl = match m.ttl {
        Some(i) => {
            let f = &m.fields[i].ident;
            // Spanned at the field's type, so a wrong type is reported there.
            let ty = &m.fields[i].ty;
            quote::quote_spanned!(syn::spanned::Spanned::span(ty)=>
                <#ty as ::faceteer::__private::TtlValue>::ttl_seconds(&self.#f)
            )
        }
        None => quote!(::core::option::Option::None),
    };

    let validate = m.validator.as_ref().map(|path| {
        quote! {
            fn validate(&self) -> ::core::result::Result<(), ::std::string::String> {
                #path(self).map_err(|e| ::std::string::ToString::to_string(&e))
            }
        }
    });

    // Key builder: base PK fields, PK shard fields, then SK fields.
    let key_args = all_key_fields(&m.pk, &m.sk);
    let key_params = params(m, &key_args);
    let pk_args = full_key(m, &m.pk, Source::Args);
    let sk_args = full_key(m, &m.sk, Source::Args);
    let key_doc = format!(
        "The key of the `{}` record identified by {}.\n\n\
         Fails when a key value contains the delimiter where it would make the key ambiguous.",
        m.name,
        field_list(m, &key_args)
    );

    let mut queries = vec![query_fn(m, &format_ident!("query"), None)];
    for (pos, i) in m.indexes.iter().enumerate() {
        let method = format_ident!("{}", i.method());
        queries.push(query_fn(m, &method, Some((pos, i))));
        if let Some(alias) = i.alias_method() {
            let alias = format_ident!("{}", alias);
            queries.push(query_fn(m, &alias, Some((pos, i))));
        }
    }

    let fields_ident = format_ident!("{}Fields", ident);
    let vis = &m.vis;
    let attribute_fields: Vec<&Field> = m.fields.iter().filter(|f| f.is_attribute).collect();
    let field_decls = attribute_fields.iter().map(|f| {
        let fid = &f.ident;
        let (inner, ty) = (&f.inner, &f.ty);
        let doc = format!("The `{}` attribute.", f.name);
        quote!(#[doc = #doc] pub #fid: ::faceteer::__private::Field<#ident, #inner, #ty>)
    });
    let field_inits = attribute_fields.iter().map(|f| {
        let fid = &f.ident;
        let name = lit(&f.name);
        quote!(#fid: ::faceteer::__private::Field::new(#name))
    });
    let fields_doc = format!(
        "Typed handles on the attributes of `{ident}`, for conditions and filters \
         (`{ident}::fields()`)."
    );

    let keys_ident = format_ident!("{}Keys", ident);
    let keys_struct = key_fields_struct(
        m,
        &keys_ident,
        &all_key_fields(&m.pk, &m.sk),
        &format!(
            "The base key fields of a `{ident}` record, as held by projections \
             (`.key()` gives its key)."
        ),
    );
    let index_key_structs = m.indexes.iter().map(|i| {
        key_fields_struct(
            m,
            &index_keys_ident(m, i),
            &all_key_fields(&i.pk, &i.sk),
            &format!("The key fields of index `GSI{}` of `{ident}`, as held by projections read through it.", i.n),
        )
    });
    let pk_keys = full_key(m, &m.pk, Source::Keys);
    let sk_keys = full_key(m, &m.sk, Source::Keys);
    let pick_validator = m.pick_validator.as_ref().map(|p| {
        let body = match p {
            PickValidatorModel::Trust => quote!(::core::result::Result::Ok(())),
            PickValidatorModel::Path(path) => {
                quote!(#path(__item, __attributes).map_err(|e| ::std::string::ToString::to_string(&e)))
            }
        };
        quote! {
            impl ::faceteer::__private::PickValidator for #ident {
                fn validate_pick(
                    __item: &::faceteer::__private::Item,
                    __attributes: &[&'static str],
                ) -> ::core::result::Result<(), ::std::string::String> {
                    #body
                }
            }
        }
    });

    quote! {
        #[doc = #fields_doc]
        #[derive(Debug, Clone, Copy)]
        #vis struct #fields_ident {
            #(#field_decls,)*
        }

        #keys_struct
        #(#index_key_structs)*
        #pick_validator

        impl #keys_ident {
            /// The base-table key of the record whose key fields these are.
            pub fn key(
                &self,
            ) -> ::core::result::Result<::faceteer::__private::Key<#ident>, ::faceteer::__private::KeyError> {
                <#ident as ::faceteer::__private::Facet>::keys_to_key(self)
            }
        }

        impl ::faceteer::__private::Facet for #ident {
            type Fields = #fields_ident;

            fn fields() -> #fields_ident {
                #ident::fields()
            }

            type Keys = #keys_ident;

            fn keys_to_key(
                __k: &#keys_ident,
            ) -> ::core::result::Result<::faceteer::__private::Key<Self>, ::faceteer::__private::KeyError> {
                ::core::result::Result::Ok(::faceteer::__private::Key::from_parts(#pk_keys?, #sk_keys?))
            }

            const SCHEMA: &'static ::faceteer::__private::FacetSchema = #schema;
            const VALIDATE_ON_WRITE: bool = #validate_on_write;

            fn primary_key(
                &self,
            ) -> ::core::result::Result<::faceteer::__private::Key<Self>, ::faceteer::__private::KeyError> {
                ::core::result::Result::Ok(::faceteer::__private::Key::from_parts(#pk?, #sk?))
            }

            fn write_index_keys(
                &self,
                __item: &mut ::faceteer::__private::Item,
            ) -> ::core::result::Result<(), ::faceteer::__private::KeyError> {
                #(#index_keys)*
                let _ = __item;
                ::core::result::Result::Ok(())
            }

            fn ttl_seconds(&self) -> ::core::option::Option<i64> {
                #ttl
            }

            #validate
        }

        impl #ident {
            #[doc = #fields_doc]
            pub const fn fields() -> #fields_ident {
                #fields_ident { #(#field_inits,)* }
            }

            #[doc = #key_doc]
            #[allow(clippy::too_many_arguments)]
            pub fn key(
                #(#key_params),*
            ) -> ::core::result::Result<::faceteer::__private::Key<Self>, ::faceteer::__private::KeyError> {
                ::core::result::Result::Ok(::faceteer::__private::Key::from_parts(#pk_args?, #sk_args?))
            }

            #(#queries)*
        }
    }
}

/// `#[derive(KeyPart)]`: key text through serde.
pub fn key_part(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        impl #impl_generics ::faceteer::__private::KeyPart for #ident #ty_generics #where_clause {
            fn write_key(
                &self,
                out: &mut ::std::string::String,
            ) -> ::core::result::Result<(), ::std::string::String> {
                ::faceteer::__private::write_serde_key(self, out)
            }
        }
    }
}

/// `#[derive(Pick)]`: a projection of a facet, checked field by field at compile time.
pub fn pick(input: crate::parse::PickInput) -> Result<TokenStream, darling::Error> {
    use syn::spanned::Spanned;
    if !input.generics.params.is_empty() {
        return Err(
            darling::Error::custom("`#[derive(Pick)]` does not support generic structs")
                .with_span(&input.generics),
        );
    }
    let ident = &input.ident;
    let facet = &input.facet;
    let fields = input
        .data
        .take_struct()
        .expect("darling checked struct_named")
        .fields;
    if fields.is_empty() {
        return Err(
            darling::Error::custom("a projection names at least one field of the facet")
                .with_span(ident),
        );
    }
    // One reference to each facet field: a missing field or a different type is one error,
    // at the projection's field.
    let checks = fields.iter().map(|f| {
        let id = f.ident.as_ref().expect("named fields");
        let ty = &f.ty;
        let check = quote::quote_spanned!(ty.span()=> declared_as::<#ty>());
        quote!(::faceteer::__private::pick_field(__f.#id).#check)
    });
    let reads = fields.iter().enumerate().map(|(i, f)| {
        let id = f.ident.as_ref().expect("named fields");
        quote!(#id: ::faceteer::__private::read_attribute(__item, Self::ATTRIBUTES[#i])?)
    });
    Ok(quote! {
        impl ::faceteer::__private::FromPicked for #ident {
            const ATTRIBUTES: &'static [&'static str] = &{
                let __f = <#facet>::fields();
                [#(#checks),*]
            };

            fn from_picked(
                __item: &::faceteer::__private::Item,
            ) -> ::core::result::Result<Self, ::faceteer::__private::DynamoError> {
                ::core::result::Result::Ok(#ident { #(#reads,)* })
            }
        }

        impl ::faceteer::__private::Projection for #ident {
            type Facet = #facet;
        }
    })
}
