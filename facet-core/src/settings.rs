//! A table's settings: capacity (on demand, with a maximum, or provisioned, with auto
//! scaling), point-in-time recovery, deletion protection, encryption, table class, tags and
//! warm throughput.
//!
//! Declared once, on the table (`faceteer::table! { .. } settings = ..`, or
//! [`TableDesign::with_settings`](crate::design::TableDesign::with_settings)), they are
//! applied by `Table::create_table` and `Table::apply_settings`, checked by `Table::verify`,
//! and written into the CloudFormation and Terraform exports.
//!
//! Every setting is optional: `None` (or no tags) leaves it to DynamoDB's default at
//! creation, and to whatever the live table has afterwards — `verify` does not judge what
//! the table does not declare.
//!
//! ```
//! use faceteer_core::settings::{Capacity, Encryption, Recovery, TableClass, TableSettings, Throughput};
//!
//! const SETTINGS: TableSettings = TableSettings::DEFAULT
//!     .capacity(Capacity::on_demand_up_to(Throughput::new(2_000, 500)))
//!     .point_in_time_recovery(Recovery::On { days: 14 })
//!     .deletion_protection(true)
//!     .encryption(Encryption::CustomerKey("arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"))
//!     .table_class(TableClass::Standard)
//!     .tags(&[("team", "payments"), ("cost-center", "42")]);
//! assert_eq!(SETTINGS.check(&[]), Ok(()));
//! ```

use crate::const_text::{same, Message};
use crate::schema::{table_indexes, FacetSchema, IndexKind};

/// Read and write units: capacity units of a provisioned table, request units of an
/// on-demand maximum, or units per second of warm throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Throughput {
    /// Read units.
    pub read: u32,
    /// Write units.
    pub write: u32,
}

impl Throughput {
    /// `read` and `write` units.
    pub const fn new(read: u32, write: u32) -> Self {
        Throughput { read, write }
    }
}

/// The bounds auto scaling keeps one dimension's provisioned capacity within.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScalingRange {
    /// The least capacity units.
    pub min: u32,
    /// The most capacity units.
    pub max: u32,
}

/// Auto scaling of a provisioned table or index (Application Auto Scaling, target
/// tracking): capacity follows consumption to keep it at `target_percent` of what is
/// provisioned, within each range.
///
/// DynamoDB's own API does not manage auto scaling: the CloudFormation and Terraform exports
/// declare the scalable targets and policies; `verify` checks that the live capacity is
/// within the ranges, and `apply_settings` leaves a scaled capacity alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AutoScaling {
    /// Read capacity bounds.
    pub read: ScalingRange,
    /// Write capacity bounds.
    pub write: ScalingRange,
    /// The utilisation to keep, in percent (20–90).
    pub target_percent: u8,
}

/// How the table (or a global index) is billed for capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Capacity {
    /// Billed per request (`PAY_PER_REQUEST`), with an optional maximum of request units per
    /// second, beyond which requests are throttled.
    OnDemand {
        /// The maximum read and write request units, if any.
        max: Option<Throughput>,
    },
    /// Provisioned capacity units (`PROVISIONED`), optionally auto scaled.
    Provisioned {
        /// The read and write capacity units (the starting point when auto scaled).
        units: Throughput,
        /// Auto scaling, if any.
        auto_scaling: Option<AutoScaling>,
    },
}

impl Capacity {
    /// On demand without a maximum.
    pub const ON_DEMAND: Capacity = Capacity::OnDemand { max: None };

    /// On demand, throttled beyond `max` request units per second.
    pub const fn on_demand_up_to(max: Throughput) -> Self {
        Capacity::OnDemand { max: Some(max) }
    }

    /// Provisioned `read` and `write` capacity units, not scaled.
    pub const fn provisioned(read: u32, write: u32) -> Self {
        Capacity::Provisioned {
            units: Throughput::new(read, write),
            auto_scaling: None,
        }
    }

    /// The same capacity, auto scaled as `scaling` says (provisioned capacity only; on
    /// demand is returned unchanged).
    pub const fn auto_scaled(self, scaling: AutoScaling) -> Self {
        match self {
            Capacity::Provisioned { units, .. } => Capacity::Provisioned {
                units,
                auto_scaling: Some(scaling),
            },
            other => other,
        }
    }

