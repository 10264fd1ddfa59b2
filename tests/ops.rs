//! The operations runner end to end on the embedded engine: each command as a user runs
//! it, through `Runner::capture`, on a live table; and every `--help` text, reviewed as a
//! golden file (`tests/ops-help.txt`, rewritten with `FACETEER_BLESS=1`).

use faceteer::ops::{Ran, Runner};
use faceteer::{Facet, Table, TableSchema};
use faceteer_suite::Engine;
use serde::{Deserialize, Serialize};

/// The shop as first deployed, and with an index by status.
macro_rules! shop {
    ($name:ident $(, $index:meta)?) => {
        pub mod $name {
            use super::*;

            /// An order.
            #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
            #[facet(name = "ORDER" $(, $index)?)]
            pub struct Order {
                #[pk(prefix = "#CUSTOMER")]
                pub customer: String,
                #[sk(prefix = "#ORDER")]
                pub id: String,
                pub status: String,
                pub amount: u32,
            }

            /// A member: handles are unique (written one put each, with their guards).
            #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
            #[facet(name = "MEMBER")]
            pub struct Member {
                #[pk(prefix = "#MEMBER")]
                #[sk(prefix = "#MEMBER")]
                pub id: String,
                #[unique]
                pub handle: String,
            }

            faceteer::table! {
                pub struct Shop { Order, Member }
            }
        }
    };
}

shop!(v1);
shop!(
    v2,
    gsi(
        n = 1,
        alias = "ByStatus",
        pk(prefix = "#STATUS", fields(status)),
        sk(prefix = "#ORDER", fields(id))
    )
);

fn order(i: u32) -> v1::Order {
    v1::Order {
        customer: format!("c{}", i % 3),
        id: format!("o{i:03}"),
        status: if i.is_multiple_of(2) { "open" } else { "done" }.into(),
        amount: i,
    }
}

async fn table<S: TableSchema>(name: &str) -> Table {
    faceteer_suite::patient(Table::declared::<S>(faceteer_suite::client().await, name))
}

/// Run `args` as a user would: against the engine's endpoint, naming `table`.
async fn ran<S: faceteer::erased::TableFacets>(table: &Table, args: &[&str]) -> Ran {
    let endpoint = faceteer_suite::endpoint().expect("a local engine");
    let args = [
        "table",
        "--endpoint",
        endpoint.as_str(),
        "--table",
        table.name(),
    ]
    .into_iter()
    .chain(args.iter().copied());
    Runner::<S>::new().capture(args).await
}

/// The counts `count` printed, by facet.
fn counted(stdout: &str) -> std::collections::BTreeMap<String, u64> {
    stdout
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some((words.next()?.to_owned(), words.next()?.parse().ok()?))
        })
        .collect()
}

