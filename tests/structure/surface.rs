//! The public API of `faceteer`, listed one item per line in
//! `tests/structure/public-api.txt`, so that a change to the surface shows in review.
//!
//! The listing follows what a user can name: the root's `pub use`s and `pub mod`s (not
//! `#[doc(hidden)]` ones), each re-export resolved to its definition in `faceteer`,
//! `faceteer-core` or `faceteer-derive`; for each type, its public fields or variants, the
//! public methods of its inherent impls (those a macro writes by the names it is given) and
//! the traits it implements. After an intended change, regenerate the listing with
//! `FACETEER_BLESS=1 cargo test --test structure` and review its diff.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, Item, UseTree, Visibility};

const LISTING: &str = "tests/structure/public-api.txt";

/// One crate's sources: its name as a path root and its folder.
struct Crate {
    name: &'static str,
    src: PathBuf,
    files: Vec<syn::File>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn crates() -> Vec<Crate> {
    [
        ("faceteer", "facet-runtime"),
        ("faceteer_core", "facet-core"),
        ("faceteer_derive", "facet-derive"),
    ]
    .into_iter()
    .map(|(name, dir)| {
        let src = root().join(dir).join("src");
        let mut files = Vec::new();
        let mut stack = vec![src.clone()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let p = entry.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    files.push(
                        syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
                    );
                }
            }
        }
        Crate { name, src, files }
    })
    .collect()
}

fn hidden(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc")
            && a.to_token_stream()
                .to_string()
                .replace(' ', "")
                .contains("doc(hidden)")
    })
}

fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

/// Tokens as one tidy line.
fn tidy(tokens: impl ToTokens) -> String {
    let mut s = tokens.to_token_stream().to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" : ", ": "),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        ("' ", "'"),
        ("# ", "#"),
    ] {
        s = s.replace(from, to);
    }
    s
}

/// A function's signature under its public path: `pub const fn faceteer::Key::new(..)`.
fn signature(sig: &syn::Signature, shown: &str) -> String {
    let text = tidy(sig);
    let at = text.find("fn ").expect("a signature has `fn`");
    format!("{}fn {shown}::{}", &text[..at], &text[at + 3..])
}

/// The file of module `path` (segments after the crate root) in `krate`, parsed.
fn module_file(krate: &Crate, path: &[String]) -> Option<syn::File> {
    let base = path.iter().fold(krate.src.clone(), |p, s| p.join(s));
    let candidates = if path.is_empty() {
        vec![krate.src.join("lib.rs")]
    } else {
        vec![base.with_extension("rs"), base.join("mod.rs")]
    };
    candidates
        .into_iter()
        .find(|p| p.exists())
        .map(|p| syn::parse_file(&std::fs::read_to_string(p).unwrap()).unwrap())
}

/// Every `use` of `tree` as (name it binds, full path).
fn flatten(tree: &UseTree, prefix: Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        UseTree::Path(p) => {
            let mut next = prefix;
            next.push(p.ident.to_string());
            flatten(&p.tree, next, out);
        }
        UseTree::Name(n) => {
            let mut full = prefix;
            full.push(n.ident.to_string());
            out.push((n.ident.to_string(), full));
        }
        UseTree::Rename(r) => {
            let mut full = prefix;
            full.push(r.ident.to_string());
            out.push((r.rename.to_string(), full));
        }
        UseTree::Group(g) => g.items.iter().for_each(|t| flatten(t, prefix.clone(), out)),
        UseTree::Glob(_) => out.push(("*".into(), prefix)),
    }
}

