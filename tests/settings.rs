//! Table settings: created with the table, checked by `verify`, changed on a live table by
//! `apply_settings`, and reported by name when an engine does not serve them.

use crate::common::*;
use faceteer::admin::Difference;
use faceteer::settings::{
    AutoScaling, Capacity, Encryption, IndexSettings, Recovery, ScalingRange, Setting,
    SettingsError, TableClass, TableSettings, Throughput,
};
use faceteer::{Error, Table, TableSchema};
use faceteer_suite::Engine;

const KEY: &str = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";

faceteer::table! {
    /// Provisioned and auto scaled, protected, tagged, encrypted with a customer key.
    pub struct Guarded { Note, Event }
    settings = TableSettings::DEFAULT
        .capacity(Capacity::provisioned(5, 5).auto_scaled(AutoScaling {
            read: ScalingRange { min: 1, max: 50 },
            write: ScalingRange { min: 1, max: 20 },
            target_percent: 70,
        }))
        .indexes(&[IndexSettings::new("GSI2").capacity(Capacity::provisioned(2, 1))])
        .deletion_protection(true)
        .encryption(Encryption::CustomerKey(KEY))
        .tags(&[("team", "notes"), ("env", "test")]);
}

faceteer::table! {
    /// Every setting some local engine does not serve.
    pub struct Demanding { Note }
    settings = TableSettings::DEFAULT
        .capacity(Capacity::on_demand_up_to(Throughput::new(800, 200)))
        .point_in_time_recovery(Recovery::On { days: 7 })
        .table_class(TableClass::InfrequentAccess)
        .warm_throughput(Throughput::new(13_000, 4_500));
}

faceteer::table! {
    /// Nothing declared: on demand.
    pub struct Plain { Note }
}

fn setting_differences(differences: &[Difference]) -> Vec<Setting> {
    differences
        .iter()
        .filter_map(|d| match d {
            Difference::Setting { setting, .. } => Some(*setting),
            _ => None,
        })
        .collect()
}

async fn new_table<S: TableSchema>(label: &str) -> Table {
    faceteer_suite::patient(Table::declared::<S>(
        faceteer_suite::client().await,
        faceteer_suite::unique_name(label),
    ))
}

async fn a_table_is_created_with_its_settings_and_protected() {
    let table = new_table::<Guarded>("settings-guarded").await;
    table.create_table().await.unwrap();
    let v = table.verify().await.unwrap();
    assert!(v.is_ok(), "{:?}", v.differences);
    let live = describe(&table).await;
    let billing = live.billing_mode_summary().and_then(|b| b.billing_mode());
    assert!(
        billing.is_none_or(|b| b.as_str() == "PROVISIONED"),
        "{billing:?}"
    );
    let pt = live.provisioned_throughput().unwrap();
    assert_eq!(
        (pt.read_capacity_units(), pt.write_capacity_units()),
        (Some(5), Some(5))
    );
    assert_eq!(live.deletion_protection_enabled(), Some(true));
    for index in live.global_secondary_indexes() {
        let pt = index.provisioned_throughput().unwrap();
        let expected = if index.index_name() == Some("GSI2") {
            (2, 1)
        } else {
            (5, 5)
        };
        assert_eq!(
            (
                pt.read_capacity_units().unwrap(),
                pt.write_capacity_units().unwrap()
            ),
            expected,
            "{index:?}"
        );
    }
    // Protected: DynamoDB refuses to delete it.
    let refused = table.delete_table().await.unwrap_err();
    assert!(refused.to_string().contains("DeleteTable"), "{refused}");
    assert!(describe_exists(&table).await);

    // Declared otherwise: verify names each setting, apply_settings changes exactly those.
    const CHANGED: TableSettings = TableSettings::DEFAULT
        .capacity(Capacity::provisioned(5, 5).auto_scaled(AutoScaling {
            read: ScalingRange { min: 1, max: 50 },
            write: ScalingRange { min: 1, max: 20 },
            target_percent: 70,
        }))
        .indexes(&[IndexSettings::new("GSI2").capacity(Capacity::provisioned(2, 1))])
        .deletion_protection(false)
        .tags(&[("team", "notes-2"), ("owner", "ops")]);
    let table = table.with_settings(CHANGED).unwrap();
    let v = table.verify().await.unwrap();
    assert_eq!(
        setting_differences(&v.differences),
        [Setting::DeletionProtection, Setting::Tags],
        "{:?}",
        v.differences
    );
    let report = table.apply_settings().await.unwrap();
    assert!(report.is_complete(), "{report}");
    assert_eq!(report.applied, [Setting::DeletionProtection, Setting::Tags]);
    assert_eq!(
        report.unchanged,
        [
            Setting::BillingMode,
            Setting::ProvisionedThroughput,
            Setting::IndexCapacity("GSI1"),
            Setting::IndexCapacity("GSI2")
        ]
    );
    let v = table.verify().await.unwrap();
    assert!(v.is_ok(), "{:?}", v.differences);
    // Each key once, with its new value; the undeclared `env` is left alone.
    let mut tags = tags_of(&table).await;
    tags.sort();
    assert_eq!(
        tags,
        [
            ("env".to_owned(), "test".to_owned()),
            ("owner".to_owned(), "ops".to_owned()),
            ("team".to_owned(), "notes-2".to_owned())
        ]
    );
    // Applying again changes nothing.
    let again = table.apply_settings().await.unwrap();
    assert!(again.applied.is_empty() && again.is_complete(), "{again}");
    table.delete_table().await.unwrap();
}

async fn describe_exists(table: &Table) -> bool {
    table
        .client()
        .describe_table()
        .table_name(table.name())
        .send()
        .await
        .is_ok()
}

