//! What updates may do to each field, and the attributes an update rebuilds (index keys,
//! the TTL) when it changes a field they are built from.

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use super::keys::{key_result, own_key_refs, sparse_membership, KeyRef, Source};
use super::tokens::{lit, private};
use crate::model::{FacetModel, IndexModel};

/// What updates may do to a field: the type parameter of its `Field` handle.
pub enum UpdateKind {
    /// The `#[version]` counter, moved by every write.
    TheVersionCounter,
    /// A `#[created]` or `#[updated]` field, set to the time of the write.
    SetByTheLibrary,
    /// A table key field: no update operations.
    PartOfThePrimaryKey,
    /// A field an index key or the TTL is built from: set or removed only (the update
    /// rebuilds the keys).
    PartOfAnIndexKeyOrTheTtl,
    /// Any other attribute.
    Attribute,
    /// An `#[encrypt]` field: no conditions, no update operations.
    Encrypted,
    /// A `#[sign_only]` field: conditions, no update operations.
    SignedOnly,
}

impl UpdateKind {
    /// The kind of field `i`.
    pub fn of(m: &FacetModel, i: usize) -> Self {
        if m.version == Some(i) {
            UpdateKind::TheVersionCounter
        } else if m.created == Some(i) || m.updated == Some(i) {
            UpdateKind::SetByTheLibrary
        } else if let Some(c) = &m.fields[i].crypto {
            if c.encrypted {
                UpdateKind::Encrypted
            } else if m.pk.uses(i) || m.sk.uses(i) {
                UpdateKind::PartOfThePrimaryKey
            } else {
                UpdateKind::SignedOnly
            }
        } else if m.pk.uses(i) || m.sk.uses(i) {
            UpdateKind::PartOfThePrimaryKey
        } else if m.ttl == Some(i) || m.indexes.iter().any(|x| x.derives_from(i)) {
            UpdateKind::PartOfAnIndexKeyOrTheTtl
        } else {
            UpdateKind::Attribute
        }
    }

