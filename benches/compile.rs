//! Compile cost of `#[derive(Facet)]`: a crate of 10 facets and one of 20 (each 8 fields, a
//! base key and two indexes) against a crate of the same structs with serde's derives alone.
//!
//! The crates are generated under `target/compile-bench/`, sharing one target
//! directory, so that only their own code is rebuilt (the first run builds the dependencies
//! once, which takes minutes). It times rebuilds of each crate's library after its source
//! changed (`cargo build --offline --lib`, dev profile): the CPU the build's processes
//! spend, in pairs of one rebuild of each crate, which goes first alternating, and prints
//! the median of each crate's rebuilds (a median, as one rebuild in many redoes more work:
//! a cache written, a session directory swept). Before timing, both crates' binaries
//! print the JSON of the same sample values, which must be identical (the facet derive
//! leaves serde's form alone), and the expansions of the crates of 20
//! (`-Zunpretty=expanded`, through `RUSTC_BOOTSTRAP=1`) are counted: non-blank lines per
//! struct, and the derive's own (the difference).
//!
//! `cargo bench --bench compile`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The pairs of rebuilds timed for each size.
const PAIRS: usize = 60;

/// The crate sizes timed: the issue's 10 facets, and 20.
const SIZES: [usize; 2] = [10, 20];

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The source of struct `i`, with faceteer's attributes or without.
fn structure(i: usize, facet: bool) -> String {
    let derive = if facet { ", faceteer::Facet" } else { "" };
    let attr = |a: &str| if facet { a.to_owned() } else { String::new() };
    format!(
        r##"
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize{derive})]
{facet_name}
#[serde(rename_all = "camelCase")]
pub struct Record{i} {{
    {pk}
    {gsi1pk}
    pub owner_id: String,
    {sk}
    pub item_id: String,
    {gsi2pk}
    pub status: String,
    {gsi1sk}
    {gsi2sk}
    #[serde(with = "faceteer::timestamp")]
    pub due: chrono::DateTime<chrono::Utc>,
    pub title: String,
    pub points: u32,
    pub done: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}}

impl Record{i} {{
    pub fn sample() -> Self {{
        Record{i} {{
            owner_id: "owner-{i}".into(),
            item_id: "item-{i}".into(),
            status: "open".into(),
            due: chrono::DateTime::from_timestamp(1_800_000_000 + {i}, 0).unwrap(),
            title: "record {i}".into(),
            points: {i},
            done: {done},
            note: None,
        }}
    }}
}}
"##,
        facet_name = attr(&format!("#[facet(name = \"REC{i}\")]")),
        pk = attr(&format!("#[pk(prefix = \"#OWNER{i}\")]")),
        gsi1pk = attr(&format!(
            "#[gsi(n = 1, alias = \"OwnerDue\", pk, prefix = \"#OWNER{i}\")]"
        )),
        sk = attr(&format!("#[sk(prefix = \"#REC{i}\")]")),
        gsi2pk = attr(&format!("#[gsi(n = 2, pk, prefix = \"#STATUS{i}\")]")),
        gsi1sk = attr("#[gsi(n = 1, sk, prefix = \"#DUE\")]"),
        gsi2sk = attr("#[gsi(n = 2, sk, prefix = \"#DUE\")]"),
        done = i.is_multiple_of(2),
    )
}

