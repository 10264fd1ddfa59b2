//! A table's settings: capacity (on demand with an optional maximum, or provisioned with
//! optional auto scaling), point-in-time recovery, deletion protection, encryption at rest,
//! table class, tags and warm throughput.
//!
//! Declare them on the table; [`Table::create_table`](crate::Table::create_table) creates it
//! with them, [`Table::apply_settings`](crate::Table::apply_settings) changes a live table to
//! them, [`Table::verify`](crate::Table::verify) reports each one the live table lacks
//! ([`Difference::Setting`](crate::admin::Difference::Setting)), and the CloudFormation and
//! Terraform exports ([`crate::design`]) write them:
//!
//! ```
//! # use faceteer::Facet;
//! # use serde::{Deserialize, Serialize};
//! use faceteer::settings::{Capacity, Recovery, TableSettings, Throughput};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # struct Task { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#TASK")] id: String }
//!
//! faceteer::table! {
//!     pub struct Tasks { Task }
//!     settings = TableSettings::DEFAULT
//!         .capacity(Capacity::on_demand_up_to(Throughput::new(1_000, 200)))
//!         .point_in_time_recovery(Recovery::ON)
//!         .deletion_protection(true)
//!         .tags(&[("team", "tasks")]);
//! }
//!
//! use faceteer::TableSchema;
//! let template = faceteer::design::cloudformation(&Tasks::design("tasks"));
//! assert!(template.contains("\"DeletionProtectionEnabled\": true"));
//! ```
//!
//! Settings the declaration breaks DynamoDB's rules with (a recovery period of 40 days, a
//! tag starting `aws:`, an index billed otherwise than its table, warm throughput below the
//! table's, …) fail compilation with the rule.
//!
//! Engines do not all serve every setting. Local engines refuse or ignore some (the
//! embedded engine has no point-in-time recovery and ignores warm throughput; moto ignores
//! table classes and on-demand maximums): `create_table` and `apply_settings` re-read the
//! table after changing it, and report by name each setting that did not take
//! ([`Refused`]), with the engine's answer.

pub use faceteer_core::settings::{
    AutoScaling, Capacity, Encryption, IndexSettings, Recovery, Refused, ScalingRange, Setting,
    SettingsError, TableClass, TableSettings, Throughput, ON_DEMAND_WARM,
};
