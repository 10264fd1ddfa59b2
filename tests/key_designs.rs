//! Key designs from Entity Manager's guide to evolving a single-table schema, on real
//! DynamoDB-API servers: a sharded entity partition with five local indexes ("the same
//! partition, another order"), index keys naming fields in any order (last name, first name,
//! created), a constant index partition ("all users by created"), sparse indexes (by phone,
//! with and without a sort key), and index membership kept right by updates.

use crate::common::get_record_item;
use faceteer::{admin::Difference, schema::IndexKind, Facet, Table};
use faceteer_suite::fresh_table;
use serde::{Deserialize, Serialize};

// A user: Entity Manager's, as the `user_service` example declares it. Its partition is
// `USER#<shard>` (8 shards by `userId`), its sort key its id.
//
// - LSI1 `Created`: the partition by creation time (shared with `Email`).
// - LSI2 `FirstName` / LSI3 `LastName`: by canonical names, in either order, then created.
// - LSI4 `Phone` (sparse): users with a phone, by phone.
// - LSI5 `Updated`: by last update.
// - GSI1 `BeneficiaryLastName`: a beneficiary's users by last then first name.
// - GSI2 `AllCreated`: one constant partition of every user, by creation time.
// - GSI3 `PhoneNumber` (sparse, no sort key): the users with one phone number.
use crate::examples::user_service::User;

/// An email address of a user: its own partition, sharing LSI1 (by creation time); LSI2
/// holds its keys by user.
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
    lsi(
        n = 2,
        alias = "ByUser",
        keys_only,
        sk(prefix = "USER", fields(user_id))
    )
)]
struct Email {
    email: String,
    user_id: String,
    created: u64,
}

/// A device, perhaps owned: GSI5 is declared on its fields and made sparse with
/// `index(gsi = 5, sparse)`, so unowned devices are not in it.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "Device", index(gsi = 5, sparse))]
struct Device {
    #[pk(prefix = "DEVICE")]
    #[sk(prefix = "DEVICE")]
    id: String,
    #[gsi(n = 5, alias = "Owner", pk, prefix = "OWNER")]
    owner: Option<String>,
    #[gsi(n = 5, sk, prefix = "DEVICE")]
    name: String,
}

faceteer::table! {
    pub struct UserService { User, Email, Device }
}

const NAMES: [(&str, &str); 6] = [
    ("Ann", "Zed"),
    ("Bob", "Young"),
    ("Ann", "Young"),
    ("Cy", "Abel"),
    ("Bob", "Abel"),
    ("Dee", "Zed"),
];

fn user(i: u64) -> User {
    let (first, last) = NAMES[i as usize % NAMES.len()];
    User {
        user_id: format!("u{i:02}"),
        beneficiary_id: if i.is_multiple_of(2) { "b1" } else { "b2" }.to_owned(),
        created: 1_700_000_000 + i * 10,
        updated: 1_800_000_000 - i,
        first_name: first.to_owned(),
        first_name_canonical: first.to_lowercase(),
        last_name: last.to_owned(),
        last_name_canonical: last.to_lowercase(),
        phone: i.is_multiple_of(3).then(|| format!("+1555000{:02}", i % 6)),
    }
}

fn users() -> Vec<User> {
    (0..24).map(user).collect()
}

async fn seeded() -> (Table, Vec<User>) {
    let table = fresh_table::<UserService>("key-designs").await;
    let users = users();
    for u in &users {
        table.put(u).await.unwrap();
    }
    for i in 0..5u64 {
        let email = Email {
            email: format!("e{i}@example.com"),
            user_id: format!("u{i:02}"),
            created: 1_700_000_005 + i * 10,
        };
        table.put(&email).await.unwrap();
    }
    (table, users)
}

fn ids(users: &[User]) -> Vec<&str> {
    users.iter().map(|u| u.user_id.as_str()).collect()
}

