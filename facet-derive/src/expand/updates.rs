//! What updates may do to each field, and the attributes an update rebuilds (index keys,
//! the TTL) when it changes a field they are built from.

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use super::tokens::{lit, private};
use crate::model::FacetModel;

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
    pub fn path(&self, p: &syn::Ident) -> TokenStream {
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

/// `let <field> = __v.required/optional(..)?;` for field `f`: the value an update gives (or
/// the record known to it) for rebuilding the attribute `attribute`.
fn bind_value(m: &FacetModel, f: usize, attribute: LitStr) -> TokenStream {
    let p = private(m);
    let field = &m.fields[f];
    let (ident, inner) = (&field.ident, &field.inner);
    let name = lit(&field.name);
    let rust = lit(&ident.to_string());
    let position = f as u16;
    let need = quote!(#p::Need::new(#position, #name, #rust, #attribute, __changed));
    if field.optional {
        quote!(let #ident = __v.optional::<#inner>(#need, |__t| __t.#ident.as_ref())?;)
    } else {
        quote!(let #ident = __v.required::<#inner>(#need, |__t| &__t.#ident)?;)
    }
}

/// `Facet::derived_ttl`: the `ttl` attribute rebuilt from the update's values when it
/// changes the `#[ttl]` field (the index keys are rebuilt by the runtime's schema-driven key
/// writer); nothing for a facet without one.
pub fn derived_ttl(m: &FacetModel) -> TokenStream {
    let Some(t) = m.ttl else {
        return TokenStream::new();
    };
    let p = private(m);
    let field = &m.fields[t];
    let (ident, inner) = (&field.ident, &field.inner);
    let position = t as u16;
    let bind = bind_value(m, t, lit("ttl"));
    let seconds = if field.optional {
        quote!(#ident.and_then(|__x| <#inner as #p::TtlValue>::ttl_seconds(__x)))
    } else {
        quote!(<#inner as #p::TtlValue>::ttl_seconds(#ident))
    };
    quote! {
        #[inline]
        fn derived_ttl(
            __v: &mut #p::KeyedValues<'_, Self>,
        ) -> #p::Result<#p::Option<#p::Derived>, #p::ExprError> {
            let #p::Some(__changed) = __v.changed(&[#position]) else {
                return #p::Ok(#p::None);
            };
            #bind
            #p::Ok(#p::Some((
                #p::TTL_ATTRIBUTE,
                #seconds.map(|__s| #p::AttributeValue::N(::std::string::ToString::to_string(&__s))),
            )))
        }
    }
}
