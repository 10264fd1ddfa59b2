//! The single-operation builders as the steps of a write transaction:
//! `table.transact_write().put(table.put(&r).if_not_exists()).update(table.update(&k, c))`.
//! Here, beside the builders, so that the transaction module needs none of them.

use faceteer_core::Facet;

use crate::transaction::TransactWrite;
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
        self.on_table(table, |tx| {
            tx.put_step(record, item_exists, when.as_ref(), None)
        })
    }

    /// An update, as [`Table::update`](crate::Table::update) builds it, with its condition (`when`), on the
    /// builder's table: `tx.update(table.update(&key, change).when(cond))`. It must exist.
    /// One that may create the record (`or_create`) or returns it is refused.
    pub fn update<F: Facet>(self, update: UpdateItem<'_, F>) -> Self {
        match update.into_step() {
            Ok(step) => self.on_table(step.table, |tx| {
                tx.update_step(step.key, step.change, step.when.as_ref())
            }),
            Err(e) => self.fail(e),
        }
    }

    /// A delete, as [`Table::delete`](crate::Table::delete) builds it, with its options (`if_exists`, `when`), on
    /// the builder's table: `tx.delete(table.delete(&key).when(cond))`.
    pub fn delete<F: Facet>(self, delete: Delete<'_, F>) -> Self {
        let (table, key, item_exists, when) = delete.into_step();
        self.on_table(table, |tx| {
            tx.delete_step(&key, item_exists, when.as_ref(), None)
        })
    }
}
