//! Code generation from the validated model.
//!
//! Every runtime item is reached through `<crate>::__private` (`::faceteer` unless
//! `#[facet(crate = ..)]` says otherwise), so the generated code does not depend on the
//! caller's imports. Each key (base `PK`/`SK`, each index's) is written by one generated
//! function that every caller uses: the record, the projected key fields, the key builder
//! and the queries.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, LitStr};

use crate::model::{
    is_string_like, FacetModel, Field, IndexModel, KeyModel, PickValidatorModel, ProjectionModel,
};

fn lit(s: &str) -> LitStr {
    LitStr::new(s, Span::call_site())
}

/// `<crate>::__private`.
fn private(m: &FacetModel) -> TokenStream {
    let krate = &m.krate;
    quote!(#krate::__private)
}

/// The type a key field's argument must have: the field type without `Option`, wrapped in
/// `Sortable` for sortable key fields.
fn arg_type(p: &TokenStream, field: &Field, sortable: bool) -> TokenStream {
    let inner = &field.inner;
    if sortable {
        quote!(#p::Sortable<#inner>)
    } else {
        quote!(#inner)
    }
}

/// The parameter type of a key builder or query for a key field: `impl KeyArg<T>` for a
/// required field; for an optional one, `Option<&str>` when it holds a string and `Option<T>`
/// otherwise, so that `None` (an absent field, which Faceteer leaves out of the key) can be
/// passed without naming a type.
fn param_type(p: &TokenStream, field: &Field, sortable: bool) -> TokenStream {
    let inner = &field.inner;
    match (field.optional, is_string_like(inner)) {
        (false, _) => {
            let ty = arg_type(p, field, sortable);
            quote!(impl #p::KeyArg<#ty>)
        }
        (true, true) => quote!(::core::option::Option<&str>),
        (true, false) => quote!(::core::option::Option<#inner>),
    }
}

fn key_schema(m: &FacetModel, key: &KeyModel) -> TokenStream {
    let p = private(m);
    let attribute = lit(&key.attribute);
    let prefix = lit(&key.prefix);
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
        fields: &[#(#names),*],
        optional: &[#(#optional),*],
        shard: #shard,
    })
}

/// The `&[ShardPeriod]` of a shard's schedule.
fn schedule(m: &FacetModel, s: &crate::model::ShardModel) -> TokenStream {
    let p = private(m);
    let periods = s
        .schedule
        .iter()
        .map(|(from, count)| quote!(#p::ShardPeriod { from: #from, count: #count }));
    quote!(&[#(#periods),*])
}

fn schema(m: &FacetModel) -> TokenStream {
    let p = private(m);
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
        let projection = match &i.projection {
            ProjectionModel::All => quote!(#p::IndexProjection::All),
            ProjectionModel::KeysOnly => quote!(#p::IndexProjection::KeysOnly),
            ProjectionModel::Include(fields) => {
                let names = fields.iter().map(|f| lit(&m.fields[*f].name));
                quote!(#p::IndexProjection::Include(&[#(#names),*]))
            }
        };
        quote!(#p::IndexSchema {
            number: #n,
            name: #index_name,
            alias: #alias,
            pk: #pk,
            sk: #sk,
            projection: #projection,
        })
    });
    let ttl = match m.ttl {
        Some(i) => {
            let n = lit(&m.fields[i].name);
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    };
    quote!(&#p::FacetSchema {
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
    /// A local variable named like the field holding `&T` (a required field) or
    /// `Option<&T>` (an optional one), `T` the field's type without `Option` (the values an
    /// update rebuilds derived attributes from).
    Values,
}

/// One key: its label in generated names (`pk`, `gsi1sk`, …) and its model.
struct KeyRef<'a> {
    label: String,
    key: &'a KeyModel,
    /// A partition key (`PK`, `GSInPK`), not a sort key.
    partition: bool,
}

fn keys(m: &FacetModel) -> Vec<KeyRef<'_>> {
    let mut out = vec![
        KeyRef {
            label: "pk".into(),
            key: &m.pk,
            partition: true,
        },
        KeyRef {
            label: "sk".into(),
            key: &m.sk,
            partition: false,
        },
    ];
    for i in &m.indexes {
        out.push(KeyRef {
            label: format!("gsi{}pk", i.n),
            key: &i.pk,
            partition: true,
        });
        out.push(KeyRef {
            label: format!("gsi{}sk", i.n),
            key: &i.sk,
            partition: false,
        });
    }
    out
}

impl KeyRef<'_> {
    /// The generated function writing the key's values.
    fn values_fn(&self) -> Ident {
        format_ident!("__faceteer_{}", self.label)
    }

    /// The generated function computing the key's shard id.
    fn shard_fn(&self) -> Ident {
        format_ident!("__faceteer_{}_shard", self.label)
    }
}

/// A `&dyn KeyPart` expression for one field's value in `src`.
fn part_arg(m: &FacetModel, field: usize, sortable: bool, src: Source) -> TokenStream {
    let p = private(m);
    let f = &m.fields[field];
    let ident = &f.ident;
    let read = match src {
        Source::Keys => quote!(__k.#ident),
        _ => quote!(self.#ident),
    };
    match src {
        Source::Values if f.optional && sortable => quote!(&#p::Sortable(#ident.copied())),
        Source::Values if sortable => quote!(&#p::Sortable(#ident)),
        Source::Values if f.optional => quote!(&#ident),
        Source::Values => {
            let inner = &f.inner;
            quote!(#p::key_part::<#inner>(#ident))
        }
        Source::Record | Source::Keys if sortable => {
            quote!(&#p::Sortable(&#read))
        }
        Source::Record | Source::Keys => {
            // Spanned at the field's type, so a type that is not a key value is reported there.
            let ty = &f.ty;
            quote_spanned!(ty.span()=> #p::key_part::<#ty>(&#read))
        }
        Source::Args if f.optional && sortable => quote!(&#p::Sortable(#ident)),
        Source::Args if f.optional => quote!(&#ident),
        Source::Args => {
            let ty = arg_type(&p, f, sortable);
            quote!(&#p::KeyArg::<#ty>::key_part(&#ident))
        }
    }
}

/// The hidden functions writing each key: the values (`__faceteer_pk(..)`) and, for a
/// sharded key, the shard id (`__faceteer_pk_shard(..)`), each taking `&dyn KeyPart`s.
fn key_fns(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let delim = lit(&m.delimiter);
    let fns = keys(m).into_iter().map(|k| {
        let values_fn = k.values_fn();
        let params = k.key.parts.iter().map(|part| {
            let ident = &m.fields[part.field].ident;
            quote!(#ident: &dyn #p::KeyPart)
        });
        let writes = k.key.parts.iter().map(|part| {
            let ident = &m.fields[part.field].ident;
            let name = lit(&ident.to_string());
            quote!(__w.part(#name, #ident);)
        });
        let shard = k.key.shard.as_ref().map(|s| {
            let shard_fn = k.shard_fn();
            let count = s.count;
            let idents: Vec<&Ident> = s.fields.iter().map(|f| &m.fields[*f].ident).collect();
            let names = idents.iter().map(|i| lit(&i.to_string()));
            let params = s.inputs().map(|f| &m.fields[f].ident);
            let id = match s.time {
                None => quote!(__s.shard_id(#count)),
                Some(t) => {
                    let time = &m.fields[t].ident;
                    let name = lit(&time.to_string());
                    let schedule = schedule(m, s);
                    quote!(__s.scheduled_shard_id(#count, #schedule, #name, #time))
                }
            };
            quote! {
                fn #shard_fn(#(#params: &dyn #p::KeyPart),*) -> ::core::result::Result<::std::string::String, #p::KeyError> {
                    let mut __s = #p::ShardInputs::new();
                    #(__s.push(#names, #idents);)*
                    #id
                }
            }
        });
        quote! {
            fn #values_fn(__prefix: &str, __shard: ::core::option::Option<&str>, #(#params),*) -> ::core::result::Result<::std::string::String, #p::KeyError> {
                let mut __w = #p::KeyWriter::new(__prefix, #delim);
                if let ::core::option::Option::Some(__id) = __shard {
                    __w.shard(__id);
                }
                #(#writes)*
                __w.finish()
            }
            #shard
        }
    });
    quote!(#(#fns)*)
}

/// An expression of type `String` (inside a function returning `Result<_, KeyError>`): the
/// complete key from `src`.
fn key_expr(m: &FacetModel, k: &KeyRef, src: Source) -> TokenStream {
    let prefix = lit(&k.key.prefix);
    let values_fn = k.values_fn();
    let args = k
        .key
        .parts
        .iter()
        .map(|part| part_arg(m, part.field, part.sortable, src));
    let shard = match &k.key.shard {
        None => quote!(::core::option::Option::None),
        Some(s) => {
            let shard_fn = k.shard_fn();
            let args = s.inputs().map(|f| part_arg(m, f, false, src));
            quote!(::core::option::Option::Some(Self::#shard_fn(#(#args),*)?.as_str()))
        }
    };
    quote!(Self::#values_fn(#prefix, #shard, #(#args),*)?)
}

/// An expression of type `PartitionKey` for a query built from arguments.
fn partition_key(m: &FacetModel, k: &KeyRef) -> TokenStream {
    let p = private(m);
    let prefix = lit(&k.key.prefix);
    let attribute = lit(&k.key.attribute);
    let delim = lit(&m.delimiter);
    let values_fn = k.values_fn();
    let args = k
        .key
        .parts
        .iter()
        .map(|part| part_arg(m, part.field, part.sortable, Source::Args));
    let shard = match &k.key.shard {
        None => quote!(#p::ShardChoice::Unsharded),
        Some(s) => {
            let count = s.count;
            let schedule = schedule(m, s);
            let all_in_key = s
                .inputs()
                .all(|f| k.key.parts.iter().any(|part| part.field == f));
            if all_in_key {
                let shard_fn = k.shard_fn();
                let args = s.inputs().map(|f| part_arg(m, f, false, Source::Args));
                quote!(#p::ShardChoice::Computed {
                    count: #count,
                    schedule: #schedule,
                    id: Self::#shard_fn(#(#args),*),
                })
            } else {
                quote!(#p::ShardChoice::Choose { count: #count, schedule: #schedule })
            }
        }
    };
    quote!(#p::PartitionKey::new(#attribute, #prefix, #delim, #shard, Self::#values_fn("", ::core::option::Option::None, #(#args),*)))
}

/// The sort-key shape type of a key.
fn shape(m: &FacetModel, key: &KeyModel) -> TokenStream {
    let p = private(m);
    let tys: Vec<TokenStream> = key
        .parts
        .iter()
        .map(|k| arg_type(&p, &m.fields[k.field], k.sortable))
        .collect();
    match tys.len() {
        0 => quote!(#p::NoFields),
        1 => quote!(#p::One<#(#tys),*>),
        2 => quote!(#p::Two<#(#tys),*>),
        3 => quote!(#p::Three<#(#tys),*>),
        _ => quote!(#p::Four<#(#tys),*>),
    }
}

/// Parameters `name: impl KeyArg<T>` for the given fields (in order).
fn params(m: &FacetModel, fields: &[(usize, bool)]) -> Vec<TokenStream> {
    let p = private(m);
    fields
        .iter()
        .map(|&(field, sortable)| {
            let f = &m.fields[field];
            let ident = &f.ident;
            let ty = param_type(&p, f, sortable);
            quote!(#ident: #ty)
        })
        .collect()
}

fn field_list(m: &FacetModel, fields: &[(usize, bool)]) -> String {
    let names: Vec<String> = fields
        .iter()
        .map(|(f, _)| format!("`{}`", m.fields[*f].ident))
        .collect();
    names.join(", ")
}

/// The fields of a key in order, with their `sortable` flag.
fn key_fields(key: &KeyModel) -> Vec<(usize, bool)> {
    key.parts.iter().map(|p| (p.field, p.sortable)).collect()
}

/// The fields of a key (partition, shard, sort), deduplicated, in order.
fn all_key_fields(pk: &KeyModel, sk: &KeyModel) -> Vec<(usize, bool)> {
    let mut out = key_fields(pk);
    out.extend(pk.shard.iter().flat_map(|s| s.inputs().map(|f| (f, false))));
    out.extend(key_fields(sk));
    let mut seen = Vec::new();
    out.retain(|(f, _)| {
        let new = !seen.contains(f);
        seen.push(*f);
        new
    });
    out
}

/// Whether index `i` gets its own key-fields type (`TaskGsi1Keys`): when the facet can be
/// projected, or when the index projects less than whole records (reads through it are
/// then checked at compile time against what it projects).
fn has_index_keys_struct(m: &FacetModel, i: &IndexModel) -> bool {
    m.pick_validator.is_some() || !matches!(i.projection, ProjectionModel::All)
}

/// The impls saying what index `i` projects: every field (and whole records) for an index
/// projecting all attributes; the key fields and the included ones otherwise.
fn index_projection_impls(m: &FacetModel, i: &IndexModel) -> TokenStream {
    let p = private(m);
    let ident = &m.ident;
    let keys = index_keys_ident(m, i.n);
    let projected: Vec<usize> = match &i.projection {
        ProjectionModel::All => {
            return quote! {
                #[automatically_derived]
                impl<const N: usize> #p::IndexProjects<#p::FieldAt<#ident, N>> for #keys {}
                #[automatically_derived]
                impl #p::WholeRecords for #keys {}
            }
        }
        ProjectionModel::KeysOnly => Vec::new(),
        ProjectionModel::Include(fields) => fields.clone(),
    };
    let mut positions: Vec<usize> = all_key_fields(&m.pk, &m.sk)
        .into_iter()
        .chain(all_key_fields(&i.pk, &i.sk))
        .map(|(f, _)| f)
        .chain(projected)
        .collect();
    positions.sort_unstable();
    positions.dedup();
    let impls = positions.iter().map(|f| {
        quote! {
            #[automatically_derived]
            impl #p::IndexProjects<#p::FieldAt<#ident, #f>> for #keys {}
        }
    });
    quote!(#(#impls)*)
}

/// `TaskGsi1Keys`: the key fields of index `n`.
fn index_keys_ident(m: &FacetModel, n: u8) -> Ident {
    format_ident!("{}Gsi{}Keys", m.ident, n)
}

/// The query entry points: `query`, and `gsiN` plus its alias for each index (the alias
/// delegates).
fn query_fns(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let key_refs = keys(m);
    let mut out = Vec::new();
    for (pos, (pk, sk)) in key_refs.chunks(2).map(|c| (&c[0], &c[1])).enumerate() {
        let index = pos.checked_sub(1).map(|i| &m.indexes[i]);
        let args = key_fields(pk.key);
        let params = params(m, &args);
        let shape = shape(m, sk.key);
        let partition = partition_key(m, pk);
        let (method, index_expr, sk_schema, index_keys, doc) = match index {
            Some(i) => {
                let at = pos - 1;
                let index_keys = if has_index_keys_struct(m, i) {
                    let name = index_keys_ident(m, i.n);
                    quote!(#name)
                } else {
                    quote!(#p::BaseTable)
                };
                (
                    format_ident!("{}", i.method()),
                    quote!(::core::option::Option::Some(&<Self as #p::Facet>::SCHEMA.indexes[#at])),
                    quote!(&<Self as #p::Facet>::SCHEMA.indexes[#at].sk),
                    index_keys,
                    format!(
                        "Query index `GSI{}`{} in the partition given by {}.\n\n\
                         Sort-key arguments of the operators are the index's sort-key field(s): {}.",
                        i.n,
                        i.alias.as_ref().map(|a| format!(" (`{a}`)")).unwrap_or_default(),
                        field_list(m, &args),
                        field_list(m, &key_fields(sk.key)),
                    ),
                )
            }
            None => (
                format_ident!("query"),
                quote!(::core::option::Option::None),
                quote!(&<Self as #p::Facet>::SCHEMA.sk),
                quote!(#p::BaseTable),
                format!(
                    "Query the base table in the partition given by {}.\n\n\
                     Sort-key arguments of the operators are the sort-key field(s): {}.",
                    field_list(m, &args),
                    field_list(m, &key_fields(sk.key)),
                ),
            ),
        };
        let ret = quote!(#p::PartitionQuery<Self, #shape, #index_keys>);
        out.push(quote! {
            #[doc = #doc]
            #[allow(clippy::too_many_arguments)]
            pub fn #method(#(#params),*) -> #ret {
                #p::PartitionQuery::new(#index_expr, #sk_schema, #partition)
            }
        });
        if let Some(alias) = index.and_then(|i| i.alias_method()) {
            let alias = format_ident!("{}", alias);
            let names = args.iter().map(|(f, _)| &m.fields[*f].ident);
            let doc = format!("The same as [`Self::{method}`].");
            out.push(quote! {
                #[doc = #doc]
                #[allow(clippy::too_many_arguments)]
                pub fn #alias(#(#params),*) -> #ret {
                    Self::#method(#(#names),*)
                }
            });
        }
    }
    quote!(#(#out)*)
}

/// A struct holding key fields, readable from a projected item.
fn key_fields_struct(
    m: &FacetModel,
    name: &Ident,
    fields: &[(usize, bool)],
    doc: &str,
) -> TokenStream {
    let p = private(m);
    let vis = &m.vis;
    let decls = fields.iter().map(|(f, _)| {
        let f = &m.fields[*f];
        let (id, ty) = (&f.ident, &f.ty);
        let doc = format!("The `{}` key field.", f.name);
        quote!(#[doc = #doc] pub #id: #ty)
    });
    let names = fields.iter().map(|(f, _)| lit(&m.fields[*f].name));
    let reads = fields.iter().map(|(f, _)| {
        let f = &m.fields[*f];
        let id = &f.ident;
        let attr = lit(&f.name);
        quote!(#id: #p::read_attribute(__item, #attr)?)
    });
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone)]
        #[allow(dead_code)]
        #vis struct #name {
            #(#decls,)*
        }

        #[automatically_derived]
        impl #p::FromPicked for #name {
            const ATTRIBUTES: &'static [&'static str] = &[#(#names),*];
            fn from_picked(__item: &#p::Item) -> ::core::result::Result<Self, #p::DynamoError> {
                ::core::result::Result::Ok(#name { #(#reads,)* })
            }
        }

        #[automatically_derived]
        impl #p::KeyFields for #name {}
    }
}

/// The key-field types of the indexes that have one, with what each index projects.
fn index_key_types(m: &FacetModel) -> TokenStream {
    let ident = &m.ident;
    let types = m.indexes.iter().filter(|i| has_index_keys_struct(m, i)).map(|i| {
        let fields = key_fields_struct(
            m,
            &index_keys_ident(m, i.n),
            &all_key_fields(&i.pk, &i.sk),
            &format!(
                "The key fields of index `GSI{}` of `{ident}`, as held by projections read through it.",
                i.n
            ),
        );
        let impls = index_projection_impls(m, i);
        quote!(#fields #impls)
    });
    quote!(#(#types)*)
}

/// The key-field structs and the `PickValidator` impl, when the facet can be projected.
fn projection(m: &FacetModel) -> TokenStream {
    let Some(validator) = &m.pick_validator else {
        return TokenStream::new();
    };
    let p = private(m);
    let ident = &m.ident;
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
    let refs = keys(m);
    let pk = key_expr(m, &refs[0], Source::Keys);
    let sk = key_expr(m, &refs[1], Source::Keys);
    let body = match validator {
        PickValidatorModel::Trust => quote!(::core::result::Result::Ok(())),
        PickValidatorModel::Path(path) => {
            quote!(#path(__item, __attributes).map_err(|e| ::std::string::ToString::to_string(&e)))
        }
    };
    quote! {
        #keys_struct

        impl #keys_ident {
            /// The base-table key of the record whose key fields these are.
            pub fn key(&self) -> ::core::result::Result<#p::Key<#ident>, #p::KeyError> {
                <#ident as #p::PickValidator>::keys_to_key(self)
            }
        }

        #[automatically_derived]
        impl #p::PickValidator for #ident {
            type Keys = #keys_ident;

            fn keys_to_key(__k: &#keys_ident) -> ::core::result::Result<#p::Key<Self>, #p::KeyError> {
                ::core::result::Result::Ok(#p::Key::from_parts(#pk, #sk))
            }

            fn validate_pick(
                __item: &#p::Item,
                __attributes: &[&'static str],
            ) -> ::core::result::Result<(), ::std::string::String> {
                #body
            }
        }
    }
}

/// The update kind of field `i`: a table key field has no update operations; a field an
/// index key or the TTL is built from can only be set or removed (the update rebuilds the keys).
fn update_kind(m: &FacetModel, i: usize) -> &'static str {
    if m.version == Some(i) {
        "TheVersionCounter"
    } else if uses(&m.pk, i) || uses(&m.sk, i) {
        "PartOfThePrimaryKey"
    } else if m.ttl == Some(i) || m.indexes.iter().any(|x| uses(&x.pk, i) || uses(&x.sk, i)) {
        "PartOfAnIndexKeyOrTheTtl"
    } else {
        "Attribute"
    }
}

/// Whether field `i` is one of the key's fields (its parts or shard inputs).
fn uses(key: &KeyModel, i: usize) -> bool {
    key.parts.iter().any(|p| p.field == i)
        || key
            .shard
            .as_ref()
            .is_some_and(|s| s.inputs().any(|f| f == i))
}

/// The fields a key is built from (parts and shard inputs).
fn key_inputs(key: &KeyModel) -> impl Iterator<Item = usize> + '_ {
    key.parts
        .iter()
        .map(|p| p.field)
        .chain(key.shard.iter().flat_map(|s| s.inputs()))
}

/// The positions of the fields a key is built from, as `u16` literals.
fn positions(inputs: impl Iterator<Item = usize>) -> Vec<u16> {
    let mut out: Vec<u16> = Vec::new();
    for f in inputs {
        if !out.contains(&(f as u16)) {
            out.push(f as u16);
        }
    }
    out
}

/// `let <field> = __v.required/optional(..)?;` for each field in `fields`: the value an
/// update gives (or its template's) for rebuilding `attribute`.
fn bind_values(m: &FacetModel, fields: &[u16], attribute: &LitStr) -> TokenStream {
    let p = private(m);
    let binds = fields.iter().map(|&f| {
        let field = &m.fields[f as usize];
        let (ident, inner) = (&field.ident, &field.inner);
        let name = lit(&field.name);
        let rust = lit(&ident.to_string());
        let need = quote!(#p::Need { position: #f, name: #name, ident: #rust, attribute: #attribute, changed: __changed });
        if field.optional {
            quote!(let #ident = __v.optional::<#inner>(#need, |__t| __t.#ident.as_ref())?;)
        } else {
            quote!(let #ident = __v.required::<#inner>(#need, |__t| &__t.#ident)?;)
        }
    });
    quote!(#(#binds)*)
}

/// `Facet::derived_attributes`: for each index key and the TTL, when the update changes a
/// field it is built from, the attribute rebuilt from the update's values — by the same
/// generated key function a put uses.
fn derived_attributes(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let refs = keys(m);
    let base: Vec<usize> = key_inputs(&m.pk).chain(key_inputs(&m.sk)).collect();
    // A key built only from table key fields never changes: they cannot be updated.
    let changeable = refs[2..]
        .iter()
        .filter(|k| key_inputs(k.key).any(|f| !base.contains(&f)));
    let index_keys = changeable.map(|k| {
        let attribute = lit(&k.key.attribute);
        let inputs = positions(key_inputs(k.key));
        let binds = bind_values(m, &inputs, &attribute);
        let value = key_expr(m, k, Source::Values);
        quote! {
            if let ::core::option::Option::Some(__changed) = __v.changed(&[#(#inputs),*]) {
                #binds
                let __key = (|| -> ::core::result::Result<::std::string::String, #p::KeyError> {
                    ::core::result::Result::Ok(#value)
                })()
                .map_err(|source| #p::ExprError::Key { attribute: #attribute, source })?;
                __out.push((#attribute, ::core::option::Option::Some(#p::AttributeValue::S(__key))));
            }
        }
    });
    let ttl = m.ttl.map(|t| {
        let field = &m.fields[t];
        let (ident, inner) = (&field.ident, &field.inner);
        let position = t as u16;
        let attribute = quote!(#p::TTL_ATTRIBUTE);
        let binds = bind_values(m, &[position], &lit("ttl"));
        let seconds = if field.optional {
            quote!(#ident.and_then(|__x| <#inner as #p::TtlValue>::ttl_seconds(__x)))
        } else {
            quote!(<#inner as #p::TtlValue>::ttl_seconds(#ident))
        };
        quote! {
            if let ::core::option::Option::Some(__changed) = __v.changed(&[#position]) {
                #binds
                __out.push((
                    #attribute,
                    #seconds.map(|__s| #p::AttributeValue::N(::std::string::ToString::to_string(&__s))),
                ));
            }
        }
    });
    let index_keys: Vec<TokenStream> = index_keys.collect();
    if index_keys.is_empty() && ttl.is_none() {
        // Nothing derived can change: the trait's default (no attribute) holds.
        return TokenStream::new();
    }
    quote! {
        // Each key is built by the expression a put uses, inside a closure returning its
        // `KeyError`.
        #[allow(clippy::needless_question_mark)]
        fn derived_attributes(
            __v: &mut #p::KeyedValues<'_, Self>,
        ) -> ::core::result::Result<::std::vec::Vec<#p::Derived>, #p::ExprError> {
            let mut __out = ::std::vec::Vec::new();
            #(#index_keys)*
            #ttl
            ::core::result::Result::Ok(__out)
        }
    }
}

/// The encoder of each field whose values faceteer's marshalling alone would not store as
/// a put does (a codec of its own, a `skip_serializing_if`): conditions, filters and
/// updates send a value exactly as a put stores the field.
fn encoders(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let fns = m.fields.iter().filter(|f| has_encoder(m, f)).map(|f| {
        let (ty, inner) = (&f.ty, &f.inner);
        let name = encoder_ident(f);
        let (wrap, unwrap) = if f.optional {
            (
                quote!(::core::option::Option::Some(__v)),
                quote!(match __o {
                    ::core::option::Option::Some(__v) => __v,
                    ::core::option::Option::None => ::core::unreachable!(),
                }),
            )
        } else {
            (quote!(__v), quote!(__o))
        };
        let encode = match own_codec(m, f) {
            Some(path) => quote! {{
                struct __Field<'a>(&'a #ty);
                impl #p::serde::Serialize for __Field<'_> {
                    fn serialize<__S: #p::serde::Serializer>(
                        &self,
                        __s: __S,
                    ) -> ::core::result::Result<__S::Ok, __S::Error> {
                        #path(self.0, __s)
                    }
                }
                #p::encode_value(&__Field(&__o))
            }},
            None => quote!(#p::encode_value(&__o)),
        };
        let encode = match &f.skip_if {
            Some(skip) => quote! {
                if #skip(&__o) { ::core::result::Result::Ok(::core::option::Option::None) } else { #encode }
            },
            None => encode,
        };
        quote! {
            #[doc(hidden)]
            fn #name(__v: #inner) -> (#p::Encoded, #inner) {
                let __o: #ty = #wrap;
                let __e = #encode;
                (__e, #unwrap)
            }
        }
    });
    quote!(#(#fns)*)
}

/// Whether a field's values are encoded by a generated function rather than faceteer's
/// marshalling of the value: a codec of its own, or a `skip_serializing_if`.
fn has_encoder(m: &FacetModel, f: &Field) -> bool {
    f.is_attribute && (own_codec(m, f).is_some() || f.skip_if.is_some())
}

/// The serialize function of a field whose codec is not faceteer's own marshalling: none
/// for `faceteer::timestamp` (and `::option`), which write what faceteer's marshaller
/// writes for a `DateTime<Utc>` anyway.
fn own_codec<'f>(m: &FacetModel, f: &'f Field) -> Option<&'f syn::Path> {
    let path = f.serializer.as_ref()?;
    let words: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let krate: Vec<String> = m
        .krate
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let tail = words
        .strip_prefix(krate.as_slice())
        .or_else(|| words.strip_prefix(&["faceteer".to_owned()][..]));
    let builtin = matches!(
        tail.map(|t| t.iter().map(String::as_str).collect::<Vec<_>>())
            .as_deref(),
        Some(["timestamp", "serialize"] | ["timestamp", "option", "serialize"])
    );
    (!builtin).then_some(path)
}

fn encoder_ident(f: &Field) -> Ident {
    format_ident!("__faceteer_encode_{}", f.ident)
}

/// The `<Facet>Fields` struct of typed attribute handles.
fn fields_struct(m: &FacetModel) -> (TokenStream, TokenStream) {
    let p = private(m);
    let ident = &m.ident;
    let fields_ident = format_ident!("{}Fields", ident);
    let vis = &m.vis;
    let attribute_fields: Vec<(usize, &Field)> = m
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_attribute)
        .collect();
    let decls = attribute_fields.iter().map(|&(i, f)| {
        let fid = &f.ident;
        let (inner, ty) = (&f.inner, &f.ty);
        let doc = format!("The `{}` attribute.", f.name);
        let kind = format_ident!("{}", update_kind(m, i));
        quote!(#[doc = #doc] pub #fid: #p::Field<#ident, #inner, #ty, #p::#kind>)
    });
    let inits = attribute_fields.iter().map(|(i, f)| {
        let fid = &f.ident;
        let name = lit(&f.name);
        let position = *i as u16;
        if has_encoder(m, f) {
            let encoder = encoder_ident(f);
            quote!(#fid: #p::Field::coded(#name, #position, Self::#encoder))
        } else {
            quote!(#fid: #p::Field::numbered(#name, #position))
        }
    });
    let doc = format!(
        "Typed handles on the attributes of `{ident}`, for conditions and filters \
         (`{ident}::fields()`)."
    );
    let decl = quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy)]
        #vis struct #fields_ident {
            #(#decls,)*
        }
    };
    let ctor = quote! {
        #[doc = #doc]
        pub const fn fields() -> #fields_ident {
            #fields_ident { #(#inits,)* }
        }
    };
    (decl, ctor)
}

/// Generate the `Facet` impl and the inherent key builder and queries.
pub fn generate(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let ident = &m.ident;
    let schema = schema(m);
    let validate_on_write = m.validate_on_write;
    let refs = keys(m);
    let pk = key_expr(m, &refs[0], Source::Record);
    let sk = key_expr(m, &refs[1], Source::Record);
    let index_keys = refs[2..].iter().map(|k| {
        let attribute = lit(&k.key.attribute);
        let value = key_expr(m, k, Source::Record);
        let role = if k.partition {
            quote!(partition)
        } else {
            quote!(sort)
        };
        quote! {
            let __value = #value;
            __keys.#role(#attribute, &__value);
            __item.insert(::std::string::String::from(#attribute), #p::AttributeValue::S(__value));
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

            fn version(&self) -> u64 {
                <u64 as ::core::convert::TryFrom<#ty>>::try_from(self.#ident).unwrap_or(0)
            }

            fn with_version(mut self, __v: u64) -> Self {
                self.#ident = <#ty as ::core::convert::TryFrom<u64>>::try_from(__v).unwrap_or(<#ty>::MAX);
                self
            }
        }
    });
    let versioned = m.version.map(|_| {
        quote! {
            #[automatically_derived]
            impl #p::Versioned for #ident {}
        }
    });
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
    let pk_args = key_expr(m, &refs[0], Source::Args);
    let sk_args = key_expr(m, &refs[1], Source::Args);
    let key_doc = format!(
        "The key of the `{}` record identified by {}.\n\n\
         Fails when a key value contains the delimiter where it would make the key ambiguous.",
        m.name,
        field_list(m, &key_args)
    );
    let key_fns = key_fns(m);
    let queries = query_fns(m);
    let (fields_decl, fields_ctor) = fields_struct(m);
    let fields_ident = format_ident!("{}Fields", ident);
    let projection = projection(m);
    let index_key_types = index_key_types(m);
    let encoders = encoders(m);
    let derived = derived_attributes(m);
    let attribute_names = m
        .fields
        .iter()
        .filter(|f| f.is_attribute)
        .map(|f| lit(&f.name));

    quote! {
        #fields_decl
        #projection
        #index_key_types

        #[automatically_derived]
        impl #p::Facet for #ident {
            const SCHEMA: &'static #p::FacetSchema = #schema;
            const VALIDATE_ON_WRITE: bool = #validate_on_write;
            type Fields = #fields_ident;

            fn fields() -> #fields_ident {
                #ident::fields()
            }

            fn primary_key(&self) -> ::core::result::Result<#p::Key<Self>, #p::KeyError> {
                ::core::result::Result::Ok(#p::Key::from_parts(#pk, #sk))
            }

            fn write_index_keys(
                &self,
                __item: &mut #p::Item,
                __keys: &mut #p::KeyLengths,
            ) -> ::core::result::Result<(), #p::KeyError> {
                #(#index_keys)*
                let _ = (__item, __keys);
                ::core::result::Result::Ok(())
            }

            fn ttl_seconds(&self) -> ::core::option::Option<i64> {
                #ttl
            }

            const ATTRIBUTES: &'static [&'static str] = &[#(#attribute_names),*];

            #derived

            #validate

            #version
        }

        #versioned

        #[automatically_derived]
        impl #ident {
            #fields_ctor

            #[doc = #key_doc]
            #[allow(clippy::too_many_arguments)]
            pub fn key(#(#key_params),*) -> ::core::result::Result<#p::Key<Self>, #p::KeyError> {
                ::core::result::Result::Ok(#p::Key::from_parts(#pk_args, #sk_args))
            }

            #queries

            #key_fns

            #encoders
        }
    }
}

/// What a failed derive still emits besides its errors: the `Facet` impl with bodies that
/// never run, so that uses of the facet elsewhere do not add errors of their own (one
/// mistake, one error).
pub fn fallback(input: &syn::DeriveInput, krate: &syn::Path) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::Facet for #ident #ty_generics #where_clause {
            const SCHEMA: &'static #krate::__private::FacetSchema = &#krate::__private::FALLBACK_SCHEMA;
            type Fields = ();
            fn fields() {}
            fn primary_key(&self) -> ::core::result::Result<#krate::__private::Key<Self>, #krate::__private::KeyError> {
                ::core::unreachable!()
            }
            fn write_index_keys(
                &self,
                _: &mut #krate::__private::Item,
                _: &mut #krate::__private::KeyLengths,
            ) -> ::core::result::Result<(), #krate::__private::KeyError> {
                ::core::unreachable!()
            }
            fn ttl_seconds(&self) -> ::core::option::Option<i64> {
                ::core::unreachable!()
            }
        }
    }
}

/// `#[derive(KeyPart)]`: key text through serde.
pub fn key_part(input: &syn::DeriveInput) -> TokenStream {
    if let Err(e) = distinct_variant_names(input) {
        return e.write_errors();
    }
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

/// A key value is its serde name: two variants of one name would give two values one key.
fn distinct_variant_names(input: &syn::DeriveInput) -> Result<(), darling::Error> {
    let syn::Data::Enum(data) = &input.data else {
        return Ok(());
    };
    let mut ignored = Vec::new();
    let rule = crate::serde_attrs::container(&input.attrs, &mut ignored).rename_all;
    let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
    let mut errors = darling::Error::accumulator();
    for v in &data.variants {
        let serde = crate::serde_attrs::field(&v.attrs, &mut ignored);
        if serde.not_an_attribute {
            continue; // skipped variants are never written
        }
        let name = serde
            .rename
            .unwrap_or_else(|| crate::names::rename_variant(&v.ident.to_string(), rule.as_deref()));
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
            errors.push(
                darling::Error::custom(format!(
                    "variants `{first}` and `{}` are both written as {name:?}, so both would give \
                     one key and their records could overwrite each other; give each variant its \
                     own serde name",
                    v.ident
                ))
                .with_span(&v.ident),
            );
        } else {
            seen.push((name, &v.ident));
        }
    }
    errors.finish()
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
    // Each field must be projected by the index read through (`__I`, its key-fields type).
    let projected = fields.iter().map(|f| {
        let id = f.ident.as_ref().expect("named fields");
        quote_spanned! {id.span()=>
            __I: ::faceteer::__private::IndexProjects<
                ::faceteer::__private::FieldAt<#facet, { <#facet>::fields().#id.position() }>,
            >
        }
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

        impl<__I> ::faceteer::__private::ProjectedBy<__I> for #ident
        where
            #(#projected,)*
        {}
    })
}
