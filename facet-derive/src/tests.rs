//! Model tests on `parse_quote!` inputs, and expansion snapshots
//! (`snapshots/*.expanded.rs`; regenerate with `FACETEER_BLESS=1 cargo test -p faceteer-derive`
//! and review the diff).

use darling::FromDeriveInput;
use syn::parse_quote;

use super::*;

/// The model of `input`, or every error reported.
fn model(input: syn::DeriveInput) -> Result<model::FacetModel, Vec<syn::Error>> {
    let parsed = parse::FacetInput::from_derive_input(&input).map_err(|e| vec![e.into()])?;
    let cx = Ctxt::new();
    let model = build::build(parsed, &cx);
    cx.check().map(|()| model)
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
    assert!(m.indexes[0].sk.as_ref().unwrap().parts[0].sortable);
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
    let out = expand::facet(&m).to_string();
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
    let text = err
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
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

#[test]
fn an_alias_starting_with_by_gets_one_by() {
    let m = model(parse_quote! {
        struct Item {
            #[pk(prefix = "#I")]
            #[gsi(n = 1, alias = "ByCategory", pk, prefix = "#C")]
            category: String,
            #[sk(prefix = "#I")]
            #[gsi(n = 1, sk, prefix = "#I")]
            id: String,
        }
    })
    .expect("valid facet");
    assert_eq!(m.indexes[0].alias_method().as_deref(), Some("by_category"));
    let out = expand::facet(&m).to_string();
    assert!(out.contains("pub fn by_category"), "{out}");
    assert!(!out.contains("by_by_category"), "{out}");
}

#[test]
fn aliases_giving_one_method_are_an_error() {
    let err = model(parse_quote! {
        struct Item {
            #[pk(prefix = "#I")]
            #[gsi(n = 1, alias = "Category", pk, prefix = "#C")]
            #[gsi(n = 2, alias = "ByCategory", pk, prefix = "#C")]
            category: String,
            #[sk(prefix = "#I")]
            #[gsi(n = 1, sk, prefix = "#I")]
            #[gsi(n = 2, sk, prefix = "#I")]
            id: String,
        }
    })
    .err()
    .expect("two aliases give `by_category`");
    let text: Vec<String> = err.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        ["two indexes have the alias method `by_category`"],
        "{text:?}"
    );
}

#[test]
fn key_prefixes_in_the_guards_partition_are_refused() {
    let err = model(parse_quote! {
        #[facet(lsi(n = 1, sk(prefix = "$unique#L", fields(b))))]
        struct Item {
            #[pk(prefix = "$unique")]
            #[gsi(n = 1, pk, prefix = "$uniqueX")]
            a: String,
            #[sk(prefix = "$unique")]
            #[gsi(n = 1, sk, prefix = "$uniq")]
            b: String,
        }
    })
    .err()
    .expect("reserved prefixes");
    let text: Vec<String> = err.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 4, "{text:?}");
    assert!(text.iter().all(|t| t.contains("guard items")), "{text:?}");
    for what in [
        "of the partition key",
        "of the sort key",
        "of the partition key of GSI1",
        "of the sort key of LSI1",
    ] {
        assert!(text.iter().any(|t| t.contains(what)), "{what}: {text:?}");
    }
    // `$uniq`, `#$unique` and the empty prefix are not the guards' partition.
    model(parse_quote! {
        #[facet(delimiter = "$")]
        struct Fine {
            #[pk(prefix = "")]
            #[gsi(n = 1, pk, prefix = "$uniq")]
            a: String,
            #[sk(prefix = "#$unique")]
            b: String,
        }
    })
    .map(|_| ())
    .unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.iter().map(ToString::to_string).collect::<Vec<_>>()
        )
    });
}

