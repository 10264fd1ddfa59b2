//! No module of any crate imports, directly or through others, a module that imports it.
//!
//! The graph: one node per module file (`lib.rs` is `crate`, `a/mod.rs` is `crate::a`,
//! `a/b.rs` is `crate::a::b`); an edge from a module to every module one of its paths names
//! (`crate::…`, `super::…`, `self::…`, or a child module named first in a `use`), resolved
//! to the longest prefix that is a module. Re-exports count: a parent that re-exports a
//! child and a child that imports from its parent form a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// Module path (`crate::a::b`) → its source file.
fn module_files(src: &Path) -> BTreeMap<String, std::path::PathBuf> {
    let mut modules = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src");
            let mut parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            let name = std::iter::once("crate".to_owned())
                .chain(parts)
                .collect::<Vec<_>>()
                .join("::");
            modules.insert(name, path);
        }
    }
    modules
}

/// Every path of `tokens` that starts at a module, as segments from the crate root.
struct Paths<'m> {
    module: &'m str,
    modules: &'m BTreeMap<String, std::path::PathBuf>,
    found: Vec<Vec<String>>,
}

impl Paths<'_> {
    fn scan(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                // An inline module (`mod tests { use super::*; }`): its paths are relative
                // to itself, and its edges are its file's.
                // Test-only code (`#[cfg(test)] mod tests { .. }`) adds no edge.
                TokenTree::Ident(id) if id == "mod" && i >= 2 && is_cfg_test(&tokens[i - 1]) => {
                    i += 3;
                    continue;
                }
                TokenTree::Ident(id) if id == "mod" => {
                    if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(body))) =
                        (tokens.get(i + 1), tokens.get(i + 2))
                    {
                        let inner = format!("{}::{name}", self.module);
                        let mut nested = Paths {
                            module: &inner,
                            modules: self.modules,
                            found: Vec::new(),
                        };
                        nested.scan(body.stream());
                        self.found.extend(nested.found);
                        i += 3;
                        continue;
                    }
                }
                TokenTree::Group(g) => self.scan(g.stream()),
                TokenTree::Ident(id) if id == "use" => {
                    i += 1;
                    if let Some(TokenTree::Ident(first)) = tokens.get(i) {
                        let child = format!("{}::{first}", self.module);
                        if self.modules.contains_key(&child) {
                            let base: Vec<String> =
                                self.module.split("::").map(String::from).collect();
                            i = self.path(&tokens, i, base);
                            continue;
                        }
                    }
                    continue;
                }
                TokenTree::Ident(id)
                    if (id == "crate" || id == "super" || id == "self")
                        && is_sep(&tokens, i + 1) =>
                {
                    let base = self.start(&tokens, &mut i);
                    i = self.path(&tokens, i, base);
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// The module a path starting at `tokens[*i]` (`crate`, `super`, `self`) names before
    /// its next segment; leaves `*i` at that segment.
    fn start(&self, tokens: &[TokenTree], i: &mut usize) -> Vec<String> {
        let mut base: Vec<String> = self.module.split("::").map(String::from).collect();
        loop {
            match &tokens[*i] {
                TokenTree::Ident(id) if id == "crate" => base = vec!["crate".to_owned()],
                TokenTree::Ident(id) if id == "super" => {
                    base.pop();
                }
                TokenTree::Ident(id) if id == "self" => {}
                _ => return base,
            }
            if !is_sep(tokens, *i + 1) {
                *i += 1;
                return base;
            }
            *i += 3;
            if *i >= tokens.len() {
                return base;
            }
        }
    }

    /// Read segments `a::b::{c, d::e}` from `tokens[i]` onto `base`; returns the index after.
    fn path(&mut self, tokens: &[TokenTree], mut i: usize, mut base: Vec<String>) -> usize {
        loop {
            match tokens.get(i) {
                Some(TokenTree::Ident(id)) => {
                    base.push(id.to_string());
                    i += 1;
                }
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    for tree in
                        inner.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                    {
                        if tree.is_empty() {
                            continue;
                        }
                        self.path(tree, 0, base.clone());
                    }
                    return i + 1;
                }
                _ => break,
            }
            if is_sep(tokens, i) {
                i += 2;
            } else {
                break;
            }
        }
        self.found.push(base);
        i
    }
}