/// The definition of `path` (as written in a `use` inside module `at` of crate `from`):
/// the crate index and the item.
fn resolve(
    crates: &[Crate],
    from: usize,
    at: &[String],
    path: &[String],
    depth: usize,
) -> Option<(usize, Item)> {
    assert!(depth < 16, "re-exports loop at {path:?}");
    let (krate, mut segments) = match path.first().map(String::as_str) {
        Some("crate") => (from, path[1..].to_vec()),
        Some("self") => (from, [at, &path[1..]].concat()),
        Some("super") => (
            from,
            [&at[..at.len().saturating_sub(1)], &path[1..]].concat(),
        ),
        Some(first) => match crates.iter().position(|c| c.name == first) {
            Some(k) => (k, path[1..].to_vec()),
            None => (from, [at, path].concat()),
        },
        None => return None,
    };
    let name = segments.pop()?;
    let file = module_file(&crates[krate], &segments)?;
    // A definition first, then a re-export, then a module of the same name (`mod setup;`
    // beside `pub use setup::connect` and a `mod connect;` elsewhere).
    let named = |item: &Item| {
        item_name(item).as_deref() == Some(name.as_str())
            || derive_name(item).as_deref() == Some(name.as_str())
    };
    if let Some(item) = file
        .items
        .iter()
        .find(|i| named(i) && !matches!(i, Item::Mod(_)))
    {
        return Some((krate, item.clone()));
    }
    for item in &file.items {
        if let Item::Use(u) = item {
            let mut uses = Vec::new();
            flatten(&u.tree, Vec::new(), &mut uses);
            if let Some((_, full)) = uses.iter().find(|(bound, _)| *bound == name) {
                return resolve(crates, krate, &segments, full, depth + 1);
            }
        }
    }
    file.items
        .iter()
        .find(|i| named(i))
        .map(|i| (krate, i.clone()))
}

fn item_name(item: &Item) -> Option<String> {
    Some(match item {
        Item::Struct(i) => i.ident.to_string(),
        Item::Enum(i) => i.ident.to_string(),
        Item::Trait(i) => i.ident.to_string(),
        Item::Type(i) => i.ident.to_string(),
        Item::Fn(i) => i.sig.ident.to_string(),
        Item::Const(i) => i.ident.to_string(),
        Item::Macro(i) => i.ident.as_ref()?.to_string(),
        Item::Mod(i) => i.ident.to_string(),
        _ => return None,
    })
}

/// The derive macros, by the name their `#[proc_macro_derive(Name)]` gives.
fn derive_name(item: &Item) -> Option<String> {
    let Item::Fn(f) = item else { return None };
    let attr = f
        .attrs
        .iter()
        .find(|a| a.path().is_ident("proc_macro_derive"))?;
    let text = attr.to_token_stream().to_string();
    let inner = text.split('(').nth(1)?;
    Some(inner.split([',', ')']).next()?.trim().to_owned())
}

/// The lines of one exported item named `shown` (its public path).
fn describe(crates: &[Crate], krate: usize, item: &Item, shown: &str, out: &mut BTreeSet<String>) {
    match item {
        Item::Struct(s) => {
            out.insert(format!("pub struct {shown}{}", tidy(&s.generics)));
            for f in s.fields.iter().filter(|f| is_pub(&f.vis)) {
                let name = f
                    .ident
                    .as_ref()
                    .map(|i| i.to_string())
                    .unwrap_or_else(|| "0".into());
                out.insert(format!("pub {shown}::{name}: {}", tidy(&f.ty)));
            }
            methods(crates, krate, &s.ident.to_string(), shown, out);
        }
        Item::Enum(e) => {
            out.insert(format!("pub enum {shown}{}", tidy(&e.generics)));
            for v in &e.variants {
                // The fields without their docs and attributes.
                let mut fields = v.fields.clone();
                fields.iter_mut().for_each(|f| f.attrs.clear());
                out.insert(format!("pub {shown}::{}{}", v.ident, tidy(&fields)));
            }
            methods(crates, krate, &e.ident.to_string(), shown, out);
        }
        Item::Trait(t) => {
            out.insert(format!("pub trait {shown}{}", tidy(&t.generics)));
            for i in &t.items {
                match i {
                    syn::TraitItem::Fn(f) => out.insert(signature(&f.sig, shown)),
                    syn::TraitItem::Const(c) => {
                        out.insert(format!("{shown}::const {}: {}", c.ident, tidy(&c.ty)))
                    }
                    syn::TraitItem::Type(t) => out.insert(format!("{shown}::type {}", t.ident)),
                    _ => false,
                };
            }
        }
        Item::Type(t) => {
            out.insert(format!(
                "pub type {shown}{} = {}",
                tidy(&t.generics),
                tidy(&t.ty)
            ));
        }
        Item::Fn(f) => match derive_name(item) {
            Some(derive) => {
                let _ = f;
                out.insert(format!("pub derive {shown} ({derive})"));
            }
            None => {
                let parent = shown.rsplit_once("::").map_or(shown, |(p, _)| p);
                out.insert(format!("pub {}", signature(&f.sig, parent)));
            }
        },
        Item::Const(c) => {
            out.insert(format!("pub const {shown}: {}", tidy(&c.ty)));
        }
        Item::Macro(_) => {
            out.insert(format!("pub macro {shown}!"));
        }
        Item::Mod(_) => {}
        other => panic!("{shown}: an export of an unexpected kind: {}", tidy(other)),
    }
}

