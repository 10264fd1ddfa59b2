//! Applying declared settings ([`crate::settings`]) to a live table, and finding those it
//! lacks.

mod compare;
pub(crate) mod live;
pub(crate) mod request;

use aws_sdk_dynamodb::operation::update_table::builders::UpdateTableInputBuilder;
use aws_sdk_dynamodb::types::GlobalSecondaryIndexUpdate;
use faceteer_core::settings::{
    global_indexes, Capacity, Recovery, Refused, Setting, TableSettings,
};

pub(crate) use compare::{mismatches, Mismatch};

use super::wait::wait_until_active;
use crate::error::{Error, Result};
use crate::exec::sdk;
use crate::table::Table;

/// What [`Table::apply_settings`] did, setting by setting.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[must_use = "check `is_complete()` or the refused settings"]
pub struct SettingsReport {
    /// Settings the table lacked and now has.
    pub applied: Vec<Setting>,
    /// Declared settings the table already had.
    pub unchanged: Vec<Setting>,
    /// Settings the engine refused, or accepted without putting in effect.
    pub refused: Vec<Refused>,
}

impl SettingsReport {
    /// Whether the table now has every declared setting.
    pub fn is_complete(&self) -> bool {
        self.refused.is_empty()
    }
}

impl std::fmt::Display for SettingsReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |s: &[Setting]| {
            if s.is_empty() {
                "none".to_owned()
            } else {
                s.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        writeln!(f, "applied: {}", list(&self.applied))?;
        writeln!(f, "unchanged: {}", list(&self.unchanged))?;
        for r in &self.refused {
            writeln!(f, "refused: {r}")?;
        }
        Ok(())
    }
}

/// Every setting `settings` declares, in the order they are applied.
fn declared(
    settings: &TableSettings,
    facets: &[&faceteer_core::schema::FacetSchema],
) -> Vec<Setting> {
    let mut out = Vec::new();
    if let Some(c) = settings.capacity {
        out.push(Setting::BillingMode);
        out.push(match c {
            Capacity::Provisioned { .. } => Setting::ProvisionedThroughput,
            Capacity::OnDemand { .. } => Setting::OnDemandMaximum,
        });
    }
    if settings.point_in_time_recovery.is_some() {
        out.push(Setting::PointInTimeRecovery);
    }
    if settings.deletion_protection.is_some() {
        out.push(Setting::DeletionProtection);
    }
    if settings.encryption.is_some() {
        out.push(Setting::Encryption);
    }
    if settings.table_class.is_some() {
        out.push(Setting::TableClass);
    }
    if !settings.tags.is_empty() {
        out.push(Setting::Tags);
    }
    if settings.warm_throughput.is_some() {
        out.push(Setting::WarmThroughput);
    }
    for index in global_indexes(facets) {
        if settings.index_capacity(index).is_some() {
            out.push(Setting::IndexCapacity(index));
        }
        if settings
            .index(index)
            .and_then(|i| i.warm_throughput)
            .is_some()
        {
            out.push(Setting::IndexWarmThroughput(index));
        }
    }
    out
}