    /// DynamoDB's billing mode: `PAY_PER_REQUEST` or `PROVISIONED`.
    pub const fn billing_mode(&self) -> &'static str {
        match self {
            Capacity::OnDemand { .. } => "PAY_PER_REQUEST",
            Capacity::Provisioned { .. } => "PROVISIONED",
        }
    }
}

/// Point-in-time recovery (continuous backups).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Recovery {
    /// Off.
    Off,
    /// On, restorable to any second of the last `days` days (1–35; DynamoDB's default is 35).
    On {
        /// The recovery period in days.
        days: u8,
    },
}

impl Recovery {
    /// On, with DynamoDB's default period of 35 days.
    pub const ON: Recovery = Recovery::On { days: 35 };
}

/// Which key encrypts the table at rest.
///
/// DynamoDB describes the key by its ARN and does not say whose it is, so `verify` and
/// `apply_settings` can tell apart only what the ARN shows: a customer key given by ARN (or
/// by key id) is checked exactly; [`Encryption::AwsManaged`] and a key given by alias are
/// checked as "a KMS key", which the AWS-managed key and any customer key both are. Give
/// the ARN to have the key itself checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encryption {
    /// A key DynamoDB owns (the default; free).
    AwsOwned,
    /// The account's AWS-managed key for DynamoDB (`alias/aws/dynamodb`).
    AwsManaged,
    /// A customer-managed KMS key: its ARN, id or alias. Give the ARN where the table is
    /// checked (`verify`) or exported to Terraform: DynamoDB describes the key by ARN, and
    /// Terraform takes only an ARN.
    CustomerKey(&'static str),
}

/// The table's storage class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TableClass {
    /// `STANDARD`.
    Standard,
    /// `STANDARD_INFREQUENT_ACCESS`: cheaper storage, dearer reads and writes.
    InfrequentAccess,
}

impl TableClass {
    /// DynamoDB's name of the class.
    pub const fn as_str(self) -> &'static str {
        match self {
            TableClass::Standard => "STANDARD",
            TableClass::InfrequentAccess => "STANDARD_INFREQUENT_ACCESS",
        }
    }
}

/// The capacity and warm throughput of one global index. An index of a provisioned table
/// that declares none gets the table's provisioned capacity (and auto scaling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IndexSettings {
    /// The index, by faceteer's name (`GSI1`, …) or a native index's declared name.
    pub index: &'static str,
    /// Its capacity, in the table's billing mode.
    pub capacity: Option<Capacity>,
    /// Its warm throughput (units per second): a floor DynamoDB keeps ready.
    pub warm_throughput: Option<Throughput>,
}

impl IndexSettings {
    /// Settings of `index`, none declared yet.
    pub const fn new(index: &'static str) -> Self {
        IndexSettings {
            index,
            capacity: None,
            warm_throughput: None,
        }
    }

    /// With `capacity`.
    pub const fn capacity(mut self, capacity: Capacity) -> Self {
        self.capacity = Some(capacity);
        self
    }

    /// With `warm` units per second of warm throughput.
    pub const fn warm_throughput(mut self, warm: Throughput) -> Self {
        self.warm_throughput = Some(warm);
        self
    }
}

/// The settings of a table. Build one from [`TableSettings::DEFAULT`] with the `const`
/// methods; check it with [`TableSettings::check`] (`faceteer::table!` does, at compile
/// time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableSettings {
    /// Capacity; `None` creates the table on demand, and leaves a live table's alone.
    pub capacity: Option<Capacity>,
    /// Point-in-time recovery.
    pub point_in_time_recovery: Option<Recovery>,
    /// Deletion protection: `DeleteTable` is refused while it is on.
    pub deletion_protection: Option<bool>,
    /// Encryption at rest.
    pub encryption: Option<Encryption>,
    /// Storage class.
    pub table_class: Option<TableClass>,
    /// Tags (key, value). Only these are checked and applied: other tags of a live table
    /// are left alone.
    pub tags: &'static [(&'static str, &'static str)],
    /// Warm throughput of the table (units per second): a floor DynamoDB keeps ready. It
    /// can only be raised, and DynamoDB raises it on its own: `verify` checks that the
    /// live value is at least this.
    pub warm_throughput: Option<Throughput>,
    /// Capacity and warm throughput of global indexes.
    pub indexes: &'static [IndexSettings],
}

