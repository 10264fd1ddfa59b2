//! Batch options and the one retry routine of batch writes and reads.
//!
//! A batch request may leave part of its inputs unprocessed, or fail as a whole. The
//! routine resends what is left with exponential backoff and full jitter until everything
//! is processed or the tries are used, and reports every input left over with its reason.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

use crate::error::Error;
use crate::report::FailureReason;

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
    fn backoff(&self, attempt: u32) -> Duration {
        let exp = self.base_delay.saturating_mul(
            1u32.checked_shl(attempt.saturating_sub(1))
                .unwrap_or(u32::MAX),
        );
        let cap = exp.min(self.max_delay);
        let millis = cap.as_millis().min(u64::MAX as u128) as u64;
        Duration::from_millis(fastrand::u64(0..=millis))
    }
}

/// Throttling, server-side and transport errors are worth another try; the rest are not.
pub(crate) fn is_retryable<E: ProvideErrorMetadata, R>(err: &SdkError<E, R>) -> bool {
    match err {
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => {
            true
        }
        SdkError::ServiceError(se) => matches!(
            se.err().code(),
            Some(
                "ProvisionedThroughputExceededException"
                    | "ThrottlingException"
                    | "RequestLimitExceeded"
                    | "InternalServerError"
                    | "ServiceUnavailable"
            )
        ),
        _ => false,
    }
}

/// What one batch request did.
pub(crate) enum Sent<P, D> {
    /// It went through: what it completed, and the inputs the server left unprocessed.
    Processed {
        /// Completed work (items read, indices written).
        done: Vec<D>,
        /// Inputs to send again.
        unprocessed: Vec<P>,
    },
    /// It failed as a whole; `retryable` when another try may succeed.
    Failed {
        /// The inputs sent, handed back.
        pending: Vec<P>,
        /// The error.
        error: Error,
        /// Whether to try again.
        retryable: bool,
    },
}

/// Send `pending` with `send` until nothing is left or `attempts` tries are used: the work
/// done, and every input left over with its reason.
pub(crate) async fn until_processed<P, D, Fut>(
    options: &BatchOptions,
    attempts: u32,
    mut pending: Vec<P>,
    mut send: impl FnMut(Vec<P>) -> Fut,
) -> (Vec<D>, Vec<(P, FailureReason)>)
where
    Fut: Future<Output = Sent<P, D>>,
{
    let mut done = Vec::new();
    let mut attempt = 0;
    loop {
        attempt += 1;
        let last_error = match send(std::mem::take(&mut pending)).await {
            Sent::Processed {
                done: now,
                unprocessed,
            } => {
                done.extend(now);
                pending = unprocessed;
                if pending.is_empty() {
                    return (done, Vec::new());
                }
                None
            }
            Sent::Failed {
                pending: sent,
                error,
                retryable: true,
            } => {
                tracing::debug!(error = %error, attempt, "batch request failed; retrying");
                pending = sent;
                Some(Arc::new(error))
            }
            Sent::Failed {
                pending: sent,
                error,
                ..
            } => {
                let error = Arc::new(error);
                let failed = sent
                    .into_iter()
                    .map(|p| (p, FailureReason::Request(error.clone())))
                    .collect();
                return (done, failed);
            }
        };
        if attempt >= attempts.max(1) {
            let failed = pending
                .into_iter()
                .map(|p| {
                    let reason = match &last_error {
                        Some(e) => FailureReason::Request(e.clone()),
                        None => FailureReason::Unprocessed { attempts: attempt },
                    };
                    (p, reason)
                })
                .collect();
            return (done, failed);
        }
        tokio::time::sleep(options.backoff(attempt)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_bounded_and_grows() {
        let o = BatchOptions {
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(100),
            ..BatchOptions::default()
        };
        for attempt in 1..40 {
            let d = o.backoff(attempt);
            assert!(d <= Duration::from_millis(100));
            let cap = (10u64 << (attempt - 1).min(20)).min(100);
            assert!(d.as_millis() as u64 <= cap);
        }
    }

    fn fast() -> BatchOptions {
        BatchOptions {
            base_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
            ..BatchOptions::default()
        }
    }

    #[tokio::test]
    async fn resends_the_unprocessed_until_done() {
        // Each try processes the first input and leaves the rest.
        let (done, failed) = until_processed(&fast(), 5, vec![1, 2, 3], |p: Vec<i32>| async move {
            Sent::Processed {
                done: vec![p[0]],
                unprocessed: p[1..].to_vec(),
            }
        })
        .await;
        assert_eq!(done, [1, 2, 3]);
        assert!(failed.is_empty());
    }

    #[tokio::test]
    async fn reports_every_input_left_when_tries_run_out() {
        let (done, failed) = until_processed(&fast(), 2, vec![1, 2], |p: Vec<i32>| async move {
            Sent::<i32, i32>::Processed {
                done: vec![],
                unprocessed: p,
            }
        })
        .await;
        assert!(done.is_empty());
        assert_eq!(failed.len(), 2);
        assert!(failed
            .iter()
            .all(|(_, r)| matches!(r, FailureReason::Unprocessed { attempts: 2 })));
    }

    #[tokio::test]
    async fn a_final_error_fails_every_pending_input_at_once() {
        let mut tries = 0;
        let (_, failed) = until_processed(&fast(), 5, vec![1, 2], |p: Vec<i32>| {
            tries += 1;
            async move {
                Sent::<i32, i32>::Failed {
                    pending: p,
                    error: Error::InvalidRequest("no".into()),
                    retryable: false,
                }
            }
        })
        .await;
        assert_eq!(tries, 1);
        assert_eq!(failed.len(), 2);
        assert!(failed
            .iter()
            .all(|(_, r)| matches!(r, FailureReason::Request(_))));
    }
}