#[test]
fn fields_give_their_types_codecs_and_defaults() {
    let m = model(parse_quote! {
        #[facet(name = "EVENT")]
        #[serde(rename_all = "camelCase")]
        struct Event {
            #[pk(prefix = "#E")]
            event_id: String,
            #[sk(prefix = "#SEQ", sortable)]
            #[gsi(n = 1, sk, prefix = "#SEQ", sortable)]
            seq: u32,
            #[created(seconds)]
            created_at: i64,
            #[gsi(n = 1, pk, prefix = "#K")]
            kind: String,
            #[serde(default, with = "my::codec")]
            due: Option<chrono::DateTime<Utc>>,
            #[serde(skip)]
            cache: Vec<u8>,
        }
    })
    .expect("valid facet");
    let fields = expand::field_schemas_of(&m);
    let text = |f: &str| fields.replace(' ', "").contains(&f.replace(' ', ""));
    assert!(
        text(
            "FieldSchema::new(\"seq\", \"seq\", \"u32\", true, false, false)\
             .sortable_in(&[\"SK\", \"GSI1SK\"])"
        ),
        "{fields}"
    );
    assert!(
        text(
            "FieldSchema::new(\"due\", \"due\", \"Option<chrono::DateTime<Utc>>\", true, \
             true, true).codec(\"my::codec\")"
        ),
        "{fields}"
    );
    assert!(
        text(
            "FieldSchema::new(\"created_at\", \"createdAt\", \"i64\", true, false, false)\
             .epoch(\"seconds\")"
        ),
        "{fields}"
    );
    assert!(
        text("FieldSchema::new(\"cache\", \"cache\", \"Vec<u8>\", false,"),
        "{fields}"
    );
}

/// Every impl under `items` (also those inside `const _: () = { .. };` blocks and modules),
/// with whether it carries `#[automatically_derived]`.
fn impls(items: &[syn::Item], out: &mut Vec<(bool, syn::ItemImpl)>) {
    for item in items {
        match item {
            syn::Item::Impl(i) => {
                let marked = i
                    .attrs
                    .iter()
                    .any(|a| a.path().is_ident("automatically_derived"));
                out.push((marked, i.clone()));
            }
            syn::Item::Const(c) => {
                if let syn::Expr::Block(b) = &*c.expr {
                    let inner: Vec<syn::Item> = b
                        .block
                        .stmts
                        .iter()
                        .filter_map(|s| match s {
                            syn::Stmt::Item(i) => Some(i.clone()),
                            _ => None,
                        })
                        .collect();
                    impls(&inner, out);
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    impls(inner, out);
                }
            }
            _ => {}
        }
    }
}

/// rustc refuses `#[automatically_derived]` on an inherent impl (a future-incompatibility
/// warning today, an error in a later release): every derive marks trait impls only.
#[test]
fn only_trait_impls_are_marked_automatically_derived() {
    let expansions: Vec<(&str, proc_macro2::TokenStream)> = vec![
        ("facet", expand_facet(&task())),
        (
            "failed facet",
            expand_facet(&parse_quote! {
                #[facet(name = "BAD")]
                struct Bad { #[pk(prefix = "#B")] id: String, #[sk(bogus = 1)] other: String }
            }),
        ),
        (
            "nested",
            with_errors(|cx| {
                expand::nested(
                    &parse_quote! { struct Address { city: String, zip: Option<String> } },
                    cx,
                )
            }),
        ),
        (
            "pick",
            with_errors(|cx| {
                expand::pick(
                    &parse_quote! { #[pick(facet = Task)] struct Title { title: String } },
                    cx,
                )
            }),
        ),
        (
            "key part",
            with_errors(|cx| expand::key_part(&parse_quote! { enum Status { Open, Done } }, cx)),
        ),
        (
            "collection",
            with_errors(|cx| {
                expand::collection(&parse_quote! { enum Any { Task(Task), Note(Note) } }, cx)
            }),
        ),
    ];
    assert!(
        expansions[1].1.to_string().contains("compile_error"),
        "the failed facet is refused"
    );
    for (name, tokens) in expansions {
        let file: syn::File = syn::parse2(tokens).expect("expansion parses");
        let mut found = Vec::new();
        impls(&file.items, &mut found);
        assert!(!found.is_empty(), "the {name} expansion holds impls");
        for (marked, i) in found {
            if marked {
                assert!(
                    i.trait_.is_some(),
                    "the {name} expansion marks an inherent impl #[automatically_derived]: {}",
                    quote::quote!(#i)
                );
            }
        }
    }
}