/// On-demand tables start with this warm throughput, the least one can declare.
pub const ON_DEMAND_WARM: Throughput = Throughput::new(12_000, 4_000);

impl Default for TableSettings {
    fn default() -> Self {
        TableSettings::DEFAULT
    }
}

impl TableSettings {
    /// Nothing declared: an on-demand table with DynamoDB's defaults.
    pub const DEFAULT: TableSettings = TableSettings {
        capacity: None,
        point_in_time_recovery: None,
        deletion_protection: None,
        encryption: None,
        table_class: None,
        tags: &[],
        warm_throughput: None,
        indexes: &[],
    };

    /// With `capacity`.
    pub const fn capacity(mut self, capacity: Capacity) -> Self {
        self.capacity = Some(capacity);
        self
    }

    /// With point-in-time recovery as `recovery` says.
    pub const fn point_in_time_recovery(mut self, recovery: Recovery) -> Self {
        self.point_in_time_recovery = Some(recovery);
        self
    }

    /// With deletion protection on or off.
    pub const fn deletion_protection(mut self, on: bool) -> Self {
        self.deletion_protection = Some(on);
        self
    }

    /// Encrypted at rest with `encryption`.
    pub const fn encryption(mut self, encryption: Encryption) -> Self {
        self.encryption = Some(encryption);
        self
    }

    /// Of storage class `class`.
    pub const fn table_class(mut self, class: TableClass) -> Self {
        self.table_class = Some(class);
        self
    }

    /// Tagged with `tags` (key, value).
    pub const fn tags(mut self, tags: &'static [(&'static str, &'static str)]) -> Self {
        self.tags = tags;
        self
    }

    /// With `warm` units per second of warm throughput.
    pub const fn warm_throughput(mut self, warm: Throughput) -> Self {
        self.warm_throughput = Some(warm);
        self
    }

    /// With settings of global indexes.
    pub const fn indexes(mut self, indexes: &'static [IndexSettings]) -> Self {
        self.indexes = indexes;
        self
    }

    /// Whether nothing is declared.
    pub const fn is_default(&self) -> bool {
        self.capacity.is_none()
            && self.point_in_time_recovery.is_none()
            && self.deletion_protection.is_none()
            && self.encryption.is_none()
            && self.table_class.is_none()
            && self.tags.is_empty()
            && self.warm_throughput.is_none()
            && self.indexes.is_empty()
    }

    /// Whether the table is provisioned.
    pub const fn is_provisioned(&self) -> bool {
        matches!(self.capacity, Some(Capacity::Provisioned { .. }))
    }

    /// The settings of index `index` (faceteer's name), if declared.
    pub fn index(&self, index: &str) -> Option<&IndexSettings> {
        self.indexes.iter().find(|i| i.index == index)
    }

    /// The capacity of global index `index`: its own, else, on a provisioned table, the
    /// table's.
    pub fn index_capacity(&self, index: &str) -> Option<Capacity> {
        match self.index(index).and_then(|i| i.capacity) {
            Some(c) => Some(c),
            None if self.is_provisioned() => self.capacity,
            None => None,
        }
    }

