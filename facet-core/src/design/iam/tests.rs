//! The documents of the fixture designs, the scoping rules, the errors, the template.

use serde_json::{json, Value};

use super::actions::{LEADING_KEYS, ON_INDEX};
use super::*;
use crate::design::{fixtures, FacetDesign, StreamView, TableDesign};
use crate::schema::{
    FacetSchema, IndexKind, IndexProjection, IndexSchema, KeyAttribute, KeySchema, NativeKeys,
    ShardSchema, PK, SK,
};

const TEAM: [IamScope<'static>; 1] = [IamScope::new("team", "team")];

const ANY: &str = "arn:aws:dynamodb:*:*:table";

fn app_policies() -> Vec<IamPolicy> {
    let facets = fixtures::facets();
    let design = TableDesign::new("app", &facets).with_stream(StreamView::NewImage);
    iam_policies(&design, &IamOptions::new()).unwrap()
}

fn project_policies(options: &IamOptions<'_>) -> Result<Vec<IamPolicy>, IamError> {
    let facets = fixtures::projects();
    iam_policies(&TableDesign::new("projects", &facets), options)
}

fn scoped() -> Vec<IamPolicy> {
    project_policies(&IamOptions::new().scoped(&TEAM)).unwrap()
}

fn named<'p>(policies: &'p [IamPolicy], name: &str) -> &'p IamPolicy {
    policies
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no policy {name}"))
}

fn names(policies: &[IamPolicy]) -> Vec<&str> {
    policies.iter().map(|p| p.name.as_str()).collect()
}

fn allow(sid: &str, actions: &[&str], resources: &[&str]) -> Value {
    let actions: Vec<String> = actions.iter().map(|a| format!("dynamodb:{a}")).collect();
    json!({ "Sid": sid, "Effect": "Allow", "Action": actions, "Resource": resources })
}

fn document(statements: Vec<Value>) -> Value {
    json!({ "Version": "2012-10-17", "Statement": statements })
}

/// `statement` conditioned on its keys matching `keys`, with the `Null` guards of `tags`.
fn leading(mut statement: Value, keys: &[&str], tags: &[&str]) -> Value {
    let mut present = serde_json::Map::new();
    present.insert("dynamodb:LeadingKeys".into(), "false".into());
    for tag in tags {
        present.insert(format!("aws:PrincipalTag/{tag}"), "false".into());
    }
    statement["Condition"] = json!({
        "ForAllValues:StringLike": { "dynamodb:LeadingKeys": keys },
        "Null": present,
    });
    statement
}

fn deny_team(sid: &str, actions: &[&str], resources: &[&str], unsafe_values: &[&str]) -> Value {
    let mut statement = allow(sid, actions, resources);
    statement["Effect"] = "Deny".into();
    statement["Condition"] = json!({ "StringLike": { "aws:PrincipalTag/team": unsafe_values } });
    statement
}

const READ: &[&str] = &["BatchGetItem", "ConditionCheckItem", "GetItem", "Query"];
const READ_WRITE: &[&str] = &[
    "BatchGetItem",
    "BatchWriteItem",
    "ConditionCheckItem",
    "DeleteItem",
    "GetItem",
    "PutItem",
    "Query",
    "UpdateItem",
];

