//! The user service of Entity Manager's guide to evolving a single-table schema: users and
//! their email addresses in one table, every access pattern the guide draws, with no marker
//! field and no duplicated field.
//!
//! ```text
//! cargo run --example user_service
//! ```
//!
//! - The entity partitions are sharded (`USER#<shard>`, `EMAIL#<shard>`): no hot partition.
//! - Local indexes give the same partition in other orders: by creation time (shared by both
//!   facets), first name, last name, phone (sparse), last update. They read consistently.
//! - Global indexes: a beneficiary's users by name, every user by creation time (a constant
//!   partition), the users with one phone number (sparse, no sort key).
//! - The guide's headline query: one search over the first-name and the last-name index,
//!   every shard of each, merged by creation time, each user once, paged with one cursor.
//! - Counts, a rate-limited scan of a sparse index, expired email confirmations hidden.
//!
//! Runs on the embedded engine, or on `FACETEER_DYNAMODB_ENDPOINT`'s server.

use chrono::{DateTime, Duration, Utc};
use faceteer::{Facet, Table};
use serde::{Deserialize, Serialize};

/// A user.
#[allow(clippy::duplicated_attributes)] // several indexes: rust-clippy#13238
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[facet(
    name = "User",
    delimiter = "#",
    pk(prefix = "USER", fields(), shard(count = 8, fields(user_id))),
    sk(prefix = "USER", fields(user_id)),
    lsi(
        n = 1,
        alias = "Created",
        sk(prefix = "CREATED", fields(created), sortable(created))
    ),
    lsi(
        n = 2,
        alias = "FirstName",
        sk(
            prefix = "NAME",
            fields(first_name_canonical, last_name_canonical, created),
            sortable(created)
        )
    ),
    lsi(
        n = 3,
        alias = "LastName",
        sk(
            prefix = "NAME",
            fields(last_name_canonical, first_name_canonical, created),
            sortable(created)
        )
    ),
    lsi(n = 4, alias = "Phone", sparse, sk(prefix = "PHONE", fields(phone))),
    lsi(
        n = 5,
        alias = "Updated",
        sk(prefix = "UPDATED", fields(updated), sortable(updated))
    ),
    gsi(
        n = 1,
        alias = "BeneficiaryLastName",
        pk(
            prefix = "BENEFICIARY",
            fields(beneficiary_id),
            shard(count = 2, fields(user_id))
        ),
        sk(prefix = "NAME", fields(last_name_canonical, first_name_canonical))
    ),
    gsi(
        n = 2,
        alias = "AllCreated",
        pk(prefix = "USERS", fields()),
        sk(prefix = "CREATED", fields(created), sortable(created))
    ),
    gsi(
        n = 3,
        alias = "PhoneNumber",
        sparse,
        pk(prefix = "PHONE", fields(phone))
    )
)]
pub struct User {
    pub user_id: String,
    pub beneficiary_id: String,
    pub created: u64,
    pub updated: u64,
    pub first_name: String,
    pub first_name_canonical: String,
    pub last_name: String,
    pub last_name_canonical: String,
    pub phone: Option<String>,
}

/// An email address of a user, until confirmed: an unconfirmed one expires.
#[allow(clippy::duplicated_attributes)]
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[facet(
    name = "Email",
    delimiter = "#",
    pk(prefix = "EMAIL", fields(), shard(count = 4, fields(email))),
    sk(prefix = "EMAIL", fields(email)),
    lsi(
        n = 1,
        alias = "Created",
        sk(prefix = "CREATED", fields(created), sortable(created))
    ),
    gsi(
        n = 4,
        alias = "UserEmails",
        pk(prefix = "USER", fields(user_id)),
        sk(prefix = "CREATED", fields(created), sortable(created))
    )
)]
struct Email {
    email: String,
    user_id: String,
    created: u64,
    #[ttl]
    unconfirmed_until: Option<DateTime<Utc>>,
}

faceteer::table! {
    /// The user service's one table.
    pub struct UserService { User, Email }
}

const PEOPLE: [(&str, &str, Option<&str>); 8] = [
    ("Ann", "Abel", Some("+15550001")),
    ("Bob", "Young", None),
    ("Alma", "Zed", Some("+15550002")),
    ("Cy", "Ames", None),
    ("Dee", "Young", Some("+15550001")),
    ("Eve", "Ash", None),
    ("Abe", "Lin", None),
    ("Fay", "Ng", Some("+15550003")),
];

fn users() -> Vec<User> {
    PEOPLE
        .iter()
        .enumerate()
        .map(|(i, (first, last, phone))| User {
            user_id: format!("u{i}"),
            beneficiary_id: if i % 3 == 0 { "b1" } else { "b2" }.into(),
            created: 1_700_000_000 + i as u64 * 60,
            updated: 1_800_000_000 - i as u64,
            first_name: (*first).into(),
            first_name_canonical: first.to_lowercase(),
            last_name: (*last).into(),
            last_name_canonical: last.to_lowercase(),
            phone: phone.map(str::to_owned),
        })
        .collect()
}

