//! The data the runtime's schema-driven key writer writes a facet's keys from: one
//! accessor per field a written key is built from (`KEY_FIELDS`) and, for each key written
//! (`PK`, `SK`, each index's own keys), where its values come from (`KEY_LAYOUT`). The rules
//! of writing keys (shards, schedules, sortable parts, beacons, masking, sparse indexes,
//! updates rebuilding keys, keys read back) live in the runtime, once.

use std::fmt::Write as _;

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::quote;
use syn::spanned::Spanned;

use super::tokens::{joined, private, source};
use crate::model::FacetModel;

/// The fields the written keys are built from, each once, in order of first use: their
/// entries in `KEY_FIELDS`.
fn entries(m: &FacetModel) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for k in m.all_keys() {
        for f in k.inputs() {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// The entry of field `f` in `KEY_FIELDS` (0 for a field no written key is built from,
/// which no caller asks for).
pub fn entry(m: &FacetModel, f: usize) -> u16 {
    entry_in(&entries(m), f)
}

/// The entry of field `f` among `entries` (as [`entry`] says).
fn entry_in(entries: &[usize], f: usize) -> u16 {
    entries.iter().position(|&e| e == f).unwrap_or(0) as u16
}

/// The fields of the table's key read back from its text (each with whether it is read as
/// `sortable`), when an index key or the TTL is built from one of them and the key can be
/// read back (not sharded, no optional field); empty otherwise.
fn parsed(m: &FacetModel) -> Vec<(usize, bool)> {
    let base = [&m.pk, &m.sk];
    let simple = base
        .iter()
        .all(|k| k.shard.is_none() && k.parts.iter().all(|p| !m.fields[p.field].optional));
    let derived = base
        .iter()
        .flat_map(|k| &k.parts)
        .any(|p| m.ttl == Some(p.field) || m.indexes.iter().any(|i| i.derives_from(p.field)));
    if !simple || !derived {
        return Vec::new();
    }
    // Each field read from the first key that holds it.
    let mut out: Vec<(usize, bool)> = Vec::new();
    for part in base.iter().flat_map(|k| &k.parts) {
        if out.iter().all(|(f, _)| *f != part.field) {
            out.push((part.field, part.sortable));
        }
    }
    out
}

/// `const KEY_FIELDS` and `const KEY_LAYOUT` of the `Facet` impl.
pub fn key_layout(m: &FacetModel) -> TokenStream {
    let p = private(m);
    let entries = entries(m);
    let parsed = parsed(m);
    let fields = entries.iter().map(|&i| {
        let f = &m.fields[i];
        let (ident, inner, ty) = (&f.ident, &f.inner, &f.ty);
        let position = i as u16;
        let kind = if f.optional {
            quote!(OptionalKey)
        } else {
            quote!(RequiredKey)
        };
        let sortable = m
            .all_keys()
            .iter()
            .any(|k| k.parts.iter().any(|p| p.field == i && p.sortable))
            .then(|| quote!(.sortable()));
        let parse = parsed.iter().find(|(f, _)| *f == i).map(|(_, s)| {
            if *s {
                quote!(.parsed_sortable())
            } else {
                quote!(.parsed())
            }
        });
        let sensitive = f
            .sensitive
            .then(|| quote!(.sensitive(#p::redact_register::<Self>)));
        let beacon = super::beacon::beacon_spec(m, i).map(|spec| quote!(.beacon(#spec)));
        // Spanned at the field's type, every token of it, so that a type that is not a key
        // value is reported there alone.
        respan(
            quote! {
                &#p::#kind::<Self, #inner>::new(#position, |__r| &__r.#ident)
                    #sortable #parse #sensitive #beacon
            },
            ty.span(),
        )
    });
    // The layouts are numbers only: written as text, lexed once.
    let mut layouts = String::from("&[");
    for k in m.all_keys() {
        let entry = |f: usize| entry_in(&entries, f);
        let parts = joined(
            k.parts
                .iter()
                .map(|part| format!("({}u16, {})", entry(part.field), part.sortable)),
        );
        let _ = match &k.shard {
            None => write!(layouts, "{p}::KeyLayout::of(&[{parts}]), "),
            Some(s) => {
                let inputs = joined(s.fields.iter().map(|&f| format!("{}u16", entry(f))));
                let time = match s.time {
                    Some(t) => format!("{p}::Some({}u16)", entry(t)),
                    None => format!("{p}::None"),
                };
                write!(
                    layouts,
                    "{p}::KeyLayout::sharded(&[{parts}], &[{inputs}], {time}), "
                )
            }
        };
    }
    layouts.push(']');
    let layouts = source(&layouts);
    quote! {
        const KEY_FIELDS: &'static [&'static dyn #p::KeyField<Self>] = &[#(#fields),*];
        const KEY_LAYOUT: &'static [#p::KeyLayout] = #layouts;
        const KEY_WRITER: #p::Option<&'static dyn #p::WriteKeys<Self>> = #p::Some(&#p::SchemaKeys);
    }
}

/// `tokens` with every token spanned at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                t = TokenTree::Group(group);
            } else {
                t.set_span(span);
            }
            t
        })
        .collect()
}