async fn the_table_has_every_declared_index_and_verifies() {
    let (table, _) = seeded().await;
    let v = table.verify().await.unwrap();
    assert!(v.is_ok(), "{:?}", v.differences);
    let description = crate::common::describe(&table).await;
    let mut local: Vec<(String, Vec<String>)> = description
        .local_secondary_indexes()
        .iter()
        .map(|i| {
            let keys = i
                .key_schema()
                .iter()
                .map(|k| k.attribute_name.clone())
                .collect();
            (i.index_name.clone().unwrap(), keys)
        })
        .collect();
    local.sort();
    let expected: Vec<(String, Vec<String>)> = (1..=5)
        .map(|n| {
            (
                format!("LSI{n}"),
                vec!["PK".to_owned(), format!("LSI{n}SK")],
            )
        })
        .collect();
    assert_eq!(local, expected);
    let gsi3 = description
        .global_secondary_indexes()
        .iter()
        .find(|i| i.index_name() == Some("GSI3"))
        .unwrap();
    let keys: Vec<&str> = gsi3
        .key_schema()
        .iter()
        .map(|k| k.attribute_name())
        .collect();
    assert_eq!(keys, ["GSI3PK"], "an index without a sort key");
    let schema = User::SCHEMA.index("LSI4").unwrap();
    assert_eq!((schema.kind, schema.sparse), (IndexKind::Local, true));
    table.delete_table().await.unwrap();
}

async fn local_indexes_order_a_sharded_partition_and_read_consistently() {
    let (table, users) = seeded().await;
    // By first name then last name: every shard merged, consistent reads.
    let got = table
        .query(User::by_first_name().begins_with(("ann",)).consistent())
        .all()
        .await
        .unwrap();
    let mut want: Vec<User> = users
        .iter()
        .filter(|u| u.first_name_canonical == "ann")
        .cloned()
        .collect();
    want.sort_by(|a, b| {
        (&a.last_name_canonical, a.created).cmp(&(&b.last_name_canonical, b.created))
    });
    assert_eq!(ids(&got), ids(&want));
    // The same fields in the other order: last name first.
    let got = table
        .query(User::by_last_name().begins_with(("young", "bob")))
        .all()
        .await
        .unwrap();
    let want: Vec<&str> = {
        let mut w: Vec<&User> = users
            .iter()
            .filter(|u| u.last_name_canonical == "young" && u.first_name_canonical == "bob")
            .collect();
        w.sort_by_key(|u| u.created);
        w.iter().map(|u| u.user_id.as_str()).collect()
    };
    assert_eq!(ids(&got), want);
    // A range of creation times through LSI1, which emails share: only users come back.
    let got = table
        .query(User::by_created().between(1_700_000_000u64, 1_700_000_050u64))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&got), ["u00", "u01", "u02", "u03", "u04", "u05"]);
    let emails = table
        .query(Email::by_created().greater_than(1_700_000_020u64))
        .all()
        .await
        .unwrap();
    let emails: Vec<&str> = emails.iter().map(|e| e.email.as_str()).collect();
    assert_eq!(
        emails,
        ["e2@example.com", "e3@example.com", "e4@example.com"]
    );
    // A keys-only local index: keys from the index, records from the table.
    let fetched = table
        .query(
            Email::by_user()
                .begins_with("u0")
                .fetch_records()
                .consistent(),
        )
        .all()
        .await
        .unwrap();
    let mut users: Vec<&str> = fetched.iter().map(|e| e.user_id.as_str()).collect();
    users.sort_unstable();
    assert_eq!(users, ["u00", "u01", "u02", "u03", "u04"]);
    // A scan reads whole records: a keys-only index is refused.
    let err = table.scan::<Email>().index("ByUser").await.unwrap_err();
    assert!(
        err.to_string().contains("projects only some attributes"),
        "{err}"
    );
    table.delete_table().await.unwrap();
}

