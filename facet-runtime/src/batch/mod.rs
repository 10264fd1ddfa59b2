//! Batch reads and writes that never lose an item.
//!
//! * [`Table::put_many`](crate::Table::put_many) and [`Table::delete_many`](crate::Table::delete_many) send `BatchWriteItem` requests of at most
//!   25 items; [`Table::get_many`](crate::Table::get_many) sends `BatchGetItem` requests of at most 100 keys.
//! * Requests run with bounded concurrency ([`BatchOptions::concurrency`](crate::BatchOptions::concurrency)).
//! * `UnprocessedItems` / `UnprocessedKeys`, throttling and transient errors are retried
//!   with exponential backoff and full jitter: writes up to [`BatchOptions::write_attempts`](crate::BatchOptions::write_attempts)
//!   tries, reads up to [`BatchOptions::read_attempts`](crate::BatchOptions::read_attempts).
//! * Every input ends up in exactly one list of the report: written (found, missing) or
//!   failed, with the reason. Nothing is silently dropped.
//! * The same key twice in one call is handled: writes to one key are applied in input
//!   order (DynamoDB refuses duplicates within one request, so they go in later rounds);
//!   a key asked for twice is read once.

mod get;
pub(crate) mod mixed;
pub(crate) mod pump;
pub(crate) mod report;
pub(crate) mod retry;
pub(crate) mod write;
mod write_many;

pub use get::{GetMany, GetOutcome, GET_BATCH_SIZE};
pub use mixed::{BatchAction, BatchEntry, BatchReport, WriteBatch};
pub use pump::Outcome;
pub use report::{DeleteReport, Failed, GetReport, PutReport, Unknown};
pub use write::WRITE_BATCH_SIZE;
pub use write_many::{DeleteMany, PutMany};