/// The public inherent methods of type `name` (defined in crate `krate`), and every trait
/// impl for it in any crate.
fn methods(crates: &[Crate], krate: usize, name: &str, shown: &str, out: &mut BTreeSet<String>) {
    for (k, c) in crates.iter().enumerate() {
        for file in &c.files {
            let mut items: Vec<&Item> = file.items.iter().collect();
            while let Some(item) = items.pop() {
                if let Item::Mod(m) = item {
                    if let Some((_, inner)) = &m.content {
                        if !m
                            .attrs
                            .iter()
                            .any(|a| a.to_token_stream().to_string().contains("test"))
                        {
                            items.extend(inner);
                        }
                    }
                    continue;
                }
                let Item::Impl(i) = item else { continue };
                let syn::Type::Path(p) = &*i.self_ty else {
                    continue;
                };
                if p.path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .as_deref()
                    != Some(name)
                {
                    continue;
                }
                match &i.trait_ {
                    Some((bang, path, _)) => {
                        let bang = if bang.is_some() { "!" } else { "" };
                        out.insert(format!(
                            "impl{} {bang}{} for {shown}",
                            tidy(&i.generics),
                            tidy(path)
                        ));
                    }
                    None if k == krate => {
                        for f in &i.items {
                            match f {
                                syn::ImplItem::Fn(f) if is_pub(&f.vis) && !hidden(&f.attrs) => {
                                    out.insert(format!("pub {}", signature(&f.sig, shown)));
                                }
                                // Methods a macro writes: the page setters by name,
                                // other macros by their invocation.
                                syn::ImplItem::Macro(m) if m.mac.path.is_ident("page_setters") => {
                                    for token in m.mac.tokens.clone() {
                                        if let proc_macro2::TokenTree::Ident(setter) = token {
                                            out.insert(format!(
                                                "pub fn {shown}::{setter} (by page_setters!)"
                                            ));
                                        }
                                    }
                                }
                                syn::ImplItem::Macro(m) => {
                                    let (name, args) = (tidy(&m.mac.path), tidy(&m.mac.tokens));
                                    out.insert(format!("impl {shown} {{ {name}!({args}) }}"));
                                }
                                _ => {}
                            }
                        }
                    }
                    None => {}
                }
            }
        }
    }
}

/// The listing of module `at` of the runtime crate, shown under `shown`.
fn module(crates: &[Crate], at: &[String], shown: &str, out: &mut BTreeSet<String>) {
    let file = module_file(&crates[0], at).expect("the module's file");
    for item in &file.items {
        match item {
            Item::Use(u) if is_pub(&u.vis) && !hidden(&u.attrs) => {
                let mut uses = Vec::new();
                flatten(&u.tree, Vec::new(), &mut uses);
                for (bound, full) in uses {
                    let (k, def) = resolve(crates, 0, at, &full, 0)
                        .unwrap_or_else(|| panic!("{shown}: cannot find `{}`", full.join("::")));
                    let path = format!("{shown}::{bound}");
                    if let Item::Mod(_) = def {
                        // A re-exported module: list its public items.
                        let mut sub = full.clone();
                        let krate_name = sub.remove(0);
                        let kk = crates
                            .iter()
                            .position(|c| c.name == krate_name)
                            .unwrap_or(k);
                        let file = module_file(&crates[kk], &sub).expect("the module's file");
                        out.insert(format!("pub mod {path}"));
                        for inner in file.items.iter().filter(|i| visible(i)) {
                            if let Some(n) = item_name(inner) {
                                describe(crates, kk, inner, &format!("{path}::{n}"), out);
                            }
                        }
                    } else {
                        describe(crates, k, &def, &path, out);
                    }
                }
            }
            Item::Mod(m) if is_pub(&m.vis) && !hidden(&m.attrs) => {
                let path = format!("{shown}::{}", m.ident);
                out.insert(format!("pub mod {path}"));
                let mut inner = at.to_vec();
                inner.push(m.ident.to_string());
                module(crates, &inner, &path, out);
            }
            Item::Macro(m) if m.attrs.iter().any(|a| a.path().is_ident("macro_export")) => {
                describe(
                    crates,
                    0,
                    item,
                    &format!("faceteer::{}", m.ident.as_ref().unwrap()),
                    out,
                );
            }
            other if visible(other) && !matches!(other, Item::Use(_) | Item::Mod(_)) => {
                let n = item_name(other).unwrap_or_default();
                describe(crates, 0, other, &format!("{shown}::{n}"), out);
            }
            _ => {}
        }
    }
}

