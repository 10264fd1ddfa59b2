//! The single-operation builders as the steps of a write transaction:
//! `table.transact_write().put(table.put(&r).if_not_exists()).update(table.update(&k, c))`.
//! Here, beside the builders, so that the transaction module needs none of them.
//!
//! A step of a facet with hooks runs them when the transaction is sent (on a copy of its
//! record), and is built from what they leave; what they require of the stored record joins
//! the step's condition.

use faceteer_core::{Facet, Key};

use crate::error::TxAction;
use crate::hook::{copy_of, Requires, WritePath};
use crate::transaction::{Applier, TransactWrite};
use crate::wire::keys::key_pair;
use crate::write::delete::Delete;
use crate::write::put::Put;
use crate::write::update::UpdateItem;

impl<'t> TransactWrite<'t> {
    /// A put, as [`Table::put`](crate::Table::put) builds it, with its options (`if_not_exists`, `when`), on
    /// the builder's table: `tx.put(table.put(&order).if_not_exists())`. For a facet with a
    /// `#[version]` field it is checked against the record's version as a put is. In a
    /// transaction, `#[created]` is the time of the write (a transaction cannot first see
    /// whether a record is stored).
    pub fn put<F: Facet>(self, put: Put<'_, F>) -> Self {
        let (table, record, item_exists, when) = put.into_step();
        if table.hooks_for::<F>().is_none() {
            return self.on_table(table, |tx| {
                tx.put_step(record, item_exists, when.as_ref(), None)
            });
        }
        let key = record
            .primary_key()
            .map(|k| (k.pk().to_owned(), k.sk().to_owned()));
        let (owned, key) = match (copy_of(record), key) {
            (Ok(owned), Ok(key)) => (owned, key),
            (Err(e), _) => return self.fail(e.into()),
            (_, Err(e)) => return self.fail(e.into()),
        };
        let hooks = table.clone();
        self.hooked_step::<F>(
            table,
            TxAction::Put,
            key,
            Box::pin(async move {
                let (record, requires) = match hooks.hooks_for::<F>() {
                    Some(h) => {
                        h.record("TransactWriteItems", &owned, WritePath::Transaction)
                            .await?
                    }
                    None => (owned, Requires::default()),
                };
                let apply: Applier<'t> = Box::new(move |tx| {
                    tx.put_step(
                        &record,
                        item_exists,
                        when.as_ref(),
                        requires.condition(true),
                    )
                });
                Ok(apply)
            }),
        )
    }

    /// An update, as [`Table::update`](crate::Table::update) builds it, with its condition (`when`), on the
    /// builder's table: `tx.update(table.update(&key, change).when(cond))`. It must exist.
    /// One that may create the record (`or_create`) or returns it is refused.
    pub fn update<F: Facet>(self, update: UpdateItem<'_, F>) -> Self {
        let step = match update.into_step() {
            Ok(step) => step,
            Err(e) => return self.fail(e),
        };
        if step.table.hooks_for::<F>().is_none() {
            return self.on_table(step.table, |tx| {
                tx.update_step(step.key, step.change, step.when.as_ref())
            });
        }
        let hooks = step.table.clone();
        let (key_item, mut change, when) = (step.key, step.change, step.when);
        let pair = key_pair(&key_item);
        self.hooked_step::<F>(
            step.table,
            TxAction::Update,
            pair.clone(),
            Box::pin(async move {
                let key = Key::<F>::from_parts(pair.0, pair.1);
                let requires = match hooks.hooks_for::<F>() {
                    Some(h) => h.change(&key, &mut change, None).await?,
                    None => Requires::default(),
                };
                let when = match (when, requires.condition(false)) {
                    (Some(a), Some(b)) => Some(a.and(b)),
                    (a, b) => a.or(b),
                };
                let apply: Applier<'t> =
                    Box::new(move |tx| tx.update_step(key_item, change, when.as_ref()));
                Ok(apply)
            }),
        )
    }

    /// A delete, as [`Table::delete`](crate::Table::delete) builds it, with its options (`if_exists`, `when`), on
    /// the builder's table: `tx.delete(table.delete(&key).when(cond))`.
    pub fn delete<F: Facet>(self, delete: Delete<'_, F>) -> Self {
        let (table, key, item_exists, when) = delete.into_step();
        if table.hooks_for::<F>().is_none() {
            return self.on_table(table, |tx| {
                tx.delete_step(&key, item_exists, when.as_ref(), None)
            });
        }
        let hooks = table.clone();
        let pair = (key.pk().to_owned(), key.sk().to_owned());
        self.hooked_step::<F>(
            table,
            TxAction::Delete,
            pair,
            Box::pin(async move {
                let requires = match hooks.hooks_for::<F>() {
                    Some(h) => h.delete(&key, WritePath::Transaction).await?,
                    None => Requires::default(),
                };
                let apply: Applier<'t> = Box::new(move |tx| {
                    tx.delete_step(&key, item_exists, when.as_ref(), requires.condition(false))
                });
                Ok(apply)
            }),
        )
    }
}
