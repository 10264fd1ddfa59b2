//! Evolving a live table, as Entity Manager's guide to evolving a single-table schema tells
//! it: users and their emails, then name-search indexes, then a sharded user partition,
//! then more shards for new users, every existing record brought along by a backfill while
//! the table's stream reports each change.
//!
//! ```text
//! cargo run --example evolve
//! ```
//!
//! Each version of the code is its own module (`v1` … `v4`), with the same facet names, as
//! each would be deployed in turn. Runs on the embedded engine.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeZone, Utc};
use faceteer::backfill::Report;
use faceteer::stream::{self, Change, StreamReader, StreamView};
use faceteer::{Facet, Table};
use serde::{Deserialize, Serialize};

/// Lower case, letters and digits only: "Gómez-Juárez" → "gmezjurez" (the guide strips what
/// does not sort).
fn canonical(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The first deployment: users and emails, each facet in one partition.
mod v1 {
    use super::*;

    /// A user.
    #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[facet(
        name = "User",
        delimiter = "#",
        pk(prefix = "USER", fields()),
        sk(prefix = "USER", fields(user_id))
    )]
    pub struct User {
        pub user_id: String,
        pub first_name: String,
        pub last_name: String,
        #[serde(with = "faceteer::timestamp")]
        pub created: DateTime<Utc>,
    }

    /// A user's email address.
    #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[facet(
        name = "Email",
        delimiter = "#",
        pk(prefix = "EMAIL", fields()),
        sk(prefix = "EMAIL", fields(email))
    )]
    pub struct Email {
        pub email: String,
        pub user_id: String,
    }

    faceteer::table! {
        /// The table as first deployed.
        pub struct App { User, Email }
    }
}

/// The email facet does not change from here on.
use v1::Email;

/// A user from version 2 on: canonical names (schema version 2, upgraded from version 1's
/// records) and two indexes sorted by them; each deployment declares the user partition's
/// key `$pk`.
macro_rules! user_v2 {
    ($pk:meta) => {
        /// A user, schema version 2.
        #[allow(clippy::duplicated_attributes)]
        #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[facet(
            name = "User",
            delimiter = "#",
            schema_version = 2,
            upgrade = upgrade_v1,
            $pk,
            sk(prefix = "USER", fields(user_id)),
            gsi(
                n = 1,
                alias = "FirstName",
                pk(prefix = "USERS", fields()),
                sk(prefix = "NAME", fields(first_name_canonical, last_name_canonical, user_id))
            ),
            gsi(
                n = 2,
                alias = "LastName",
                pk(prefix = "USERS", fields()),
                sk(prefix = "NAME", fields(last_name_canonical, first_name_canonical, user_id))
            )
        )]
        pub struct User {
            pub user_id: String,
            pub first_name: String,
            pub first_name_canonical: String,
            pub last_name: String,
            pub last_name_canonical: String,
            #[serde(with = "faceteer::timestamp")]
            pub created: DateTime<Utc>,
        }

        /// A version 1 record, read as version 2.
        pub fn upgrade_v1(old: v1::User) -> User {
            User {
                first_name_canonical: canonical(&old.first_name),
                last_name_canonical: canonical(&old.last_name),
                user_id: old.user_id,
                first_name: old.first_name,
                last_name: old.last_name,
                created: old.created,
            }
        }
    };
}

/// Search by name.
mod v2 {
    use super::*;

    user_v2!(pk(prefix = "USER", fields()));

    faceteer::table! {
        /// With name search.
        pub struct App { User, Email }
    }
}

/// The user partition is hot: spread over 4 shards by user id. Every user moves.
mod v3 {
    use super::*;

    user_v2!(pk(
        prefix = "USER",
        fields(),
        shard(count = 4, fields(user_id))
    ));

    faceteer::table! {
        /// With a sharded user partition.
        pub struct App { User, Email }
    }
}

/// More shards, for users created from 2026 on: a record keeps the shard it was created in.
mod v4 {
    use super::*;

    user_v2!(pk(
        prefix = "USER",
        fields(),
        shard(
            count = 4,
            fields(user_id),
            grow(from = "2026-01-01T00:00:00Z", count = 16),
            time = created
        )
    ));

    faceteer::table! {
        /// With a shard count that grows.
        pub struct App { User, Email }
    }

    /// Every facet of the table, for the stream.
    #[derive(Debug, Clone, PartialEq, faceteer::Collection)]
    pub enum Item {
        User(User),
        Email(Email),
    }
}

const NAMES: [(&str, &str); 8] = [
    ("Ann", "Abel"),
    ("Bob", "Young"),
    ("Alma", "Zed"),
    ("Cy", "Ames"),
    ("Dee", "Young"),
    ("Eve", "Ash"),
    ("Abe", "Gómez-Juárez"),
    ("Fay", "Ng"),
];

fn first_users() -> Vec<v1::User> {
    (0..96)
        .map(|i| {
            let (first, last) = NAMES[i % NAMES.len()];
            v1::User {
                user_id: format!("u{i:03}"),
                first_name: first.into(),
                last_name: last.into(),
                created: Utc.with_ymd_and_hms(2025, 3, 1, 0, 0, 0).unwrap()
                    + chrono::Duration::days(i as i64),
            }
        })
        .collect()
}