fn visible(item: &Item) -> bool {
    let (vis, attrs) = match item {
        Item::Struct(i) => (&i.vis, &i.attrs),
        Item::Enum(i) => (&i.vis, &i.attrs),
        Item::Trait(i) => (&i.vis, &i.attrs),
        Item::Type(i) => (&i.vis, &i.attrs),
        Item::Fn(i) => (&i.vis, &i.attrs),
        Item::Const(i) => (&i.vis, &i.attrs),
        _ => return false,
    };
    is_pub(vis) && !hidden(attrs)
}

fn listing() -> String {
    let crates = crates();
    let mut out = BTreeSet::new();
    module(&crates, &[], "faceteer", &mut out);
    out.into_iter().map(|l| l + "\n").collect()
}

#[test]
fn the_public_api_is_the_listed_one() {
    let now = listing();
    let path = root().join(LISTING);
    if std::env::var_os("FACETEER_BLESS").is_some() {
        std::fs::write(&path, &now).unwrap();
        return;
    }
    let listed = std::fs::read_to_string(&path).unwrap_or_default();
    if listed != now {
        let old: BTreeSet<&str> = listed.lines().collect();
        let new: BTreeSet<&str> = now.lines().collect();
        let gone: Vec<_> = old.difference(&new).map(|l| format!("- {l}")).collect();
        let added: Vec<_> = new.difference(&old).map(|l| format!("+ {l}")).collect();
        panic!(
            "the public API changed; if that is intended, run \
             `FACETEER_BLESS=1 cargo test --test structure` and review the diff of {LISTING}:\n{}\n{}",
            gone.join("\n"),
            added.join("\n")
        );
    }
}

#[test]
fn the_listing_names_no_internal_module() {
    let now = listing();
    assert!(now.lines().count() > 300, "the listing covers the API");
    assert!(now.contains("pub struct faceteer::Table"));
    assert!(now.contains("pub fn faceteer::Table::put<"));
    for internal in [
        "faceteer::core",
        "faceteer::__private",
        "faceteer::exec",
        "faceteer::wire",
        "faceteer::plans",
        "faceteer::table::",
        "faceteer::unique",
        "faceteer::codec",
        "faceteer::setup",
    ] {
        assert!(!now.contains(internal), "`{internal}` is public:\n{now}");
    }
    // Modules one level deep: a feature's files (`write::put`, `query::builder`) stay private.
    let nested: Vec<&str> = now
        .lines()
        .filter(|line| {
            let Some(at) = line.find("faceteer::") else {
                return false;
            };
            let path: Vec<&str> = line[at..]
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .next()
                .unwrap_or_default()
                .split("::")
                .collect();
            // The modules are the segments before the first type, or before a function's name.
            let end = path
                .iter()
                .position(|segment| segment.starts_with(|c: char| c.is_ascii_uppercase()))
                .unwrap_or(path.len() - 1);
            let modules = path[1..end].join("::");
            // Two deliberate sub-modules: the history checker and the Lambda event decoder.
            modules.contains("::")
                && !["testing::history", "stream::lambda"].contains(&modules.as_str())
        })
        .collect();
    assert!(
        nested.is_empty(),
        "paths deeper than one module:\n{}",
        nested.join("\n")
    );
}

