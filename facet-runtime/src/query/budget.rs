//! A read-capacity budget per second, shared by every request of a rate-limited scan (its
//! segments and pages): [`ScanRun::rate_limit`](super::ScanRun::rate_limit).

use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

/// Spreads requests so that the capacity they consume averages at most `per_second` units
/// a second. DynamoDB reports what a request consumed only in its answer, so each request
/// waits until the time the requests before it have paid for, then moves that time on by
/// what it consumed.
#[derive(Debug)]
pub(crate) struct Budget {
    per_second: f64,
    /// When the next request may start.
    next: Mutex<Option<Instant>>,
}

impl Budget {
    /// A budget of `per_second` capacity units a second (finite, above zero: checked by the
    /// caller).
    pub(crate) fn new(per_second: f64) -> Self {
        Budget {
            per_second,
            next: Mutex::new(None),
        }
    }

    /// Wait until the capacity consumed so far is paid for.
    pub(crate) async fn wait(&self) {
        let next = *self.next.lock().await;
        if let Some(at) = next {
            tokio::time::sleep_until(at).await;
        }
    }

    /// Pay for `units` consumed by a request that just finished.
    pub(crate) async fn spend(&self, units: f64) {
        let mut next = self.next.lock().await;
        let now = Instant::now();
        let from = next.map_or(now, |at| at.max(now));
        let cost = Duration::from_secs_f64((units / self.per_second).clamp(0.0, 3600.0));
        *next = Some(from + cost);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn requests_wait_for_what_earlier_ones_consumed() {
        let budget = Budget::new(10.0);
        let start = Instant::now();
        budget.wait().await;
        assert_eq!(
            start.elapsed(),
            Duration::ZERO,
            "the first request starts at once"
        );
        budget.spend(5.0).await;
        budget.wait().await;
        assert_eq!(start.elapsed(), Duration::from_millis(500));
        budget.spend(20.0).await;
        budget.wait().await;
        assert_eq!(start.elapsed(), Duration::from_millis(2500));
        // Time spent elsewhere counts: no debt after a long pause.
        tokio::time::sleep(Duration::from_secs(10)).await;
        let before = Instant::now();
        budget.spend(1.0).await;
        budget.wait().await;
        assert_eq!(before.elapsed(), Duration::from_millis(100));
    }
}