/// Print what the stream recorded since the last call.
async fn follow(reader: &mut StreamReader) -> faceteer::Result<()> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    loop {
        let changes = reader.next_collection::<v4::Item>().await?;
        if changes.records() == 0 {
            break;
        }
        for event in &changes.events {
            let facet = match event.change.after().or(event.change.before()) {
                Some(v4::Item::User(_)) => "User",
                Some(v4::Item::Email(_)) => "Email",
                None => "?",
            };
            let kind = match &event.change {
                Change::Insert(_) => "insert",
                Change::Modify { .. } => "modify",
                Change::Remove { expired: true, .. } => "expiry",
                Change::Remove { .. } => "remove",
            };
            *counts.entry(format!("{facet} {kind}")).or_default() += 1;
        }
        assert!(changes.unreadable.is_empty() && changes.skipped.is_empty());
    }
    let line: Vec<String> = counts.iter().map(|(k, n)| format!("{n} × {k}")).collect();
    println!("   stream: {}", line.join(", "));
    Ok(())
}

/// A backfill with a terminal progress bar; returns its report.
async fn backfill_with_bar<S: faceteer::TableSchema>(
    table: &Table,
    total: u64,
) -> faceteer::Result<Report> {
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template("   {bar:40} {pos}/{len} items {msg}")
            .expect("a valid template"),
    );
    let shown = bar.clone();
    let report = table
        .backfill_table::<S>()
        .segments(4)
        .page_size(32)
        .capacity_per_second(500.0)
        .on_progress(move |p| {
            shown.set_position(p.scanned);
            shown.set_message(format!("({} rewritten)", p.rewritten));
        })
        .await?;
    bar.finish();
    Ok(report)
}

fn shards(table: &str, counts: &[usize]) -> String {
    let used: Vec<String> = counts
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(s, n)| format!("{s:x}:{n}"))
        .collect();
    format!("{table} users per shard {}", used.join(" "))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let engine = faceteer::embedded::Engine::start()?;

    println!("1. Users and emails, each in one partition; the stream records every change.");
    let table = engine.table::<v1::App>("users").await?;
    table.enable_stream(StreamView::NewAndOldImages).await?;
    let mut reader = StreamReader::new(stream::local_client(engine.endpoint())?, &table).await?;
    let users = first_users();
    assert!(table.put_many(users.iter().cloned()).await.is_complete());
    let emails = users.iter().map(|u| Email {
        email: format!("{}@example.com", u.user_id),
        user_id: u.user_id.clone(),
    });
    assert!(table.put_many(emails).await.is_complete());
    println!("   {} users, {} emails", users.len(), users.len());
    follow(&mut reader).await?;

    println!("2. Search by name: schema version 2 adds canonical names and two indexes.");
    let table = engine.open::<v2::App>("users");
    println!(
        "   new indexes: {:?}",
        table.create_missing_indexes().await?
    );
    let ann = table.get(&v2::User::key("u000")?).await?;
    println!(
        "   reads upgrade old records: u000 is {:?}",
        ann.map(|u| u.first_name_canonical)
    );
    let dry = table.backfill::<v2::User>().dry_run().await?;
    print!("   dry run: {dry}");
    let report = backfill_with_bar::<v2::App>(&table, dry.totals.scanned).await?;
    print!("   {report}");
    let found: Vec<v2::User> = table
        .query(v2::User::by_last_name().begins_with(("young",)))
        .all()
        .await?;
    println!("   last name \"young\": {} users", found.len());
    follow(&mut reader).await?;

    println!("3. The user partition is hot: shard it by user id. Every user record moves.");
    let table = engine.open::<v3::App>("users");
    let report = backfill_with_bar::<v3::App>(&table, 192).await?;
    print!("   {report}");
    let mut per_shard = vec![0; 4];
    for (shard, count) in per_shard.iter_mut().enumerate() {
        *count = table
            .query(v3::User::query().list().shard(shard as u32))
            .count()
            .await? as usize;
    }
    println!("   {}", shards("all", &per_shard));
    follow(&mut reader).await?;

    println!("4. More shards for users created from 2026 on; existing users keep theirs.");
    let table = engine.open::<v4::App>("users");
    let report = table.backfill_table::<v4::App>().dry_run().await?;
    print!("   dry run: {report}");
    assert_eq!(report.totals.rewritten, 0);
    let newcomers = (0..64).map(|i| v4::User {
        user_id: format!("n{i:03}"),
        first_name: "New".into(),
        first_name_canonical: "new".into(),
        last_name: format!("Comer{i}"),
        last_name_canonical: format!("comer{i}"),
        created: Utc::now(),
    });
    assert!(table.put_many(newcomers).await.is_complete());
    let mut per_shard = vec![0; 16];
    for (shard, count) in per_shard.iter_mut().enumerate() {
        *count = table
            .query(v4::User::query().list().shard(shard as u32))
            .count()
            .await? as usize;
    }
    println!("   {}", shards("old and new", &per_shard));
    let all: Vec<v4::User> = table.query(v4::User::by_first_name().list()).all().await?;
    println!("   all users through the name index: {}", all.len());
    follow(&mut reader).await?;
    let check = table.verify().await?;
    println!(
        "   verify: {} (stream: {:?})",
        if check.is_ok() {
            "as declared"
        } else {
            "differs"
        },
        check.stream
    );
    Ok(())
}
