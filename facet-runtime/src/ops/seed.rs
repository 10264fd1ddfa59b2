//! `seed`: records from a JSON lines file, every line checked before anything is written,
//! then written facet by facet (`put_many`, or one put each for a facet with unique
//! fields), each reported written, failed or unknown.

use std::io::Read;

use serde_json::Value;

use super::{Ctx, Stop};
use crate::erased::{AnyFacet, SeedOutcome, TableFacets};

/// One line: its facet and its record.
fn parse_line(text: &str, facets: &[AnyFacet]) -> Result<(usize, Value), String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(mut object) = value else {
        return Err("not a JSON object".into());
    };
    let facet = match object.remove("facet") {
        Some(Value::String(f)) => f,
        _ => return Err("no \"facet\" naming the record's facet".into()),
    };
    let Some(index) = facets.iter().position(|f| f.name() == facet) else {
        let names: Vec<&str> = facets.iter().map(AnyFacet::name).collect();
        return Err(format!(
            "no facet `{facet}` in the table; its facets are {}",
            names.join(", ")
        ));
    };
    let record = match object.remove("record") {
        Some(record) if object.is_empty() => record,
        Some(_) => {
            return Err("a line holds either \"record\" or the record's fields, not both".into())
        }
        None => Value::Object(object),
    };
    facets[index].check(record.clone())?;
    Ok((index, record))
}

pub(super) async fn run<S: TableFacets>(ctx: &mut Ctx<'_>) -> Result<u8, Stop> {
    let file = ctx
        .args
        .get_one::<String>("file")
        .cloned()
        .unwrap_or_else(|| "-".into());
    let mut text = String::new();
    if file == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Stop::Input(format!("reading standard input: {e}")))?;
    } else {
        text = std::fs::read_to_string(&file)
            .map_err(|e| Stop::Input(format!("reading {file}: {e}")))?;
    }
    let facets = S::any_facets();
    // Every line first: one bad line writes nothing.
    let mut lines: Vec<(usize, usize, Value)> = Vec::new();
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line, &facets) {
            Ok((facet, record)) => lines.push((n + 1, facet, record)),
            Err(why) => bad.push(format!("line {}: {why}", n + 1)),
        }
    }
    if !bad.is_empty() {
        for b in &bad {
            writeln!(ctx.err, "{b}")?;
        }
        return Err(Stop::Input(format!(
            "{} of {} lines are not records of the table: nothing was written",
            bad.len(),
            bad.len() + lines.len()
        )));
    }
    let table = ctx.table::<S>().await?;
    let (mut written, mut failed, mut unknown) = (0, 0, 0);
    for (index, facet) in facets.iter().enumerate() {
        let mine: Vec<&(usize, usize, Value)> = lines.iter().filter(|l| l.1 == index).collect();
        if mine.is_empty() {
            continue;
        }
        let records = mine.iter().map(|l| l.2.clone()).collect();
        let report = facet.seed(&table, records).await;
        for (line, outcome) in mine.iter().map(|l| l.0).zip(&report.outcomes) {
            match outcome {
                SeedOutcome::Written => written += 1,
                SeedOutcome::Failed(why) => {
                    failed += 1;
                    writeln!(ctx.err, "line {line}: not written: {why}")?;
                }
                SeedOutcome::Unknown(why) => {
                    unknown += 1;
                    writeln!(ctx.err, "line {line}: perhaps written: {why}")?;
                }
            }
        }
        let how = if facet.is_batched() {
            "put_many"
        } else {
            "one put each"
        };
        writeln!(ctx.out, "{}: {} records ({how})", facet.name(), mine.len())?;
    }
    writeln!(
        ctx.out,
        "{written} written, {failed} not written, {unknown} unknown"
    )?;
    Ok(if failed + unknown == 0 { 0 } else { 1 })
}
