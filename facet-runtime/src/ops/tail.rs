//! `tail`: the table's changes, read from its stream and decoded by their facets, one
//! line each.

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::schema::{FACET_ATTRIBUTE, PK, SK};
use faceteer_core::Item;
use serde_json::Value;

use super::{write_atomically, Ctx, Stop};
use crate::erased::{AnyFacet, TableFacets};
use crate::stream::{Kind, Record, StreamCheckpoint};

fn text(item: &Item, name: &str) -> Option<String> {
    match item.get(name) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    }
}

/// A record's side: the decoded record, or why it does not decode.
fn side(facet: Option<&AnyFacet>, item: Option<&Item>) -> Option<Result<Value, String>> {
    let item = item?;
    Some(match facet {
        Some(f) => f.decode(item),
        None => Err("not a facet of the table".into()),
    })
}

/// `field: old → new` for each field that differs.
fn changes(old: &Value, new: &Value) -> String {
    let empty = serde_json::Map::new();
    let (o, n) = (
        old.as_object().unwrap_or(&empty),
        new.as_object().unwrap_or(&empty),
    );
    let mut keys: Vec<&String> = o.keys().chain(n.keys()).collect();
    keys.sort();
    keys.dedup();
    let parts: Vec<String> = keys
        .into_iter()
        .filter(|k| o.get(*k) != n.get(*k))
        .map(|k| {
            let show =
                |v: Option<&Value>| v.map_or_else(|| "(absent)".to_owned(), Value::to_string);
            format!("{k}: {} → {}", show(o.get(k)), show(n.get(k)))
        })
        .collect();
    if parts.is_empty() {
        "(no field changed)".to_owned()
    } else {
        parts.join(", ")
    }
}

/// One change's line.
fn line(record: &Record, facets: &[AnyFacet], json: bool) -> Option<(String, String)> {
    let image = record.new.as_ref().or(record.old.as_ref());
    let name = image
        .and_then(|i| text(i, FACET_ATTRIBUTE))
        .unwrap_or_else(|| "(unknown)".into());
    let facet = facets.iter().find(|f| f.name() == name);
    let pk = text(&record.keys, PK).unwrap_or_default();
    let sk = text(&record.keys, SK).unwrap_or_default();
    let new = side(facet, record.new.as_ref());
    let old = side(facet, record.old.as_ref());
    let kind = match record.kind {
        Kind::Insert => "INSERT",
        Kind::Modify => "MODIFY",
        Kind::Remove => "REMOVE",
    };
    if json {
        let value = |s: &Option<Result<Value, String>>| match s {
            Some(Ok(v)) => v.clone(),
            Some(Err(e)) => serde_json::json!({ "unreadable": e }),
            None => Value::Null,
        };
        let object = serde_json::json!({
            "kind": kind,
            "facet": name,
            "pk": pk,
            "sk": sk,
            "sequence_number": record.sequence_number,
            "expired": record.expired,
            "old": value(&old),
            "new": value(&new),
        });
        return Some((name, object.to_string()));
    }
    let unreadable = [&new, &old]
        .into_iter()
        .find_map(|s| s.as_ref().and_then(|r| r.as_ref().err()).cloned());
    let body = if let Some(why) = unreadable {
        format!("UNREADABLE {name} {pk} {sk}: {why}")
    } else {
        match (record.kind, &old, &new) {
            (Kind::Insert, _, Some(Ok(v))) => format!("{kind} {name} {pk} {sk} {v}"),
            (Kind::Modify, Some(Ok(o)), Some(Ok(n))) => {
                format!("{kind} {name} {pk} {sk} {}", changes(o, n))
            }
            (Kind::Remove, _, _) if record.expired => format!("{kind} {name} {pk} {sk} (expired)"),
            _ => format!("{kind} {name} {pk} {sk}"),
        }
    };
    Some((name, body))
}

pub(super) async fn run<S: TableFacets>(ctx: &mut Ctx<'_>) -> Result<u8, Stop> {
    let only = ctx.facets::<S>()?;
    let json = ctx.args.get_flag("json");
    let max = ctx.args.get_one::<u64>("max").copied();
    let until_idle = ctx.args.get_flag("until-idle");
    let latest = ctx.args.get_one::<String>("from").map(String::as_str) == Some("latest");
    let checkpoint_file = ctx
        .args
        .get_one::<std::path::PathBuf>("checkpoint")
        .cloned();
    let resume = ctx.args.get_flag("resume");
    let facets = S::any_facets();
    let table = ctx.table::<S>().await?;
    let mut reader = table.stream_reader().await?;
    if resume {
        let path = checkpoint_file
            .as_ref()
            .expect("clap requires --checkpoint");
        let checkpoint = StreamCheckpoint::from_text(&super::read_checkpoint(path)?)
            .map_err(|e| Stop::Input(format!("{}: {e}", path.display())))?;
        reader = reader.resume_from(checkpoint)?;
    } else if latest {
        reader = reader.from_latest();
    }
    let mut printed: u64 = 0;
    loop {
        let records = reader.next_records().await?;
        let idle = records.is_empty();
        let mut whole = true;
        for (i, record) in records.iter().enumerate() {
            let Some((facet, text)) = line(record, &facets, json) else {
                continue;
            };
            if !only.is_empty() && !only.contains(&facet.as_str()) {
                continue;
            }
            writeln!(ctx.out, "{text}")?;
            printed += 1;
            if max.is_some_and(|m| printed >= m) {
                whole = i + 1 == records.len();
                break;
            }
        }
        // The checkpoint moves past a batch only when all of it was printed: a resume
        // repeats a batch cut short rather than lose its rest.
        if let (Some(path), true) = (&checkpoint_file, whole) {
            write_atomically(path, &reader.checkpoint().to_text())?;
        }
        if max.is_some_and(|m| printed >= m) || (idle && until_idle) {
            return Ok(0);
        }
        if idle {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
    }
}
