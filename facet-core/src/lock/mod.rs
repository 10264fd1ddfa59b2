//! A table's design lock: the whole design written to a committed file, to check the code
//! against.
//!
//! [`DesignLock::of`] records a declared table's design: its names, indexes, vector indexes,
//! TTL and stream, and each facet's keys (with their patterns, shards and grow schedules),
//! indexes, unique fields, versions and fields (with their types, codecs and defaults).
//! [`DesignLock::to_json`] writes it as pretty JSON with a fixed field order, so the same
//! design always gives the same bytes and a change reads as a small diff;
//! [`DesignLock::from_json`] reads it back.

mod build;
mod json;
mod types;

pub use json::LockError;
pub use types::{
    DesignLock, LockAttribute, LockFacet, LockField, LockIndex, LockIndexKind, LockIndexName,
    LockKey, LockKeyField, LockNames, LockNative, LockPeriod, LockProjection, LockShard,
    LockTable, LockTableIndex, LockUnique, LockVector, LOCK_FORMAT,
};
