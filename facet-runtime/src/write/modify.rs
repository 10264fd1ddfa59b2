//! Read–modify–write with optimistic locking: [`Table::modify`].

use std::future::IntoFuture;

use faceteer_core::facet::Versioned;
use faceteer_core::Key;

use crate::error::{Error, Result};
use crate::exec::future::BoxFuture;
use crate::table::Table;

/// Tries of a [`Table::modify`] by default.
pub const DEFAULT_MODIFY_ATTEMPTS: u32 = 5;

impl Table {
    /// Read the record under `key` (strongly consistent), change it with `change`, and
    /// write it back only when no other writer changed it in between (its `#[version]` is
    /// checked and moved by the put). On a conflict it reads and tries again, up to
    /// [`Modify::attempts`] times (default 5), then fails with [`Error::VersionConflict`].
    ///
    /// Await it for the record as written (at its new version), or `None` when no record
    /// has the key. `change` may run more than once: keep it free of other side effects.
    ///
    /// The write is applied exactly once: a put whose answer was lost is never read and
    /// changed a second time; it fails with [`Error::OutcomeUnknown`], or, on a table that
    /// resends under tokens ([`LostAnswers::Resend`](crate::LostAnswers::Resend)), is sent
    /// again as the same one-step transaction. All the tries share one deadline
    /// ([`Timeouts::call`](crate::Timeouts::call)).
    ///
    /// ```no_run
    /// # use faceteer::{Facet, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Facet, Serialize, Deserialize)]
    /// # struct Stock { #[pk(prefix = "#SKU")] #[sk(prefix = "#SKU")] sku: String, on_hand: u32, #[version] version: u64 }
    /// # async fn demo(table: &Table) -> faceteer::Result<()> {
    /// let stock = table
    ///     .modify(&Stock::key("sku-1")?, |s| s.on_hand -= 1)
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn modify<F, C>(&self, key: &Key<F>, change: C) -> Modify<'_, F, C>
    where
        F: Versioned,
        C: FnMut(&mut F) + Send,
    {
        Modify {
            table: self,
            key: key.clone(),
            change,
            attempts: DEFAULT_MODIFY_ATTEMPTS,
        }
    }
}

/// A read–modify–write: [`Table::modify`]. Await it.
#[must_use = "a modify does nothing until it is awaited"]
pub struct Modify<'a, F, C> {
    table: &'a Table,
    key: Key<F>,
    change: C,
    attempts: u32,
}

impl<F, C> Modify<'_, F, C> {
    /// Try at most `n` times (at least 1).
    pub fn attempts(mut self, n: u32) -> Self {
        self.attempts = n.max(1);
        self
    }
}

impl<'a, F, C> IntoFuture for Modify<'a, F, C>
where
    F: Versioned,
    C: FnMut(&mut F) + Send + 'a,
{
    type Output = Result<Option<F>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let Modify {
            table,
            key,
            mut change,
            attempts,
        } = self;
        Box::pin(async move {
            // One deadline for the whole read–modify–write, every try included.
            let table = &table.until(table.call_deadline());
            let mut tried = 0;
            loop {
                tried += 1;
                let Some(mut record) = table.get(&key).consistent().await? else {
                    return Ok(None);
                };
                let read_version = record.version();
                change(&mut record);
                // The change cannot move the counter: the check is against what was read.
                let record = record.with_version(read_version);
                // Its last try's conflict is the caller's error, and is reported.
                let put = table.put(&record).created_as_read();
                let put = if tried < attempts {
                    put.expecting_conflicts()
                } else {
                    put
                };
                match put.await {
                    Ok(()) => return Ok(Some(record.with_version(read_version + 1))),
                    Err(Error::VersionConflict { .. }) if tried < attempts => {
                        tracing::debug!(attempt = tried, "version conflict; reading again");
                    }
                    Err(e) => return Err(e),
                }
            }
        })
    }
}
