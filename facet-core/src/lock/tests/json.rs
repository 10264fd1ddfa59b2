//! The lock file: pretty JSON in a fixed order, read back to the same lock.

use super::fixtures::*;
use crate::design::{FacetDesign, TableDesign};
use crate::lock::{DesignLock, LockError, LOCK_FORMAT};

#[test]
fn a_lock_reads_back_as_written() {
    let mut sharded = sharded(&[]);
    sharded.field("note").codec = Some("my::codec");
    sharded.version = Some(2);
    let lock =
        lock(&[&sharded, &team()]).with_settings(serde_json::json!({"billing": "PAY_PER_REQUEST"}));
    let text = lock.to_json();
    assert_eq!(DesignLock::from_json(&text).unwrap(), lock);
    // Written again, the same bytes.
    assert_eq!(DesignLock::from_json(&text).unwrap().to_json(), text);
    assert!(text.ends_with("}\n"));
}

#[test]
fn a_lock_is_written_one_key_a_line_in_a_fixed_order() {
    let facets = [FacetDesign::new(&TEAM_SCHEMA, &[]).with_fields(&TEAM_FIELDS)];
    let text = DesignLock::of_design(&TableDesign::new("app", &facets)).to_json();
    let expected = r##"{
  "format": 1,
  "names": {
    "pk": "PK",
    "sk": "SK",
    "facet": "facet",
    "ttl": "ttl",
    "indexes": []
  },
  "table": {
    "indexes": [],
    "vectors": [],
    "ttl": false,
    "stream": null
  },
  "facets": [
    {
      "name": "TEAM",
      "delimiter": "_",
      "schema_version": null,
      "version_field": null,
      "created": null,
      "updated": null,
      "ttl_field": null,
      "pk": {
        "attribute": "PK",
        "template": "#TEAM_{teamId}",
        "prefix": "#TEAM",
        "no_prefix": false,
        "fields": [
          {
            "name": "teamId",
            "optional": false,
            "sortable": false
          }
        ],
        "shard": null
      },
      "sk": {
        "attribute": "SK",
        "template": "#TEAM",
        "prefix": "#TEAM",
        "no_prefix": false,
        "fields": [],
        "shard": null
      },
      "indexes": [],
      "unique": [],
      "vectors": [],
      "fields": [
        {
          "attribute": "teamId",
          "field": "teamId",
          "rust_type": "String",
          "stored": true,
          "optional": false,
          "default": false,
          "codec": null,
          "epoch": null
        }
      ]
    }
  ],
  "settings": null
}
"##;
    assert_eq!(text, expected);
}

static TEAM_FIELDS: [crate::schema::FieldSchema; 1] = [req("teamId", "String")];

#[test]
fn indexes_shards_and_projections_are_written_as_data() {
    let text = lock(&[&order()]).to_json();
    for line in [
        r##""template": "#STATUS_{shard 0..3}_{status}","##,
        r#""kind": "global","#,
        r#""projection": "all","#,
        r#""projection": null,"#,
        r#""type": "S""#,
        r#""used_by": ["#,
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    let mut narrow = order();
    static KEYS_ONLY: [crate::schema::IndexSchema; 1] = [crate::schema::IndexSchema {
        projection: crate::schema::IndexProjection::Include(&["total"]),
        ..GSI1
    }];
    narrow.schema.indexes = &KEYS_ONLY;
    let text = lock(&[&narrow]).to_json();
    assert!(
        text.contains("\"projection\": {\n            \"include\": [\n              \"total\"\n"),
        "{text}"
    );
    assert_eq!(DesignLock::from_json(&text).unwrap(), lock(&[&narrow]));
}

#[test]
fn a_newer_format_or_other_text_is_refused() {
    let text = lock(&[&team()])
        .to_json()
        .replacen("\"format\": 1", "\"format\": 99", 1);
    match DesignLock::from_json(&text) {
        Err(LockError::Format { found, supported }) => {
            assert_eq!((found, supported), (99, LOCK_FORMAT))
        }
        other => panic!("{other:?}"),
    }
    let err = DesignLock::from_json("{\"format\": 1}").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the file is not a design lock: "),
        "{err}"
    );
    // A lock written before settings existed reads.
    let text = lock(&[&team()])
        .to_json()
        .replace(",\n  \"settings\": null", "");
    assert_eq!(DesignLock::from_json(&text).unwrap().settings, None);
}
