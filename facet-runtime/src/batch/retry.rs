//! The one retry routine of batch writes and reads.
//!
//! A batch request may leave part of its inputs unprocessed, or fail as a whole. The
//! routine resends what is left with exponential backoff and full jitter until everything
//! is processed or the tries are used, and reports every input left over with its reason.

use std::future::Future;
use std::sync::Arc;

use crate::error::{Error, FailureReason};
use crate::exec::future::BoxFuture;
use crate::exec::retry::{verdict, Deadline, Effect};
use crate::table::BatchOptions;

/// What one batch request did.
pub(crate) enum Sent<P, D> {
    /// It went through: what it completed, and the inputs the server left unprocessed.
    Processed {
        /// Completed work (items read, indices written).
        done: Vec<D>,
        /// Inputs to send again.
        unprocessed: Vec<P>,
    },
    /// It failed as a whole.
    Failed {
        /// The inputs sent, handed back.
        pending: Vec<P>,
        /// The error.
        error: Error,
    },
}

/// Where every input of a batch ended: done, not done with the reason, or outcome unknown.
pub(crate) struct Settled<P, D> {
    /// Completed work.
    pub(crate) done: Vec<D>,
    /// Inputs certainly not done, with the reason.
    pub(crate) failed: Vec<(P, FailureReason)>,
    /// Inputs that may or may not have been applied, with the last error.
    pub(crate) unknown: Vec<(P, Arc<Error>)>,
}

impl<P, D> Settled<P, D> {
    fn new() -> Self {
        Settled {
            done: Vec::new(),
            failed: Vec::new(),
            unknown: Vec::new(),
        }
    }

    fn extend(&mut self, other: Settled<P, D>) {
        self.done.extend(other.done);
        self.failed.extend(other.failed);
        self.unknown.extend(other.unknown);
    }
}

/// Send `pending` with `send` until nothing is left or `attempts` tries are used, and settle
/// every input.
///
/// * Unprocessed inputs, throttling, 5xx answers, timeouts and transport failures are
///   retried with backoff (batch requests of distinct keys are idempotent).
/// * A request the server refuses as invalid (`ValidationException`) is split in halves
///   until the bad input is alone, so that one bad input never takes its neighbours down.
/// * For writes, an input sent in a request whose outcome is unknown (a 5xx, a timeout, a
///   connection broken after sending) and never confirmed afterwards ends as unknown, not
///   as failed.
/// * No try starts, and no backoff waits, past `deadline` (the call's): what is left then
///   ends as unknown when a try may have applied it, else as failed.
pub(crate) fn until_processed<'a, P, D, Fut>(
    options: &'a BatchOptions,
    attempts: u32,
    effect: Effect,
    deadline: Deadline<'a>,
    pending: Vec<P>,
    send: &'a mut (dyn FnMut(Vec<P>) -> Fut + Send),
) -> BoxFuture<'a, Settled<P, D>>
where
    P: Send + 'a,
    D: Send + 'a,
    Fut: Future<Output = Sent<P, D>> + Send + 'a,
{
    Box::pin(async move {
        let mut pending = pending;
        let mut settled = Settled::new();
        // The last error after which the pending inputs may have been applied.
        let mut uncertain: Option<Arc<Error>> = None;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let last_error = match send(std::mem::take(&mut pending)).await {
                Sent::Processed {
                    done: now,
                    unprocessed,
                } => {
                    settled.done.extend(now);
                    pending = unprocessed;
                    if pending.is_empty() {
                        return settled;
                    }
                    None
                }
                Sent::Failed {
                    pending: sent,
                    error,
                } => {
                    let v = verdict(&error, effect);
                    let error = Arc::new(error);
                    if v.maybe_applied {
                        uncertain = Some(error.clone());
                    }
                    if v.transient {
                        tracing::debug!(error = %error, attempt, "batch request failed; retrying");
                        pending = sent;
                        Some(error)
                    } else if v.invalid && sent.len() > 1 && uncertain.is_none() {
                        // Nothing of it was applied: find the bad input by halves.
                        let mut sent = sent;
                        let second = sent.split_off(sent.len() / 2);
                        for half in [sent, second] {
                            let part = until_processed(
                                options, attempts, effect, deadline, half, &mut *send,
                            )
                            .await;
                            settled.extend(part);
                        }
                        return settled;
                    } else {
                        for p in sent {
                            if let Some(u) = &uncertain {
                                settled.unknown.push((p, u.clone()));
                            } else if v.invalid {
                                settled
                                    .failed
                                    .push((p, FailureReason::Refused(error.clone())));
                            } else {
                                settled
                                    .failed
                                    .push((p, FailureReason::Request(error.clone())));
                            }
                        }
                        return settled;
                    }
                }
            };
            let wait = options.backoff(attempt);
            let out_of_time = tokio::time::Instant::now() + wait >= deadline.at;
            let last_error = match (out_of_time, last_error) {
                (true, None) => Some(Arc::new(deadline.exceeded())),
                (_, e) => e,
            };
            if attempt >= attempts.max(1) || out_of_time {
                for p in pending {
                    match (&uncertain, &last_error) {
                        (Some(u), _) => settled.unknown.push((p, u.clone())),
                        (None, Some(e)) => {
                            settled.failed.push((p, FailureReason::Request(e.clone())))
                        }
                        (None, None) => settled
                            .failed
                            .push((p, FailureReason::Unprocessed { attempts: attempt })),
                    }
                }
                return settled;
            }
            tokio::time::sleep(wait).await;
        }
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

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

    async fn run<D: Send>(
        attempts: u32,
        effect: Effect,
        inputs: Vec<i32>,
        mut send: impl FnMut(Vec<i32>) -> Sent<i32, D> + Send,
    ) -> Settled<i32, D> {
        let options = fast();
        let mut send = move |p: Vec<i32>| std::future::ready(send(p));
        let deadline = Deadline {
            at: tokio::time::Instant::now() + Duration::from_secs(600),
            op: None,
        };
        until_processed(&options, attempts, effect, deadline, inputs, &mut send).await
    }

    #[tokio::test]
    async fn resends_the_unprocessed_until_done() {
        // Each try processes the first input and leaves the rest.
        let s = run(5, Effect::Writes, vec![1, 2, 3], |p| Sent::Processed {
            done: vec![p[0]],
            unprocessed: p[1..].to_vec(),
        })
        .await;
        assert_eq!(s.done, [1, 2, 3]);
        assert!(s.failed.is_empty() && s.unknown.is_empty());
    }

    #[tokio::test]
    async fn reports_every_input_left_when_tries_run_out() {
        let s = run(2, Effect::Writes, vec![1, 2], |p| {
            Sent::<i32, i32>::Processed {
                done: vec![],
                unprocessed: p,
            }
        })
        .await;
        assert!(s.done.is_empty() && s.unknown.is_empty());
        assert_eq!(s.failed.len(), 2);
        assert!(s
            .failed
            .iter()
            .all(|(_, r)| matches!(r, FailureReason::Unprocessed { attempts: 2 })));
    }

    #[tokio::test]
    async fn a_final_error_fails_every_pending_input_at_once() {
        let mut tries = 0;
        let s = run(5, Effect::Writes, vec![1, 2], |p| {
            tries += 1;
            Sent::<i32, i32>::Failed {
                pending: p,
                error: Error::InvalidRequest("no".into()),
            }
        })
        .await;
        assert_eq!(tries, 1);
        assert_eq!(s.failed.len(), 2);
        assert!(s
            .failed
            .iter()
            .all(|(_, r)| matches!(r, FailureReason::Request(_))));
    }
}