    /// Check the settings against DynamoDB's rules and the table's `facets` (whose global
    /// indexes the index settings name): the first problem found, if any.
    pub const fn check(&self, facets: &[&FacetSchema]) -> Result<(), SettingsError> {
        if let Some(capacity) = self.capacity {
            if let Err(e) = check_capacity(&capacity, None) {
                return Err(e);
            }
        }
        if let Some(Recovery::On { days }) = self.point_in_time_recovery {
            if days < 1 || days > 35 {
                return Err(SettingsError::RecoveryPeriod { days });
            }
        }
        if let Some(Encryption::CustomerKey(key)) = self.encryption {
            if key.is_empty() {
                return Err(SettingsError::EmptyKmsKey);
            }
        }
        if let Some(warm) = self.warm_throughput {
            if let Err(e) = check_warm(warm, self.capacity, None) {
                return Err(e);
            }
        }
        if let Err(e) = check_tags(self.tags) {
            return Err(e);
        }
        let mut i = 0;
        while i < self.indexes.len() {
            let index = &self.indexes[i];
            let mut j = 0;
            while j < i {
                if same(self.indexes[j].index, index.index) {
                    return Err(SettingsError::IndexTwice { index: index.index });
                }
                j += 1;
            }
            match global_index_named(facets, index.index) {
                IndexFound::Global => {}
                IndexFound::Local => return Err(SettingsError::LocalIndex { index: index.index }),
                IndexFound::None if facets.is_empty() => {}
                IndexFound::None => return Err(SettingsError::UnknownIndex { index: index.index }),
            }
            if let Some(capacity) = index.capacity {
                let table_provisioned = self.is_provisioned();
                let index_provisioned = matches!(capacity, Capacity::Provisioned { .. });
                if table_provisioned != index_provisioned {
                    return Err(SettingsError::IndexBilling { index: index.index });
                }
                if let Err(e) = check_capacity(&capacity, Some(index.index)) {
                    return Err(e);
                }
            }
            if let Some(warm) = index.warm_throughput {
                let capacity = match index.capacity {
                    Some(c) => Some(c),
                    None => self.capacity,
                };
                if let Err(e) = check_warm(warm, capacity, Some(index.index)) {
                    return Err(e);
                }
            }
            i += 1;
        }
        Ok(())
    }
}

/// Where an index name was found among the facets' indexes.
enum IndexFound {
    Global,
    Local,
    None,
}

const fn global_index_named(facets: &[&FacetSchema], name: &str) -> IndexFound {
    let mut f = 0;
    while f < facets.len() {
        let mut i = 0;
        while i < facets[f].indexes.len() {
            let index = &facets[f].indexes[i];
            if same(index.name, name) {
                return match index.kind {
                    IndexKind::Global => IndexFound::Global,
                    IndexKind::Local => IndexFound::Local,
                };
            }
            i += 1;
        }
        f += 1;
    }
    IndexFound::None
}

const fn check_capacity(
    capacity: &Capacity,
    index: Option<&'static str>,
) -> Result<(), SettingsError> {
    match *capacity {
        Capacity::OnDemand { max: Some(max) } if max.read == 0 || max.write == 0 => {
            Err(SettingsError::ZeroUnits { index })
        }
        Capacity::OnDemand { .. } => Ok(()),
        Capacity::Provisioned {
            units,
            auto_scaling,
        } => {
            if units.read == 0 || units.write == 0 {
                return Err(SettingsError::ZeroUnits { index });
            }
            if let Some(s) = auto_scaling {
                if s.read.min == 0
                    || s.write.min == 0
                    || s.read.min > s.read.max
                    || s.write.min > s.write.max
                {
                    return Err(SettingsError::ScalingRange { index });
                }
                if units.read < s.read.min
                    || units.read > s.read.max
                    || units.write < s.write.min
                    || units.write > s.write.max
                {
                    return Err(SettingsError::ScalingRange { index });
                }
                if s.target_percent < 20 || s.target_percent > 90 {
                    return Err(SettingsError::ScalingTarget {
                        index,
                        percent: s.target_percent,
                    });
                }
            }
            Ok(())
        }
    }
}

const fn check_warm(
    warm: Throughput,
    capacity: Option<Capacity>,
    index: Option<&'static str>,
) -> Result<(), SettingsError> {
    let least = match capacity {
        Some(Capacity::Provisioned { units, .. }) => units,
        _ => ON_DEMAND_WARM,
    };
    if warm.read < least.read || warm.write < least.write {
        return Err(SettingsError::WarmBelowFloor { index, least });
    }
    Ok(())
}

const fn starts_with(text: &str, prefix: &str) -> bool {
    let (t, p) = (text.as_bytes(), prefix.as_bytes());
    if t.len() < p.len() {
        return false;
    }
    let mut i = 0;
    while i < p.len() {
        if t[i].to_ascii_lowercase() != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The number of characters of `text`.
const fn chars(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut n, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] & 0xC0 != 0x80 {
            n += 1;
        }
        i += 1;
    }
    n
}

