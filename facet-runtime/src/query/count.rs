//! Counting a query's records without reading them: [`QueryRun::count`].

use std::sync::Arc;

use faceteer_core::pick::KeyFields;
use faceteer_core::plan::{QueryPlan, SortCondition};
use faceteer_core::Facet;

use super::builder::Query;
use super::mode::Paged;
use super::run::QueryRun;
use crate::error::Result;
use crate::exec::future::{records, traced};
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::read::Fetched;
use crate::read::Read;
use crate::table::Table;

impl<'t, F, I, R> QueryRun<'t, F, I, R, Paged>
where
    F: Facet,
    I: KeyFields,
    R: Read<F, I>,
{
    /// The number of records the query matches, without reading them: the same as
    /// [`Table::count`].
    pub async fn count(self) -> Result<u64> {
        let QueryRun { table, query } = self;
        table.count(query).await
    }
}

impl Table {
    /// The number of records `query` matches, without reading them: `Select = COUNT`
    /// requests, following every DynamoDB page, on every shard of a sharded partition (or
    /// the one chosen with `.shard(n)`), summed. Only items of the query's facet are
    /// counted, after its filter; a strict bound (`less_than`) counts as the records read
    /// would. `limit` and `cursor` do not apply: the whole partition range is counted.
    /// Nothing is read, so any index can be counted, keys-only ones included.
    pub async fn count<F: Facet, I: KeyFields, R, M>(
        &self,
        query: Query<F, I, R, M>,
    ) -> Result<u64> {
        let table = self;
        // Counting reads no attribute: any read mode plans the same key condition.
        let query: Query<F, I, Fetched, Paged> = query.retype();
        super::beacons::refuse_unchecked(&query.partition, "a count")?;
        let op = Op::new("Query", table, F::SCHEMA.name, query.index.map(|i| i.name));
        let work = move |op: Arc<Op>| async move {
            let partitions = if query.is_all_shards() {
                let shards = query.partition.shard_count().unwrap_or(1);
                (0..shards)
                    .map(|shard| query.partition.render(Some(shard)))
                    .collect::<std::result::Result<Vec<_>, _>>()?
            } else {
                vec![query.partition.render(query.shard)?]
            };
            let mut total = 0u64;
            for partition in partitions {
                let mut plan = query.plan_for(partition.clone(), None)?;
                table.filter_expired(std::iter::once(F::SCHEMA), &mut plan.filter);
                if plan.is_empty_range() {
                    continue;
                }
                plan.limit = None;
                total += count_plan(table, &op, F::SCHEMA.name, &partition, &plan).await?;
                if let Some(bound) = plan.excluded_sort_key() {
                    let mut equal = plan.clone();
                    equal.sort = SortCondition::Equals(bound.to_owned());
                    // Written in between, the bound's record may not have been counted.
                    let at_bound =
                        count_plan(table, &op, F::SCHEMA.name, &partition, &equal).await?;
                    total = total.saturating_sub(at_bound);
                }
            }
            Ok(total)
        };
        traced(op, records(|n: &u64| *n as usize), work).await
    }
}

/// Every page of one counting plan of `facet`, summed.
async fn count_plan(
    table: &Table,
    op: &Op,
    facet: &str,
    partition: &str,
    plan: &QueryPlan,
) -> Result<u64> {
    let mut plan = plan.clone();
    let mut total = 0;
    loop {
        let request = plan.count_request(table.name(), facet);
        let (count, last) = sdk::count(table, op, partition, request).await?;
        total += count;
        match last {
            Some(last) => plan.exclusive_start_key = Some(last),
            None => return Ok(total),
        }
    }
}