async fn tags_of(table: &Table) -> Vec<(String, String)> {
    let arn = describe(table).await.table_arn().unwrap().to_owned();
    let mut out = Vec::new();
    let mut next = None;
    loop {
        let page = table
            .client()
            .list_tags_of_resource()
            .resource_arn(&arn)
            .set_next_token(next)
            .send()
            .await
            .unwrap();
        out.extend(
            page.tags()
                .iter()
                .map(|t| (t.key().to_owned(), t.value().to_owned())),
        );
        match page.next_token {
            Some(t) if !t.is_empty() => next = Some(t),
            _ => return out,
        }
    }
}

async fn a_live_table_switches_to_provisioned_with_its_indexes() {
    let table = new_table::<Plain>("settings-switch").await;
    table.create_table().await.unwrap();
    const PROVISIONED: TableSettings = TableSettings::DEFAULT.capacity(Capacity::provisioned(3, 2));
    let table = table.with_settings(PROVISIONED).unwrap();
    let v = table.verify().await.unwrap();
    assert_eq!(setting_differences(&v.differences), [Setting::BillingMode]);
    let report = table.apply_settings().await.unwrap();
    assert_eq!(
        report.applied.first(),
        Some(&Setting::BillingMode),
        "{report}"
    );
    let live = describe(&table).await;
    let pt = live.provisioned_throughput().unwrap();
    assert_eq!(
        (pt.read_capacity_units(), pt.write_capacity_units()),
        (Some(3), Some(2))
    );
    // Every index got the table's capacity in the same request. The embedded engine
    // accepts index capacity without storing it: reported by name, not as applied.
    let indexes: Vec<String> = live
        .global_secondary_indexes()
        .iter()
        .map(|i| i.index_name().unwrap().to_owned())
        .collect();
    assert_eq!(indexes.len(), 2);
    match faceteer_suite::engine() {
        Engine::Moto => {
            assert!(report.is_complete(), "{report}");
            for index in live.global_secondary_indexes() {
                let pt = index.provisioned_throughput().unwrap();
                assert_eq!(
                    (pt.read_capacity_units(), pt.write_capacity_units()),
                    (Some(3), Some(2)),
                    "{index:?}"
                );
            }
        }
        Engine::Embedded => {
            let refused: Vec<Setting> = report.refused.iter().map(|r| r.setting).collect();
            assert_eq!(
                refused,
                [
                    Setting::IndexCapacity("GSI1"),
                    Setting::IndexCapacity("GSI2")
                ],
                "{report}"
            );
            assert!(
                report.refused[0]
                    .why
                    .starts_with("accepted, but the table has 0 read, 0 write"),
                "{report}"
            );
        }
    }
    table.delete_table().await.unwrap();
}

async fn settings_an_engine_does_not_serve_are_reported_by_name() {
    let table = new_table::<Demanding>("settings-refused").await;
    let refused = match table.create_table().await {
        Err(Error::SettingsRefused { refused, table: t }) => {
            assert_eq!(t, table.name());
            refused
        }
        other => panic!("expected refused settings, got {other:?}"),
    };
    let mut names: Vec<Setting> = refused.iter().map(|r| r.setting).collect();
    names.sort();
    let expected = match faceteer_suite::engine() {
        // The embedded engine has no point-in-time recovery and ignores warm throughput.
        Engine::Embedded => vec![Setting::PointInTimeRecovery, Setting::WarmThroughput],
        // moto ignores on-demand maximums and table classes.
        Engine::Moto => vec![Setting::OnDemandMaximum, Setting::TableClass],
    };
    assert_eq!(names, expected, "{refused:?}");
    let text = Error::SettingsRefused {
        table: "t".into(),
        refused: refused.clone(),
    }
    .to_string();
    for r in &refused {
        assert!(text.contains(&r.setting.to_string()), "{text}");
    }
    // The table exists with the rest; verify names the same settings.
    let v = table.verify().await.unwrap();
    let mut differing = setting_differences(&v.differences);
    differing.sort();
    assert_eq!(differing, expected, "{:?}", v.differences);
    // apply_settings tries them again and reports them refused, not applied.
    let report = table.apply_settings().await.unwrap();
    let mut again: Vec<Setting> = report.refused.iter().map(|r| r.setting).collect();
    again.sort();
    assert_eq!(again, expected, "{report}");
    assert!(!report.is_complete());
    assert!(report.unchanged.contains(&Setting::BillingMode), "{report}");
    table.delete_table().await.unwrap();
}

faceteer_suite::engines!(
    a_table_is_created_with_its_settings_and_protected,
    a_live_table_switches_to_provisioned_with_its_indexes,
    settings_an_engine_does_not_serve_are_reported_by_name,
);

#[test]
fn settings_breaking_dynamodb_rules_are_refused_before_sending() {
    let table = Table::new(faceteer::local_client("http://127.0.0.1:1").unwrap(), "t");
    const LONG: TableSettings =
        TableSettings::DEFAULT.point_in_time_recovery(Recovery::On { days: 40 });
    match table.clone().with_settings(LONG) {
        Err(Error::Settings(SettingsError::RecoveryPeriod { days: 40 })) => {}
        other => panic!("{other:?}"),
    }
    let declared =
        Table::declared::<Plain>(faceteer::local_client("http://127.0.0.1:1").unwrap(), "t");
    const UNKNOWN: TableSettings = TableSettings::DEFAULT
        .indexes(&[IndexSettings::new("GSI9").warm_throughput(Throughput::new(12_000, 4_000))]);
    match declared.with_settings(UNKNOWN) {
        Err(Error::Settings(SettingsError::UnknownIndex { index: "GSI9" })) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(Plain::SETTINGS, TableSettings::DEFAULT);
    assert!(Guarded::SETTINGS.is_provisioned());
}