async fn a_sharded_index_partition_merges_its_shards() {
    let (table, users) = seeded().await;
    // GSI1: a beneficiary's users, spread over 2 shards by user id, by last then first name.
    let got = table
        .query(User::by_beneficiary_last_name("b1").list())
        .all()
        .await
        .unwrap();
    let mut want: Vec<&User> = users.iter().filter(|u| u.beneficiary_id == "b1").collect();
    want.sort_by(|a, b| {
        (&a.last_name_canonical, &a.first_name_canonical, &a.user_id).cmp(&(
            &b.last_name_canonical,
            &b.first_name_canonical,
            &b.user_id,
        ))
    });
    let got_names: Vec<(&str, &str)> = got
        .iter()
        .map(|u| {
            (
                u.last_name_canonical.as_str(),
                u.first_name_canonical.as_str(),
            )
        })
        .collect();
    let want_names: Vec<(&str, &str)> = want
        .iter()
        .map(|u| {
            (
                u.last_name_canonical.as_str(),
                u.first_name_canonical.as_str(),
            )
        })
        .collect();
    assert_eq!(got_names, want_names, "merged in sort-key order");
    assert_eq!(got.len(), 12);
    let shards: std::collections::BTreeSet<String> = users
        .iter()
        .filter(|u| u.beneficiary_id == "b1")
        .map(|u| {
            faceteer::to_item(u).unwrap()["GSI1PK"]
                .as_s()
                .unwrap()
                .clone()
        })
        .collect();
    assert_eq!(shards.len(), 2, "{shards:?}");
    // One shard, chosen.
    let one = table
        .query(User::by_beneficiary_last_name("b1").list().shard(0))
        .count()
        .await
        .unwrap();
    assert!(one > 0 && one < 12, "{one}");
    table.delete_table().await.unwrap();
}

