//! A consumed-capacity budget per second, shared by a backfill's segments.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// A token bucket of capacity units: up to one second's budget is saved up, and a request
/// waits while the bucket is empty. Units are taken after each request, once DynamoDB has
/// said what it consumed, so the bucket may go below zero; the next request waits for it to
/// fill again.
#[derive(Debug)]
pub(crate) struct Budget {
    per_second: f64,
    state: Mutex<(f64, Instant)>,
}

impl Budget {
    /// A budget of `per_second` units a second (at least 0.1).
    pub(crate) fn new(per_second: f64) -> Budget {
        let per_second = if per_second.is_finite() {
            per_second.max(0.1)
        } else {
            f64::MAX
        };
        Budget {
            per_second,
            state: Mutex::new((per_second, Instant::now())),
        }
    }

    /// Wait until the bucket holds some capacity.
    pub(crate) async fn acquire(&self) {
        loop {
            let wait = {
                let Ok(mut state) = self.state.lock() else {
                    return;
                };
                let now = Instant::now();
                let refill = now.duration_since(state.1).as_secs_f64() * self.per_second;
                state.0 = (state.0 + refill).min(self.per_second);
                state.1 = now;
                if state.0 > 0.0 {
                    return;
                }
                Duration::from_secs_f64((-state.0 / self.per_second).clamp(0.001, 60.0))
            };
            tokio::time::sleep(wait).await;
        }
    }

    /// Take `units` from the bucket.
    pub(crate) fn spend(&self, units: f64) {
        if let Ok(mut state) = self.state.lock() {
            state.0 -= units;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_spent_budget_waits_for_the_next_second() {
        let budget = Budget::new(10.0);
        let start = Instant::now();
        budget.acquire().await;
        budget.spend(30.0);
        budget.acquire().await;
        // 10 saved, 30 spent: -20 takes two seconds to fill.
        let waited = start.elapsed();
        assert!(waited >= Duration::from_secs(2), "{waited:?}");
        assert!(waited < Duration::from_secs(3), "{waited:?}");
    }
}
