//! `#[derive(Facet)]` and `#[derive(KeyPart)]` for [faceteer](https://docs.rs/faceteer).
//!
//! Use them through the `faceteer` crate, which re-exports them and documents the attributes.
//! The macro works in three steps: `parse` reads the attributes (darling), `model`
//! validates them into a facet model, reporting errors at the offending attribute, and
//! `codegen` writes the `Facet` impl, the key builder and the typed query entry points.

mod check;
mod codegen;
mod collection;
mod model;
mod names;
mod parse;
mod serde_attrs;

use darling::FromDeriveInput;
use proc_macro::TokenStream;

/// Derive `faceteer::Collection` for an enum whose variants each hold one facet.
#[proc_macro_derive(Collection)]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    collection::expand(&input).into()
}

/// Derive `faceteer::Facet`. See the `faceteer` crate documentation for the attributes.
#[proc_macro_derive(Facet, attributes(facet, pk, sk, gsi, shard, ttl, version))]
pub fn derive_facet(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand_facet(&input).into()
}

/// Parse, check and expand one facet; on any error, the errors and a fallback impl.
fn expand_facet(input: &syn::DeriveInput) -> proc_macro2::TokenStream {
    let default_crate: syn::Path = syn::parse_quote!(::faceteer);
    let parsed = match parse::FacetInput::from_derive_input(input) {
        Ok(p) => p,
        Err(e) => {
            let fallback = codegen::fallback(input, &default_crate);
            let errors = e.write_errors();
            return quote::quote!(#errors #fallback);
        }
    };
    let krate = parsed.krate.clone().unwrap_or(default_crate);
    match model::build(parsed) {
        Ok(model) => codegen::generate(&model),
        Err(e) => {
            let fallback = codegen::fallback(input, &krate);
            let errors = e.write_errors();
            quote::quote!(#errors #fallback)
        }
    }
}

/// Derive `faceteer::Projection` for a struct naming some fields of a facet:
/// `#[derive(Pick)] #[pick(facet = Task)] struct Title { title: String }`. Each field must
/// exist on the facet with the same type (checked at compile time).
#[proc_macro_derive(Pick, attributes(pick))]
pub fn derive_pick(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let parsed = match parse::PickInput::from_derive_input(&input) {
        Ok(p) => p,
        Err(e) => return e.write_errors().into(),
    };
    match codegen::pick(parsed) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.write_errors().into(),
    }
}

/// Derive `faceteer::KeyPart` for a type whose serde form is a string, a number or a
/// boolean (typically a unit-only enum), so it can be a key field.
#[proc_macro_derive(KeyPart)]
pub fn derive_key_part(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    codegen::key_part(&input).into()
}

#[cfg(test)]
mod tests {
    //! Model tests on `parse_quote!` inputs, and expansion snapshots
    //! (`snapshots/*.expanded.rs`; regenerate with `FACETEER_BLESS=1 cargo test -p faceteer-derive`
    //! and review the diff).

    use darling::FromDeriveInput;
    use syn::parse_quote;

    use super::*;

    fn model(input: syn::DeriveInput) -> Result<model::FacetModel, darling::Error> {
        model::build(parse::FacetInput::from_derive_input(&input)?)
    }

    fn task() -> syn::DeriveInput {
        parse_quote! {
            #[facet(name = "TASK", pick_validator = trust)]
            #[serde(rename_all = "camelCase")]
            pub struct Task {
                #[pk(prefix = "#TEAM")]
                #[gsi(n = 1, alias = "TeamDueDate", pk, prefix = "#TEAM")]
                team_id: String,
                #[sk(prefix = "#TASK")]
                task_id: String,
                #[gsi(n = 1, sk, prefix = "#DUE", sortable)]
                due_day: u32,
                #[gsi(n = 2, pk, prefix = "#USER")]
                assigned_user_id: Option<String>,
                #[gsi(n = 2, sk, prefix = "#STATUS")]
                #[shard(count = 4, gsi = 2)]
                status: String,
                title: String,
            }
        }
    }

    #[test]
    fn model_follows_the_attributes() {
        let m = model(task()).expect("valid facet");
        assert_eq!(m.name, "TASK");
        assert_eq!(m.delimiter, "_");
        assert_eq!(m.pk.prefix, "#TEAM");
        assert_eq!(m.fields[m.sk.parts[0].field].name, "taskId");
        assert_eq!(m.indexes.len(), 2);
        assert_eq!(
            m.indexes[0].alias_method().as_deref(),
            Some("by_team_due_date")
        );
        assert!(m.indexes[0].sk.parts[0].sortable);
        let shard = m.indexes[1].pk.shard.as_ref().expect("GSI2 is sharded");
        assert_eq!(
            (shard.count, m.fields[shard.fields[0]].name.as_str()),
            (4, "status")
        );
        assert!(m.fields[m.indexes[1].pk.parts[0].field].optional);
        let krate = &m.krate;
        assert_eq!(
            quote::quote!(#krate).to_string(),
            quote::quote!(::faceteer).to_string()
        );
    }

    #[test]
    fn crate_path_can_be_renamed() {
        let m = model(parse_quote! {
            #[facet(crate = my::reexport::faceteer)]
            struct Doc {
                #[pk(prefix = "#DOC")]
                #[sk(prefix = "#DOC")]
                id: String,
            }
        })
        .expect("valid facet");
        let krate = &m.krate;
        assert_eq!(
            quote::quote!(#krate).to_string(),
            quote::quote!(my::reexport::faceteer).to_string()
        );
        let out = codegen::generate(&m).to_string();
        assert!(out.contains("my :: reexport :: faceteer :: __private"));
        // Every runtime path goes through the renamed crate.
        let elsewhere = out.replace("my :: reexport :: faceteer :: __private", "");
        assert!(!elsewhere.contains("faceteer :: __private"), "{out}");
    }

    #[test]
    fn mistakes_are_collected_into_one_report() {
        let err = model(parse_quote! {
            struct Bad {
                #[pk(prefix = "#A")]
                a: String,
                #[sk(prefix = "#B", sortable)]
                b: String,
                #[gsi(n = 30, pk, prefix = "#C")]
                c: String,
            }
        })
        .err()
        .expect("invalid facet");
        let text = err.to_string();
        assert!(err.len() >= 2, "{text}");
        assert!(text.contains("`sortable` encodes integers"), "{text}");
    }

    #[test]
    fn a_failed_derive_still_implements_facet() {
        let input: syn::DeriveInput = parse_quote! {
            struct Bad {
                #[pk(prefix = "#A")]
                a: String,
            }
        };
        let out = expand_facet(&input).to_string();
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("Facet for Bad"), "{out}");
        assert!(out.contains("automatically_derived"), "{out}");
    }

    /// Compare `name`'s pretty-printed expansion with its snapshot.
    fn snapshot(name: &str, input: syn::DeriveInput) {
        let file: syn::File = syn::parse2(expand_facet(&input)).expect("expansion parses");
        let text = prettyplease::unparse(&file);
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("snapshots")
            .join(format!("{name}.expanded.rs"));
        if std::env::var_os("FACETEER_BLESS").is_some() {
            std::fs::write(&path, &text).expect("write snapshot");
            return;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            want == text,
            "the expansion of {name} changed; review it and bless with FACETEER_BLESS=1 \
             (snapshot: {})\n--- new expansion ---\n{text}",
            path.display()
        );
    }

    #[test]
    fn expansion_snapshots() {
        snapshot("task", task());
        snapshot(
            "note",
            parse_quote! {
                #[facet(name = "NOTE")]
                struct Note {
                    #[pk(prefix = "#BOOK")]
                    book: String,
                    #[sk(prefix = "#NOTE")]
                    note_id: String,
                    body: String,
                }
            },
        );
    }
}
