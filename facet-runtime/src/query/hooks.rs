//! The `after_read` hooks of a page of records.

use std::sync::Arc;

use faceteer_core::Facet;

use super::mode::FailedRecord;
use crate::hook::ReadKind;
use crate::table::Table;

/// Run the `after_read` hooks of `F` on each record of a page read from `table` (`record`
/// reaches the whole record, `None` for a projection), moving those a hook refuses to
/// `failed`.
pub(crate) async fn after_read_page<F: Facet, T>(
    table: &Table,
    kind: ReadKind,
    records: &mut Vec<T>,
    failed: &mut Vec<FailedRecord>,
    record: fn(&mut T) -> Option<&mut F>,
) {
    let Some(hooked) = table.hooks_for::<F>() else {
        return;
    };
    let mut kept = Vec::with_capacity(records.len());
    for mut r in records.drain(..) {
        let Some(whole) = record(&mut r) else {
            kept.push(r);
            continue;
        };
        match hooked.after_read(whole, kind).await {
            Ok(()) => kept.push(r),
            Err(error) => {
                let (pk, sk) = whole
                    .primary_key()
                    .map(|k| (k.pk().to_owned(), k.sk().to_owned()))
                    .unwrap_or_default();
                failed.push(FailedRecord {
                    pk: pk.into(),
                    sk: sk.into(),
                    error: Arc::new(error),
                });
            }
        }
    }
    *records = kept;
}

/// Runs the `after_read` hooks of a collection variant's facet on its record.
struct AfterRead<'t> {
    table: &'t Table,
    kind: ReadKind,
}

impl<'t> faceteer_core::collection::RecordVisitor for AfterRead<'t> {
    type Output<'r>
        = crate::exec::future::BoxFuture<'r, Result<(), faceteer_core::ItemError>>
    where
        Self: 'r;

    fn visit<'r, F: Facet>(self, record: &'r mut F) -> Self::Output<'r>
    where
        Self: 'r,
    {
        Box::pin(async move {
            match self.table.hooks_for::<F>() {
                Some(hooked) => hooked.after_read(record, self.kind).await,
                None => Ok(()),
            }
        })
    }
}

/// [`after_read_page`] for the records of collection `C`, each through its facet's hooks.
pub(crate) async fn after_read_collection<C: faceteer_core::collection::Collection>(
    table: &Table,
    kind: ReadKind,
    records: &mut Vec<C>,
    failed: &mut Vec<FailedRecord>,
) {
    if table.hooks_none() {
        return;
    }
    let mut kept = Vec::with_capacity(records.len());
    for mut r in records.drain(..) {
        match r.with_record(AfterRead { table, kind }).await {
            Ok(()) => kept.push(r),
            Err(error) => failed.push(FailedRecord {
                pk: String::new().into(),
                sk: String::new().into(),
                error: Arc::new(error),
            }),
        }
    }
    *records = kept;
}
