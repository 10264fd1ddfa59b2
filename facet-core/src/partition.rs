//! The partition key of a query, with its shard chosen late.

use crate::key::{compose_key, KeyError};
use crate::shard::{shard_ids, ShardPeriod};
use crate::unique::check_table_partition;

/// How the shard segment of a queried partition key is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardChoice {
    /// The key is not sharded.
    Unsharded,
    /// The shard fields are all in the partition key, so the shard is known.
    Computed {
        /// Number of shards.
        count: u32,
        /// Later shard counts ([`crate::schema::ShardSchema::schedule`]).
        schedule: &'static [ShardPeriod],
        /// The computed shard id text.
        id: Result<String, KeyError>,
    },
    /// The shard fields are not all known: the query picks a shard with `.shard(n)`.
    Choose {
        /// Number of shards.
        count: u32,
        /// Later shard counts ([`crate::schema::ShardSchema::schedule`]).
        schedule: &'static [ShardPeriod],
    },
}

/// A partition key to query: prefix, shard segment and key values. Its `Debug` prints the
/// key through [`crate::redact::key`] and names the beaconed fields without their values.
#[derive(Clone, PartialEq, Eq)]
pub struct PartitionKey {
    attribute: &'static str,
    prefix: &'static str,
    delimiter: &'static str,
    shard: ShardChoice,
    /// The key values, each preceded by the delimiter.
    tail: Result<String, KeyError>,
    /// The key text of each `#[beacon]` field the key holds the beacon of: what a record read
    /// back must hold for it to be one asked for, not one whose beacon collides.
    beacon_checks: Vec<(&'static str, Result<String, KeyError>)>,
}

impl std::fmt::Debug for PartitionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tail = self
            .tail
            .as_ref()
            .map(|t| crate::redact::key(&format!("{}{t}", self.prefix)).into_owned());
        let checked: Vec<&str> = self.beacon_checks.iter().map(|(a, _)| *a).collect();
        f.debug_struct("PartitionKey")
            .field("attribute", &self.attribute)
            .field("shard", &self.shard)
            .field("key", &tail)
            .field("beacon_checks", &checked)
            .finish()
    }
}

impl PartitionKey {
    /// A partition key (generated code builds these).
    pub fn new(
        attribute: &'static str,
        prefix: &'static str,
        delimiter: &'static str,
        shard: ShardChoice,
        tail: Result<String, KeyError>,
    ) -> Self {
        PartitionKey {
            attribute,
            prefix,
            delimiter,
            shard,
            tail,
            beacon_checks: Vec::new(),
        }
    }

    /// The key with the check that records read back hold `text` as the key text of the
    /// beaconed field stored as `attribute` (generated code adds one per beaconed field).
    pub fn with_beacon_check(
        mut self,
        attribute: &'static str,
        text: Result<String, KeyError>,
    ) -> Self {
        self.beacon_checks.push((attribute, text));
        self
    }

    /// The beaconed fields' key texts records read back must hold ([`Self::with_beacon_check`]).
    pub fn beacon_checks(&self) -> &[(&'static str, Result<String, KeyError>)] {
        &self.beacon_checks
    }

    /// The key attribute (`PK`, `GSI1PK`, …).
    pub fn attribute(&self) -> &'static str {
        self.attribute
    }

    /// The number of shards, when the key is sharded: every shard id any period of its
    /// schedule uses ([`PartitionKey::shard_ids`]).
    pub fn shard_count(&self) -> Option<u32> {
        self.shard_ids().map(|ids| ids.len() as u32)
    }

    /// Every shard id of the key, in the order `.shard(n)` numbers them: `0..count` of the
    /// first period, then the ids later periods add.
    pub fn shard_ids(&self) -> Option<Vec<String>> {
        match self.shard {
            ShardChoice::Unsharded => None,
            ShardChoice::Computed {
                count, schedule, ..
            }
            | ShardChoice::Choose { count, schedule } => Some(shard_ids(count, schedule)),
        }
    }

