//! Conformance with `@faceteer/facet`: the vectors in `tests/vectors/` (a copy of the
//! project's `../shared/vectors/`) were produced by the real library; every case must be
//! reproduced exactly.

use crate::common;

use faceteer::{Facet, Item};
use faceteer_core::key::KeyWriter;
use faceteer_core::shard::ShardInputs;
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct KeyConfig {
    prefix: String,
    keys: Vec<String>,
    delimiter: String,
}

#[derive(Deserialize)]
struct ShardCase {
    count: u32,
    shard_inputs: Vec<String>,
    key_config: KeyConfig,
    model: serde_json::Map<String, serde_json::Value>,
    expected_key: String,
}

fn load_shard_cases() -> Vec<ShardCase> {
    common::load_vectors("faceteer-shard-keys.json")
}

/// The repository's copy of the vectors is the shared oracle's, byte for byte, when the
/// shared folder is beside the checkout (a clone on its own has only the copy).
#[test]
fn the_vector_copy_is_the_shared_oracle() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/vectors");
    if !shared.is_dir() {
        println!("no ../shared/vectors beside the checkout: the copy is used as it is");
        return;
    }
    for file in [
        "faceteer-items.json",
        "faceteer-shard-keys.json",
        "README.md",
    ] {
        let copy = std::fs::read(root.join("tests/vectors").join(file)).unwrap();
        let oracle = std::fs::read(shared.join(file)).unwrap();
        assert!(
            copy == oracle,
            "tests/vectors/{file} differs from ../shared/vectors/{file}; copy it again"
        );
    }
}

#[test]
fn every_shard_vector_matches() {
    let cases = load_shard_cases();
    assert!(
        cases.len() >= 100,
        "expected the full vector set, got {}",
        cases.len()
    );
    for case in &cases {
        let delimiter: &'static str = Box::leak(case.key_config.delimiter.clone().into_boxed_str());
        let mut inputs = ShardInputs::new();
        for input in &case.shard_inputs {
            inputs.push("shard", input.as_str());
        }
        let mut w = KeyWriter::new(&case.key_config.prefix, delimiter);
        w.shard(&inputs.shard_id(case.count).unwrap());
        for key in &case.key_config.keys {
            let value = case.model[key].as_str().expect("string key values");
            w.part("k", value);
        }
        assert_eq!(
            w.finish().unwrap(),
            case.expected_key,
            "count {} inputs {:?}",
            case.count,
            case.shard_inputs
        );
    }
}

/// The same vectors through `#[derive(Facet)]`, for every shard count in the file: a facet
/// sharding its base partition key, and one sharding the partition key of GSI 4, each over
/// one shard field (`a`) or two (`a`, `b`).
macro_rules! sharded_facets {
    ($($count:literal => $module:ident),* $(,)?) => {
        $(mod $module {
            use faceteer::Facet;
            use serde::{Deserialize, Serialize};

            #[derive(Facet, Serialize, Deserialize)]
            #[facet(name = "P")]
            pub struct Base {
                #[shard(count = $count)]
                pub a: String,
                #[pk(prefix = "#P")]
                pub k: String,
                #[sk(prefix = "#S")]
                pub s: String,
            }

            #[derive(Facet, Serialize, Deserialize)]
            #[facet(name = "P")]
            pub struct Base2 {
                #[shard(count = $count)]
                pub a: String,
                #[shard(count = $count)]
                pub b: String,
                #[pk(prefix = "#P")]
                pub k: String,
                #[sk(prefix = "#S")]
                pub s: String,
            }

            #[derive(Facet, Serialize, Deserialize)]
            #[facet(name = "P")]
            pub struct Gsi {
                #[pk(prefix = "#BASE")]
                #[shard(count = $count, gsi = 4)]
                pub a: String,
                #[gsi(n = 4, pk, prefix = "#P")]
                pub k: String,
                #[sk(prefix = "#S")]
                #[gsi(n = 4, sk, prefix = "#S")]
                pub s: String,
            }

            #[derive(Facet, Serialize, Deserialize)]
            #[facet(name = "P")]
            pub struct Gsi2 {
                #[pk(prefix = "#BASE")]
                #[shard(count = $count, gsi = 4)]
                pub a: String,
                #[sk(prefix = "#S")]
                #[shard(count = $count, gsi = 4)]
                pub b: String,
                #[gsi(n = 4, pk, prefix = "#P")]
                pub k: String,
                #[gsi(n = 4, sk, prefix = "#S")]
                pub s: String,
            }

            /// (base-table PK, GSI4PK) of a record with these shard inputs and key value.
            pub fn keys(inputs: &[String], k: &str) -> (String, String) {
                let (k, s) = (k.to_owned(), "x".to_owned());
                match inputs {
                    [a] => {
                        let base = Base { a: a.clone(), k: k.clone(), s: s.clone() };
                        let gsi = faceteer::to_item(&Gsi { a: a.clone(), k, s }).unwrap();
                        (base.primary_key().unwrap().pk().to_owned(), text(&gsi["GSI4PK"]))
                    }
                    [a, b] => {
                        let base = Base2 { a: a.clone(), b: b.clone(), k: k.clone(), s: s.clone() };
                        let gsi = Gsi2 { a: a.clone(), b: b.clone(), k, s };
                        let gsi = faceteer::to_item(&gsi).unwrap();
                        (base.primary_key().unwrap().pk().to_owned(), text(&gsi["GSI4PK"]))
                    }
                    other => panic!("no facet with {} shard fields", other.len()),
                }
            }

            fn text(v: &aws_sdk_dynamodb::types::AttributeValue) -> String {
                v.as_s().unwrap().clone()
            }
        })*

        fn derived_keys(count: u32, inputs: &[String], k: &str) -> (String, String) {
            match count {
                $($count => $module::keys(inputs, k),)*
                other => panic!("the vectors use {other} shards: add it to sharded_facets!"),
            }
        }
    };
}

