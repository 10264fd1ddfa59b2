//! Why the embedded engine could not start (`embedded` feature).

/// Why the embedded engine could not start.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The engine's thread could not be spawned.
    #[error("could not spawn the embedded DynamoDB engine's thread: {0}")]
    Thread(#[source] std::io::Error),
    /// Its runtime could not be built.
    #[error("could not build the embedded DynamoDB engine's runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// No loopback port could be bound.
    #[error("could not listen on 127.0.0.1 for the embedded DynamoDB engine: {0}")]
    Listen(#[source] std::io::Error),
    /// The database could not be opened.
    #[error("could not open the embedded DynamoDB engine's in-memory database: {0}")]
    Database(String),
    /// The engine's thread ended before it was ready.
    #[error("the embedded DynamoDB engine stopped before it was ready")]
    Stopped,
}
