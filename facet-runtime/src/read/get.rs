//! Reads of one record: [`Table::get`], awaited, with `.consistent()` and `.select::<P>()`.

use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;

use faceteer_core::pick::{BaseTable, Projection};
use faceteer_core::plan::GetPlan;
use faceteer_core::{Facet, Item, Key};

use super::mode::{decode_stored, AsStored, Read, Select, Whole};
use crate::error::Result;
use crate::exec::future::{records, traced, BoxFuture};
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::table::Table;

impl Table {
    /// Read one record by key: `Ok(None)` when no item has the key, or when the item under it
    /// belongs to another facet. The facet's validator runs on the record read.
    ///
    /// Options: [`Get::consistent`], [`Get::select`].
    pub fn get<F: Facet>(&self, key: &Key<F>) -> Get<'_, F> {
        Get {
            table: self,
            key: key.to_item(),
            consistent: false,
            _read: PhantomData,
        }
    }
}

/// A read of one record: [`Table::get`]. Await it.
#[must_use = "a get does nothing until it is awaited"]
pub struct Get<'t, F, R = Whole> {
    table: &'t Table,
    key: Item,
    consistent: bool,
    _read: PhantomData<fn() -> (F, R)>,
}

impl<'t, F: Facet, R> Get<'t, F, R> {
    /// Read with strong consistency.
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// The record with the item it was decoded from (a modify plans its save from both).
    pub(crate) fn with_stored_item(self) -> Get<'t, F, AsStored> {
        Get {
            table: self.table,
            key: self.key,
            consistent: self.consistent,
            _read: PhantomData,
        }
    }

    /// Read only the fields of projection `P` (plus the key fields), with a
    /// `ProjectionExpression`. Needs a pick validator on the facet; it runs on the item read.
    pub fn select<P: Projection<Facet = F> + Send + 'static>(self) -> Get<'t, F, Select<P>> {
        Get {
            table: self.table,
            key: self.key,
            consistent: self.consistent,
            _read: PhantomData,
        }
    }
}

impl<F: Facet, R: Read<F, BaseTable>> Get<'_, F, R> {
    /// The request this get sends (inspectable without a server).
    pub fn plan(&self) -> GetPlan {
        GetPlan {
            key: self.key.clone(),
            consistent_read: self.consistent,
            projection: R::attributes(&[]),
        }
    }
}

impl<'t, F: Facet, R: Read<F, BaseTable>> IntoFuture for Get<'t, F, R> {
    type Output = Result<Option<R::Record>>;
    type IntoFuture = BoxFuture<'t, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let plan = self.plan();
        let table = self.table;
        let op = Op::new("GetItem", table, F::SCHEMA.name, None);
        let work = |op: Arc<Op>| async move {
            let mut request = plan.clone();
            request.projection = table.read_attributes(F::SCHEMA, plan.projection.as_deref());
            let item = sdk::get_item(table, &op, request.request(table.name())).await?;
            match item {
                Some(item)
                    if !item.is_foreign(F::SCHEMA.name) && !table.hides(F::SCHEMA, &item) =>
                {
                    let mut record =
                        decode_stored::<F, BaseTable, R>(item, plan.projection.as_deref())?;
                    if let (Some(hooked), Some(whole)) =
                        (table.hooks_for::<F>(), R::record_mut(&mut record))
                    {
                        hooked.after_read(whole, crate::hook::ReadKind::Get).await?;
                    }
                    Ok(Some(record))
                }
                _ => Ok(None),
            }
        };
        traced(op, records(|r: &Option<_>| usize::from(r.is_some())), work)
    }
}