/// Whether `tree` is the bracket group of `#[cfg(test)]`.
fn is_cfg_test(tree: &TokenTree) -> bool {
    matches!(tree, TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket
        && g.stream().to_string().replace(' ', "") == "cfg(test)")
}

fn is_sep(tokens: &[TokenTree], i: usize) -> bool {
    matches!(
        (tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

/// The module graph of the crate whose sources are under `src`.
pub fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = module_files(src);
    let mut edges = BTreeMap::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let tokens: TokenStream = text
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
        let mut paths = Paths {
            module,
            modules: &modules,
            found: Vec::new(),
        };
        paths.scan(tokens);
        let targets: BTreeSet<String> = paths
            .found
            .iter()
            .filter_map(|segments| {
                (1..=segments.len())
                    .rev()
                    .map(|n| segments[..n].join("::"))
                    .find(|m| modules.contains_key(m))
            })
            .filter(|target| target != module)
            .collect();
        edges.insert(module.clone(), targets);
    }
    edges
}

/// The cycles of `graph`: each strongly connected component of more than one module.
pub fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Kosaraju: order by finish time, then collect components on the reversed graph.
    fn visit<'g>(
        node: &'g str,
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        seen: &mut BTreeSet<&'g str>,
        order: &mut Vec<&'g str>,
    ) {
        if !seen.insert(node) {
            return;
        }
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, seen, order);
        }
        order.push(node);
    }
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for node in graph.keys() {
        visit(node, graph, &mut seen, &mut order);
    }
    let mut reversed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in graph {
        for to in tos {
            reversed.entry(to.clone()).or_default().insert(from.clone());
        }
    }
    let mut assigned = BTreeSet::new();
    let mut components = Vec::new();
    for node in order.into_iter().rev() {
        let mut component = Vec::new();
        visit(node, &reversed, &mut assigned, &mut component);
        if component.len() > 1 {
            component.sort();
            components.push(component.into_iter().map(String::from).collect());
        }
    }
    components
}

fn edges_within(graph: &BTreeMap<String, BTreeSet<String>>, component: &[String]) -> String {
    let mut lines = Vec::new();
    for from in component {
        for to in graph.get(from).into_iter().flatten() {
            if component.contains(to) {
                lines.push(format!("  {from} -> {to}"));
            }
        }
    }
    lines.join("\n")
}

#[test]
fn no_crate_has_a_module_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut report = String::new();
    for krate in ["facet-core", "facet-derive", "facet-runtime"] {
        let graph = graph(&root.join(krate).join("src"));
        assert!(graph.len() > 3, "{krate}: the modules were found");
        for component in cycles(&graph) {
            report.push_str(&format!(
                "{krate}: {} import each other:\n{}\n",
                component.join(", "),
                edges_within(&graph, &component)
            ));
        }
    }
    assert!(report.is_empty(), "module cycles:\n{report}");
}