#[test]
fn unscoped_roles_name_the_table_and_every_index() {
    let policies = app_policies();
    assert_eq!(
        names(&policies),
        [
            "AppReadOnly",
            "AppWriter",
            "AppOperations",
            "AppUserGetOne",
            "AppUserQueryGsi1ByEmail",
            "AppOrderGetOne",
            "AppOrderQueryThePartition",
            "AppOrderQueryGsi2ByStatus",
            "AppOrderQueryGsi3",
            "AppOrderQueryLsi1ByTotal",
            "AppTeamGetOne",
            "AppTeamQueryGsi1ByOwner",
        ]
    );
    let table = format!("{ANY}/app");
    let indexes: Vec<String> = ["GSI1", "GSI2", "GSI3", "LSI1"]
        .iter()
        .map(|i| format!("{table}/index/{i}"))
        .collect();
    let indexes: Vec<&str> = indexes.iter().map(String::as_str).collect();
    let describe = allow("DescribeTable", super::actions::DESCRIBE, &[&table]);
    assert_eq!(policies[0].kind, PolicyKind::Role(Role::ReadOnly));
    assert_eq!(
        policies[0].document,
        document(vec![
            allow("ReadItems", READ, &[&table]),
            allow("QueryIndexes", &["Query"], &indexes),
            describe.clone(),
        ])
    );
    assert_eq!(
        policies[1].document,
        document(vec![
            allow("ReadWriteItems", READ_WRITE, &[&table]),
            allow("QueryIndexes", &["Query"], &indexes),
            describe,
        ])
    );
    assert_eq!(
        policies[2].document,
        document(vec![
            allow(
                "ManageTable",
                &[
                    "CreateTable",
                    "DescribeContinuousBackups",
                    "DescribeTable",
                    "DescribeTimeToLive",
                    "ListTagsOfResource",
                    "TagResource",
                    "UntagResource",
                    "UpdateContinuousBackups",
                    "UpdateTable",
                    "UpdateTimeToLive",
                ],
                &[&table]
            ),
            allow(
                "BackfillItems",
                &[
                    "BatchGetItem",
                    "BatchWriteItem",
                    "ConditionCheckItem",
                    "DeleteItem",
                    "GetItem",
                    "PutItem",
                    "Query",
                    "Scan",
                    "UpdateItem",
                ],
                &[&table]
            ),
            allow("ScanIndexes", &["Query", "Scan"], &indexes),
            allow(
                "ReadStream",
                &["DescribeStream", "GetRecords", "GetShardIterator"],
                &[&format!("{table}/stream/*")]
            ),
        ])
    );
    for p in &policies {
        assert!(p.notes.is_empty(), "{}: {:?}", p.name, p.notes);
    }
}

#[test]
fn each_pattern_names_exactly_its_actions_and_arn() {
    let policies = app_policies();
    let table = format!("{ANY}/app");
    let get = named(&policies, "AppUserGetOne");
    assert_eq!(
        get.kind,
        PolicyKind::Pattern {
            facet: "USER",
            pattern: "get one".into()
        }
    );
    assert_eq!(
        get.document,
        document(vec![allow(
            "GetOne",
            &["BatchGetItem", "GetItem"],
            &[&table]
        )])
    );
    assert_eq!(
        get.description,
        "USER get one in DynamoDB table app: dynamodb:BatchGetItem, dynamodb:GetItem on table `app`"
    );
    assert_eq!(
        named(&policies, "AppOrderQueryThePartition").document,
        document(vec![allow("QueryPartition", &["Query"], &[&table])])
    );
    for (name, index) in [
        ("AppOrderQueryGsi2ByStatus", "GSI2"),
        ("AppOrderQueryLsi1ByTotal", "LSI1"),
    ] {
        assert_eq!(
            named(&policies, name).document,
            document(vec![allow(
                "QueryIndex",
                &["Query"],
                &[&format!("{table}/index/{index}")]
            )])
        );
    }
}

#[test]
fn arns_use_the_tables_index_names_and_the_target() {
    let facets = fixtures::tasks();
    let design = TableDesign::new("tasks", &facets).with_names(fixtures::ONETABLE);
    let target = IamTarget::new()
        .in_partition("aws-cn")
        .in_region("cn-north-1")
        .in_account("123456789012");
    let options = IamOptions::new().with_target(target);
    let policies = iam_policies(&design, &options).unwrap();
    let arn = "arn:aws-cn:dynamodb:cn-north-1:123456789012:table/tasks";
    assert_eq!(
        named(&policies, "TasksTaskQueryGsi1ByDue").document,
        document(vec![allow(
            "QueryIndex",
            &["Query"],
            &[&format!("{arn}/index/gsi1")]
        )])
    );
    // No stream, no scan of a stream.
    let ops = &named(&policies, "TasksOperations").document["Statement"];
    assert_eq!(ops.as_array().unwrap().len(), 3);
    assert_eq!(ops[2]["Resource"], json!([format!("{arn}/index/gsi1")]));
}

