//! `diff` and `lock`: the code's design against the lock file (the deployed design), and
//! against the live table.

use super::{Ctx, Stop};
use crate::erased::TableFacets;
use crate::lock::{Bless, Check, CheckError, Outcome};

/// `lock`: the check, offline.
pub(super) fn lock<S: TableFacets>(ctx: &mut Ctx<'_>) -> Result<u8, Stop> {
    let bless = if ctx.args.get_flag("breaking") {
        Bless::Breaking
    } else if ctx.args.get_flag("write") {
        Bless::Safe
    } else {
        Bless::None
    };
    let path = ctx.lock_path();
    match Check::<S>::new(&path).bless(bless).run() {
        Ok(Outcome::Current) => {
            writeln!(ctx.out, "{}: the design is the locked one", path.display())?;
            Ok(0)
        }
        Ok(Outcome::Blessed(report)) => {
            writeln!(ctx.out, "{}: written", path.display())?;
            if !report.is_clean() {
                write!(ctx.out, "{report}")?;
            }
            Ok(0)
        }
        Err(e @ (CheckError::Changed { .. } | CheckError::Missing { .. })) => {
            writeln!(ctx.out, "{e}")?;
            Ok(1)
        }
        Err(e) => Err(Stop::Input(e.to_string())),
    }
}

/// `diff`: the lock's report, the live table's differences, and (dry run) what a
/// backfill would rewrite.
pub(super) async fn run<S: TableFacets>(ctx: &mut Ctx<'_>) -> Result<u8, Stop> {
    let path = ctx.lock_path();
    let check = Check::<S>::new(&path);
    let mut differs = false;
    match check.report() {
        Ok(Some(report)) if report.is_clean() => {
            writeln!(
                ctx.out,
                "design: the code is the locked design ({})",
                path.display()
            )?;
        }
        Ok(Some(report)) => {
            differs = true;
            writeln!(ctx.out, "design: the code differs from {}:", path.display())?;
            write!(ctx.out, "{report}")?;
        }
        Ok(None) => {
            differs = true;
            writeln!(
                ctx.out,
                "design: no lock at {} (write one with `lock --write`)",
                path.display()
            )?;
        }
        Err(e) => return Err(Stop::Input(e.to_string())),
    }
    let table = ctx.table::<S>().await?;
    let v = table.verify().await?;
    writeln!(ctx.out)?;
    super::verify::print(ctx.out, &v)?;
    differs |= !v.is_ok();
    if ctx.args.get_flag("dry-run")
        && !v
            .differences
            .contains(&crate::admin::Difference::MissingTable)
    {
        let report = table.backfill_table::<S>().dry_run().await?;
        writeln!(ctx.out)?;
        writeln!(ctx.out, "a backfill would rewrite:")?;
        super::backfill::print_report(ctx.out, &report)?;
        differs |= report.facets.values().any(|c| c.rewritten > 0);
    }
    Ok(u8::from(differs))
}
