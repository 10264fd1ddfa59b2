//! [`Timeouts`]: the deadlines every request of a [`Table`](crate::Table) runs under.

use std::time::Duration;

use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::Client;

/// The deadlines of every request a [`Table`](crate::Table) sends, so that a server that
/// accepts connections and never answers gives a timeout error
/// ([`Error::is_timeout`](crate::Error::is_timeout)) instead of a hang.
///
/// * `connect`: to open a connection;
/// * `attempt`: for one try of a request, from sending to the whole answer;
/// * `operation`: for one SDK operation, its retries included;
/// * `call`: for one whole call of the library — a put, an update, a `modify`, a transaction,
///   a batch (`put_many`, `get_many`, …), a page walk (`all`, `stream`, `count`), a search —
///   every request and retry included.
///
/// When a call's deadline passes, it returns at once: a single write ends in
/// [`Error::DeadlineExceeded`](crate::Error::DeadlineExceeded) when nothing was sent, or
/// [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown) when a request may have been
/// applied; in a batch every input not yet settled ends `Failed` (never sent) or `Unknown`
/// (sent, unanswered).
///
/// [`Table::new`](crate::Table::new) keeps the timeouts the client was configured with and
/// fills in each one it lacks from [`Timeouts::default`];
/// [`Table::with_timeouts`](crate::Table::with_timeouts) replaces them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// To open a connection. Default 3 s.
    pub connect: Duration,
    /// For one try of a request. Default 10 s.
    pub attempt: Duration,
    /// For one operation, its retries included. Default 30 s.
    pub operation: Duration,
    /// For one whole call, every request and retry included. Default 45 s: any call
    /// against a server that never answers returns within a minute. Raise it for bulk
    /// loads (a `put_many` of a million records) or long walks.
    pub call: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(3),
            attempt: Duration::from_secs(10),
            operation: Duration::from_secs(30),
            call: Duration::from_secs(45),
        }
    }
}

impl Timeouts {
    /// The timeouts `client` is configured with, each missing one taken from `defaults`
    /// (`call`, which the client does not know, always is).
    pub(crate) fn of(client: &Client, defaults: Timeouts) -> Timeouts {
        let config = client.config().timeout_config();
        Timeouts {
            connect: config
                .and_then(TimeoutConfig::connect_timeout)
                .unwrap_or(defaults.connect),
            attempt: config
                .and_then(TimeoutConfig::operation_attempt_timeout)
                .unwrap_or(defaults.attempt),
            operation: config
                .and_then(TimeoutConfig::operation_timeout)
                .unwrap_or(defaults.operation),
            call: defaults.call,
        }
    }

    /// `client` with these timeouts (its other settings kept).
    pub(crate) fn apply(&self, client: &Client) -> Client {
        let mut config = client.config().to_builder();
        // Start from the client's timeouts, so that its others (read timeout, …) are kept.
        let mut timeouts = client
            .config()
            .timeout_config()
            .map(TimeoutConfig::to_builder)
            .unwrap_or_default();
        timeouts.set_connect_timeout(Some(self.connect));
        timeouts.set_operation_attempt_timeout(Some(self.attempt));
        timeouts.set_operation_timeout(Some(self.operation));
        config.set_timeout_config(Some(timeouts.build()));
        Client::from_conf(config.build())
    }
}
