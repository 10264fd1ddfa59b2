//! Read–modify–write with optimistic locking: [`Table::modify`].

use std::future::IntoFuture;

use faceteer_core::expr::same_value;
use faceteer_core::facet::Versioned;
use faceteer_core::plan::save::{save_diff_from, SaveDiff, SaveError};
use faceteer_core::plan::stamp::write_clock_now;
use faceteer_core::{Facet, Item, Key};

use crate::error::{Error, Result};
use crate::exec::future::BoxFuture;
use crate::hook::{Requires, WritePath};
use crate::table::Table;
use crate::write::save::send_diff;

/// Tries of a [`Table::modify`] by default.
pub const DEFAULT_MODIFY_ATTEMPTS: u32 = 5;

impl Table {
    /// Read the record under `key` (strongly consistent), change it with `change`, and
    /// write it back only when no other writer changed it in between (its `#[version]` is
    /// checked and moved by the write). On a conflict it reads and tries again, up to
    /// [`Modify::attempts`] times (default 5), then fails with [`Error::VersionConflict`].
    ///
    /// Only what changed is sent: one `UpdateItem` of the attributes that differ (with the
    /// index keys, TTL and `#[updated]` time they move), as [`Table::save`] sends, and
    /// nothing at all when the change changes nothing. The whole record is put instead
    /// when the stored item is not what a put of the record as read writes (stored at an
    /// older schema version, holding attributes no field names, missing an index key), so
    /// a modify also brings such a record to the current shape; or when the change moves
    /// the key or `#[created]`.
    ///
    /// Await it for the record as written (at its new version; `#[updated]` as stored when
    /// only what changed was sent, as the record read had it when the whole record was), or
    /// `None` when no record has the key. `change` may run more than once: keep it free of
    /// other side effects.
    ///
    /// The facet's hooks ([`crate::hook`]) see the record read (`after_read`) and the
    /// changed record (`before_write`) on each try: a try that meets another writer's change
    /// reads again, and the hooks see the new record.
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
                let Some((mut record, stored)) =
                    table.get(&key).consistent().with_stored_item().await?
                else {
                    return Ok(None);
                };
                let read_version = record.version();
                let read = faceteer_core::to_item(&record)?;
                change(&mut record);
                // The change cannot move the counter: the check is against what was read.
                let record = record.with_version(read_version);
                // The hooks see the changed record once per try; both writes send what they
                // leave.
                let (record, requires) = match table.hooks_for::<F>() {
                    Some(hooks) => hooks.record("UpdateItem", &record, WritePath::Put).await?,
                    None => (record, Requires::default()),
                };
                // Its last try's conflict is the caller's error, and is reported.
                let last = tried >= attempts;
                let written = match plan(&stored, read, &record)? {
                    Plan::Nothing => return Ok(Some(record)),
                    Plan::Save(diff) => {
                        let written = diff.written.clone();
                        send_diff(table, &key, *diff, None, &requires, !last)
                            .await
                            .map(|_| Some(written))
                    }
                    Plan::Put => {
                        let put = table.put(&record).created_as_read().hooks_ran(&requires);
                        let put = if last { put } else { put.expecting_conflicts() };
                        put.await.map(|()| None)
                    }
                };
                match written {
                    Ok(Some(item)) => {
                        // What the save left: the changed record, `#[updated]` stamped, at
                        // the next version.
                        let mut saved: F = faceteer_core::from_item(item)?;
                        if let Some(hooked) = table.hooks_for::<F>() {
                            hooked.returned(&mut saved).await;
                        }
                        return Ok(Some(saved.with_version(read_version + 1)));
                    }
                    Ok(None) => {
                        let mut record = record.with_version(read_version + 1);
                        if let Some(hooked) = table.hooks_for::<F>() {
                            hooked.returned(&mut record).await;
                        }
                        return Ok(Some(record));
                    }
                    Err(Error::VersionConflict { .. }) if !last => {
                        tracing::debug!(attempt = tried, "version conflict; reading again");
                    }
                    Err(e) => return Err(e),
                }
            }
        })
    }
}

/// How one try of a modify writes the changed record.
enum Plan<F> {
    /// The change changed nothing: nothing is sent.
    Nothing,
    /// An update of the attributes that differ, conditioned on the version read.
    Save(Box<SaveDiff<F>>),
    /// A put of the whole record: the stored item is not what a put of the record as read
    /// writes (another schema version, attributes no field names, a missing index key), or
    /// the change moves what a save keeps (the key, `#[created]`).
    Put,
}

/// The write of `record`, read from `stored` (which a put of the record as read writes as
/// `read`).
fn plan<F: Facet>(stored: &Item, read: Item, record: &F) -> Result<Plan<F>> {
    let canonical = stored.len() == read.len()
        && stored
            .iter()
            .all(|(name, value)| same_value(Some(value), read.get(name)));
    if !canonical {
        return Ok(Plan::Put);
    }
    match save_diff_from(read, record, &write_clock_now()) {
        Ok(None) => Ok(Plan::Nothing),
        Ok(Some(diff)) => Ok(Plan::Save(Box::new(diff))),
        Err(SaveError::Item(e)) => Err(Error::Item(e)),
        Err(_) => Ok(Plan::Put),
    }
}