fn names(users: &[User]) -> Vec<String> {
    users
        .iter()
        .map(|u| format!("{} {}", u.first_name, u.last_name))
        .collect()
}

pub async fn run(table: &Table) -> faceteer::Result<()> {
    let users = users();
    let report = table.put_many(users.clone()).await;
    assert!(report.is_complete(), "{:?}", report.failed.first());
    let now = Utc::now();
    for (i, user) in users.iter().take(3).enumerate() {
        let email = Email {
            email: format!("{}@example.com", user.first_name_canonical),
            user_id: user.user_id.clone(),
            created: user.created + 1,
            // The first one was never confirmed and has expired.
            unconfirmed_until: (i == 0).then(|| now - Duration::hours(1)),
        };
        table.put(&email).await?;
    }

    println!("1. Users created in a window (LSI1, every shard, consistent)");
    let window = User::by_created()
        .between(1_700_000_060u64, 1_700_000_240u64)
        .consistent();
    println!("   {:?}", names(&table.query(window).all().await?));

    println!("2. Users by first name starting with \"a\" (LSI2)");
    let a = table
        .query(User::by_first_name().begins_with(("a",)))
        .all()
        .await?;
    println!("   {:?}", names(&a));

    println!("3. The headline query: first OR last name starting with \"a\", by creation");
    let f = User::fields();
    let search = || {
        table
            .search(User::by_first_name().begins_with(("a",)))
            .or(User::by_last_name().begins_with(("a",)))
            .order_by(f.created)
            .limit(3)
    };
    let first = search().await?;
    println!("   page 1 {:?}", names(&first.records));
    if let Some(cursor) = first.cursor {
        let second = search().cursor(cursor).await?;
        println!("   page 2 {:?}", names(&second.records));
    }

    println!("4. Users with a phone (LSI4, sparse) and with one number (GSI3, no sort key)");
    let phones = table.query(User::by_phone().list()).all().await?;
    println!("   {:?}", names(&phones));
    let shared = table
        .query(User::by_phone_number("+15550001").list())
        .all()
        .await?;
    println!("   +15550001: {:?}", names(&shared));

    println!("5. A beneficiary's users by last name (GSI1)");
    let b1 = table
        .query(User::by_beneficiary_last_name("b1").list())
        .all()
        .await?;
    println!("   {:?}", names(&b1));

    println!("6. Every user since a time (GSI2, one constant partition), and counts");
    let since = User::by_all_created().greater_than_or_equal(1_700_000_300u64);
    println!("   {:?}", names(&table.query(since.clone()).all().await?));
    println!(
        "   {} of {} users",
        table.query(since).count().await?,
        table.query(User::query().list()).count().await?
    );

    println!("7. A phone is removed: the user leaves both phone indexes");
    let dee = users.iter().find(|u| u.first_name == "Dee").unwrap();
    table.update(&dee.primary_key()?, f.phone.remove()).await?;
    let shared = table
        .query(User::by_phone_number("+15550001").list())
        .all()
        .await?;
    println!("   +15550001: {:?}", names(&shared));

    println!("8. A rate-limited scan of the sparse phone index");
    let scanned = table
        .scan::<User>()
        .index("Phone")
        .rate_limit(50.0)
        .all()
        .await?;
    println!("   {} users with a phone", scanned.len());

    println!("9. A user's emails (GSI4); expired unconfirmed ones hidden");
    let ann = &users[0];
    let all = table
        .query(Email::by_user_emails(&ann.user_id).list())
        .all()
        .await?;
    let live = table
        .clone()
        .hiding_expired()
        .query(Email::by_user_emails(&ann.user_id).list())
        .all()
        .await?;
    println!("   stored {}, live {}", all.len(), live.len());
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let table = if std::env::var_os(faceteer::ENDPOINT_VARIABLE).is_some() {
        let name = format!("faceteer-example-users-{}", std::process::id());
        let table = Table::from_env::<UserService>(name).await?;
        table.create_table().await?;
        table
    } else {
        faceteer::embedded::table::<UserService>().await?
    };
    println!("faceteer user service example: table {}\n", table.name());
    let result = run(&table).await;
    table.delete_table().await?;
    result?;
    write_design()?;
    Ok(())
}

/// Write the table's access-pattern page next to the build (`FACETEER_DESIGN_DIR`, default
/// `target/design/user_service`): a picture of each partition, wide facets wrapped.
fn write_design() -> std::io::Result<()> {
    use faceteer::TableSchema;
    let dir = std::path::PathBuf::from(
        std::env::var("FACETEER_DESIGN_DIR")
            .unwrap_or_else(|_| "target/design/user_service".into()),
    );
    std::fs::create_dir_all(&dir)?;
    let page = faceteer::design::access_patterns_html(&UserService::design("users"));
    let path = dir.join("access-patterns.html");
    std::fs::write(&path, page)?;
    println!("\nthe table's design: {}", path.display());
    Ok(())
}