async fn a_constant_index_partition_holds_every_user() {
    let (table, users) = seeded().await;
    let got = table
        .query(User::by_all_created().greater_than_or_equal(1_700_000_200u64))
        .all()
        .await
        .unwrap();
    let want: Vec<&str> = users
        .iter()
        .filter(|u| u.created >= 1_700_000_200)
        .map(|u| u.user_id.as_str())
        .collect();
    assert_eq!(ids(&got), want);
    // Pages of 5 with a cursor give the same records.
    let mut paged = Vec::new();
    let mut cursor = None;
    loop {
        let mut q = User::by_all_created().list().limit(5);
        if let Some(c) = cursor.take() {
            q = q.cursor(c);
        }
        let page = table.query(q).await.unwrap();
        paged.extend(page.records);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(ids(&paged), ids(&users));
    // The items carry no marker field: only the declared attributes, keys and `facet`.
    let item = faceteer::to_item(&users[0]).unwrap();
    assert_eq!(item["GSI2PK"].as_s().unwrap(), "USERS");
    assert!(!item.contains_key("kind"));
    table.delete_table().await.unwrap();
}

async fn sparse_indexes_hold_only_records_with_their_fields() {
    let (table, users) = seeded().await;
    let with_phone: Vec<&User> = users.iter().filter(|u| u.phone.is_some()).collect();
    assert!(with_phone.len() > 2 && with_phone.len() < users.len());
    // The item of a user without a phone has no key of either phone index.
    let without = users.iter().find(|u| u.phone.is_none()).unwrap();
    let item = faceteer::to_item(without).unwrap();
    for attribute in ["LSI4SK", "GSI3PK"] {
        assert!(!item.contains_key(attribute), "{attribute} written");
    }
    let by_phone = table.query(User::by_phone().list()).all().await.unwrap();
    let mut want: Vec<&User> = with_phone.clone();
    want.sort_by(|a, b| a.phone.cmp(&b.phone).then(a.user_id.cmp(&b.user_id)));
    let mut got_sorted: Vec<&User> = by_phone.iter().collect();
    got_sorted.sort_by(|a, b| a.phone.cmp(&b.phone).then(a.user_id.cmp(&b.user_id)));
    assert_eq!(got_sorted, want);
    // No sort key: the users with one phone number.
    let number = with_phone[1].phone.clone().unwrap();
    let mut got = table
        .query(User::by_phone_number(&number).list())
        .all()
        .await
        .unwrap();
    got.sort_by(|a, b| a.user_id.cmp(&b.user_id));
    let want: Vec<&str> = users
        .iter()
        .filter(|u| u.phone.as_deref() == Some(number.as_str()))
        .map(|u| u.user_id.as_str())
        .collect();
    assert_eq!(ids(&got), want);
    assert!(!want.is_empty());
    // Pages of one through the index without a sort key.
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let mut q = User::by_phone_number(&number).list().limit(1);
        if let Some(c) = cursor.take() {
            q = q.cursor(c);
        }
        let page = table.query(q).await.unwrap();
        assert!(page.records.len() <= 1);
        seen.extend(page.records.into_iter().map(|u| u.user_id));
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    seen.sort();
    assert_eq!(seen, want);
    table.delete_table().await.unwrap();
}

async fn updates_move_records_in_and_out_of_sparse_indexes() {
    let (table, users) = seeded().await;
    let f = User::fields();
    let leaving = users.iter().find(|u| u.phone.is_some()).unwrap();
    let entering = users.iter().find(|u| u.phone.is_none()).unwrap();
    let old_phone = leaving.phone.clone().unwrap();
    // Leave: the phone removed; both phone indexes' keys go with it.
    table
        .update(&leaving.primary_key().unwrap(), f.phone.remove())
        .await
        .unwrap();
    // Enter: a phone set.
    table
        .update(&entering.primary_key().unwrap(), f.phone.set("+15559999"))
        .await
        .unwrap();
    let in_index = |list: &[User], id: &str| list.iter().any(|u| u.user_id == id);
    let by_phone = table.query(User::by_phone().list()).all().await.unwrap();
    assert!(!in_index(&by_phone, &leaving.user_id));
    assert!(in_index(&by_phone, &entering.user_id));
    let old = table
        .query(User::by_phone_number(&old_phone).list())
        .all()
        .await
        .unwrap();
    assert!(!in_index(&old, &leaving.user_id));
    let new = table
        .query(User::by_phone_number("+15559999").list())
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&new), [entering.user_id.as_str()]);
    // Stored items are exactly what a put of the records writes.
    for (user, phone) in [(leaving, None), (entering, Some("+15559999".to_owned()))] {
        let mut record = user.clone();
        record.phone = phone;
        let raw = get_record_item(&table, record.primary_key().unwrap().to_item()).await;
        assert_eq!(raw, Some(faceteer::to_item(&record).unwrap()));
    }
    table.delete_table().await.unwrap();
}

