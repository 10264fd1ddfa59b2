//! Walking pages: the streams and collections shared by queries and scans.

use std::sync::Arc;

use faceteer_core::schema::{IndexSchema, KeyAttribute, ScalarType, PK, SK};
use faceteer_core::{Item, ItemError};
use futures::{Stream, StreamExt, TryStreamExt};

use crate::error::{Error, Result};
use crate::query::mode::{Collected, FailedRecord, Page};
use crate::table::Table;
use crate::wire::stored::{Attributes, Stored};

/// The `Limit` of the next request of a page of at most `limit` results that has `have`:
/// one beyond what is still wanted, to know whether another page follows. Counted in
/// `usize` (`u32::MAX + 1` fits) and sent as at most `u32::MAX`.
pub(crate) fn next_limit(limit: Option<usize>, have: usize) -> Option<u32> {
    limit.map(|l| (l + 1 - have).min(u32::MAX as usize) as u32)
}

/// The key attributes a cursor needs: the base key and, on an index, the index's key
/// ([`IndexSchema::read_key_attributes`]), each of its type.
pub(crate) fn key_of(index: Option<&IndexSchema>, item: &impl Attributes) -> Result<Item> {
    let index_keys = index.map(|i| i.read_key_attributes()).unwrap_or_default();
    let mut key = Item::with_capacity(2 + index_keys.len());
    let base = [KeyAttribute::text(PK), KeyAttribute::text(SK)];
    for k in base
        .into_iter()
        .chain(index_keys.into_iter().map(|(k, _)| k))
    {
        match item
            .value(k.name)
            .filter(|v| ScalarType::of(v) == Some(k.ty))
        {
            Some(value) => {
                key.insert(k.name.to_owned(), value);
            }
            None => return Err(crate::error::Error::MissingKeyAttribute(k.name.to_owned())),
        }
    }
    Ok(key)
}

/// Read a page's raw items with `decode`: the valid records, and apart each item that is not
/// one, with its key and the error.
pub(crate) fn decode<T>(
    raw: Vec<Stored>,
    decode: impl Fn(Stored) -> std::result::Result<T, ItemError>,
) -> (Vec<T>, Vec<FailedRecord>) {
    let mut records = Vec::with_capacity(raw.len());
    let mut failed = Vec::new();
    for item in raw {
        // What names the item's key if it fails: its key strings from the SDK's tree (the
        // tree is consumed by decoding), the shared JSON text of one read directly.
        let named = match &item {
            Stored::Tree(tree) => Err(crate::wire::keys::key_pair(tree)),
            Stored::Wire(wire) => Ok(wire.clone()),
            Stored::Read(read) => Err(read
                .noted()
                .key()
                .map(|(pk, sk)| (pk.to_owned(), sk.to_owned()))
                .unwrap_or_default()),
        };
        match decode(item) {
            Ok(record) => records.push(record),
            Err(error) => {
                let (pk, sk) = match named {
                    Err(key) => key,
                    Ok(wire) => {
                        let text = |name| wire.text(name).map(|t| t.into_owned());
                        (text(PK).unwrap_or_default(), text(SK).unwrap_or_default())
                    }
                };
                failed.push(FailedRecord {
                    pk: pk.into(),
                    sk: sk.into(),
                    error: Arc::new(error),
                })
            }
        }
    }
    (records, failed)
}

/// `pages` under one deadline ([`Timeouts::call`](crate::Timeouts::call)), counted from
/// the first page asked for: when it passes, the stream ends with
/// [`Error::DeadlineExceeded`](crate::Error::DeadlineExceeded) (a read changes nothing, so
/// the request under way is dropped).
pub(crate) fn bounded<'t, T: Send + 't>(
    table: &'t Table,
    operation: &'static str,
    pages: impl Stream<Item = Result<T>> + Send + 't,
) -> impl Stream<Item = Result<T>> + Send + 't {
    let start = (Box::pin(pages), None, false);
    futures::stream::unfold(start, move |(mut pages, deadline, over)| async move {
        if over {
            return None;
        }
        let deadline = deadline.unwrap_or_else(|| table.call_deadline());
        match tokio::time::timeout_at(deadline, pages.next()).await {
            Ok(Some(page)) => Some((page, (pages, Some(deadline), false))),
            Ok(None) => None,
            Err(_) => {
                let error = Error::DeadlineExceeded {
                    operation,
                    table: table.name().to_owned(),
                    after: table.timeouts().call,
                    sent: true,
                };
                Some((Err(error), (pages, Some(deadline), true)))
            }
        }
    })
}

/// Every record of `pages`, as a stream. A stored item that is not a valid record comes as
/// an [`Error::Record`](crate::Error::Record) item (after the valid records of its page), and
/// the stream goes on.
pub(crate) fn records<'t, T: Send + 't>(
    pages: impl Stream<Item = Result<Page<T>>> + Send + 't,
) -> impl Stream<Item = Result<T>> + Send + 't {
    pages
        .map_ok(|page| {
            let good = page.records.into_iter().map(Ok);
            let bad = page.failed.into_iter().map(|f| Err(f.into_error()));
            futures::stream::iter(good.chain(bad))
        })
        .try_flatten()
}

/// Every record of `pages`, collected; stops at the first stored item that is not a valid
/// record.
pub(crate) async fn all<T>(pages: impl Stream<Item = Result<Page<T>>>) -> Result<Vec<T>> {
    let mut pages = std::pin::pin!(pages);
    let mut all = Vec::new();
    while let Some(page) = pages.try_next().await? {
        if let Some(failed) = page.failed.into_iter().next() {
            return Err(failed.into_error());
        }
        all.extend(page.records);
    }
    Ok(all)
}

/// Every record of `pages`, and apart every stored item that is not a valid record.
pub(crate) async fn all_with_failures<T>(
    pages: impl Stream<Item = Result<Page<T>>>,
) -> Result<Collected<T>> {
    pages
        .try_fold(
            Collected {
                records: Vec::new(),
                failed: Vec::new(),
            },
            |mut all, page| async move {
                all.records.extend(page.records);
                all.failed.extend(page.failed);
                Ok(all)
            },
        )
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_limit_reads_one_ahead_and_never_wraps() {
        assert_eq!(next_limit(None, 3), None);
        assert_eq!(next_limit(Some(10), 4), Some(7));
        assert_eq!(next_limit(Some(u32::MAX as usize), 0), Some(u32::MAX));
    }
}
