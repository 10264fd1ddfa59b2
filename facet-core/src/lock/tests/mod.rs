//! Tests of the lock: hand-written before/after facets, one test per rule, and the file's
//! JSON.

mod fixtures;
mod indexes;
mod json;
mod keys;
mod records;
mod table;
