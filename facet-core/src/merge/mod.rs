//! Merges: the pages of one read from several places put into one order, each record once
//! and none out of order: every shard of a sharded partition ([`shards`]), several sources
//! sorted alike ([`search`]), or sorted by a field of the record ([`ordered`]).

pub mod ordered;
pub mod search;
pub mod shards;

pub use shards::{merge_shards, Merged, ShardProgress, ShardRead};