    /// The kind's type, under `p` (`<crate>::__private_<version>`).
    pub fn path(&self, p: &TokenStream) -> TokenStream {
        match self {
            UpdateKind::TheVersionCounter => quote!(#p::TheVersionCounter),
            UpdateKind::SetByTheLibrary => quote!(#p::SetByTheLibrary),
            UpdateKind::PartOfThePrimaryKey => quote!(#p::PartOfThePrimaryKey),
            UpdateKind::PartOfAnIndexKeyOrTheTtl => quote!(#p::PartOfAnIndexKeyOrTheTtl),
            UpdateKind::Attribute => quote!(#p::Attribute),
            UpdateKind::Encrypted => quote!(#p::Encrypted),
            UpdateKind::SignedOnly => quote!(#p::SignedOnly),
        }
    }
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
/// update gives (or the record known to it) for rebuilding the attribute `attribute` names
/// for the field (the key built from it).
fn bind_values(m: &FacetModel, fields: &[u16], attribute: impl Fn(u16) -> LitStr) -> TokenStream {
    let p = private(m);
    let binds = fields.iter().map(|&f| {
        let attribute = attribute(f);
        let field = &m.fields[f as usize];
        let (ident, inner) = (&field.ident, &field.inner);
        let name = lit(&field.name);
        let rust = lit(&ident.to_string());
        let need = quote!(#p::Need::new(#f, #name, #rust, #attribute, __changed));
        if field.optional {
            quote!(let #ident = __v.optional::<#inner>(#need, |__t| __t.#ident.as_ref())?;)
        } else {
            quote!(let #ident = __v.required::<#inner>(#need, |__t| &__t.#ident)?;)
        }
    });
    quote!(#(#binds)*)
}

/// `__out.push(..)` of key `k` rebuilt from the update's values (bound as locals).
fn push_key(m: &FacetModel, k: &KeyRef) -> TokenStream {
    let p = private(m);
    let attribute = lit(&k.key.attribute);
    let value = key_result(m, k, Source::Values);
    quote!(__out.push(#p::derived_key(#attribute, #value)?);)
}

/// The keys of sparse index `i`, rebuilt together when the update changes any field they
/// are built from: written when every optional key field is present (the record enters or
/// stays in the index), removed when one is absent (it leaves, or stays out).
fn sparse_index_keys(m: &FacetModel, i: &IndexModel, own: &[KeyRef]) -> TokenStream {
    let p = private(m);
    let inputs = positions(own.iter().flat_map(|k| k.key.inputs()));
    // Each field is named with the key built from it.
    let attribute_of = |f: u16| {
        let key = own
            .iter()
            .find(|k| k.key.inputs().any(|i| i == f as usize))
            .unwrap_or(&own[0]);
        lit(&key.key.attribute)
    };
    let binds = bind_values(m, &inputs, attribute_of);
    let present =
        sparse_membership(m, i, |ident| quote!(#ident.is_some())).unwrap_or_else(|| quote!(true));
    let optional: Vec<u16> = inputs
        .iter()
        .copied()
        .filter(|&f| m.fields[f as usize].optional)
        .collect();
    let pushes = own.iter().map(|k| push_key(m, k));
    let removes: Vec<TokenStream> = own
        .iter()
        .map(|k| {
            let attribute = lit(&k.key.attribute);
            quote!(__out.push((#attribute, ::core::option::Option::<#p::AttributeValue>::None));)
        })
        .collect();
    // A field the update leaves absent takes the record out, whatever the others hold: no
    // other value is needed to remove its keys.
    quote! {
        if let ::core::option::Option::Some(__changed) = __v.changed(&[#(#inputs),*]) {
            if __v.gives_absent(&[#(#optional),*]) {
                #(#removes)*
            } else {
                #binds
                if #present {
                    #(#pushes)*
                } else {
                    #(#removes)*
                }
            }
        }
    }
}

/// `Facet::derived_attributes`: for each index key and the TTL, when the update changes a
/// field it is built from, the attribute rebuilt from the update's values — by the same
/// core key routine a put uses.
pub fn derived_attributes(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let base: Vec<usize> = m.pk.inputs().chain(m.sk.inputs()).collect();
    let mut index_keys = Vec::new();
    for i in &m.indexes {
        let own: Vec<KeyRef> = own_key_refs(i).collect();
        if i.sparse {
            index_keys.push(sparse_index_keys(m, i, &own));
            continue;
        }
        // A key built only from table key fields never changes: they cannot be updated.
        let changeable = own
            .into_iter()
            .filter(|k| k.key.inputs().any(|f| !base.contains(&f)));
        index_keys.extend(changeable.map(|k| {
            let attribute = lit(&k.key.attribute);
            let inputs = positions(k.key.inputs());
            let binds = bind_values(m, &inputs, |_| attribute.clone());
            let push = push_key(m, &k);
            quote! {
                if let ::core::option::Option::Some(__changed) = __v.changed(&[#(#inputs),*]) {
                    #binds
                    #push
                }
            }
        }));
    }
    let ttl = m.ttl.map(|t| {
        let field = &m.fields[t];
        let (ident, inner) = (&field.ident, &field.inner);
        let position = t as u16;
        let attribute = quote!(#p::TTL_ATTRIBUTE);
        let binds = bind_values(m, &[position], |_| lit("ttl"));
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
    if index_keys.is_empty() && ttl.is_none() {
        // Nothing derived can change: the trait's default (no attribute) holds.
        return TokenStream::new();
    }
    quote! {
        // Each key is built by the routine a put uses; `derived_key` names its attribute in
        // a `KeyError`.
        #[allow(clippy::needless_question_mark)]
        #[inline]
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

/// `Facet::key_values`: the values of the table key's fields an index key or the TTL is
/// built from, read back from the key's text and checked by writing the key again, so that an
/// update changing another field of such a key needs no read for them. Not generated for a
/// sharded key or one with an optional field (they are read from the stored record).
pub fn key_values(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let base = [&m.pk, &m.sk];
    let simple = base
        .iter()
        .all(|k| k.shard.is_none() && k.parts.iter().all(|part| !m.fields[part.field].optional));
    let used: Vec<usize> = {
        let mut out: Vec<usize> = Vec::new();
        for k in base {
            for part in &k.parts {
                let f = part.field;
                let derived = m.ttl == Some(f) || m.indexes.iter().any(|i| i.derives_from(f));
                if derived && !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        out
    };
    if !simple || used.is_empty() {
        return TokenStream::new();
    }
    let refs = super::keys::keys(m);
    let delim = lit(&m.delimiter);
    // Each field read once, from the first key that holds it.
    let mut bound: Vec<usize> = Vec::new();
    let mut reads = Vec::new();
    for (k, text) in base.iter().zip([quote!(__pk), quote!(__sk)]) {
        let prefix = lit(&k.prefix);
        let (n, bare) = (k.parts.len(), k.no_prefix);
        let pieces = quote::format_ident!("__pieces_{}", k.role.attr().to_lowercase());
        reads.push(quote! {
            let #pieces = #p::key_pieces(#text, #prefix, #bare, #delim, #n)?;
        });
        for (i, part) in k.parts.iter().enumerate() {
            if bound.contains(&part.field) {
                continue;
            }
            bound.push(part.field);
            let field = &m.fields[part.field];
            let (owned, inner) = (owned_ident(&field.ident), &field.inner);
            reads.push(if part.sortable {
                // A sortable integer's text is not its value: read back as the integer
                // whose sortable text it is (checked below like every value).
                quote!(let #owned: #inner = #p::from_sortable_text::<#inner>(#pieces[#i])?;)
            } else {
                quote!(let #owned: #inner = #p::from_key_text::<#inner>(#pieces[#i])?;)
            });
        }
    }
    let borrows = bound.iter().map(|&f| {
        let ident = &m.fields[f].ident;
        let owned = owned_ident(ident);
        quote!(let #ident = &#owned;)
    });
    let pk = key_result(m, &refs[0], Source::Values);
    let sk = key_result(m, &refs[1], Source::Values);
    let values = used.iter().map(|&f| {
        let owned = owned_ident(&m.fields[f].ident);
        let position = f as u16;
        quote!((#position, ::std::sync::Arc::new(#owned) as ::std::sync::Arc<dyn ::core::any::Any + ::core::marker::Send + ::core::marker::Sync>))
    });
    quote! {
        #[allow(clippy::needless_question_mark)]
        #[inline]
        fn key_values(__pk: &str, __sk: &str) -> ::std::vec::Vec<#p::KeyValue> {
            let __read = || -> ::core::option::Option<::std::vec::Vec<#p::KeyValue>> {
                #(#reads)*
                {
                    #(#borrows)*
                    if #pk.ok()? != __pk || #sk.ok()? != __sk {
                        return ::core::option::Option::None;
                    }
                }
                ::core::option::Option::Some(::std::vec![#(#values),*])
            };
            __read().unwrap_or_default()
        }
    }
}

/// The local holding a key value read back (owned).
fn owned_ident(ident: &syn::Ident) -> syn::Ident {
    quote::format_ident!("__owned_{}", ident)
}