sharded_facets!(
    1 => shards1, 2 => shards2, 3 => shards3, 4 => shards4, 16 => shards16, 17 => shards17,
    255 => shards255, 256 => shards256, 1000 => shards1000,
);

#[test]
fn derived_facets_match_every_shard_vector_in_base_and_index_keys() {
    let cases = load_shard_cases();
    assert_eq!(cases.len(), 120, "the full vector set");
    let mut multi = 0;
    for case in &cases {
        let k = case.model["k"].as_str().unwrap();
        let (base, gsi) = derived_keys(case.count, &case.shard_inputs, k);
        let what = format!("count {} inputs {:?}", case.count, case.shard_inputs);
        assert_eq!(base, case.expected_key, "base table, {what}");
        assert_eq!(gsi, case.expected_key, "GSI4, {what}");
        multi += usize::from(case.shard_inputs.len() > 1);
    }
    assert!(multi > 0, "multi-field shard inputs are covered");
}

/// The item layout Faceteer writes for the README's Task facet with one index, a counter and
/// a TTL in epoch seconds.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "TASK")]
#[serde(rename_all = "camelCase")]
struct TaskLayout {
    #[pk(prefix = "#TEAM")]
    #[gsi(n = 1, alias = "GSITeamDueDate", pk, prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#TASK")]
    task_id: String,
    #[gsi(n = 1, sk, prefix = "#TASK_DUE")]
    #[serde(with = "faceteer::timestamp")]
    date_due: chrono::DateTime<chrono::Utc>,
    assigned_user_id: Option<String>,
    count: u32,
    #[ttl]
    expires_at: Option<i64>,
}

#[test]
fn item_layout_is_faceteer_compatible() {
    use aws_sdk_dynamodb::types::AttributeValue as AV;
    use chrono::TimeZone;
    let task = TaskLayout {
        team_id: "team-1".into(),
        task_id: "task-1".into(),
        date_due: chrono::Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap(),
        assigned_user_id: None,
        count: 3,
        expires_at: Some(1_900_000_000),
    };
    let item: Item = faceteer::to_item(&task).unwrap();
    let s = |v: &str| AV::S(v.into());
    assert_eq!(item["PK"], s("#TEAM_team-1"));
    assert_eq!(item["SK"], s("#TASK_task-1"));
    assert_eq!(item["GSI1PK"], s("#TEAM_team-1"));
    assert_eq!(item["GSI1SK"], s("#TASK_DUE_2024-01-01T00:00:00.000Z"));
    assert_eq!(item["facet"], s("TASK"));
    assert_eq!(item["ttl"], AV::N("1900000000".into()));
    assert_eq!(item["teamId"], s("team-1"));
    assert_eq!(item["count"], AV::N("3".into()));
    assert!(
        !item.contains_key("assignedUserId"),
        "absent optionals are left out"
    );
    let back: TaskLayout = faceteer::from_item(item).unwrap();
    assert_eq!(back.task_id, "task-1");
    assert_eq!(back.assigned_user_id, None);
}