/// Types from outside faceteer that its signatures may name.
const FOREIGN: &[&str] = &[
    "Self",
    "Result",
    "Option",
    "String",
    "Vec",
    "Box",
    "Arc",
    "Cow",
    "Duration",
    "Instant",
    "SocketAddr",
    "Path",
    "PathBuf",
    "ExitCode",
    "OsString",
    "Write",
    "Client",
    "AttributeValue",
    "Stream",
    "Future",
    "Pin",
    "Send",
    "Sync",
    "Sized",
    "Fn",
    "FnMut",
    "FnOnce",
    "IntoIterator",
    "Iterator",
    "Into",
    "AsRef",
    "HashMap",
    "BTreeMap",
    "BTreeSet",
    "EventRecord",
    "HashSet",
    "DateTime",
    "Utc",
    "Serializer",
    "Deserializer",
    "Serialize",
    "Deserialize",
    "DeserializeOwned",
    "Display",
    "Formatter",
    "PhantomData",
    "Debug",
    "Clone",
    "Copy",
    "Default",
    "PartialEq",
    "Eq",
    "Hash",
    "Ord",
    "PartialOrd",
    "Deref",
    "IntoFuture",
    "BitAnd",
    "BitOr",
    "Not",
    "From",
    "StdError",
    "SystemTime",
    "RequestId",
    "ProvideErrorMetadata",
    "FromIterator",
    "BuildHasher",
    "Infallible",
    "AtomicU64",
];

#[test]
fn every_type_the_api_names_is_public() {
    let now = listing();
    let mut defined: BTreeSet<&str> = FOREIGN.iter().copied().collect();
    for line in now.lines() {
        for kind in ["pub struct ", "pub enum ", "pub trait ", "pub type "] {
            if let Some(rest) = line.strip_prefix(kind) {
                let path = rest.split(['<', ' ']).next().unwrap_or_default();
                defined.insert(path.rsplit("::").next().unwrap_or_default());
            }
        }
        // Associated types a trait declares (`Facet::type Keys`).
        if let Some((_, name)) = line.split_once("::type ") {
            defined.insert(name);
        }
    }
    let mut unnamed = BTreeSet::new();
    let definitions = [
        "pub struct ",
        "pub enum ",
        "pub trait ",
        "pub type ",
        "pub mod ",
        "pub macro ",
        "pub derive ",
    ];
    let uses = now
        .lines()
        .filter(|l| l.starts_with("pub ") && !definitions.iter().any(|d| l.starts_with(d)));
    for line in uses {
        // What a signature or a field names, past the item's own path (`pub fn a::B::c`).
        let mut rest = line;
        for prefix in ["pub ", "async ", "const ", "fn "] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        let path_end = rest
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != ':')
            .unwrap_or(rest.len());
        let named = &rest[path_end..];
        // The item's own generic parameters (`IndexProjects<Fld>`).
        let own: BTreeSet<&str> = match named.strip_prefix('<') {
            Some(generics) => generics
                .split('>')
                .next()
                .unwrap_or_default()
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .collect(),
            None => BTreeSet::new(),
        };
        // Words after `::` are associated items (`T::Element`) or qualified paths.
        let words = named.split(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != ':');
        for word in words.flat_map(|w| w.split("::").next()) {
            let upper = word.chars().next().is_some_and(|c| c.is_ascii_uppercase());
            let foreign = word.ends_with("InputBuilder");
            if upper && word.len() > 2 && !foreign && !defined.contains(word) && !own.contains(word)
            {
                unnamed.insert(format!("{word}  (in `{line}`)"));
            }
        }
    }
    assert!(
        unnamed.is_empty(),
        "the public API names types a user cannot name; re-export them:\n{}",
        unnamed.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The runtime's module for generated code is named after the version the derive emits
/// (`__private_<version>`, as thiserror names its own), so a derive and a runtime of two
/// versions do not compile together; the crates share the workspace's version.
#[test]
fn the_private_module_is_named_after_the_version() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("facet-runtime/src/lib.rs")).unwrap();
    let version = env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_");
    let module = format!("pub mod __private_{version} {{");
    assert!(
        lib.contains(&module),
        "facet-runtime/src/lib.rs must declare `{module}` (the derive emits that path): \
         rename the module and its uses in `table!` after a version bump"
    );
}