async fn verify_reports_a_missing_local_index() {
    // A table made by hand with the base key and the global indexes, but no local ones.
    let declared = fresh_table::<UserService>("key-designs-verify").await;
    declared.delete_table().await.unwrap();
    let client = declared.client();
    let s = aws_sdk_dynamodb::types::ScalarAttributeType::S;
    let attr = |n: &str| {
        aws_sdk_dynamodb::types::AttributeDefinition::builder()
            .attribute_name(n)
            .attribute_type(s.clone())
            .build()
            .unwrap()
    };
    let key = |n: &str, t| {
        aws_sdk_dynamodb::types::KeySchemaElement::builder()
            .attribute_name(n)
            .key_type(t)
            .build()
            .unwrap()
    };
    use aws_sdk_dynamodb::types::KeyType::{Hash, Range};
    client
        .create_table()
        .table_name(declared.name())
        .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
        .attribute_definitions(attr("PK"))
        .attribute_definitions(attr("SK"))
        .key_schema(key("PK", Hash))
        .key_schema(key("SK", Range))
        .send()
        .await
        .unwrap();
    let v = declared.verify().await.unwrap();
    let missing: Vec<String> = v
        .differences
        .iter()
        .filter_map(|d| match d {
            Difference::MissingIndex { index, .. } => Some(index.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        missing,
        ["GSI1", "GSI2", "GSI3", "GSI5", "LSI1", "LSI2", "LSI3", "LSI4", "LSI5"]
    );
    let lsi1 = v
        .differences
        .iter()
        .find(|d| matches!(d, Difference::MissingIndex { index, .. } if index == "LSI1"))
        .unwrap();
    assert_eq!(
        lsi1.to_string(),
        "index LSI1 is missing; used by `User`, `Email`"
    );
    declared.delete_table().await.unwrap();
}

async fn counts_read_no_records() {
    let (table, users) = seeded().await;
    // The whole sharded partition: every shard summed.
    assert_eq!(table.query(User::query().list()).count().await.unwrap(), 24);
    // A local index shared with another facet: only this facet's items count.
    let created = User::by_created().greater_than_or_equal(1_700_000_000u64);
    assert_eq!(table.query(created).count().await.unwrap(), 24);
    let emails = Email::by_created().list();
    assert_eq!(table.query(emails).count().await.unwrap(), 5);
    // A strict bound does not count the record equal to it.
    let below = User::by_all_created().less_than(1_700_000_050u64);
    assert_eq!(table.query(below).count().await.unwrap(), 5);
    // Sort-key conditions and filters.
    let anns = users
        .iter()
        .filter(|u| u.first_name_canonical == "ann")
        .count() as u64;
    let q = User::by_first_name().begins_with(("ann",));
    assert_eq!(table.query(q).count().await.unwrap(), anns);
    let f = User::fields();
    let q = User::by_first_name()
        .begins_with(("ann",))
        .filter(f.beneficiary_id.eq("b1"));
    let want = users
        .iter()
        .filter(|u| u.first_name_canonical == "ann" && u.beneficiary_id == "b1")
        .count() as u64;
    assert_eq!(table.query(q).count().await.unwrap(), want);
    // One shard, chosen.
    let per_shard: u64 = futures::future::try_join_all(
        (0..8).map(|n| table.query(User::query().list().shard(n)).count()),
    )
    .await
    .unwrap()
    .into_iter()
    .sum();
    assert_eq!(per_shard, 24);
    table.delete_table().await.unwrap();
}

async fn scans_read_an_index() {
    let (table, users) = seeded().await;
    let mut want: Vec<&str> = users
        .iter()
        .filter(|u| u.phone.is_some())
        .map(|u| u.user_id.as_str())
        .collect();
    want.sort();
    // By alias or by name; the sparse index holds only users with a phone.
    for name in ["PhoneNumber", "GSI3", "LSI4"] {
        let mut got = table.scan::<User>().index(name).all().await.unwrap();
        got.sort_by(|a, b| a.user_id.cmp(&b.user_id));
        assert_eq!(ids(&got), want, "{name}");
    }
    // Pages of two resume through the index's keys.
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let mut scan = table.scan::<User>().index("GSI3").limit(2);
        if let Some(c) = cursor.take() {
            scan = scan.cursor(c);
        }
        let page = scan.await.unwrap();
        assert!(page.records.len() <= 2);
        seen.extend(page.records.into_iter().map(|u| u.user_id));
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    seen.sort();
    assert_eq!(seen, want);
    // Consistent reads: on a local index, not on a global one.
    let local = table.scan::<User>().index("LSI4").consistent().all().await;
    assert_eq!(local.unwrap().len(), want.len());
    let global = table.scan::<User>().index("GSI3").consistent().all().await;
    assert!(
        matches!(global, Err(faceteer::Error::InvalidRequest(_))),
        "{global:?}"
    );
    // An index the facet does not use.
    let err = table.scan::<Email>().index("GSI3").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: no facet scanned (Email) uses an index named \"GSI3\"; their indexes: \
         LSI1 (Created), LSI2 (ByUser)"
    );
    table.delete_table().await.unwrap();
}

/// Walk a scan page by page: the records read.
async fn walk(scan: faceteer::query::ScanRun<'_, User>) -> usize {
    let mut count = 0;
    let mut cursor = None;
    loop {
        let mut s = scan.clone();
        if let Some(c) = cursor.take() {
            s = s.cursor(c);
        }
        let page = s.await.unwrap();
        count += page.records.len();
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => return count,
        }
    }
}

