//! Exactly once: the one retry routine of single-item writes and transactions.
//!
//! A write whose answer is lost (a timeout, a dropped connection, a 5xx) may or may not have
//! been applied. faceteer sends it again only when a second application cannot change
//! anything, or cannot happen:
//!
//! * a put or a delete without a condition stores the same thing twice;
//! * a conditional put, sent again, either applies the same item or fails its condition, and
//!   the stored item the failure returns (`ReturnValuesOnConditionCheckFailure = ALL_OLD`)
//!   says whether the earlier try applied it;
//! * an update stores a fresh write token ([`WRITE_TOKEN`]) and is applied only where that
//!   token is not stored yet, so a second try fails instead of applying twice, and the token
//!   in the stored item says the first one did;
//! * a transaction is sent again with the same `ClientRequestToken`, and its update steps
//!   carry the write token too.
//!
//! [`send`] makes the tries and reports whether one of them may have been applied
//! ([`Answer::uncertain`]); each write then reads the final answer ([`Recognized`]):
//! applied, certainly not applied, or [`Error::OutcomeUnknown`]. Nothing is ever reported
//! "not applied" unless it certainly was not.

use std::future::Future;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::schema::WRITE_TOKEN;
use faceteer_core::Item;

use crate::error::{Error, Result};
use crate::exec::retry::{verdict, Effect};
use crate::exec::trace::Op;
use crate::table::Table;

/// The answer a write ends with, and whether an earlier try may have been applied.
pub(crate) struct Answer<T> {
    /// The last try's answer.
    pub(crate) reply: T,
    /// The error of an earlier try that may have been applied (its answer was lost).
    pub(crate) uncertain: Option<Arc<Error>>,
    /// Tries sent.
    pub(crate) tries: u32,
}

/// Send a write with `attempt` until a try is answered, the tries
/// ([`BatchOptions::write_attempts`](crate::BatchOptions::write_attempts)) are used, or the
/// call's deadline passes.
///
/// Only a write that cannot apply twice may be sent with it (see the module). A try that
/// fails with an error another try may fix (throttling, a 5xx, a timeout, a broken
/// connection) is sent again after a backoff. A final error is the error itself when no try
/// may have been applied, else [`Error::OutcomeUnknown`] about `key`.
pub(crate) async fn send<T, Fut>(
    table: &Table,
    op: &Op,
    key: &(String, String),
    mut attempt: impl FnMut() -> Fut,
) -> Result<Answer<T>>
where
    Fut: Future<Output = Result<T>>,
{
    let options = table.batch_options();
    let mut uncertain: Option<Arc<Error>> = None;
    let mut tries = 0;
    loop {
        tries += 1;
        let error = match attempt().await {
            Ok(reply) => {
                return Ok(Answer {
                    reply,
                    uncertain,
                    tries,
                })
            }
            Err(e) => e,
        };
        let v = verdict(&error, Effect::Writes);
        let error = Arc::new(error);
        if v.maybe_applied {
            uncertain = Some(error.clone());
        }
        if v.transient && tries < options.write_attempts.max(1) {
            let wait = options.backoff(tries);
            if tokio::time::Instant::now() + wait < op.deadline() {
                tracing::debug!(error = %error, tries, "write failed; sending it again");
                tokio::time::sleep(wait).await;
                continue;
            }
        }
        return Err(match uncertain {
            Some(_) => unknown(op, key, tries, error),
            // Not shared: no try may have been applied.
            None => Arc::try_unwrap(error).unwrap_or_else(|e| Error::InvalidRequest(e.to_string())),
        });
    }
}

/// [`Error::OutcomeUnknown`] for the write of the item under `key` (`PK`, `SK`).
pub(crate) fn unknown(op: &Op, key: &(String, String), tries: u32, cause: Arc<Error>) -> Error {
    Error::OutcomeUnknown {
        operation: op.operation(),
        facet: op.context().facet.unwrap_or_default(),
        pk: key.0.clone(),
        sk: key.1.clone(),
        tries,
        cause,
    }
}

