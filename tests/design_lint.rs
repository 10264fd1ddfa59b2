//! The infrastructure exports, checked by the linters AWS users run: every IAM policy
//! document lints clean with parliament, and every CloudFormation template — with the
//! table's settings, its auto scaling and its policies attached — with cfn-lint.
//! The linters are installed once by `scripts/ensure-lint.sh` (PyPI, pinned).

use std::path::{Path, PathBuf};
use std::process::Command;

use faceteer::design::{
    cloudformation, cloudformation_with_policies, iam_policies, IamOptions, IamScope, IamTarget,
    StreamView,
};
use faceteer::settings::{
    AutoScaling, Capacity, Encryption, IndexSettings, Recovery, ScalingRange, TableClass,
    TableSettings, Throughput,
};
use faceteer::TableSchema;
use faceteer_suite::catalogue::Task;

use crate::examples::tasks;

faceteer::table! {
    /// The README's tasks, every setting declared.
    pub struct Settled { Task }
    settings = TableSettings::DEFAULT
        .capacity(Capacity::on_demand_up_to(Throughput::new(2_000, 500)))
        .point_in_time_recovery(Recovery::On { days: 14 })
        .deletion_protection(true)
        .encryption(Encryption::CustomerKey(
            "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        ))
        .table_class(TableClass::InfrequentAccess)
        .tags(&[("team", "tasks"), ("cost-center", "42")])
        .warm_throughput(Throughput::new(14_000, 4_500))
        .indexes(&[IndexSettings::new("GSI2").warm_throughput(Throughput::new(12_500, 4_000))]);
}

faceteer::table! {
    /// The README's tasks, provisioned and auto scaled.
    pub struct Scaled { Task }
    settings = TableSettings::DEFAULT
        .capacity(Capacity::provisioned(10, 5).auto_scaled(AutoScaling {
            read: ScalingRange { min: 5, max: 200 },
            write: ScalingRange { min: 5, max: 100 },
            target_percent: 70,
        }))
        .indexes(&[IndexSettings::new("GSI2").capacity(Capacity::provisioned(4, 2))]);
}

fn venv() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(root.join("scripts/ensure-lint.sh"))
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "installing the linters failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn scratch(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("faceteer-lint-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(command: &mut Command) -> (bool, String) {
    let out = command.output().expect("the linter runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// cfn-lint accepts the template.
fn cfn_lint(venv: &Path, name: &str, template: &str) {
    let dir = scratch(name);
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, template).unwrap();
    let (ok, text) = run(Command::new(venv.join("bin/cfn-lint")).arg(&path));
    assert!(ok, "cfn-lint refused {name}:\n{text}\n{template}");
}

#[test]
fn every_policy_lints_clean_and_attaches_to_the_template() {
    let venv = venv();
    // Each tenant (team) reaches only its own partitions.
    const SCOPES: [IamScope<'static>; 1] = [IamScope::new("teamId", "team")];
    let target = IamTarget::new()
        .in_region("us-east-1")
        .in_account("123456789012");
    let designs = [
        (
            "tasks",
            tasks::TasksTable::design("tasks").with_stream(StreamView::NewAndOldImages),
        ),
        ("settled", Settled::design("settled")),
    ];
    for (name, design) in designs {
        for options in [
            IamOptions::new().with_target(target),
            IamOptions::new().with_target(target).scoped(&SCOPES),
        ] {
            let policies =
                iam_policies(&design, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(policies.len() >= 3, "{name}: {policies:?}");
            let dir = scratch(&format!("{name}-{}", options.scopes.len()));
            for p in &policies {
                std::fs::write(dir.join(format!("{}.json", p.name)), p.to_json()).unwrap();
            }
            let (ok, text) = run(Command::new(venv.join("bin/python"))
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/lint_iam.py"))
                .arg(&dir));
            assert!(
                ok,
                "parliament found problems in {name}'s policies:\n{text}"
            );
            if name == "settled" {
                // The table's customer-managed key: described, and granted to DynamoDB only.
                let ops = policies
                    .iter()
                    .find(|p| p.name == "SettledOperations")
                    .unwrap();
                let text = ops.to_json();
                assert!(
                    text.contains("kms:CreateGrant") && text.contains("kms:GrantIsForAWSResource"),
                    "{text}"
                );
                assert!(
                    text.contains("arn:aws:kms:us-east-1:123456789012:key/"),
                    "{text}"
                );
            }
            if !options.scopes.is_empty() {
                let scoped = policies
                    .iter()
                    .any(|p| p.to_json().contains("dynamodb:LeadingKeys"));
                assert!(scoped, "{name}: no document is scoped");
            }
            let template = cloudformation_with_policies(&design, &options).unwrap();
            let parsed: serde_json::Value = serde_json::from_str(&template).unwrap();
            let resources = parsed["Resources"].as_object().unwrap();
            for p in &policies {
                assert_eq!(
                    resources[&p.name]["Type"], "AWS::IAM::ManagedPolicy",
                    "{name}: {}",
                    p.name
                );
            }
            cfn_lint(
                &venv,
                &format!("{name}-policies-{}", options.scopes.len()),
                &template,
            );
        }
    }
}

#[test]
fn every_settings_template_lints_clean() {
    let venv = venv();
    cfn_lint(
        &venv,
        "settled",
        &cloudformation(&Settled::design("settled")),
    );
    cfn_lint(&venv, "scaled", &cloudformation(&Scaled::design("scaled")));
    let template = cloudformation(&Scaled::design("scaled"));
    assert!(template.contains("AWS::ApplicationAutoScaling::ScalableTarget"));
    assert!(template.contains("dynamodb:index:WriteCapacityUnits"));
}