async fn a_rate_limited_scan_spreads_its_requests() {
    let (table, users) = seeded().await;
    // Pages of 2 records: at least a dozen requests, each consuming capacity. Unlimited
    // first, to learn what the scan consumes on this server.
    let start = std::time::Instant::now();
    assert_eq!(walk(table.scan::<User>().limit(2)).await, users.len());
    let unlimited = start.elapsed();
    // Every request reads at least one item, which costs at least half a unit: at two
    // units a second, twelve requests take at least (12 - 1) * 0.25 s.
    let start = std::time::Instant::now();
    let limited = table.scan::<User>().limit(2).rate_limit(2.0);
    assert_eq!(walk(limited).await, users.len());
    let elapsed = start.elapsed();
    assert!(
        elapsed >= std::time::Duration::from_millis(2750),
        "a scan of 12+ requests at 2 units/s took {elapsed:?} (unlimited: {unlimited:?})"
    );
    let err = table.scan::<User>().rate_limit(0.0).await.unwrap_err();
    assert!(err.to_string().contains("above zero"), "{err}");
    table.delete_table().await.unwrap();
}

/// Walk a search page by page: every record, and the size of each page.
async fn pages_of(search: faceteer::query::Search<'_, User>) -> (Vec<User>, Vec<usize>) {
    let mut records = Vec::new();
    let mut sizes = Vec::new();
    let mut cursor = None;
    loop {
        let mut s = search.clone();
        if let Some(c) = cursor.take() {
            s = s.cursor(c);
        }
        let page = s.await.unwrap();
        sizes.push(page.records.len());
        records.extend(page.records);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => return (records, sizes),
        }
    }
}

async fn a_search_merges_indexes_sorted_differently_by_a_chosen_field() {
    let (table, users) = seeded().await;
    let f = User::fields();
    // The guide's headline query: users whose first or last name starts with "a", through
    // the first-name and last-name indexes (every shard of each), each user once.
    let search = || {
        table
            .search(User::by_first_name().begins_with(("a",)))
            .or(User::by_last_name().begins_with(("a",)))
            .order_by(f.created)
    };
    let mut want: Vec<&User> = users
        .iter()
        .filter(|u| {
            u.first_name_canonical.starts_with('a') || u.last_name_canonical.starts_with('a')
        })
        .collect();
    want.sort_by_key(|u| u.created);
    let both = users
        .iter()
        .filter(|u| {
            u.first_name_canonical.starts_with('a') && u.last_name_canonical.starts_with('a')
        })
        .count();
    assert!(both == 0 || want.len() > both);
    for limit in [1, 3, 7, 100] {
        let (got, sizes) = pages_of(search().limit(limit)).await;
        let mut got_ids: Vec<&str> = ids(&got);
        got_ids.sort();
        let mut want_ids: Vec<&str> = want.iter().map(|u| u.user_id.as_str()).collect();
        want_ids.sort();
        assert_eq!(
            got_ids, want_ids,
            "limit {limit}: each matching user exactly once"
        );
        let full = sizes.len() - 1;
        assert!(
            sizes[..full].iter().all(|&n| n == limit as usize),
            "limit {limit}: pages {sizes:?}"
        );
    }
    // Sources sorted by the chosen field merge into that order, descending too.
    let by_created = || {
        table
            .search(User::by_created().list())
            .or(User::by_all_created().greater_than(1_700_000_100u64))
            .order_by(f.created)
            .limit(4)
    };
    let (got, _) = pages_of(by_created()).await;
    let created: Vec<u64> = got.iter().map(|u| u.created).collect();
    let mut sorted = created.clone();
    sorted.sort();
    assert_eq!(created, sorted);
    assert_eq!(got.len(), users.len());
    let (got, _) = pages_of(by_created().reverse()).await;
    let created: Vec<u64> = got.iter().map(|u| u.created).collect();
    sorted.reverse();
    assert_eq!(created, sorted);
    // Without an order, sources sorted differently are refused, naming the way out.
    let err = table
        .search(User::by_first_name().begins_with(("a",)))
        .or(User::by_last_name().begins_with(("a",)))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("order_by"), "{err}");
    // Different filters on the sources are refused.
    let err = table
        .search(
            User::by_first_name()
                .list()
                .filter(f.beneficiary_id.eq("b1")),
        )
        .or(User::by_last_name().list())
        .order_by(f.created)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("another filter"), "{err}");
    table.delete_table().await.unwrap();
}