/// What a failed condition, met after a try that may have been applied, says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recognized {
    /// The stored item is the write's own: an earlier try applied it.
    Ours,
    /// The write was certainly not applied.
    NotOurs,
    /// Either is possible.
    Unknown,
}

/// A fresh write token: 128 random bits, in hex.
pub(crate) fn fresh_token() -> String {
    format!("{:032x}", fastrand::u128(..))
}

/// Whether `stored` holds write token `token` (an update that stored it was applied).
pub(crate) fn holds_token(stored: Option<&Item>, token: &str) -> bool {
    matches!(stored.and_then(|s| s.get(WRITE_TOKEN)), Some(AttributeValue::S(t)) if t == token)
}

/// Whether `stored` is exactly `item`, attribute by attribute as DynamoDB compares values.
pub(crate) fn same_item(stored: &Item, item: &Item) -> bool {
    stored.len() == item.len()
        && item
            .iter()
            .all(|(name, v)| faceteer_core::expr::same_value(stored.get(name), Some(v)))
}

/// Whether the put of `item` is what `stored` holds, after a failed condition met by a try
/// that followed one that may have applied it. `version` is the counter's name and the
/// version the put writes, for a put whose only condition is its version check: a stored
/// version at or below it, held by another item, means another writer's versioned write
/// got there first, so this one was certainly not applied.
pub(crate) fn recognize_put(
    stored: Option<&Item>,
    item: &Item,
    version: Option<(&str, u64)>,
) -> Recognized {
    let Some(stored) = stored else {
        return Recognized::Unknown;
    };
    if same_item(stored, item) {
        return Recognized::Ours;
    }
    let stored_version = |name: &str| match stored.get(name) {
        Some(AttributeValue::N(n)) => n.parse::<u64>().ok(),
        _ => None,
    };
    match version {
        Some((name, writes)) if stored_version(name).is_some_and(|v| v <= writes) => {
            Recognized::NotOurs
        }
        _ => Recognized::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn another_writers_identical_versioned_item_is_not_ours() {
        let n = |s: &str| AttributeValue::N(s.into());
        let s = |s: &str| AttributeValue::S(s.into());
        let mine = item(&[("PK", s("a")), ("v", n("4")), (WRITE_TOKEN, s("t1"))]);
        let theirs = item(&[("PK", s("a")), ("v", n("4")), (WRITE_TOKEN, s("t2"))]);
        let version = Some(("v", 4));
        assert_eq!(
            recognize_put(Some(&theirs), &mine, version),
            Recognized::NotOurs
        );
        assert_eq!(recognize_put(Some(&mine), &mine, version), Recognized::Ours);
    }

    #[test]
    fn a_put_is_recognised_by_its_item_or_its_version() {
        let n = |s: &str| AttributeValue::N(s.into());
        let ours = item(&[("PK", AttributeValue::S("a".into())), ("v", n("3"))]);
        // Numbers compare as numbers.
        let same = item(&[("PK", AttributeValue::S("a".into())), ("v", n("3.0"))]);
        assert_eq!(recognize_put(Some(&same), &ours, None), Recognized::Ours);
        let other = item(&[("PK", AttributeValue::S("b".into())), ("v", n("3"))]);
        assert_eq!(
            recognize_put(Some(&other), &ours, None),
            Recognized::Unknown
        );
        assert_eq!(recognize_put(None, &ours, None), Recognized::Unknown);
        assert_eq!(
            recognize_put(Some(&other), &ours, Some(("v", 3))),
            Recognized::NotOurs
        );
        let later = item(&[("PK", AttributeValue::S("b".into())), ("v", n("4"))]);
        assert_eq!(
            recognize_put(Some(&later), &ours, Some(("v", 3))),
            Recognized::Unknown
        );
    }

    #[test]
    fn tokens_are_fresh_and_recognised() {
        let t = fresh_token();
        assert_eq!(t.len(), 32);
        assert_ne!(t, fresh_token());
        let stored = item(&[(WRITE_TOKEN, AttributeValue::S(t.clone()))]);
        assert!(holds_token(Some(&stored), &t));
        assert!(!holds_token(Some(&stored), &fresh_token()));
        assert!(!holds_token(None, &t));
    }
}