impl Table {
    /// Change the live table to its declared settings ([`crate::settings`]): each setting
    /// it lacks is changed by its own request (`UpdateTable`, one change per call, waiting
    /// until the table is active again; `UpdateContinuousBackups`; `TagResource` and
    /// `UntagResource` for the declared tags' keys), then the table is read again.
    ///
    /// Settings the table does not declare are left as they are, and so are other tags.
    /// Warm throughput is only raised. An auto scaled capacity within its ranges is left
    /// to auto scaling. Switching to provisioned capacity sets every global index's
    /// capacity in the same request (the declared one, else the table's); after a switch of
    /// billing mode, what the new mode still lacks (an index's maximum) is changed next.
    ///
    /// The report names each setting applied, already in place, or refused (the engine's
    /// answer, or what the table has instead when it accepted a change without putting it
    /// in effect). A failure that is not a refusal (the network, a deadline) is an error.
    ///
    /// # Errors
    /// [`Error::Settings`] when the settings break DynamoDB's rules, [`Error::TableSetup`]
    /// when the table has no declared facets, and the error of a request that failed
    /// without an answer.
    pub async fn apply_settings(&self) -> Result<SettingsReport> {
        let facets = self.declared_facets(" to apply its settings to")?;
        let settings = *self.settings();
        settings.check(facets)?;
        let names = *self.names();
        let before = live::read(self, &settings).await?;
        let lacking = mismatches(&settings, facets, &names, &before);
        let mut report = SettingsReport::default();
        let mut sent = Vec::new();
        self.send_changes(&settings, facets, &lacking, &before, &mut sent, &mut report)
            .await?;
        // After a switch of billing mode, what the new mode still lacks (an index's
        // maximum, a capacity the switch did not carry) is changed in a second pass.
        let switched = sent.contains(&Setting::BillingMode);
        if switched {
            let middle = live::read(self, &settings).await?;
            let rest: Vec<Mismatch> = mismatches(&settings, facets, &names, &middle)
                .into_iter()
                .filter(|m| !sent.contains(&m.setting))
                .filter(|m| !report.refused.iter().any(|r| r.setting == m.setting))
                .collect();
            self.send_changes(&settings, facets, &rest, &middle, &mut sent, &mut report)
                .await?;
        }
        let after = live::read(self, &settings).await?;
        let still = mismatches(&settings, facets, &names, &after);
        for setting in declared(&settings, facets) {
            if report.refused.iter().any(|r| r.setting == setting) {
                continue;
            }
            let capacity = matches!(
                setting,
                Setting::ProvisionedThroughput
                    | Setting::OnDemandMaximum
                    | Setting::IndexCapacity(_)
            );
            if let Some(m) = still.iter().find(|m| m.setting == setting) {
                report.refused.push(Refused {
                    setting,
                    why: not_in_effect(m),
                });
            } else if sent.contains(&setting)
                || lacking.iter().any(|m| m.setting == setting)
                || (switched && capacity)
            {
                report.applied.push(setting);
            } else {
                report.unchanged.push(setting);
            }
        }
        Ok(report)
    }

    /// Send the change of each setting of `lacking`, recording what was sent and what the
    /// engine refused.
    async fn send_changes(
        &self,
        settings: &TableSettings,
        facets: &[&faceteer_core::schema::FacetSchema],
        lacking: &[Mismatch],
        live: &live::Live,
        sent: &mut Vec<Setting>,
        report: &mut SettingsReport,
    ) -> Result<()> {
        for m in lacking {
            // A switch of billing mode carries the table's capacity (and, to provisioned,
            // every index's).
            let carried = matches!(
                m.setting,
                Setting::ProvisionedThroughput
                    | Setting::OnDemandMaximum
                    | Setting::IndexCapacity(_)
            ) && sent.contains(&Setting::BillingMode);
            if carried || sent.contains(&m.setting) {
                continue;
            }
            match self.change(settings, facets, m.setting, live).await? {
                Ok(()) => sent.push(m.setting),
                Err(e) => report.refused.push(Refused {
                    setting: m.setting,
                    why: live::refusal(e)?,
                }),
            }
        }
        Ok(())
    }

