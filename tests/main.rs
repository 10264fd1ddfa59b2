//! The integration tests, as one test binary: each module runs its tests on both engines
//! (`module::test::embedded`, `module::test::moto`; see `faceteer_suite::engines!`), and the
//! compile-fail tests (`compile_errors`, named to start among the first: they take long).
//!
//! One binary instead of one per file: every test binary links the whole AWS SDK, so
//! twenty of them cost gigabytes of disk and minutes of linking. Run one module with
//! `./scripts/test.sh --test integration batch::`.

mod common;

mod backfill;
mod batch;
mod collections;
mod compile_errors;
mod daily_path;
mod design_lint;
mod direct_requests;
mod embedded;
mod encryption;
mod engines;
mod errors;
mod exactly_once;
mod examples;
mod existing_tables;
mod expiry;
mod faults;
mod field_writer;
mod fuzz;
mod history;
mod hooks;
mod index_projections;
mod item_vectors;
mod items;
mod key_designs;
mod key_layouts;
mod lock;
mod native_keys;
mod native_migration;
mod nested;
mod one_text;
mod ops;
mod projections;
mod queries;
mod reserved_names;
mod saves;
mod scans;
mod search;
mod sensitive;
mod settings;
mod shard_schedules;
mod shards;
mod streams;
mod strict_readers;
mod tables;
mod telemetry;
mod transactions;
mod unique;
mod update_props;
mod updates;
mod vector_indexes;
mod vectors;
mod verify;
mod versions;
mod wire;
mod write_times;