#[test]
fn the_checker_finds_a_cycle_through_a_parent() {
    // A parent re-exporting its child, and the child importing from the parent.
    let dir = std::env::temp_dir().join(format!("faceteer-modules-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a; mod b; use b::Thing;").unwrap();
    std::fs::write(
        dir.join("a/mod.rs"),
        "mod c; pub use c::{C, D as E}; pub struct A;",
    )
    .unwrap();
    std::fs::write(dir.join("a/c.rs"), "use super::A; pub struct C;").unwrap();
    std::fs::write(
        dir.join("b.rs"),
        "pub fn f() { crate::a::c::C; }\nmod inner { use super::*; }\n#[cfg(test)] mod tests { use crate::Thing; }",
    )
    .unwrap();
    let graph = graph(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        cycles(&graph),
        vec![vec!["crate::a".to_owned(), "crate::a::c".to_owned()]]
    );
    assert!(graph["crate::b"].contains("crate::a::c"));
    assert!(graph["crate"].contains("crate::b"));
    assert!(
        !graph["crate::b"].contains("crate"),
        "an inline module's `super` is its file; tests add no edge"
    );
}

/// Each crate's floors, lowest first: its top-level modules, grouped. A module may import
/// from its own floor or a lower one, never a higher one; `crate` (the root, which
/// re-exports) and `tests` are above every floor.
const FLOORS: &[(&str, &[&[&str]])] = &[
    (
        "facet-core",
        &[
            &[
                "item",
                "names",
                "const_text",
                "nullable",
                "timestamp",
                "marshal",
                "unmarshal",
                "serde_key",
            ],
            &[
                "key",
                "sort_key",
                "shard",
                "schema",
                "layout",
                "limits",
                "unique",
                "partition",
                "native",
                "settings",
                // What the derive declares about encrypted fields, and the cipher seam.
                "crypto",
                // `#[sensitive]` values masked in keys and items as they are printed.
                "redact",
            ],
            &["expr"],
            &["facet"],
            &["pick", "collection", "wire", "convert", "key_writer"],
            &["plan", "merge", "cursor", "backfill"],
            &["design", "table"],
            // The design lock reads a table's design and its facets' schemas.
            &["lock"],
        ],
    ),
    (
        "facet-derive",
        &[
            &["ctxt", "case", "names", "types", "serde_attrs"],
            &["parse"],
            &["model"],
            &["check"],
            &["build"],
            &["expand"],
        ],
    ),
    (
        "facet-runtime",
        &[
            // `expr`, `item`, `key`, `pick`, `schema`: the core's public items, by audience.
            &[
                "error", "codec", "expr", "item", "key", "pick", "schema", "settings", "pause",
            ],
            &["wire"],
            &["hook"],
            &["table"],
            &["exec", "setup"],
            &["read"],
            &["transaction"],
            &["unique"],
            &["write", "query", "batch", "vector"],
            &["admin"],
            &[
                "backfill",
                "stream",
                "embedded",
                "design",
                "plan",
                "guide",
                "testing",
                "lock",
                "erased",
                "encryption",
            ],
            &["ops"],
        ],
    ),
];

/// The floor of `module` (`crate::a::b` is on `a`'s floor); `None` above every floor.
fn floor(floors: &[&[&str]], module: &str) -> Option<Result<usize, String>> {
    let top = module.strip_prefix("crate::")?.split("::").next()?;
    if top == "tests" {
        return None;
    }
    Some(
        floors
            .iter()
            .position(|f| f.contains(&top))
            .ok_or_else(|| format!("`{top}` has no floor: add it to FLOORS")),
    )
}

/// Every import of `graph` that reaches a higher floor than its module's.
fn up_floor_imports(graph: &BTreeMap<String, BTreeSet<String>>, floors: &[&[&str]]) -> Vec<String> {
    let mut out = Vec::new();
    for (from, targets) in graph {
        let Some(from_floor) = floor(floors, from) else {
            continue;
        };
        let from_floor = match from_floor {
            Ok(f) => f,
            Err(e) => {
                out.push(e);
                continue;
            }
        };
        for to in targets {
            match floor(floors, to) {
                Some(Ok(to_floor)) if to_floor > from_floor => out.push(format!("{from} -> {to}")),
                Some(Err(e)) => out.push(e),
                _ => {}
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn no_import_runs_up_a_floor() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut report = Vec::new();
    for (krate, floors) in FLOORS {
        let graph = graph(&root.join(krate).join("src"));
        for line in up_floor_imports(&graph, floors) {
            report.push(format!("{krate}: {line}"));
        }
    }
    assert!(
        report.is_empty(),
        "imports that run up a floor (see FLOORS in tests/structure/modules.rs):\n  {}",
        report.join("\n  ")
    );
}

#[test]
fn the_floor_check_finds_an_import_running_up() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        (
            "crate::low".to_owned(),
            ["crate::high::x".to_owned()].into(),
        ),
        (
            "crate::high::x".to_owned(),
            ["crate::low".to_owned()].into(),
        ),
    ]
    .into();
    let floors: &[&[&str]] = &[&["low"], &["high"]];
    assert_eq!(
        up_floor_imports(&graph, floors),
        ["crate::low -> crate::high::x"]
    );
    let unplaced: &[&[&str]] = &[&["low"]];
    assert_eq!(
        up_floor_imports(&graph, unplaced),
        ["`high` has no floor: add it to FLOORS"]
    );
}
