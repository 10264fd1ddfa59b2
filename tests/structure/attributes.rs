//! The attribute reference (`facet-runtime/docs/attributes.md`, the rustdoc page
//! `faceteer::guide::attributes`) against the derive's own parser
//! (`facet-derive/src/parse.rs`): every option of every parsed attribute is in the page's
//! section for it, and every section names an attribute the parser has.

use std::collections::BTreeMap;
use std::path::Path;

/// The options each parsed attribute takes, by the name of its parser (a darling struct,
/// or `field-attributes` for the attributes read from fields, `EpochUnit` for the units of
/// `#[created(..)]`/`#[updated(..)]`).
fn parsed_options() -> BTreeMap<String, Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(root.join("facet-derive/src/parse.rs")).unwrap();
    let file = syn::parse_file(&source).unwrap();
    let mut out = BTreeMap::new();
    // Fields darling fills from the input itself rather than from an option.
    let builtin = ["ident", "vis", "generics", "data", "attrs", "ty"];
    for item in &file.items {
        let syn::Item::Struct(s) = item else { continue };
        let derives = s.attrs.iter().any(|a| {
            a.path().is_ident("derive") && {
                let text = a.meta.require_list().map(|l| l.tokens.to_string());
                text.is_ok_and(|t| t.contains("FromMeta") || t.contains("FromDeriveInput"))
            }
        });
        if !derives {
            continue;
        }
        let mut options = Vec::new();
        for field in &s.fields {
            let Some(ident) = &field.ident else { continue };
            let name = ident.to_string();
            if builtin.contains(&name.as_str()) {
                continue;
            }
            // `#[darling(rename = "..")]` names the option.
            let renamed = field.attrs.iter().find_map(|a| {
                let text = a.meta.require_list().ok()?.tokens.to_string();
                let at = text.find("rename = \"")? + "rename = \"".len();
                Some(text[at..].split('"').next()?.to_owned())
            });
            options.push(renamed.unwrap_or(name));
        }
        out.insert(s.ident.to_string(), options);
    }
    // The attributes read from fields: the derive forwards them by name.
    let forwarded = source
        .split("forward_attrs(pk")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .map(|rest| format!("pk{rest}"))
        .expect("the field attributes the derive forwards");
    let fields: Vec<String> = forwarded
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| s != "serde")
        .collect();
    out.insert("field-attributes".into(), fields);
    // The units `#[created(..)]` and `#[updated(..)]` take, matched by word.
    let units: Vec<String> = source
        .match_indices("word == \"")
        .map(|(at, _)| {
            let rest = &source[at + "word == \"".len()..];
            rest.split('"').next().unwrap().to_owned()
        })
        .collect();
    out.insert("EpochUnit".into(), units);
    out
}

/// The page's sections: the text after each `<!-- derive: Name -->` marker, by name.
fn documented() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("facet-runtime/docs/attributes.md")).unwrap();
    page.split("<!-- derive: ")
        .skip(1)
        .map(|section| {
            let (name, text) = section.split_once(" -->").expect("a closed marker");
            (name.to_owned(), text.to_owned())
        })
        .collect()
}

#[test]
fn the_attribute_reference_lists_every_option_the_derive_parses() {
    let parsed = parsed_options();
    let sections = documented();
    let mut missing = Vec::new();
    for (parser, options) in &parsed {
        // Structs parsed from raw attributes rather than options (`FieldInput`, `PickField`)
        // have no options of their own.
        if options.is_empty() {
            continue;
        }
        let Some(text) = sections.get(parser) else {
            missing.push(format!("no section `<!-- derive: {parser} -->`"));
            continue;
        };
        for option in options {
            if !text.contains(&format!("`{option}")) {
                missing.push(format!("{parser}: `{option}`"));
            }
        }
    }
    for section in sections.keys() {
        if !parsed.contains_key(section) {
            missing.push(format!(
                "a section for `{section}`, which the derive does not parse"
            ));
        }
    }
    assert!(
        missing.is_empty(),
        "facet-runtime/docs/attributes.md is out of date with the derive:\n  {}",
        missing.join("\n  ")
    );
}