async fn an_index_declared_on_fields_can_be_sparse() {
    let (table, _) = seeded().await;
    let device = |id: &str, owner: Option<&str>| Device {
        id: id.into(),
        owner: owner.map(str::to_owned),
        name: format!("device {id}"),
    };
    let (owned, unowned) = (device("d1", Some("ann")), device("d2", None));
    table.put(&owned).await.unwrap();
    table.put(&unowned).await.unwrap();
    assert!(!faceteer::to_item(&unowned).unwrap().contains_key("GSI5PK"));
    let ann = table
        .query(Device::by_owner("ann").list())
        .all()
        .await
        .unwrap();
    assert_eq!(ann, std::slice::from_ref(&owned));
    // Given an owner, the unowned device enters the index; losing it, the owned one leaves.
    let f = Device::fields();
    let key = unowned.primary_key().unwrap();
    // The index's sort key needs `name`: `plan()` names it (the request depends on it), and
    // the update reads it.
    let err = table.update(&key, f.owner.set("ann")).plan().unwrap_err();
    assert!(
        matches!(
            &err,
            faceteer::Error::Expr(faceteer::error::ExprError::KeyFieldNeeded {
                attribute: "GSI5SK",
                ..
            })
        ),
        "the index's sort key needs `name`: {err:?}"
    );
    table.update(&key, f.owner.set("ann")).await.unwrap();
    let entered = table
        .query(Device::by_owner("ann").list())
        .all()
        .await
        .unwrap();
    assert_eq!(entered.len(), 2, "{entered:?}");
    // Named unchanged, no read.
    table
        .update(&key, f.owner.set("ann") & f.name.unchanged(&unowned.name))
        .await
        .unwrap();
    // Leaving needs no other value: the removed owner takes the device out.
    table
        .update(&owned.primary_key().unwrap(), f.owner.remove())
        .await
        .unwrap();
    let stored = get_record_item(&table, owned.primary_key().unwrap().to_item()).await;
    let unowned_now = Device {
        owner: None,
        ..owned.clone()
    };
    assert_eq!(stored, Some(faceteer::to_item(&unowned_now).unwrap()));
    let ann = table
        .query(Device::by_owner("ann").list())
        .all()
        .await
        .unwrap();
    let ids: Vec<&str> = ann.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["d2"]);
    table.delete_table().await.unwrap();
}

faceteer_suite::engines!(
    an_index_declared_on_fields_can_be_sparse,
    a_sharded_index_partition_merges_its_shards,
    a_search_merges_indexes_sorted_differently_by_a_chosen_field,
    counts_read_no_records,
    scans_read_an_index,
    a_rate_limited_scan_spreads_its_requests,
    the_table_has_every_declared_index_and_verifies,
    local_indexes_order_a_sharded_partition_and_read_consistently,
    a_constant_index_partition_holds_every_user,
    sparse_indexes_hold_only_records_with_their_fields,
    updates_move_records_in_and_out_of_sparse_indexes,
    verify_reports_a_missing_local_index,
);
