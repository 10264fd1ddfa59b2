//! The command line: every subcommand, its flags and its help, with clap's builder.

use clap::{value_parser, Arg, ArgAction, Command};

fn facet_filter() -> Arg {
    Arg::new("facet")
        .long("facet")
        .value_name("FACET")
        .action(ArgAction::Append)
        .help("Only this facet (by its name, e.g. TASK); repeat for several")
}

fn checkpoint() -> Arg {
    Arg::new("checkpoint")
        .long("checkpoint")
        .value_name("FILE")
        .value_parser(value_parser!(std::path::PathBuf))
        .help("Keep the position in FILE, rewritten after every page")
}

fn resume() -> Arg {
    Arg::new("resume")
        .long("resume")
        .action(ArgAction::SetTrue)
        .requires("checkpoint")
        .help("Start from the position in the --checkpoint file")
}

/// The whole command line of a table named `bin`.
pub(super) fn command(bin: &'static str, about: String) -> Command {
    Command::new(bin)
        .about(about)
        .after_help(
            "Exit codes: 0 done; 1 the table differs, a change is not accepted, or some \
             records were not written; 2 bad input; 3 a request failed.",
        )
        .subcommand_required(true)
        .arg_required_else_help(true)
        .arg(
            Arg::new("table")
                .help_heading("Table")
                .long("table")
                .short('t')
                .global(true)
                .value_name("NAME")
                .env("FACETEER_TABLE")
                .hide_env_values(true)
                .help("The DynamoDB table's name"),
        )
        .arg(
            Arg::new("endpoint")
                .help_heading("Table")
                .long("endpoint")
                .global(true)
                .value_name("URL")
                .help(
                    "A local DynamoDB-API server (http://127.0.0.1:8000); without it, the \
                     standard AWS configuration (region, credentials, AWS_ENDPOINT_URL)",
                ),
        )
        .arg(
            Arg::new("lock")
                .help_heading("Table")
                .long("lock")
                .global(true)
                .value_name("FILE")
                .value_parser(value_parser!(std::path::PathBuf))
                .default_value("design.lock.json")
                .help("The design lock file"),
        )
        .subcommand(
            Command::new("create")
                .about("Create the table with every index, TTL and setting its facets declare")
                .arg(
                    Arg::new("stream")
                        .long("stream")
                        .value_name("VIEW")
                        .value_parser(["keys-only", "new-image", "old-image", "new-and-old-images"])
                        .help("Turn the table's stream on, recording this view of each change"),
                )
                .arg(
                    Arg::new("if-missing")
                        .long("if-missing")
                        .action(ArgAction::SetTrue)
                        .help("Do nothing when the table exists"),
                ),
        )
        .subcommand(
            Command::new("verify")
                .about("Compare the live table with what the facets need; exit 1 on any difference")
                .arg(
                    Arg::new("fix")
                        .long("fix")
                        .action(ArgAction::SetTrue)
                        .help("Create missing global and vector indexes and apply the settings, then verify again"),
                ),
        )
        .subcommand(
            Command::new("diff")
                .about(
                    "What deploying the code changes: the design lock's report (the locked \
                     design is the deployed one) and the live table's differences",
                )
                .arg(
                    Arg::new("dry-run")
                        .long("dry-run")
                        .action(ArgAction::SetTrue)
                        .help("Also count, with a backfill's dry run, the stored records the change rewrites"),
                ),
        )
        .subcommand(
            Command::new("lock")
                .about("Check the code's design against the lock file (no connection)")
                .arg(
                    Arg::new("write")
                        .long("write")
                        .action(ArgAction::SetTrue)
                        .help("Accept changes that break nothing stored or read, rewriting the file"),
                )
                .arg(
                    Arg::new("breaking")
                        .long("breaking")
                        .action(ArgAction::SetTrue)
                        .help("Accept any change, rewriting the file (plan the report's repairs first)"),
                ),
        )
        .subcommand(
            Command::new("backfill")
                .about("Bring stored records to what a put of each writes now: new indexes, keys, versions")
                .arg(facet_filter())
                .arg(
                    Arg::new("segments")
                        .long("segments")
                        .value_name("N")
                        .value_parser(value_parser!(u32).range(1..=1_000_000))
                        .help("Scan in N parallel segments [default: 4]"),
                )
                .arg(
                    Arg::new("page-size")
                        .long("page-size")
                        .value_name("N")
                        .value_parser(value_parser!(u32).range(1..))
                        .help("Read at most N items per request"),
                )
                .arg(
                    Arg::new("rate")
                        .long("rate")
                        .value_name("UNITS")
                        .value_parser(value_parser!(f64))
                        .help("Consume at most UNITS capacity units per second"),
                )
                .arg(
                    Arg::new("dry-run")
                        .long("dry-run")
                        .action(ArgAction::SetTrue)
                        .conflicts_with("checkpoint")
                        .help("Count what would be rewritten; write nothing (no checkpoint: a real run starts over)"),
                )
                .arg(checkpoint())
                .arg(resume())
                .arg(
                    Arg::new("pages")
                        .long("pages")
                        .value_name("N")
                        .value_parser(value_parser!(u64).range(1..))
                        .help("Stop after N pages (resume later with --resume)"),
                )
                .arg(
                    Arg::new("progress")
                        .long("progress")
                        .value_name("HOW")
                        .value_parser(["auto", "bar", "plain", "none"])
                        .default_value("auto")
                        .help("A progress bar, a line per page, or nothing (auto: a bar on a terminal)"),
                ),
        )
        .subcommand(
            Command::new("tail")
                .about("Print the table's changes from its stream, one line per change")
                .arg(facet_filter())
                .arg(
                    Arg::new("from")
                        .long("from")
                        .value_name("WHERE")
                        .value_parser(["oldest", "latest"])
                        .default_value("oldest")
                        .help("Start at the oldest change kept (24 hours) or after the latest"),
                )
                .arg(checkpoint())
                .arg(resume())
                .arg(
                    Arg::new("max")
                        .long("max")
                        .value_name("N")
                        .value_parser(value_parser!(u64).range(1..))
                        .help("Stop after N changes"),
                )
                .arg(
                    Arg::new("until-idle")
                        .long("until-idle")
                        .action(ArgAction::SetTrue)
                        .help("Stop when a read finds no new change"),
                )
                .arg(
                    Arg::new("json")
                        .long("json")
                        .action(ArgAction::SetTrue)
                        .help("One JSON object per change"),
                ),
        )
        .subcommand(
            Command::new("count")
                .about("Count the stored items of each facet (a scan reading only their facet)")
                .arg(facet_filter())
                .arg(
                    Arg::new("segments")
                        .long("segments")
                        .value_name("N")
                        .value_parser(value_parser!(u32).range(1..=1000))
                        .default_value("4")
                        .help("Scan in N parallel segments"),
                ),
        )
        .subcommand(
            Command::new("export")
                .about("Write the table's design: infrastructure code, IAM policies, models, pages, lock")
                .arg(
                    Arg::new("format")
                        .long("format")
                        .value_name("FORMAT")
                        .value_parser([
                            "cloudformation",
                            "terraform",
                            "workbench",
                            "markdown",
                            "html",
                            "lock",
                            "iam",
                            "all",
                        ])
                        .default_value("all")
                        .help("What to write"),
                )
                .arg(
                    Arg::new("out")
                        .long("out")
                        .value_name("DIR")
                        .default_value("-")
                        .help("Write files into DIR, or one format to standard output (-)"),
                )
                .arg(
                    Arg::new("scope")
                        .long("scope")
                        .value_name("FIELD=TAG")
                        .action(ArgAction::Append)
                        .help("IAM: scope each partition keyed by FIELD to the principal tag TAG"),
                )
                .arg(
                    Arg::new("region")
                        .long("region")
                        .value_name("REGION")
                        .default_value("*")
                        .help("IAM: the region of the ARNs"),
                )
                .arg(
                    Arg::new("account")
                        .long("account")
                        .value_name("ID")
                        .default_value("*")
                        .help("IAM: the account of the ARNs"),
                ),
        )
        .subcommand(
            Command::new("seed")
                .about(
                    "Write records from a JSON lines file: one record a line, with its facet \
                     (`{\"facet\": \"TASK\", ...fields}`); every line is checked before anything is written",
                )
                .arg(
                    Arg::new("file")
                        .value_name("FILE")
                        .required(true)
                        .help("The file, or - for standard input"),
                ),
        )
}
