//! The rules: what each kind of change needs or breaks, in plain words. Each function
//! judges one part of the design (a key, a shard, an index, a field, a version, …) and
//! returns the change's [`Effect`]s; [`compare`](super::compare) walks the two locks and
//! names the parts.
//!
//! The rules as a table: [the module's docs](super#rules).

mod effects;
mod keys;
mod records;
mod settings;

pub(super) use effects::{index, readers, review, safe, Ctx};
pub(super) use keys::{
    base_key, base_shard, delimiter, index_key, index_shard, key_layout, key_optionality, key_text,
    shard_change, shard_text,
};
pub(super) use records::{field_added, field_changed, field_removed, field_text, schema_version};
pub(super) use settings::{setting, setting_text};