    /// Send the one change that gives the table `setting`, and wait until the table is
    /// active again: `Ok(Err(_))` when the engine refused the change, `Err(_)` when the
    /// wait failed after it was accepted.
    async fn change(
        &self,
        settings: &TableSettings,
        facets: &[&faceteer_core::schema::FacetSchema],
        setting: Setting,
        live: &live::Live,
    ) -> Result<Result<()>> {
        let names = *self.names();
        let update = UpdateTableInputBuilder::default();
        let update = match setting {
            Setting::BillingMode | Setting::ProvisionedThroughput | Setting::OnDemandMaximum => {
                let Some(capacity) = settings.capacity else {
                    return Ok(Ok(()));
                };
                let mut update = update.billing_mode(request::billing(&capacity));
                match capacity {
                    Capacity::Provisioned { units, .. } => {
                        update = update.provisioned_throughput(request::provisioned(units)?);
                        if setting == Setting::BillingMode {
                            // DynamoDB refuses the switch unless every index of the table
                            // gets capacity: the declared one, else the table's.
                            for index in live.description.global_secondary_indexes() {
                                let Some(live_name) = index.index_name() else {
                                    continue;
                                };
                                let declared = global_indexes(facets)
                                    .into_iter()
                                    .find(|i| names.index_name(i) == live_name);
                                let capacity = declared
                                    .and_then(|i| settings.index_capacity(i))
                                    .unwrap_or(capacity);
                                update = update.global_secondary_index_updates(index_update(
                                    live_name, &capacity,
                                )?);
                            }
                        }
                    }
                    Capacity::OnDemand { max } => {
                        if max.is_some() || setting == Setting::OnDemandMaximum {
                            update = update.on_demand_throughput(request::maximum(max));
                        }
                    }
                }
                update
            }
            Setting::PointInTimeRecovery => {
                let (on, days) = match settings.point_in_time_recovery {
                    Some(Recovery::On { days }) => (true, Some(i32::from(days))),
                    _ => (false, None),
                };
                return Ok(set_recovery(self, on, days).await);
            }
            Setting::DeletionProtection => {
                update.deletion_protection_enabled(settings.deletion_protection.unwrap_or(false))
            }
            Setting::Encryption => match settings.encryption {
                Some(e) => update.sse_specification(request::sse(e)),
                None => return Ok(Ok(())),
            },
            Setting::TableClass => match settings.table_class {
                Some(c) => update.table_class(request::class(c)),
                None => return Ok(Ok(())),
            },
            Setting::WarmThroughput => match settings.warm_throughput {
                Some(w) => update.warm_throughput(request::warm(w)),
                None => return Ok(Ok(())),
            },
            Setting::Tags => return Ok(self.apply_tags(settings, live).await),
            Setting::IndexCapacity(index) => {
                let capacity = settings.index_capacity(index);
                request::update_index(names.index_name(index), capacity.as_ref(), None)?
            }
            Setting::IndexWarmThroughput(index) => {
                let warm = settings.index(index).and_then(|i| i.warm_throughput);
                request::update_index(names.index_name(index), None, warm)?
            }
            _ => return Ok(Ok(())),
        };
        if let Err(refused) = sdk::update_table(self, update).await {
            return Ok(Err(refused));
        }
        wait_until_active(self).await.map(Ok)
    }

    /// Replace the tags whose declared value differs, add the missing ones.
    async fn apply_tags(&self, settings: &TableSettings, live: &live::Live) -> Result<()> {
        let arn = live.description.table_arn().unwrap_or_default();
        let found = match &live.tags {
            Some(Ok(t)) => t.clone(),
            _ => Vec::new(),
        };
        // Removed first: an engine that appends a tag of an existing key would keep both.
        let changed: Vec<&str> = settings
            .tags
            .iter()
            .filter(|(k, v)| found.iter().any(|(fk, fv)| fk == k && fv != v))
            .map(|(k, _)| *k)
            .collect();
        if !changed.is_empty() {
            sdk::untag_resource(self, arn, &changed).await?;
        }
        let missing: Vec<(&str, &str)> = settings
            .tags
            .iter()
            .filter(|(k, v)| !found.iter().any(|(fk, fv)| fk == k && fv == v))
            .copied()
            .collect();
        sdk::tag_resource(self, arn, &missing).await
    }
}

/// UpdateContinuousBackups, tried again while DynamoDB answers that backups are still being
/// enabled for a new table (`ContinuousBackupsUnavailableException`), for up to five
/// minutes.
pub(crate) async fn set_recovery(table: &Table, on: bool, days: Option<i32>) -> Result<()> {
    let started = std::time::Instant::now();
    let mut attempt: u32 = 0;
    loop {
        match sdk::update_continuous_backups(table, on, days).await {
            Err(Error::Dynamo(d))
                if d.code() == Some("ContinuousBackupsUnavailableException")
                    && started.elapsed() < std::time::Duration::from_secs(300) =>
            {
                let pause = 500u64.saturating_mul(1 << attempt.min(5)).min(15_000);
                tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// A provisioned index's capacity in a switch to provisioned billing.
fn index_update(index: &str, capacity: &Capacity) -> Result<GlobalSecondaryIndexUpdate> {
    let Capacity::Provisioned { units, .. } = capacity else {
        return Err(Error::TableSetup(format!(
            "index {index} of a provisioned table needs provisioned capacity"
        )));
    };
    let action = aws_sdk_dynamodb::types::UpdateGlobalSecondaryIndexAction::builder()
        .index_name(index)
        .provisioned_throughput(request::provisioned(*units)?)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))?;
    Ok(GlobalSecondaryIndexUpdate::builder().update(action).build())
}

/// What a setting the engine accepted but did not put in effect reads as.
pub(crate) fn not_in_effect(m: &Mismatch) -> String {
    format!(
        "accepted, but the table has {} (declared: {})",
        m.found, m.expected
    )
}
