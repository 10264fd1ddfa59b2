//! `export`: every design format, into files or to standard output. No connection.

use super::{Ctx, Stop};
use crate::design::{self, IamOptions, IamScope, IamTarget, WorkbenchMetadata};
use crate::erased::TableFacets;
use crate::lock::DesignLock;

/// `(file name, text)` of each format asked for.
fn render<S: TableFacets>(
    ctx: &Ctx<'_>,
    format: &str,
    name: &str,
) -> Result<Vec<(String, String)>, Stop> {
    let table = S::design(name);
    let mut files = Vec::new();
    let all = format == "all";
    if all || format == "cloudformation" {
        files.push(("table.cfn.json".to_owned(), design::cloudformation(&table)));
    }
    if all || format == "terraform" {
        files.push(("table.tf".to_owned(), design::terraform(&table)));
    }
    if all || format == "workbench" {
        let model = WorkbenchMetadata {
            author: "faceteer",
            description: "exported by faceteer's operations runner",
            created: "",
            modified: "",
        };
        files.push((
            "workbench.json".to_owned(),
            design::workbench(&table, &model),
        ));
    }
    if all || format == "markdown" {
        files.push((
            "access-patterns.md".to_owned(),
            design::access_patterns_markdown(&table),
        ));
    }
    if all || format == "html" {
        files.push((
            "access-patterns.html".to_owned(),
            design::access_patterns_html(&table),
        ));
    }
    if all || format == "lock" {
        files.push((
            "design.lock.json".to_owned(),
            DesignLock::of::<S>().to_json(),
        ));
    }
    if all || format == "iam" {
        let scopes: Vec<(String, String)> = ctx
            .args
            .get_many::<String>("scope")
            .into_iter()
            .flatten()
            .map(|s| match s.split_once('=') {
                Some((field, tag)) if !field.is_empty() && !tag.is_empty() => {
                    Ok((field.to_owned(), tag.to_owned()))
                }
                _ => Err(Stop::Input(format!("--scope takes FIELD=TAG, not `{s}`"))),
            })
            .collect::<Result<_, _>>()?;
        let scopes: Vec<IamScope<'_>> = scopes.iter().map(|(f, t)| IamScope::new(f, t)).collect();
        let region = ctx
            .args
            .get_one::<String>("region")
            .map_or("*", String::as_str);
        let account = ctx
            .args
            .get_one::<String>("account")
            .map_or("*", String::as_str);
        let options = IamOptions::new()
            .scoped(&scopes)
            .with_target(IamTarget::new().in_region(region).in_account(account));
        let policies =
            design::iam_policies(&table, &options).map_err(|e| Stop::Input(e.to_string()))?;
        for p in policies {
            files.push((format!("iam/{}.json", p.name), p.to_json()));
        }
        let template = design::cloudformation_with_policies(&table, &options)
            .map_err(|e| Stop::Input(e.to_string()))?;
        files.push(("table-with-policies.cfn.json".to_owned(), template));
    }
    Ok(files)
}

pub(super) fn run<S: TableFacets>(ctx: &mut Ctx<'_>) -> Result<u8, Stop> {
    let format = ctx
        .args
        .get_one::<String>("format")
        .map_or("all", String::as_str)
        .to_owned();
    let out_dir = ctx
        .args
        .get_one::<String>("out")
        .map_or("-", String::as_str)
        .to_owned();
    let name = ctx.table_name().unwrap_or_else(|| "table".to_owned());
    let files = render::<S>(ctx, &format, &name)?;
    if out_dir == "-" {
        if files.len() != 1 {
            return Err(Stop::Input(format!(
                "--format {format} writes {} files: give --out DIR",
                files.len()
            )));
        }
        ctx.out.write_all(files[0].1.as_bytes())?;
        if !files[0].1.ends_with('\n') {
            writeln!(ctx.out)?;
        }
        return Ok(0);
    }
    let dir = std::path::PathBuf::from(out_dir);
    for (file, text) in files {
        let path = dir.join(&file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Stop::Failed(format!("creating {}: {e}", parent.display())))?;
        }
        std::fs::write(&path, text)
            .map_err(|e| Stop::Failed(format!("writing {}: {e}", path.display())))?;
        writeln!(ctx.out, "wrote {}", path.display())?;
    }
    Ok(0)
}