#[test]
fn a_scoped_reader_reaches_its_teams_partitions_only() {
    let policies = scoped();
    let table = format!("{ANY}/projects");
    let gsi1 = format!("{table}/index/GSI1");
    let partitions = [
        "#TEAM_${aws:PrincipalTag/team}",
        "EVENT#0#${aws:PrincipalTag/team}#*",
        "EVENT#1#${aws:PrincipalTag/team}#*",
        "EVENT#2#${aws:PrincipalTag/team}#*",
        "EVENT#3#${aws:PrincipalTag/team}#*",
        "#PLAN_*",
    ];
    let owners = ["#OWNER_${aws:PrincipalTag/team}_*", "#TIER_*"];
    let unsafe_table = ["*_*", "*#*", "*${*}*", "*${?}*", ""];
    let unsafe_index = ["*_*", "*${*}*", "*${?}*", ""];
    let read = &policies[0];
    assert_eq!(read.name, "ProjectsReadOnly");
    assert_eq!(
        read.document,
        document(vec![
            leading(allow("ReadItems", READ, &[&table]), &partitions, &["team"]),
            leading(allow("QueryGsi1", &["Query"], &[&gsi1]), &owners, &["team"]),
            allow("DescribeTable", super::actions::DESCRIBE, &[&table]),
            deny_team("DenyUnsafeTeamTagReadItems", READ, &[&table], &unsafe_table),
            deny_team(
                "DenyUnsafeTeamTagQueryGsi1",
                &["Query"],
                &[&gsi1],
                &unsafe_index
            ),
        ])
    );
    // GSI2 (by slug, keyed by no scope field) and the vector index are left out.
    assert_eq!(read.notes.len(), 2, "{:?}", read.notes);
    assert!(read.notes[0].contains("PROJECT's partitions of index `GSI2`"));
    assert!(read.notes[1].contains("`byEmbedding`"));
    assert!(read
        .description
        .ends_with("; partitions scoped by aws:PrincipalTag/team"));
    let write = &policies[1];
    assert_eq!(
        write.document,
        document(vec![
            leading(
                allow("ReadWriteItems", READ_WRITE, &[&table]),
                &partitions,
                &["team"]
            ),
            leading(allow("QueryGsi1", &["Query"], &[&gsi1]), &owners, &["team"]),
            leading(
                allow("WriteUniqueGuards", &["DeleteItem", "PutItem"], &[&table]),
                &["${$}unique#PROJECT#slug#*"],
                &[]
            ),
            allow("DescribeTable", super::actions::DESCRIBE, &[&table]),
            deny_team(
                "DenyUnsafeTeamTagReadWriteItems",
                READ_WRITE,
                &[&table],
                &unsafe_table
            ),
            deny_team(
                "DenyUnsafeTeamTagQueryGsi1",
                &["Query"],
                &[&gsi1],
                &unsafe_index
            ),
        ])
    );
    assert!(write.notes[2].starts_with("the guard items of unique values are not scoped"));
    // Operations are never scoped.
    let ops = &policies[2];
    assert!(!ops.to_json().contains("\"Condition\""));
    assert_eq!(ops.notes.len(), 1);
}

#[test]
fn scoped_patterns_name_their_partitions() {
    let policies = scoped();
    let table = format!("{ANY}/projects");
    let shards: Vec<String> = (0..4)
        .map(|s| format!("EVENT#{s}#${{aws:PrincipalTag/team}}#*"))
        .collect();
    let shards: Vec<&str> = shards.iter().map(String::as_str).collect();
    let events = named(&policies, "ProjectsEventGetOne");
    assert_eq!(
        events.document,
        document(vec![
            leading(
                allow("GetOne", &["BatchGetItem", "GetItem"], &[&table]),
                &shards,
                &["team"]
            ),
            deny_team(
                "DenyUnsafeTeamTagGetOne",
                &["BatchGetItem", "GetItem"],
                &[&table],
                &["*#*", "*${*}*", "*${?}*", ""]
            ),
        ])
    );
    let gsi1 = format!("{table}/index/GSI1");
    assert_eq!(
        named(&policies, "ProjectsProjectQueryGsi1ByOwner").document,
        document(vec![
            leading(
                allow("QueryIndex", &["Query"], &[&gsi1]),
                &["#OWNER_${aws:PrincipalTag/team}_*"],
                &["team"]
            ),
            deny_team(
                "DenyUnsafeTeamTagQueryIndex",
                &["Query"],
                &[&gsi1],
                &["*_*", "*${*}*", "*${?}*", ""]
            ),
        ])
    );
    // A facet bound to no scope: its own partitions, no tag.
    assert_eq!(
        named(&policies, "ProjectsPlanQueryGsi1ByTier").document,
        document(vec![leading(
            allow("QueryIndex", &["Query"], &[&gsi1]),
            &["#TIER_*"],
            &[]
        )])
    );
    assert!(named(&policies, "ProjectsPlanGetOne").notes.is_empty());
    // Not scopable: said so, limited to the facet's partitions where they have a pattern.
    let slug = named(&policies, "ProjectsProjectQueryGsi2BySlug");
    assert_eq!(
        slug.document,
        document(vec![leading(
            allow("QueryIndex", &["Query"], &[&format!("{table}/index/GSI2")]),
            &["#SLUG_*"],
            &[]
        )])
    );
    assert!(slug.notes[0].starts_with("not scoped"), "{:?}", slug.notes);
    assert!(slug.description.ends_with("; NOT scoped to one tenant"));
    let search = named(&policies, "ProjectsProjectSearchByEmbedding");
    assert_eq!(
        search.document,
        document(vec![allow(
            "SearchVectors",
            &["SearchVectors"],
            &[&format!("{table}/index/byEmbedding")]
        )])
    );
    assert!(search.notes[0].starts_with("not scoped"));
}

