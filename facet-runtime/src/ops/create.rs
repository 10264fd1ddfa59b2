//! `create`: the table, as its facets and settings declare it.

use super::{Ctx, Stop};
use crate::admin::Difference;
use crate::erased::TableFacets;
use crate::error::Error;
use crate::stream::StreamView;

pub(super) async fn run<S: TableFacets>(ctx: &mut Ctx<'_>) -> Result<u8, Stop> {
    let table = ctx.table::<S>().await?;
    if ctx.args.get_flag("if-missing") {
        let v = table.verify().await?;
        if !v.differences.contains(&Difference::MissingTable) {
            writeln!(ctx.out, "table {} exists: nothing to do", table.name())?;
            return Ok(0);
        }
    }
    let view = ctx
        .args
        .get_one::<String>("stream")
        .map(|v| match v.as_str() {
            "keys-only" => StreamView::KeysOnly,
            "new-image" => StreamView::NewImage,
            "old-image" => StreamView::OldImage,
            _ => StreamView::NewAndOldImages,
        });
    let created = match view {
        Some(view) => table.create_table_with_stream(view).await,
        None => table.create_table().await,
    };
    match created {
        Ok(()) => {
            writeln!(ctx.out, "created table {}", table.name())?;
            Ok(0)
        }
        Err(Error::SettingsRefused { refused, .. }) => {
            writeln!(
                ctx.out,
                "created table {}, but these settings did not take:",
                table.name()
            )?;
            for r in refused {
                writeln!(ctx.out, "  - {r}")?;
            }
            Ok(1)
        }
        Err(e) => Err(e.into()),
    }
}
