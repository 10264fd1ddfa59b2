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
                    pk,
                    sk,
                    error: Arc::new(error),
                });
            }
        }
    }
    *records = kept;
}
