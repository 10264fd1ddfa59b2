//! The guide: pages on using faceteer, each with examples that compile.
//!
//! Start here, in this order: [`conventions`], [`tables`], [`keys`], [`writes`],
//! [`queries`]; then the pages for what you need.
//!
//! * [`conventions`]: one style for every call; what the derive generates; mistakes that do
//!   not compile;
//! * [`tables`]: declaring the facets of a table, opening it, other libraries' names, time
//!   to live, verifying it, its design as CloudFormation, Terraform and pictures;
//! * [`keys`]: key designs — indexes in any order, constant, sparse and local — and write
//!   sharding;
//! * [`writes`]: updates, nested paths and attribute references, saves of what changed,
//!   versions, transactions, unique fields, write times, moves;
//! * [`hooks`]: your code on every write, read and request; tenants kept apart;
//! * [`encryption`]: fields encrypted on the client (AWS's Database Encryption SDK), found
//!   by equality through beacons (feature `encryption`);
//! * [`batches`]: batch writes and reads where every input ends done, failed or unknown;
//! * [`queries`]: running queries, conditions and filters, counts, collections, scans,
//!   searches over several indexes and shards, reads straight from the wire;
//! * [`projections`]: reading some fields, checked at compile time; indexes that hold some
//!   fields;
//! * [`evolving`]: a live table's new indexes, shards and schema versions, brought to every
//!   record by backfills; change streams;
//! * [`operating`]: the design lock and its change check, the operations runner, table
//!   settings, least-privilege IAM policies, telemetry by OpenTelemetry's conventions;
//! * [`testing`]: the embedded engine and the fault proxy for your own tests;
//! * [`attributes`]: every attribute and option the derives read;
//! * [`exactly_once`]: every write reported exactly; what a lost answer gives and costs;
//! * [`errors`]: the call's deadline, retries, and the one error type;
//! * [`faceteer`]: sharing a table with Faceteer for TypeScript, the wire format.

pub mod attributes;
pub mod batches;
pub mod conventions;
pub mod encryption;
pub mod errors;
pub mod evolving;
pub mod exactly_once;
pub mod faceteer;
pub mod hooks;
pub mod keys;
pub mod operating;
pub mod projections;
pub mod queries;
pub mod tables;
pub mod testing;
pub mod writes;