const fn check_tags(tags: &[(&'static str, &'static str)]) -> Result<(), SettingsError> {
    if tags.len() > 50 {
        return Err(SettingsError::TooManyTags { count: tags.len() });
    }
    let mut i = 0;
    while i < tags.len() {
        let (key, value) = tags[i];
        if key.is_empty() || chars(key) > 128 || chars(value) > 256 || starts_with(key, "aws:") {
            return Err(SettingsError::Tag { key });
        }
        let mut j = 0;
        while j < i {
            if same(tags[j].0, key) {
                return Err(SettingsError::TagTwice { key });
            }
            j += 1;
        }
        i += 1;
    }
    Ok(())
}

/// One setting of a table, as `verify`, `create_table` and `apply_settings` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Setting {
    /// On demand or provisioned.
    BillingMode,
    /// The table's provisioned read and write capacity units.
    ProvisionedThroughput,
    /// The table's on-demand maximum request units.
    OnDemandMaximum,
    /// Point-in-time recovery and its period.
    PointInTimeRecovery,
    /// Deletion protection.
    DeletionProtection,
    /// Encryption at rest.
    Encryption,
    /// The table class.
    TableClass,
    /// The declared tags.
    Tags,
    /// The table's warm throughput.
    WarmThroughput,
    /// A global index's capacity (provisioned units or on-demand maximum).
    IndexCapacity(&'static str),
    /// A global index's warm throughput.
    IndexWarmThroughput(&'static str),
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Setting::BillingMode => f.write_str("billing mode"),
            Setting::ProvisionedThroughput => f.write_str("provisioned throughput"),
            Setting::OnDemandMaximum => f.write_str("on-demand maximum"),
            Setting::PointInTimeRecovery => f.write_str("point-in-time recovery"),
            Setting::DeletionProtection => f.write_str("deletion protection"),
            Setting::Encryption => f.write_str("encryption"),
            Setting::TableClass => f.write_str("table class"),
            Setting::Tags => f.write_str("tags"),
            Setting::WarmThroughput => f.write_str("warm throughput"),
            Setting::IndexCapacity(index) => write!(f, "index {index} capacity"),
            Setting::IndexWarmThroughput(index) => write!(f, "index {index} warm throughput"),
        }
    }
}

/// A declared setting a live table did not take: the engine refused the change, or
/// accepted it without putting it in effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The setting.
    pub setting: Setting,
    /// The engine's answer, or what the table has instead.
    pub why: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.setting, self.why)
    }
}

