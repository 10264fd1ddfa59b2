//! Typed updates (`UpdateItem`) against a real DynamoDB-API server.

use crate::common;

use common::*;
use faceteer::Error;

/// Every kind of change in one request, returning the record after it.
async fn every_operation_in_one_update() {
    let table = fresh_table::<TestTable>("update-ops").await;
    table.put(&account("a1")).await.unwrap();
    let f = Account::fields();
    let key = Account::key("a1").unwrap();
    let after: Account = table
        .update(
            &key,
            f.balance.subtract(30)
                & f.tags.add_to_set(["vip".to_owned()])
                & f.history.append(["charged".to_owned()])
                & f.note.remove()
                & f.profile.member::<String>("city").set("Lyon")
                & f.profile.member::<u32>("visits").add(2),
        )
        .returning_new()
        .await
        .unwrap();
    let mut expected = account("a1");
    expected.balance = 70;
    expected.tags = vec!["new".into(), "vip".into()];
    expected.history.push("charged".into());
    expected.note = None;
    expected.profile = Profile {
        city: "Lyon".into(),
        visits: 3,
    };
    let mut tags = after.tags.clone();
    tags.sort();
    assert_eq!(Account { tags, ..after }, expected);
    assert_eq!(table.get(&key).await.unwrap().map(|a| a.balance), Some(70));

    // Prepend, an element of a list, set-if-absent, delete from a set; the record before.
    let before: Account = table
        .update(
            &key,
            f.history.prepend(["created".to_owned()])
                & f.note.set_if_not_exists("second".to_owned())
                & f.tags.delete_from_set(["new".to_owned()]),
        )
        .returning_old()
        .await
        .unwrap();
    assert_eq!(before.balance, 70);
    assert_eq!(before.note, None);
    let now = table.get(&key).await.unwrap().unwrap();
    assert_eq!(now.history, ["created", "opened", "charged"]);
    assert_eq!(now.note.as_deref(), Some("second"));
    assert_eq!(now.tags, ["vip"]);
    table
        .update(&key, f.history.at(0).set("founded") & f.balance.add(5))
        .await
        .unwrap();
    let now = table.get(&key).await.unwrap().unwrap();
    assert_eq!(now.history[0], "founded");
    assert_eq!(now.balance, 75);
}

/// Conditions hold or the update changes nothing; a missing record is not created.
async fn conditions_and_missing_records() {
    let table = fresh_table::<TestTable>("update-conditions").await;
    table.put(&account("a2")).await.unwrap();
    let f = Account::fields();
    let key = Account::key("a2").unwrap();
    let err = table
        .update(&key, f.balance.set(0))
        .when(f.balance.gt(1000))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::ConditionFailed {
                operation: "UpdateItem",
                facet: "ACCOUNT",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(table.get(&key).await.unwrap().unwrap().balance, 100);
    table
        .update(&key, f.balance.set(0))
        .when(f.balance.eq(100))
        .await
        .unwrap();
    assert_eq!(table.get(&key).await.unwrap().unwrap().balance, 0);

    let missing = Account::key("nobody").unwrap();
    let err = table.update(&missing, f.balance.add(1)).await.unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");
    assert_eq!(table.get(&missing).await.unwrap(), None);
    assert!(!stored_keys(&table).await.contains(&key_pair(&missing)));

    // Refused before sending: two changes of one path.
    let err = table
        .update(
            &key,
            f.profile.set(Profile {
                city: "x".into(),
                visits: 0,
            }) & f.profile.member::<u32>("visits").add(1),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Expr(_)), "{err:?}");
}

/// A field an index key is built from is set like any other, and the update rebuilds every
/// index key built from it: queries by the old value stop finding the record, queries by
/// the new one find it; the TTL attribute follows the `#[ttl]` field the same way. A key
/// that also needs a field the update does not set is refused before sending, unless the
/// field is named unchanged, which the server checks.
async fn index_keys_follow_their_fields() {
    let table = fresh_table::<TestTable>("update-index").await;
    table.put(&note("book", 1)).await.unwrap(); // author bob, status open
    let key = Note::key("book", "n001").unwrap();
    let n = Note::fields();

    // GSI2PK is built from the author and the status: the status is read from the stored
    // record, and the update is conditioned on it. `plan()` cannot show a request that
    // depends on the stored record: it names the value and how to give it.
    let err = table
        .update(&key, n.author.set("carol"))
        .plan()
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Expr(faceteer_core::expr::ExprError::KeyFieldNeeded {
                attribute: "GSI2PK",
                needed: "status",
                ..
            })
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("status.unchanged"), "{err}");
    let read: Note = table
        .update(&key, n.author.set("carol"))
        .returning_new()
        .await
        .unwrap();
    assert_eq!((read.author.as_str(), read.status), ("carol", Status::Open));
    assert_eq!(
        get_record_item(&table, key.to_item()).await.unwrap(),
        faceteer::to_item(&read).unwrap()
    );

    let after: Note = table
        .update(
            &key,
            n.author.set("carol") & n.status.set(Status::Done) & n.rank.set(42),
        )
        .returning_new()
        .await
        .unwrap();
    assert_eq!(
        (after.author.as_str(), after.status, after.rank),
        ("carol", Status::Done, 42)
    );
    let by_old = table
        .query(Note::by_author_rank("bob").list())
        .await
        .unwrap();
    assert!(by_old.records.is_empty(), "the old GSI1 key is gone");
    let by_new = table
        .query(Note::by_author_rank("carol").list())
        .await
        .unwrap();
    assert_eq!(by_new.records, std::slice::from_ref(&after));
    let by_status = table
        .query(Note::by_author_status("carol", Status::Done).list())
        .await
        .unwrap();
    assert_eq!(by_status.records, std::slice::from_ref(&after));
    // The stored item is exactly what a put of the new record writes.
    assert_eq!(
        get_record_item(&table, key.to_item()).await.unwrap(),
        faceteer::to_item(&after).unwrap()
    );

    // Named unchanged at the wrong value: refused by the server, naming the field; nothing
    // is written.
    let before = get_record_item(&table, key.to_item()).await.unwrap();
    let err = table
        .update(&key, n.author.set("dan") & n.status.unchanged(Status::Open))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::StoredValueDiffers {
                field: "status",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        get_record_item(&table, key.to_item()).await.unwrap(),
        before
    );
    // At the right value: applied, and the status checked.
    let after: Note = table
        .update(&key, n.author.set("dan") & n.status.unchanged(Status::Done))
        .returning_new()
        .await
        .unwrap();
    assert_eq!(after.author, "dan");
    assert_eq!(
        get_record_item(&table, key.to_item()).await.unwrap(),
        faceteer::to_item(&after).unwrap()
    );
    // A missing record is still not created.
    let missing = Note::key("book", "n404").unwrap();
    let err = table
        .update(
            &missing,
            n.author.set("x") & n.status.unchanged(Status::Done),
        )
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");

    table
        .update(&key, n.expires_at.set(1_900_000_000))
        .await
        .unwrap();
    let now = table.get(&key).await.unwrap().unwrap();
    assert_eq!(now.expires_at, Some(1_900_000_000));
    assert_eq!(
        get_record_item(&table, key.to_item()).await.unwrap(),
        faceteer::to_item(&now).unwrap()
    );
    table.update(&key, n.expires_at.remove()).await.unwrap();
    let stored = get_raw(&table, key.to_item()).await.unwrap();
    assert!(!stored.contains_key("ttl") && !stored.contains_key("expiresAt"));
}

