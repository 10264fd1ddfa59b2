//! `count`: the stored items of each facet, by a parallel scan reading only the facet
//! attribute.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use faceteer_core::schema::FACET_ATTRIBUTE;

use super::{Ctx, Stop};
use crate::erased::TableFacets;
use crate::exec::sdk;
use crate::exec::trace::Op;
use crate::table::Table;
use crate::wire::stored::Attributes;

/// One segment's counts by facet attribute (`(none)` for items without one).
async fn segment(
    table: &Table,
    segment: u32,
    total: u32,
) -> crate::error::Result<BTreeMap<String, u64>> {
    let op = Op::new("Scan", table, "(count)", None);
    let mut counts = BTreeMap::new();
    let mut start = None;
    let result = async {
        loop {
            let request = ScanInputBuilder::default()
                .table_name(table.name())
                .projection_expression("#f")
                .expression_attribute_names("#f", FACET_ATTRIBUTE)
                .segment(i32::try_from(segment).unwrap_or(0))
                .total_segments(i32::try_from(total).unwrap_or(1))
                .set_exclusive_start_key(start.take());
            let (items, last, _) = sdk::scan(table, &op, request).await?;
            for item in &items {
                let facet = item
                    .text(FACET_ATTRIBUTE)
                    .map_or_else(|| "(none)".to_owned(), |f| f.into_owned());
                *counts.entry(facet).or_insert(0) += 1;
            }
            match last {
                Some(key) => start = Some(key),
                None => return Ok(()),
            }
        }
    }
    .await;
    op.finish(
        result
            .as_ref()
            .map(|()| counts.values().sum::<u64>() as usize),
    );
    result.map(|()| counts)
}

pub(super) async fn run<S: TableFacets>(ctx: &mut Ctx<'_>) -> Result<u8, Stop> {
    let only = ctx.facets::<S>()?;
    let segments = ctx.args.get_one::<u32>("segments").copied().unwrap_or(4);
    let table = ctx.table::<S>().await?;
    let parts =
        futures::future::join_all((0..segments).map(|s| segment(&table, s, segments))).await;
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for part in parts {
        for (facet, n) in part? {
            *counts.entry(facet).or_insert(0) += n;
        }
    }
    let declared: Vec<&str> = S::FACETS.iter().map(|f| f.name).collect();
    let width = counts
        .keys()
        .map(String::len)
        .chain(declared.iter().map(|d| d.len()))
        .max()
        .unwrap_or(5);
    for facet in &declared {
        if !only.is_empty() && !only.contains(facet) {
            continue;
        }
        let n = counts.remove(*facet).unwrap_or(0);
        writeln!(ctx.out, "{facet:<width$}  {n}")?;
    }
    if only.is_empty() {
        for (facet, n) in &counts {
            let what = if facet == faceteer_core::unique::GUARD_SK {
                "unique-value guards"
            } else {
                "not a declared facet"
            };
            writeln!(ctx.out, "{facet:<width$}  {n}  ({what})")?;
        }
    }
    Ok(0)
}