/// Why declared settings cannot be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// A capacity or maximum of zero units.
    #[error("{}capacity and maximums need at least 1 read and 1 write unit", on(*.index))]
    ZeroUnits {
        /// The index, or `None` for the table.
        index: Option<&'static str>,
    },
    /// An auto scaling range with a minimum of zero or above its maximum, or provisioned
    /// units outside it.
    #[error("{}auto scaling needs 1 ≤ min ≤ provisioned units ≤ max for reads and writes", on(*.index))]
    ScalingRange {
        /// The index, or `None` for the table.
        index: Option<&'static str>,
    },
    /// An auto scaling target outside 20–90 percent.
    #[error("{}auto scaling targets {percent}% utilisation; Application Auto Scaling takes 20–90", on(*.index))]
    ScalingTarget {
        /// The index, or `None` for the table.
        index: Option<&'static str>,
        /// The declared target.
        percent: u8,
    },
    /// A point-in-time recovery period outside 1–35 days.
    #[error("point-in-time recovery keeps {days} days; DynamoDB keeps 1 to 35")]
    RecoveryPeriod {
        /// The declared period.
        days: u8,
    },
    /// A customer-managed key named by an empty string.
    #[error(
        "encryption with a customer-managed key needs its ARN, id or alias, not an empty string"
    )]
    EmptyKmsKey,
    /// Warm throughput below what the table or index already has.
    #[error("{}warm throughput must be at least {} reads and {} writes per second (its capacity, or on demand DynamoDB's starting 12,000 and 4,000)", on(*.index), .least.read, .least.write)]
    WarmBelowFloor {
        /// The index, or `None` for the table.
        index: Option<&'static str>,
        /// The least warm throughput.
        least: Throughput,
    },
    /// More than 50 tags.
    #[error("{count} tags; a DynamoDB table takes at most 50")]
    TooManyTags {
        /// How many are declared.
        count: usize,
    },
    /// A tag with an empty key, a key of more than 128 or a value of more than 256
    /// characters, or a key starting `aws:` (reserved for AWS).
    #[error("tag `{key}`: keys are 1–128 characters and may not start with `aws:`; values are at most 256")]
    Tag {
        /// The tag's key.
        key: &'static str,
    },
    /// One tag key declared twice.
    #[error("tag `{key}` is declared twice")]
    TagTwice {
        /// The tag's key.
        key: &'static str,
    },
    /// Settings of one index declared twice.
    #[error("index {index} has settings declared twice")]
    IndexTwice {
        /// The index.
        index: &'static str,
    },
    /// Settings of an index no facet declares.
    #[error("settings name index {index}, which no facet of the table uses")]
    UnknownIndex {
        /// The index.
        index: &'static str,
    },
    /// Capacity settings of a local index: local indexes share the table's capacity.
    #[error("index {index} is local: it shares the table's capacity and warm throughput")]
    LocalIndex {
        /// The index.
        index: &'static str,
    },
    /// An index billed otherwise than its table.
    #[error("index {index} declares another billing mode than its table: a table's indexes are billed as it is")]
    IndexBilling {
        /// The index.
        index: &'static str,
    },
}

fn on(index: Option<&str>) -> String {
    index.map_or_else(String::new, |i| format!("index {i}: "))
}

/// The check of [`TableSettings::check`] at compile time, for `faceteer::table! { .. }
/// settings = ..`: fails compilation with the problem.
pub const fn assert_settings(settings: &TableSettings, facets: &[&FacetSchema]) {
    let message = match settings.check(facets) {
        Ok(()) => return,
        Err(e) => match e {
            SettingsError::ZeroUnits { .. } => {
                Message::new().push("capacity and maximums need at least 1 read and 1 write unit")
            }
            SettingsError::ScalingRange { .. } => {
                Message::new().push("auto scaling needs 1 <= min <= provisioned units <= max for reads and writes")
            }
            SettingsError::ScalingTarget { .. } => Message::new()
                .push("auto scaling's target utilisation must be 20 to 90 percent"),
            SettingsError::RecoveryPeriod { .. } => {
                Message::new().push("point-in-time recovery keeps 1 to 35 days")
            }
            SettingsError::EmptyKmsKey => Message::new()
                .push("encryption with a customer-managed key needs its ARN, id or alias"),
            SettingsError::WarmBelowFloor { .. } => Message::new().push(
                "warm throughput must be at least the provisioned capacity, or on demand \
                 12000 reads and 4000 writes per second",
            ),
            SettingsError::TooManyTags { .. } => {
                Message::new().push("a DynamoDB table takes at most 50 tags")
            }
            SettingsError::Tag { key } => Message::new()
                .push("tag `")
                .push(key)
                .push("`: keys are 1-128 characters and may not start with `aws:`; values are at most 256"),
            SettingsError::TagTwice { key } => {
                Message::new().push("tag `").push(key).push("` is declared twice")
            }
            SettingsError::IndexTwice { index } => Message::new()
                .push("index ")
                .push(index)
                .push(" has settings declared twice"),
            SettingsError::UnknownIndex { index } => Message::new()
                .push("settings name index ")
                .push(index)
                .push(", which no facet of the table uses"),
            SettingsError::LocalIndex { index } => Message::new()
                .push("index ")
                .push(index)
                .push(" is local: it shares the table's capacity; declare settings of global indexes only"),
            SettingsError::IndexBilling { index } => Message::new()
                .push("index ")
                .push(index)
                .push(" declares another billing mode than its table: give it the table's, or no capacity to follow the table's"),
        },
    };
    panic!("{}", message.as_str());
}

