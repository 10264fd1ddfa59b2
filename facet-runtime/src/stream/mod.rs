//! Typed change streams: a table's DynamoDB stream, read as the changes of a facet or of a
//! collection.
//!
//! A stream record becomes an [`Event`] whose [`Change`] is an [`Insert`](Change::Insert), a
//! [`Modify`](Change::Modify) or a [`Remove`](Change::Remove), with the records its images
//! hold, read as every read of the facet reads them (renamed attributes, schema versions
//! upgraded, validator run). A removal by time-to-live expiry is marked
//! (`Remove { expired: true, .. }`).
//!
//! Records come from two sources, both decoded by [`decode`] and [`decode_collection`]:
//!
//! * the DynamoDB Streams API: [`StreamReader`] (feature `streams`, on by default) reads
//!   every shard of the table's stream, parents before children, and keeps a
//!   [`StreamCheckpoint`] to resume from;
//! * the events a Lambda function receives: [`lambda::records`] (feature `lambda`).
//!
//! Nothing is dropped silently: records of other facets are counted in
//! [`Changes::skipped`], records without an image (a `KEYS_ONLY` stream) in
//! [`Changes::without_image`], and records of the facet that do not read (wrong shape, a
//! failed validator) are listed in [`Changes::unreadable`] with the error, while the rest of
//! the batch is decoded.
//!
//! [`Table::create_table_with_stream`](crate::Table::create_table_with_stream) creates a
//! table with its stream on, [`Table::enable_stream`](crate::Table::enable_stream) turns it
//! on for an existing one, and [`Table::verify`](crate::Table::verify) reports its view type.

mod change;
#[cfg(feature = "lambda")]
pub mod lambda;
#[cfg(feature = "streams")]
mod lenient;
#[cfg(feature = "streams")]
mod reader;

pub use change::{decode, decode_collection, Change, Changes, Event, Kind, Record, Unreadable};
#[cfg(feature = "streams")]
pub use reader::{local_client, streams_client, ShardPosition, StreamCheckpoint, StreamReader};

pub use crate::admin::stream::StreamView;
