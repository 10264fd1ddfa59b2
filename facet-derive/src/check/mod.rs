//! The rules a facet must follow, each a named function adding its errors to the derive's
//! [`Ctxt`](crate::ctxt::Ctxt) (like serde_derive's `internals/check.rs`).
//!
//! Rules about one field or one attribute run while [`build`](crate::build) reads it (it
//! skips what they reject); the rules about the assembled facet run last, from
//! [`facet`](facet::facet). Their order is the order of the errors.

mod crypto;
mod facet;
mod fields;
mod keys;
mod markers;
mod nested;
mod sensitive;
mod vectors;
mod written;

pub use crypto::crypto_attributes_agree;
pub use facet::facet;
pub use fields::{
    no_generics, no_wide_integers, nullable_reads_absent, stored_name_is_not_reserved,
};
pub use keys::{
    alias_is_a_method_name, facet_has_partition_key, facet_has_sort_key, gsi_names_its_key,
    gsi_number_in_range, index_has_partition_key, index_keys_declared_once, index_number_in_range,
    key_declared_once, local_index_has_only_a_sort_key, native_index_is_global,
    native_index_is_not_sparse, native_index_keys, no_prefix_is_a_sort_key_with_fields,
    prefix_is_not_reserved, shard_declared_once, sort_key_fits_queries,
    sparse_index_has_an_optional_field,
};
pub use markers::{
    at_most_one_ttl, at_most_one_version, ttl_holds_a_time, version_is_a_counter,
    version_is_not_a_key,
};
pub use nested::{nested_has_no_generics, nested_holds_a_plain_struct};
pub use vectors::{
    vector_dimensions_in_range, vector_distance_is_known, vector_field_holds_numbers,
    vector_index_name_is_valid, vector_search_fields,
};
pub use written::{
    at_most_one_timestamp, timestamp_is_not_the_version, unique_field_is_stored,
    unique_scope_names_a_field,
};