#[test]
fn without_scopes_the_same_design_is_open() {
    let policies = project_policies(&IamOptions::new()).unwrap();
    let text: String = policies.iter().map(IamPolicy::to_json).collect();
    assert!(!text.contains("\"Condition\""), "{text}");
    let read = &policies[0].document["Statement"];
    assert_eq!(read[2]["Sid"], "SearchVectors");
    assert_eq!(policies.len(), scoped().len());
}

/// Every statement of every document of the fixtures.
fn all_statements() -> Vec<Value> {
    let mut policies = app_policies();
    policies.extend(scoped());
    policies.extend(project_policies(&IamOptions::new()).unwrap());
    policies
        .iter()
        .flat_map(|p| p.document["Statement"].as_array().unwrap().clone())
        .collect()
}

fn actions(statement: &Value) -> Vec<&str> {
    statement["Action"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().strip_prefix("dynamodb:").unwrap())
        .collect()
}

#[test]
fn leading_keys_only_on_actions_that_support_them() {
    let mut conditioned = 0;
    for s in all_statements() {
        if s["Condition"]["ForAllValues:StringLike"]
            .get("dynamodb:LeadingKeys")
            .is_some()
        {
            conditioned += 1;
            assert_eq!(s["Effect"], "Allow");
            for action in actions(&s) {
                assert!(LEADING_KEYS.contains(&action), "{action} in {s}");
            }
            assert_eq!(s["Condition"]["Null"]["dynamodb:LeadingKeys"], "false");
        }
    }
    assert!(conditioned > 10);
}

#[test]
fn index_arns_only_for_index_actions() {
    for s in all_statements() {
        let on_index = s["Resource"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r.as_str().unwrap().contains("/index/"));
        if on_index {
            for action in actions(&s) {
                assert!(ON_INDEX.contains(&action), "{action} in {s}");
            }
        }
        let sid = s["Sid"].as_str().unwrap();
        assert!(sid.chars().all(|c| c.is_ascii_alphanumeric()), "{sid}");
    }
}

#[test]
fn documents_are_deterministic_json() {
    let a: Vec<String> = scoped().iter().map(IamPolicy::to_json).collect();
    let b: Vec<String> = scoped().iter().map(IamPolicy::to_json).collect();
    assert_eq!(a, b);
    assert!(
        a[0].starts_with(
            "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n    {\n      \"Sid\""
        ),
        "{}",
        a[0]
    );
    let parsed: Value = serde_json::from_str(&a[0]).unwrap();
    assert_eq!(parsed, scoped()[0].document);
}

/// A one-facet design of `schema`, scoped by `scopes`.
fn one(schema: &'static FacetSchema, scopes: &[IamScope<'_>]) -> Result<Vec<IamPolicy>, IamError> {
    let facets = [FacetDesign::new(schema, &[])];
    iam_policies(
        &TableDesign::new("t", &facets),
        &IamOptions::new().scoped(scopes),
    )
}

#[test]
fn scopes_that_cannot_apply_are_refused() {
    let err = project_policies(&IamOptions::new().scoped(&[IamScope::new("tenant", "t")]));
    assert_eq!(
        err.unwrap_err(),
        IamError::UnusedScope {
            field: "tenant".into()
        }
    );
    let err = project_policies(&IamOptions::new().scoped(&[IamScope::new("team", "a}b")]));
    assert!(matches!(err.unwrap_err(), IamError::InvalidTag { .. }));
    // `owner` follows `team` in the owner index's key: not its first value.
    let err = project_policies(&IamOptions::new().scoped(&[IamScope::new("owner", "o")]));
    let err = err.unwrap_err();
    assert_eq!(
        err,
        IamError::ScopeNotLeading {
            facet: "PROJECT",
            index: Some("GSI1"),
            field: "owner",
            after: "team",
            key: "#OWNER_{team}_{owner}".into()
        }
    );
    assert!(
        err.to_string()
            .starts_with("facet `PROJECT`'s partition key of index `GSI1`"),
        "{err}"
    );
}