/// The README's user (Entity Manager's story): changing the beneficiary and bumping `updated`
/// is one request, and every index built from them follows.
mod readme_user {
    use chrono::{DateTime, Utc};
    use faceteer::{Facet, Table};
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
    #[facet(name = "USER")]
    #[serde(rename_all = "camelCase")]
    pub struct User {
        #[pk(prefix = "#USER")]
        #[sk(prefix = "#USER")]
        pub user_id: String,
        #[gsi(n = 1, alias = "BeneficiaryCreated", pk, prefix = "#BENEFICIARY")]
        #[gsi(n = 2, alias = "BeneficiaryUpdated", pk, prefix = "#BENEFICIARY")]
        pub beneficiary_id: String,
        #[gsi(n = 3, alias = "LastName", pk, prefix = "#LAST_NAME")]
        pub last_name: String,
        #[gsi(n = 1, sk, prefix = "#CREATED")]
        pub created: DateTime<Utc>,
        #[gsi(n = 2, sk, prefix = "#UPDATED")]
        #[gsi(n = 3, sk, prefix = "#UPDATED")]
        pub updated: DateTime<Utc>,
    }

    faceteer::table! {
        pub struct UserTable { User }
    }

    // As in the README.
    pub async fn move_user(
        table: &Table,
        user_id: &str,
        beneficiary: &str,
        last_name: &str,
    ) -> faceteer::Result<User> {
        let u = User::fields();
        table
            .update(
                &User::key(user_id)?,
                u.beneficiary_id.set(beneficiary)
                    & u.updated.set(Utc::now())
                    & u.last_name.unchanged(last_name),
            )
            .returning_new()
            .await
    }
}

async fn readme_update_bumps_updated_with_another_indexed_field() {
    use chrono::TimeZone;
    use readme_user::*;
    let table = faceteer_suite::fresh_table::<UserTable>("readme-user").await;
    let created = chrono::Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
    let user = User {
        user_id: "u1".into(),
        beneficiary_id: "b1".into(),
        last_name: "Smith".into(),
        created,
        updated: created,
    };
    table.put(&user).await.unwrap();
    let err = move_user(&table, "u1", "b2", "Jones").await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::StoredValueDiffers {
                field: "lastName",
                ..
            }
        ),
        "{err:?}"
    );
    let moved = move_user(&table, "u1", "b2", "Smith").await.unwrap();
    assert_eq!(moved.beneficiary_id, "b2");
    assert!(moved.updated > created);
    let key = User::key("u1").unwrap();
    assert_eq!(
        get_record_item(&table, key.to_item()).await.unwrap(),
        faceteer::to_item(&moved).unwrap()
    );
    for (old, new) in [
        (
            table
                .query(User::by_beneficiary_created("b1").list())
                .await
                .unwrap(),
            table
                .query(User::by_beneficiary_created("b2").list())
                .await
                .unwrap(),
        ),
        (
            table
                .query(User::by_beneficiary_updated("b1").list())
                .await
                .unwrap(),
            table
                .query(User::by_beneficiary_updated("b2").list())
                .await
                .unwrap(),
        ),
    ] {
        assert!(old.records.is_empty());
        assert_eq!(new.records, vec![moved.clone()]);
    }
    let recent = table
        .query(User::by_last_name("Smith").greater_than(created))
        .await
        .unwrap();
    assert_eq!(recent.records, vec![moved]);
}

faceteer_suite::engines!(
    readme_update_bumps_updated_with_another_indexed_field,
    every_operation_in_one_update,
    conditions_and_missing_records,
    index_keys_follow_their_fields,
);
