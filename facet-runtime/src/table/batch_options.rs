//! How batch operations run: concurrency, tries and backoff.

use std::time::Duration;

/// How batch operations run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchOptions {
    /// Requests in flight at once (at least 1). Default 4.
    pub concurrency: usize,
    /// Tries per write request, the first included. Default 5.
    pub write_attempts: u32,
    /// Tries per read request, the first included. Default 10.
    pub read_attempts: u32,
    /// The first retry waits up to this long; each retry doubles it. Default 25 ms.
    pub base_delay: Duration,
    /// No retry waits longer than this. Default 2 s.
    pub max_delay: Duration,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            concurrency: 4,
            write_attempts: 5,
            read_attempts: 10,
            base_delay: Duration::from_millis(25),
            max_delay: Duration::from_secs(2),
        }
    }
}

impl BatchOptions {
    /// Full-jitter exponential backoff before retry number `attempt` (1-based).
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        crate::pause::full_jitter(self.base_delay, self.max_delay, attempt)
    }
}
