//! Why reading a table's stream failed.

/// Why reading a table's stream failed ([`crate::stream`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// The table has no stream: create it with one
    /// ([`Table::create_table_with_stream`](crate::Table::create_table_with_stream)) or turn
    /// it on ([`Table::enable_stream`](crate::Table::enable_stream)).
    #[error("table `{table}` has no stream; turn one on (`Table::enable_stream`)")]
    NotEnabled {
        /// The table name.
        table: String,
    },
    /// The records after the reader's position in a shard are older than the stream keeps
    /// (24 hours): some changes can no longer be read.
    #[error(
        "the stream no longer holds the records after the reader's position in shard {shard} \
         (they are older than 24 hours): changes were missed; backfill or rebuild what \
         depends on them, then start from the oldest record"
    )]
    Trimmed {
        /// The shard.
        shard: String,
    },
    /// The checkpoint is of another stream of the table (it was turned off and on again).
    #[error("the checkpoint is of stream {checkpoint}, but the table's stream is {stream}")]
    OtherStream {
        /// The checkpoint's stream.
        checkpoint: String,
        /// The table's latest stream.
        stream: String,
    },
    /// A checkpoint's text does not read as one.
    #[error("not a stream checkpoint: {0}")]
    Checkpoint(String),
    /// The DynamoDB Streams API refused a request, or could not be reached.
    #[error("{operation} failed: {message}")]
    Api {
        /// The Streams API operation.
        operation: &'static str,
        /// The error, with its causes.
        message: String,
    },
}