    /// The key string with `*` in place of the shard id (names the whole sharded
    /// partition, for cursors of all-shard queries).
    pub fn render_all_shards(&self) -> Result<String, KeyError> {
        let tail = self.tail.as_ref().map_err(Clone::clone)?;
        Ok(format!("{}{}*{}", self.prefix, self.delimiter, tail))
    }

    /// Whether a query must choose a shard or read all of them (the shard fields are not all
    /// in the partition key).
    pub fn needs_shard_choice(&self) -> bool {
        matches!(self.shard, ShardChoice::Choose { .. })
    }

    /// The key string, in shard `shard` when given.
    pub fn render(&self, shard: Option<u32>) -> Result<String, KeyError> {
        let tail = self.tail.as_ref().map_err(Clone::clone)?;
        let shard_id = match (&self.shard, shard) {
            (ShardChoice::Unsharded, None) => None,
            (ShardChoice::Unsharded, Some(_)) => {
                return Err(KeyError::Unrepresentable {
                    field: self.attribute,
                    reason: "`.shard(n)` was given, but this partition key is not sharded".into(),
                })
            }
            (ShardChoice::Computed { .. }, Some(n)) | (ShardChoice::Choose { .. }, Some(n)) => {
                let ids = self.shard_ids().unwrap_or_default();
                match ids.get(n as usize) {
                    Some(id) => Some(id.clone()),
                    None => {
                        return Err(KeyError::ShardOutOfRange {
                            shard: n,
                            count: ids.len() as u32,
                        })
                    }
                }
            }
            (ShardChoice::Computed { id, .. }, None) => Some(id.clone()?),
            (ShardChoice::Choose { count, schedule }, None) => {
                return Err(KeyError::ShardRequired {
                    attribute: self.attribute,
                    count: shard_ids(*count, schedule).len() as u32,
                })
            }
        };
        let key = compose_key(self.prefix, self.delimiter, shard_id.as_deref(), tail);
        // The table's partition holds guard items under one prefix: no query reads there.
        if self.attribute == crate::schema::PK {
            check_table_partition(&key)?;
        }
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_with_and_without_shards() {
        let plain = PartitionKey::new("PK", "#T", "_", ShardChoice::Unsharded, Ok("_a".into()));
        assert_eq!(plain.render(None).unwrap(), "#T_a");
        assert!(plain.render(Some(1)).is_err());
        let choose = PartitionKey::new(
            "PK",
            "#T",
            "_",
            ShardChoice::Choose {
                count: 4,
                schedule: &[],
            },
            Ok("_a".into()),
        );
        assert_eq!(choose.render(Some(2)).unwrap(), "#T_2_a");
        assert!(matches!(
            choose.render(None),
            Err(KeyError::ShardRequired { count: 4, .. })
        ));
        assert!(matches!(
            choose.render(Some(4)),
            Err(KeyError::ShardOutOfRange { .. })
        ));
    }

    #[test]
    fn a_table_partition_in_the_guards_prefix_is_refused() {
        // An empty prefix and the delimiter `$`: the tail alone spells a guard's partition.
        let tail = || Ok("$unique#User#email#1:x".to_owned());
        let table = PartitionKey::new("PK", "", "$", ShardChoice::Unsharded, tail());
        assert!(matches!(
            table.render(None),
            Err(KeyError::ReservedPartition { .. })
        ));
        // An index's partition holds no guard.
        let index = PartitionKey::new("GSI1PK", "", "$", ShardChoice::Unsharded, tail());
        assert_eq!(index.render(None).unwrap(), "$unique#User#email#1:x");
        // Sharded, the shard id comes first: not the guards' partition.
        let sharded = PartitionKey::new(
            "PK",
            "",
            "$",
            ShardChoice::Choose {
                count: 2,
                schedule: &[],
            },
            tail(),
        );
        assert_eq!(sharded.render(Some(1)).unwrap(), "$1$unique#User#email#1:x");
    }
}