const NATIVE: FacetSchema = FacetSchema {
    name: "DOC",
    delimiter: "_",
    pk: fixtures::key(PK, "#DOC", &["docId"], &[false]),
    sk: fixtures::key(SK, "#DOC", &[], &[]),
    indexes: &[IndexSchema {
        kind: IndexKind::Global,
        number: 1,
        name: "GSI1",
        alias: None,
        pk: fixtures::key("", "", &["team"], &[false]),
        sk: None,
        projection: IndexProjection::All,
        sparse: false,
        native: Some(NativeKeys {
            pk: &[KeyAttribute::text("team")],
            sk: &[],
        }),
    }],
    ttl_field: None,
    unique: &[],
    vectors: &[],
};

#[test]
fn native_index_keys_cannot_be_scoped() {
    assert_eq!(
        one(&NATIVE, &TEAM).unwrap_err(),
        IamError::NativeIndex {
            facet: "DOC",
            index: "GSI1",
            field: "team"
        }
    );
    // Unscoped, it is granted whole.
    let policies = one(&NATIVE, &[]).unwrap();
    assert_eq!(
        policies[0].document["Statement"][1]["Resource"],
        json!([format!("{ANY}/t/index/GSI1")])
    );
}

const WIDE: FacetSchema = FacetSchema {
    pk: KeySchema {
        shard: Some(ShardSchema {
            count: 64,
            fields: &["eventId"],
            schedule: &[],
            time_field: None,
        }),
        ..fixtures::EVENT.pk
    },
    ..fixtures::EVENT
};

const LOOSE: FacetSchema = FacetSchema {
    name: "LOOSE",
    pk: fixtures::key(PK, "#TEAM", &["team", "id"], &[true, false]),
    ..fixtures::PLAN
};

#[test]
fn shards_and_optional_scopes_are_bounded() {
    assert_eq!(
        one(&WIDE, &TEAM).unwrap_err(),
        IamError::TooManyShards {
            facet: "EVENT",
            index: None,
            shards: 64,
            max: MAX_SCOPED_SHARDS
        }
    );
    assert!(one(&WIDE, &[]).is_ok());
    assert_eq!(
        one(&LOOSE, &TEAM).unwrap_err(),
        IamError::OptionalScope {
            facet: "LOOSE",
            index: None,
            field: "team"
        }
    );
}

const BARE: FacetSchema = FacetSchema {
    name: "BARE",
    pk: KeySchema {
        no_prefix: true,
        ..fixtures::key(PK, "", &["a", "b"], &[false, false])
    },
    indexes: &[],
    ..fixtures::PLAN
};

#[test]
fn open_partitions_that_match_scoped_ones_are_refused() {
    let facets = [
        FacetDesign::new(&fixtures::PROJECT, &[]),
        FacetDesign::new(&BARE, &[]),
    ];
    let design = TableDesign::new("projects", &facets);
    let err = iam_policies(&design, &IamOptions::new().scoped(&TEAM)).unwrap_err();
    assert_eq!(
        err,
        IamError::Overlap {
            resource: "table `projects`".into(),
            facet: "PROJECT",
            pattern: "#TEAM_${aws:PrincipalTag/team}".into(),
            other: "BARE",
            other_pattern: "*".into()
        }
    );
    // Unscoped, nothing is at risk.
    assert!(iam_policies(&design, &IamOptions::new()).is_ok());
    // An open facet reading a bound facet's index partitions that no scope keys.
    let facets = [
        FacetDesign::new(&fixtures::PROJECT, &[]),
        FacetDesign::new(&ALIAS, &[]),
    ];
    let design = TableDesign::new("projects", &facets);
    let err = iam_policies(&design, &IamOptions::new().scoped(&TEAM)).unwrap_err();
    assert_eq!(
        err,
        IamError::Overlap {
            resource: "index `GSI2`".into(),
            facet: "PROJECT",
            pattern: "#SLUG_*".into(),
            other: "ALIAS",
            other_pattern: "#SLUG_*".into()
        }
    );
    assert!(
        err.to_string()
            .starts_with("on index `GSI2`, facet `PROJECT`"),
        "{err}"
    );
}

