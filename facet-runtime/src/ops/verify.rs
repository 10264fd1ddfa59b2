//! `verify`: the live table against what the facets need, in plain words.

use std::io::Write;

use super::{Ctx, Stop};
use crate::admin::Verification;
use crate::erased::TableFacets;

/// Print `v`: each difference, then what is only noted.
pub(super) fn print(out: &mut dyn Write, v: &Verification) -> std::io::Result<()> {
    if v.is_ok() {
        writeln!(out, "table {}: serves every facet as declared", v.table)?;
    } else {
        writeln!(
            out,
            "table {}: {} differences",
            v.table,
            v.differences.len()
        )?;
        for d in &v.differences {
            writeln!(out, "  - {d}")?;
        }
    }
    if !v.unused_indexes.is_empty() {
        writeln!(
            out,
            "  (indexes no facet uses: {})",
            v.unused_indexes.join(", ")
        )?;
    }
    if let Some(view) = v.stream {
        writeln!(out, "  (stream on: {})", view.as_str())?;
    }
    Ok(())
}

pub(super) async fn run<S: TableFacets>(ctx: &mut Ctx<'_>) -> Result<u8, Stop> {
    let table = ctx.table::<S>().await?;
    let mut v = table.verify().await?;
    if ctx.args.get_flag("fix") && !v.is_ok() {
        print(ctx.out, &v)?;
        let created = table.create_missing_indexes().await?;
        for index in &created {
            writeln!(ctx.out, "created index {index}")?;
        }
        if !table.settings().is_default() {
            let report = table.apply_settings().await?;
            for s in &report.applied {
                writeln!(ctx.out, "applied {s}")?;
            }
            for r in &report.refused {
                writeln!(ctx.out, "refused {r}")?;
            }
        }
        v = table.verify().await?;
    }
    print(ctx.out, &v)?;
    Ok(if v.is_ok() { 0 } else { 1 })
}
