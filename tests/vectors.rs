//! Conformance with `@faceteer/facet`: the vectors in `../shared/vectors/` were produced by
//! the real library; every case must be reproduced exactly.

use std::path::PathBuf;

use faceteer::core::key::KeyWriter;
use faceteer::core::shard::ShardInputs;
use faceteer::{Facet, Item};
use serde::{Deserialize, Serialize};

/// `$FACETEER_VECTORS`, else `shared/vectors` beside the checkout or inside it.
fn vectors_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FACETEER_VECTORS") {
        return PathBuf::from(dir);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates = [root.join("../shared/vectors"), root.join("shared/vectors")];
    candidates
        .iter()
        .find(|c| c.is_dir())
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "conformance vectors not found (looked in {candidates:?}); \
                 set FACETEER_VECTORS to the folder holding faceteer-shard-keys.json"
            )
        })
}

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
    let path = vectors_dir().join("faceteer-shard-keys.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).expect("valid vector file")
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

/// The same vectors through `#[derive(Facet)]`: a facet sharded over the vector's count.
macro_rules! sharded_facet {
    ($name:ident, $count:literal) => {
        #[derive(Facet, Serialize, Deserialize)]
        #[facet(name = "P")]
        struct $name {
            #[shard(count = $count)]
            id: String,
            #[pk(prefix = "#P")]
            k: String,
            #[sk(prefix = "#S")]
            s: String,
        }
    };
}
sharded_facet!(Shard4, 4);
sharded_facet!(Shard16, 16);
sharded_facet!(Shard256, 256);
sharded_facet!(Shard1000, 1000);

#[test]
fn derived_facets_match_single_input_vectors() {
    for case in load_shard_cases()
        .iter()
        .filter(|c| c.shard_inputs.len() == 1)
    {
        let id = case.shard_inputs[0].clone();
        let k = case.model["k"].as_str().unwrap().to_owned();
        let s = "x".to_owned();
        let pk = match case.count {
            4 => Shard4 { id, k, s }.primary_key().unwrap().pk().to_owned(),
            16 => Shard16 { id, k, s }.primary_key().unwrap().pk().to_owned(),
            256 => Shard256 { id, k, s }.primary_key().unwrap().pk().to_owned(),
            1000 => Shard1000 { id, k, s }
                .primary_key()
                .unwrap()
                .pk()
                .to_owned(),
            _ => continue,
        };
        assert_eq!(
            pk, case.expected_key,
            "count {} input {:?}",
            case.count, case.shard_inputs
        );
    }
}

#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "P")]
struct TwoShardFields {
    #[shard(count = 256)]
    a: String,
    #[shard(count = 256)]
    b: String,
    #[pk(prefix = "#P")]
    k: String,
    #[sk(prefix = "#S")]
    s: String,
}

#[test]
fn derived_facets_match_multi_input_vectors() {
    let mut checked = 0;
    for case in load_shard_cases()
        .iter()
        .filter(|c| c.shard_inputs.len() == 2 && c.count == 256)
    {
        let record = TwoShardFields {
            a: case.shard_inputs[0].clone(),
            b: case.shard_inputs[1].clone(),
            k: case.model["k"].as_str().unwrap().into(),
            s: "x".into(),
        };
        assert_eq!(record.primary_key().unwrap().pk(), case.expected_key);
        checked += 1;
    }
    assert!(checked > 0);
}

/// The item layout Faceteer writes for the README's Task facet with one index.
#[derive(Facet, Serialize, Deserialize)]
#[facet(name = "TASK")]
#[serde(rename_all = "camelCase")]
struct Task {
    #[pk(prefix = "#TEAM")]
    #[gsi(n = 1, alias = "GSITeamDueDate", pk, prefix = "#TEAM")]
    team_id: String,
    #[sk(prefix = "#TASK")]
    task_id: String,
    #[gsi(n = 1, sk, prefix = "#TASK_DUE")]
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
    let task = Task {
        team_id: "team-1".into(),
        task_id: "task-1".into(),
        date_due: chrono::Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap(),
        assigned_user_id: None,
        count: 3,
        expires_at: Some(1_900_000_000),
    };
    let item: Item = faceteer::core::to_item(&task).unwrap();
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
    let back: Task = faceteer::core::from_item(item).unwrap();
    assert_eq!(back.task_id, "task-1");
    assert_eq!(back.assigned_user_id, None);
}