const ALIAS: FacetSchema = FacetSchema {
    name: "ALIAS",
    indexes: &[IndexSchema {
        kind: IndexKind::Global,
        number: 2,
        name: "GSI2",
        alias: None,
        pk: fixtures::key("GSI2PK", "#SLUG", &["alias"], &[false]),
        sk: None,
        projection: IndexProjection::All,
        sparse: false,
        native: None,
    }],
    ..fixtures::PLAN
};

#[test]
fn documents_longer_than_iam_allows_are_refused() {
    let facets: Vec<FacetDesign<'static>> = (0..6)
        .map(|i| {
            let name: &'static str = Box::leak(format!("EVENT{i}").into_boxed_str());
            let schema = FacetSchema {
                name,
                pk: KeySchema {
                    prefix: name,
                    shard: Some(ShardSchema {
                        count: 32,
                        fields: &["eventId"],
                        schedule: &[],
                        time_field: None,
                    }),
                    ..fixtures::EVENT.pk
                },
                ..fixtures::EVENT
            };
            FacetDesign::new(Box::leak(Box::new(schema)), &[])
        })
        .collect();
    let design = TableDesign::new("big", &facets);
    let options = IamOptions::new().scoped(&TEAM);
    let err = iam_policies(&design, &options).unwrap_err();
    assert!(
        matches!(&err, IamError::TooLarge { policy, limit: 6144, .. } if policy == "BigReadOnly"),
        "{err}"
    );
    assert_eq!(cloudformation_with_policies(&design, &options), Err(err));
}

#[test]
fn the_template_attaches_every_policy() {
    let facets = fixtures::projects();
    let design = TableDesign::new("projects", &facets).with_stream(StreamView::KeysOnly);
    let options = IamOptions::new().scoped(&TEAM);
    let text = cloudformation_with_policies(&design, &options).unwrap();
    let template: Value = serde_json::from_str(&text).unwrap();
    let plain: Value =
        serde_json::from_str(&crate::design::cloudformation::cloudformation(&design)).unwrap();
    assert_eq!(
        template["Resources"]["Projects"],
        plain["Resources"]["Projects"]
    );
    assert_eq!(template["Description"], plain["Description"]);
    let policies = iam_policies(&design, &options).unwrap();
    let resources = template["Resources"].as_object().unwrap();
    assert_eq!(resources.len(), policies.len() + 1);
    for p in &policies {
        let r = &resources[&p.name];
        assert_eq!(r["Type"], "AWS::IAM::ManagedPolicy");
        assert_eq!(r["Properties"]["Description"], p.description.as_str());
        let roles = format!("{}Roles", p.name);
        let has_roles = format!("{}HasRoles", p.name);
        assert_eq!(
            r["Properties"]["Roles"],
            json!({"Fn::If": [has_roles, {"Ref": roles}, {"Ref": "AWS::NoValue"}]})
        );
        assert_eq!(template["Parameters"][&roles]["Type"], "CommaDelimitedList");
        assert_eq!(template["Parameters"][&roles]["Default"], "");
        assert!(template["Conditions"][&has_roles].is_object());
        assert_eq!(
            template["Outputs"][format!("{}Arn", p.name)]["Value"],
            json!({"Ref": p.name})
        );
        // The same statements, the ARNs referring to the table.
        let cfn = r["Properties"]["PolicyDocument"]["Statement"]
            .as_array()
            .unwrap();
        let concrete = p.document["Statement"].as_array().unwrap();
        assert_eq!(cfn.len(), concrete.len());
        for (c, s) in cfn.iter().zip(concrete) {
            assert_eq!(c["Condition"], s["Condition"]);
            assert_eq!(c["Action"], s["Action"]);
        }
    }
    let writer = &resources["ProjectsWriter"]["Properties"]["PolicyDocument"]["Statement"];
    assert_eq!(
        writer[0]["Resource"],
        json!([{"Fn::GetAtt": ["Projects", "Arn"]}])
    );
    assert_eq!(
        writer[1]["Resource"],
        json!([{"Fn::Sub": "${Projects.Arn}/index/GSI1"}])
    );
    let ops = &resources["ProjectsOperations"]["Properties"]["PolicyDocument"]["Statement"];
    assert_eq!(
        ops[3]["Resource"],
        json!([{"Fn::Sub": "${Projects.Arn}/stream/*"}])
    );
    // Tags stay plain strings, outside any Fn::Sub.
    assert!(text.contains("\"#TEAM_${aws:PrincipalTag/team}\""));
    assert!(!text.contains("${!"));
}