/// The global indexes of `facets` a provisioned table gives capacity to, by faceteer's name.
pub fn global_indexes(facets: &[&FacetSchema]) -> Vec<&'static str> {
    table_indexes(facets)
        .into_iter()
        .filter(|i| i.kind == IndexKind::Global)
        .map(|i| i.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_check_and_declare_nothing() {
        assert!(TableSettings::DEFAULT.is_default());
        assert_eq!(TableSettings::DEFAULT.check(&[]), Ok(()));
        assert_eq!(TableSettings::default(), TableSettings::DEFAULT);
    }

    #[test]
    fn bad_settings_are_named() {
        let s = TableSettings::DEFAULT.capacity(Capacity::provisioned(0, 5));
        assert_eq!(s.check(&[]), Err(SettingsError::ZeroUnits { index: None }));
        let s = TableSettings::DEFAULT.point_in_time_recovery(Recovery::On { days: 36 });
        assert_eq!(
            s.check(&[]),
            Err(SettingsError::RecoveryPeriod { days: 36 })
        );
        let s = TableSettings::DEFAULT.tags(&[("aws:owner", "x")]);
        assert_eq!(s.check(&[]), Err(SettingsError::Tag { key: "aws:owner" }));
        let s = TableSettings::DEFAULT.tags(&[("a", "x"), ("a", "y")]);
        assert_eq!(s.check(&[]), Err(SettingsError::TagTwice { key: "a" }));
        let s = TableSettings::DEFAULT.warm_throughput(Throughput::new(100, 100));
        assert_eq!(
            s.check(&[]),
            Err(SettingsError::WarmBelowFloor {
                index: None,
                least: ON_DEMAND_WARM
            })
        );
        let scaled = Capacity::provisioned(5, 5).auto_scaled(AutoScaling {
            read: ScalingRange { min: 5, max: 1 },
            write: ScalingRange { min: 1, max: 10 },
            target_percent: 70,
        });
        let s = TableSettings::DEFAULT.capacity(scaled);
        assert_eq!(
            s.check(&[]),
            Err(SettingsError::ScalingRange { index: None })
        );
        const MIXED: TableSettings = TableSettings::DEFAULT
            .capacity(Capacity::ON_DEMAND)
            .indexes(&[IndexSettings::new("GSI1").capacity(Capacity::provisioned(1, 1))]);
        let s = MIXED;
        assert_eq!(
            s.check(&[]),
            Err(SettingsError::IndexBilling { index: "GSI1" })
        );
        assert!(SettingsError::IndexBilling { index: "GSI1" }
            .to_string()
            .contains("GSI1"));
    }

    #[test]
    fn provisioned_units_lie_within_their_auto_scaling() {
        let scaling = AutoScaling {
            read: ScalingRange { min: 1, max: 50 },
            write: ScalingRange { min: 1, max: 50 },
            target_percent: 70,
        };
        let s = TableSettings::DEFAULT.capacity(Capacity::provisioned(100, 5).auto_scaled(scaling));
        assert_eq!(
            s.check(&[]),
            Err(SettingsError::ScalingRange { index: None })
        );
        let s = TableSettings::DEFAULT.capacity(Capacity::provisioned(50, 5).auto_scaled(scaling));
        assert_eq!(s.check(&[]), Ok(()));
    }

    #[test]
    fn index_capacity_follows_a_provisioned_table() {
        const S: TableSettings = TableSettings::DEFAULT
            .capacity(Capacity::provisioned(5, 5))
            .indexes(&[IndexSettings::new("GSI2").capacity(Capacity::provisioned(1, 2))]);
        let s = S;
        assert_eq!(s.index_capacity("GSI1"), Some(Capacity::provisioned(5, 5)));
        assert_eq!(s.index_capacity("GSI2"), Some(Capacity::provisioned(1, 2)));
        let s = TableSettings::DEFAULT.capacity(Capacity::ON_DEMAND);
        assert_eq!(s.index_capacity("GSI1"), None);
    }

    #[test]
    fn character_counts_are_of_characters() {
        assert_eq!(chars("ab"), 2);
        assert_eq!(chars("äö"), 2);
        assert!(starts_with("AWS:x", "aws:"));
    }
}