fn scratch(label: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "faceteer-ops-{label}-{}-{}",
        std::process::id(),
        faceteer_suite::unique_name("")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn embedded(test: impl std::future::Future<Output = ()>) {
    faceteer_suite::run(Engine::Embedded, test)
}

#[test]
fn create_verify_and_fix() {
    embedded(async {
        let name = faceteer_suite::unique_name("ops-create");
        let t1 = table::<v1::Shop>(&name).await;
        let r = ran::<v1::Shop>(&t1, &["create"]).await;
        assert_eq!(
            (r.code, r.stdout.trim()),
            (0, format!("created table {name}").as_str()),
            "{r:?}"
        );
        let r = ran::<v1::Shop>(&t1, &["create", "--if-missing"]).await;
        assert_eq!(r.code, 0, "{r:?}");
        assert!(r.stdout.contains("exists: nothing to do"), "{r:?}");
        let r = ran::<v1::Shop>(&t1, &["verify"]).await;
        assert_eq!(r.code, 0, "{r:?}");
        assert!(r.stdout.contains("serves every facet as declared"), "{r:?}");

        // The code now needs GSI1: verify says so in plain words, and exits 1.
        let t2 = table::<v2::Shop>(&name).await;
        let r = ran::<v2::Shop>(&t2, &["verify"]).await;
        assert_eq!(r.code, 1, "{r:?}");
        assert!(
            r.stdout.contains("index GSI1 is missing; used by `ORDER`"),
            "{r:?}"
        );
        let r = ran::<v2::Shop>(&t2, &["verify", "--fix"]).await;
        assert_eq!(r.code, 0, "{r:?}");
        assert!(r.stdout.contains("created index GSI1"), "{r:?}");
        assert_eq!(ran::<v2::Shop>(&t2, &["verify"]).await.code, 0);
    });
}

#[test]
fn diff_backfill_resume_and_lock() {
    embedded(async {
        let dir = scratch("diff");
        let lock = dir.join("design.lock.json");
        let lock_arg = lock.to_str().unwrap();
        let name = faceteer_suite::unique_name("ops-diff");
        let t1 = table::<v1::Shop>(&name).await;
        assert_eq!(ran::<v1::Shop>(&t1, &["create"]).await.code, 0);
        // v1's design is locked: the deployed one.
        let r = ran::<v1::Shop>(&t1, &["--lock", lock_arg, "lock", "--write"]).await;
        assert_eq!(r.code, 0, "{r:?}");
        let report = t1.put_many((0..60).map(order)).await;
        assert!(report.is_complete());

        // v2's code: the lock's report, and the live table's difference.
        let t2 = table::<v2::Shop>(&name).await;
        let r = ran::<v2::Shop>(&t2, &["--lock", lock_arg, "diff", "--dry-run"]).await;
        assert_eq!(r.code, 1, "{r:?}");
        assert!(r.stdout.contains("GSI1"), "{r:?}");
        assert!(r.stdout.contains("create_missing_indexes"), "{r:?}");
        assert!(r.stdout.contains("index GSI1 is missing"), "{r:?}");
        assert!(r.stdout.contains("a backfill would rewrite"), "{r:?}");
        assert!(
            r.stdout.contains("60 items read: 60 would be rewritten")
                || r.stdout.contains("60 items read"),
            "{r:?}"
        );
        let r = ran::<v2::Shop>(&t2, &["--lock", lock_arg, "lock"]).await;
        assert_eq!(r.code, 1, "{r:?}");

        assert_eq!(ran::<v2::Shop>(&t2, &["verify", "--fix"]).await.code, 0);
        // A backfill stopped after one page leaves its checkpoint; resumed, it finishes.
        let checkpoint = dir.join("fill.ckpt");
        let ckpt = checkpoint.to_str().unwrap();
        let r = ran::<v2::Shop>(
            &t2,
            &[
                "backfill",
                "--segments",
                "2",
                "--page-size",
                "10",
                "--checkpoint",
                ckpt,
                "--pages",
                "1",
                "--progress",
                "plain",
            ],
        )
        .await;
        assert_eq!(r.code, 1, "{r:?}");
        assert!(r.stdout.contains("stopped after 1 pages"), "{r:?}");
        assert!(r.stderr.contains("page 1: "), "{r:?}");
        let saved = std::fs::read_to_string(&checkpoint).unwrap();
        let (saved, scope) = saved.trim().split_once('\n').unwrap();
        assert_eq!(scope, "# backfill of every facet");
        assert!(!faceteer::backfill::Checkpoint::from_text(saved)
            .unwrap()
            .is_done());
        // Resumed with other facets, it would skip what the first run scanned: refused.
        let r = ran::<v2::Shop>(
            &t2,
            &[
                "backfill",
                "--checkpoint",
                ckpt,
                "--resume",
                "--facet",
                "ORDER",
            ],
        )
        .await;
        assert_eq!(r.code, 2, "{r:?}");
        assert!(
            r.stderr
                .contains("is the checkpoint of a backfill of every facet"),
            "{r:?}"
        );
        let r = ran::<v2::Shop>(
            &t2,
            &[
                "backfill",
                "--checkpoint",
                ckpt,
                "--resume",
                "--progress",
                "none",
            ],
        )
        .await;
        assert_eq!(r.code, 0, "{r:?}");
        let saved = std::fs::read_to_string(&checkpoint).unwrap();
        let saved = saved.lines().next().unwrap();
        assert!(faceteer::backfill::Checkpoint::from_text(saved)
            .unwrap()
            .is_done());
        // Every order is now in GSI1.
        let open = t2
            .query(v2::Order::by_status("open").list().limit(100))
            .await
            .unwrap();
        assert_eq!(open.records.len(), 30);
        let r = ran::<v2::Shop>(&t2, &["backfill", "--dry-run", "--progress", "none"]).await;
        assert_eq!(r.code, 0, "{r:?}");
        assert!(r.stdout.contains("dry run: nothing written"), "{r:?}");
        assert!(r.stdout.contains(" 0 "), "{r:?}");

        // The change accepted into the lock: nothing differs.
        let r = ran::<v2::Shop>(&t2, &["--lock", lock_arg, "lock", "--write"]).await;
        assert_eq!(r.code, 0, "{r:?}");
        let r = ran::<v2::Shop>(&t2, &["--lock", lock_arg, "diff"]).await;
        assert_eq!(r.code, 0, "{r:?}");
        assert!(r.stdout.contains("the code is the locked design"), "{r:?}");
    });
}

#[test]
fn tail_prints_each_change_and_resumes() {
    embedded(async {
        let dir = scratch("tail");
        let checkpoint = dir.join("tail.ckpt");
        let ckpt = checkpoint.to_str().unwrap();
        let name = faceteer_suite::unique_name("ops-tail");
        let t = table::<v1::Shop>(&name).await;
        let r = ran::<v1::Shop>(&t, &["create", "--stream", "new-and-old-images"]).await;
        assert_eq!(r.code, 0, "{r:?}");
        t.put(&order(1)).await.unwrap();
        let f = v1::Order::fields();
        let key = v1::Order::key("c1", "o001").unwrap();
        t.update(&key, f.status.set("shipped".to_owned()))
            .await
            .unwrap();
        t.delete(&key).await.unwrap();
        let r = ran::<v1::Shop>(&t, &["tail", "--until-idle", "--checkpoint", ckpt]).await;
        assert_eq!(r.code, 0, "{r:?}");
        let lines: Vec<&str> = r.stdout.lines().collect();
        assert_eq!(lines.len(), 3, "{r:?}");
        assert!(
            lines[0].starts_with("INSERT ORDER #CUSTOMER_c1 #ORDER_o001 {"),
            "{r:?}"
        );
        assert!(lines[0].contains("\"amount\":1"), "{r:?}");
        assert_eq!(
            lines[1],
            "MODIFY ORDER #CUSTOMER_c1 #ORDER_o001 status: \"done\" → \"shipped\""
        );
        assert_eq!(lines[2], "REMOVE ORDER #CUSTOMER_c1 #ORDER_o001");
        // Resumed from its checkpoint: nothing new.
        let r = ran::<v1::Shop>(
            &t,
            &["tail", "--until-idle", "--checkpoint", ckpt, "--resume"],
        )
        .await;
        assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{r:?}");
        t.put(&order(2)).await.unwrap();
        let r = ran::<v1::Shop>(
            &t,
            &[
                "tail",
                "--until-idle",
                "--checkpoint",
                ckpt,
                "--resume",
                "--json",
            ],
        )
        .await;
        let change: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
        assert_eq!(change["kind"], "INSERT");
        assert_eq!(change["new"]["id"], "o002");
    });
}

#[test]
fn seed_checks_every_line_first_then_counts() {
    embedded(async {
        let dir = scratch("seed");
        let name = faceteer_suite::unique_name("ops-seed");
        let t = table::<v1::Shop>(&name).await;
        assert_eq!(ran::<v1::Shop>(&t, &["create"]).await.code, 0);
        let order = |i: u32| {
            format!(
                r#"{{"facet":"ORDER","customer":"c1","id":"o{i}","status":"open","amount":{i}}}"#
            )
        };
        // Line 3 is not an order: nothing at all is written.
        let bad = dir.join("bad.jsonl");
        std::fs::write(
            &bad,
            format!(
                "{}\n{}\n{{\"facet\":\"ORDER\",\"customer\":\"c1\"}}\n",
                order(1),
                order(2)
            ),
        )
        .unwrap();
        let r = ran::<v1::Shop>(&t, &["seed", bad.to_str().unwrap()]).await;
        assert_eq!(r.code, 2, "{r:?}");
        assert!(r.stderr.contains("line 3: missing field `id`"), "{r:?}");
        assert!(r.stderr.contains("nothing was written"), "{r:?}");
        let r = ran::<v1::Shop>(&t, &["count"]).await;
        assert_eq!(counted(&r.stdout)["ORDER"], 0, "{r:?}");

        // Orders in a batch; members one put each, a taken handle refused.
        let good = dir.join("good.jsonl");
        let mut text: String = (0..25).map(|i| order(i) + "\n").collect();
        text.push_str("{\"facet\":\"MEMBER\",\"record\":{\"id\":\"m1\",\"handle\":\"ada\"}}\n");
        text.push_str("{\"facet\":\"MEMBER\",\"id\":\"m2\",\"handle\":\"ada\"}\n");
        std::fs::write(&good, text).unwrap();
        let r = ran::<v1::Shop>(&t, &["seed", good.to_str().unwrap()]).await;
        assert_eq!(r.code, 1, "{r:?}");
        assert!(r.stdout.contains("ORDER: 25 records (put_many)"), "{r:?}");
        assert!(
            r.stdout.contains("MEMBER: 2 records (one put each)"),
            "{r:?}"
        );
        assert!(
            r.stdout.contains("26 written, 1 not written, 0 unknown"),
            "{r:?}"
        );
        assert!(r.stderr.contains("line 27: not written"), "{r:?}");

        let r = ran::<v1::Shop>(&t, &["count", "--segments", "3"]).await;
        assert_eq!(r.code, 0, "{r:?}");
        let counts = counted(&r.stdout);
        assert_eq!(
            (counts["ORDER"], counts["MEMBER"], counts["$unique"]),
            (25, 1, 1),
            "{r:?}"
        );
        assert!(r.stdout.contains("(unique-value guards)"), "{r:?}");
        let r = ran::<v1::Shop>(&t, &["count", "--facet", "MEMBER"]).await;
        assert_eq!(
            counted(&r.stdout),
            [("MEMBER".to_owned(), 1)].into(),
            "{r:?}"
        );
        let r = ran::<v1::Shop>(&t, &["count", "--facet", "NOPE"]).await;
        assert_eq!(r.code, 2, "{r:?}");
    });
}

#[test]
fn export_writes_every_design_format() {
    embedded(async {
        let runner = Runner::<v2::Shop>::new();
        let r = runner
            .capture(["table", "--table", "shop", "export", "--format", "markdown"])
            .await;
        assert_eq!(r.code, 0, "{r:?}");
        assert_eq!(
            r.stdout,
            faceteer::design::access_patterns_markdown(&v2::Shop::design("shop"))
        );
        let dir = scratch("export");
        let r = runner
            .capture([
                "table",
                "--table",
                "shop",
                "export",
                "--out",
                dir.to_str().unwrap(),
                "--region",
                "us-east-1",
                "--account",
                "123456789012",
            ])
            .await;
        assert_eq!(r.code, 0, "{r:?}");
        for file in [
            "table.cfn.json",
            "table.tf",
            "workbench.json",
            "access-patterns.md",
            "access-patterns.html",
            "design.lock.json",
            "table-with-policies.cfn.json",
            "iam/ShopReadOnly.json",
            "iam/ShopWriter.json",
            "iam/ShopOperations.json",
        ] {
            assert!(dir.join(file).is_file(), "{file}: {r:?}");
        }
        assert_eq!(
            std::fs::read_to_string(dir.join("table.tf")).unwrap(),
            faceteer::design::terraform(&v2::Shop::design("shop"))
        );
        let r = runner.capture(["table", "export", "--out", "-"]).await;
        assert_eq!(r.code, 2, "{r:?}");
        assert!(r.stderr.contains("give --out DIR"), "{r:?}");
        let r = runner
            .capture([
                "table",
                "export",
                "--format",
                "iam",
                "--out",
                dir.to_str().unwrap(),
                "--scope",
                "customer",
            ])
            .await;
        assert_eq!(r.code, 2, "{r:?}");
        assert!(r.stderr.contains("FIELD=TAG"), "{r:?}");
    });
}

#[test]
fn bad_input_and_help() {
    embedded(async {
        let runner = Runner::<v1::Shop>::new();
        // No table name: a usage error, nothing sent.
        let r = runner.capture(["table", "verify"]).await;
        assert_eq!(r.code, 2, "{r:?}");
        assert!(r.stderr.contains("--table NAME"), "{r:?}");
        let r = runner.capture(["table", "frobnicate"]).await;
        assert_eq!(r.code, 2, "{r:?}");
        // A dry run writes no checkpoint: a real run resumed from one would skip work.
        let r = runner
            .capture([
                "table",
                "--table",
                "t",
                "backfill",
                "--dry-run",
                "--checkpoint",
                "f.ckpt",
            ])
            .await;
        assert_eq!(r.code, 2, "{r:?}");
        assert!(r.stderr.contains("cannot be used with"), "{r:?}");
        // Every help text, as a golden file.
        let mut help = String::new();
        for command in [
            None,
            Some("create"),
            Some("verify"),
            Some("diff"),
            Some("lock"),
            Some("backfill"),
            Some("tail"),
            Some("count"),
            Some("export"),
            Some("seed"),
        ] {
            let args: Vec<&str> = std::iter::once("table")
                .chain(command)
                .chain(["--help"])
                .collect();
            let r = runner.capture(args).await;
            assert_eq!(r.code, 0, "{r:?}");
            help.push_str(&format!(
                "$ table {}--help\n",
                command.map_or(String::new(), |c| format!("{c} "))
            ));
            help.push_str(&r.stdout);
            help.push('\n');
        }
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ops-help.txt");
        if std::env::var_os("FACETEER_BLESS").is_some() {
            std::fs::write(&path, &help).unwrap();
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            golden, help,
            "help texts changed: review them and rerun with FACETEER_BLESS=1"
        );
    });
}