/// Write crate `name` (the facets or serde alone) and return its directory.
fn generate(root: &Path, name: &str, facet: bool, structs: usize) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let ws = workspace();
    let manifest = format!(
        r#"[package]
name = "{name}"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
faceteer = {{ path = "{runtime}" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
chrono = {{ version = "0.4", default-features = false, features = ["std", "clock", "serde"] }}
"#,
        runtime = ws.join("facet-runtime").display(),
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    // The workspace's lock file, so that resolution needs no network.
    std::fs::copy(ws.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut lib = String::from("#![allow(dead_code)]\n");
    for i in 0..structs {
        lib.push_str(&structure(i, facet));
    }
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    let samples: Vec<String> = (0..structs)
        .map(|i| format!("serde_json::to_string(&{name}::Record{i}::sample()).unwrap()"))
        .collect();
    std::fs::write(
        dir.join("src/main.rs"),
        format!(
            "fn main() {{\n    for line in [{}] {{\n        println!(\"{{line}}\");\n    }}\n}}\n",
            samples.join(", ")
        ),
    )
    .unwrap();
    dir
}

fn cargo(dir: &Path, target: &Path) -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .arg("--quiet");
    c
}

fn run(mut c: Command) -> String {
    let out = c.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "{c:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Change the library's source (a comment), so that the next build recompiles it.
fn touch(dir: &Path, n: u64) {
    let path = dir.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&path).unwrap();
    if let Some(at) = text.find("\n// build ") {
        text.truncate(at);
    }
    text.push_str(&format!("\n// build {n}\n"));
    std::fs::write(path, text).unwrap();
}

fn expanded_lines(dir: &Path, target: &Path) -> usize {
    let mut c = cargo(dir, target);
    c.env("RUSTC_BOOTSTRAP", "1").args([
        "rustc",
        "--offline",
        "--lib",
        "--",
        "-Zunpretty=expanded",
    ]);
    run(c).lines().filter(|l| !l.trim().is_empty()).count()
}

fn main() {
    let root = workspace().join("target/compile-bench");
    let target = root.join("target");
    for structs in SIZES {
        let facets = generate(&root, &format!("facets{structs}"), true, structs);
        let serde = generate(&root, &format!("serde{structs}"), false, structs);

        // Same output: the same JSON for the same values.
        let run_bin = |dir: &Path| {
            let mut c = cargo(dir, &target);
            c.args(["run", "--offline"]);
            run(c)
        };
        let (ours, theirs) = (run_bin(&facets), run_bin(&serde));
        assert_eq!(ours.lines().count(), structs);
        assert_eq!(ours, theirs, "the facet derive changes no serde output");

        if structs == SIZES[SIZES.len() - 1] {
            let (lines_facet, lines_serde) = (
                expanded_lines(&facets, &target),
                expanded_lines(&serde, &target),
            );
            let per = |lines: usize| lines as f64 / structs as f64;
            let own = per(lines_facet) - per(lines_serde);
            println!(
                "expanded lines per struct: faceteer + serde {:.0}, serde alone {:.0}; \
                 #[derive(Facet)] alone {own:.0} ({:.2}× serde's)",
                per(lines_facet),
                per(lines_serde),
                own / per(lines_serde)
            );
        }
        rebuilds(structs, &facets, &serde, &target);
    }
}

/// Time rebuilds of the two crates of `structs` structs: the CPU the build's processes
/// spend (cargo, rustc and the derive, as `getrusage` counts finished children), in
/// [`PAIRS`] pairs of one rebuild of each, the first of a pair alternating, so that both
/// crates are measured in the same stretch of the machine's time and neither always follows
/// the other. Prints the median of each crate's rebuilds and their ratio.
fn rebuilds(structs: usize, facets: &Path, serde: &Path, target: &Path) {
    let mut n = 0;
    let mut rebuild = |dir: &Path| {
        n += 1;
        touch(dir, n);
        let mut c = cargo(dir, target);
        c.args(["build", "--offline", "--lib"]);
        let start = children_cpu();
        run(c);
        children_cpu() - start
    };
    // Unmeasured: the first rebuild after the runs and the expansion count above.
    rebuild(facets);
    rebuild(serde);
    let (mut ours, mut theirs) = (Vec::with_capacity(PAIRS), Vec::with_capacity(PAIRS));
    for pair in 0..PAIRS {
        if pair % 2 == 0 {
            ours.push(rebuild(facets));
            theirs.push(rebuild(serde));
        } else {
            theirs.push(rebuild(serde));
            ours.push(rebuild(facets));
        }
    }
    let (ours, theirs) = (median(ours), median(theirs));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "Compile cost, {structs} structs (`benches/compile.rs`): a rebuild takes {:.0} ms of \
         CPU with `#[derive(Facet)]` + serde, {:.0} ms with serde alone ({:.2}×; medians of \
         {PAIRS} rebuilds each).",
        ms(ours),
        ms(theirs),
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
}

/// The median of `times` (the upper one of an even count).
fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// The CPU time (user and system) of this process's finished children and theirs.
fn children_cpu() -> Duration {
    // SAFETY: `usage` is a valid `rusage` to write into.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1_000);
    time(usage.ru_utime) + time(usage.ru_stime)
}
