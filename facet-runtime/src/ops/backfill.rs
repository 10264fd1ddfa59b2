//! `backfill`: the table's stored records brought to what a put writes now, with a
//! progress bar or lines, a checkpoint file, an early stop and an exact report.

use std::io::{IsTerminal, Write};

use super::{write_atomically, Ctx, Stop};
use crate::backfill::{Checkpoint, Progress, Report};
use crate::erased::TableFacets;

/// Print a backfill's report.
pub(super) fn print_report(out: &mut dyn Write, report: &Report) -> std::io::Result<()> {
    write!(out, "{report}")?;
    if !report.to_string().ends_with('\n') {
        writeln!(out)?;
    }
    Ok(())
}

/// The facets a backfill rewrites, as its checkpoint file records them.
fn scope_of(facets: &[&str]) -> String {
    if facets.is_empty() {
        "every facet".to_owned()
    } else {
        format!("facets {}", facets.join(", "))
    }
}

/// The checkpoint file's text: the checkpoint, then a line naming what it backfills (a
/// resume with other `--facet` options would skip what the first run scanned).
fn with_scope(checkpoint: &Checkpoint, facets: &[&str]) -> String {
    format!(
        "{}\n# backfill of {}\n",
        checkpoint.to_text(),
        scope_of(facets)
    )
}

/// A checkpoint file's checkpoint and what it backfills (every facet when not said).
fn split_scope(text: &str) -> (&str, String) {
    let mut checkpoint = text;
    let mut scope = "every facet".to_owned();
    for line in text.lines() {
        match line.strip_prefix("# backfill of ") {
            Some(s) => scope = s.trim().to_owned(),
            None if !line.trim().is_empty() => checkpoint = line.trim(),
            None => {}
        }
    }
    (checkpoint, scope)
}

fn counts(p: &Progress) -> String {
    format!(
        "{} read, {} rewritten, {} already right, {} skipped, {} failed, {} unknown",
        p.scanned, p.rewritten, p.already_right, p.skipped, p.failed, p.unknown
    )
}

pub(super) async fn run<S: TableFacets>(ctx: &mut Ctx<'_>) -> Result<u8, Stop> {
    let facets = ctx.facets::<S>()?;
    let checkpoint_file = ctx
        .args
        .get_one::<std::path::PathBuf>("checkpoint")
        .cloned();
    let resume = ctx.args.get_flag("resume");
    let pages = ctx.args.get_one::<u64>("pages").copied();
    let progress = ctx
        .args
        .get_one::<String>("progress")
        .map_or("auto", String::as_str)
        .to_owned();
    let dry_run = ctx.args.get_flag("dry-run");
    let table = ctx.table::<S>().await?;

    let mut backfill = table.backfill_table::<S>();
    if !facets.is_empty() {
        backfill = backfill.only(&facets);
    }
    if let Some(n) = ctx.args.get_one::<u32>("segments") {
        backfill = backfill.segments(*n);
    }
    if let Some(n) = ctx.args.get_one::<u32>("page-size") {
        backfill = backfill.page_size(*n);
    }
    if let Some(rate) = ctx.args.get_one::<f64>("rate") {
        if !(rate.is_finite() && *rate > 0.0) {
            return Err(Stop::Input(
                "--rate takes a positive number of units".into(),
            ));
        }
        backfill = backfill.capacity_per_second(*rate);
    }
    if dry_run {
        backfill = backfill.dry_run();
    }
    let mut segments_total = ctx.args.get_one::<u32>("segments").copied().unwrap_or(4);
    if resume {
        let path = checkpoint_file
            .as_ref()
            .expect("clap requires --checkpoint");
        let text = super::read_checkpoint(path)?;
        let (text, written_for) = split_scope(&text);
        if written_for != scope_of(&facets) {
            return Err(Stop::Input(format!(
                "{} is the checkpoint of a backfill of {written_for}: resume it with the same --facet \
                 options (this one is of {})",
                path.display(),
                scope_of(&facets)
            )));
        }
        let checkpoint = Checkpoint::from_text(text)
            .map_err(|e| Stop::Input(format!("{}: {e}", path.display())))?;
        if checkpoint.is_done() {
            writeln!(
                ctx.out,
                "the checkpoint in {} is done: nothing to resume",
                path.display()
            )?;
            return Ok(0);
        }
        segments_total = u32::try_from(checkpoint.segments().len()).unwrap_or(u32::MAX);
        backfill = backfill.resume_from(checkpoint);
    }

    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    backfill = backfill.on_progress(move |p| {
        let _ = sender.send(p.clone());
    });
    let bar = match progress.as_str() {
        "bar" => true,
        "auto" => std::io::stderr().is_terminal(),
        _ => false,
    };
    let bar = bar.then(|| {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(u64::from(segments_total)),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} segments  {msg}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar
    });
    let plain = progress == "plain" || (progress == "auto" && bar.is_none());

    let mut run = std::future::IntoFuture::into_future(backfill);
    let mut seen: u64 = 0;
    let mut last: Option<Progress> = None;
    let outcome = loop {
        tokio::select! {
            report = &mut run => break Some(report),
            Some(p) = receiver.recv() => {
                seen += 1;
                if let Some(path) = &checkpoint_file {
                    write_atomically(path, &with_scope(&p.checkpoint, &facets))?;
                }
                if let Some(bar) = &bar {
                    bar.set_position(p.checkpoint.segments_done() as u64);
                    bar.set_message(counts(&p));
                }
                if plain {
                    writeln!(
                        ctx.err,
                        "page {seen}: {} ({}/{} segments done)",
                        counts(&p),
                        p.checkpoint.segments_done(),
                        p.checkpoint.segments().len()
                    )?;
                }
                last = Some(p);
                if pages.is_some_and(|n| seen >= n) {
                    break None;
                }
            }
        }
    };
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let Some(report) = outcome else {
        let done = last.as_ref().map(counts).unwrap_or_default();
        writeln!(ctx.out, "stopped after {seen} pages: {done}")?;
        match &checkpoint_file {
            Some(path) => writeln!(
                ctx.out,
                "resume with: backfill --checkpoint {} --resume",
                path.display()
            )?,
            None => writeln!(ctx.out, "(no --checkpoint file: a new run starts over)")?,
        }
        return Ok(1);
    };
    let report = report?;
    // Progress the backfill reported before it finished, not yet read.
    while let Ok(p) = receiver.try_recv() {
        last = Some(p);
    }
    if let (Some(path), Some(p)) = (&checkpoint_file, &last) {
        write_atomically(path, &with_scope(&p.checkpoint, &facets))?;
    }
    if dry_run {
        writeln!(ctx.out, "dry run: nothing written")?;
    }
    print_report(ctx.out, &report)?;
    Ok(if report.is_complete() { 0 } else { 1 })
}
