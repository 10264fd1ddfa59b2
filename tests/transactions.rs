//! Transactions against a real DynamoDB-API server: all or nothing, and a cancellation says
//! which step caused it.

use crate::common;

use common::*;
use faceteer::Error;
use faceteer::{error::CancelReason, error::TxAction};

fn stock(sku: &str, on_hand: u32) -> Stock {
    Stock {
        sku: sku.into(),
        on_hand,
        version: 0,
    }
}

async fn writes_apply_together_or_not_at_all() {
    let table = fresh_table::<TestTable>("tx-write").await;
    table.put(&stock("sku-1", 1)).await.unwrap();
    let s = Stock::fields();
    let key = Stock::key("sku-1").unwrap();

    // Create the order and take the last unit: both happen.
    table
        .transact_write()
        .put(table.put(&account("o1")).if_not_exists())
        .update(
            table
                .update(&key, s.on_hand.subtract(1))
                .when(s.on_hand.ge(1)),
        )
        .await
        .unwrap();
    let left = table.get(&key).await.unwrap().unwrap();
    assert_eq!((left.on_hand, left.version), (0, 2));
    assert!(table
        .get(&Account::key("o1").unwrap())
        .await
        .unwrap()
        .is_some());

    // No unit left: the order is not created, and the error names the step.
    let err = table
        .transact_write()
        .put(table.put(&account("o2")).if_not_exists())
        .update(
            table
                .update(&key, s.on_hand.subtract(1))
                .when(s.on_hand.ge(1)),
        )
        .await
        .unwrap_err();
    let Error::TransactionCanceled { canceled } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(canceled.len(), 1, "{err}");
    assert_eq!(canceled[0].step.index, 1);
    assert_eq!(canceled[0].step.action, TxAction::Update);
    assert_eq!(canceled[0].step.facet, "STOCK");
    assert_eq!(canceled[0].step.pk, "#SKU_sku-1");
    assert_eq!(canceled[0].reason, CancelReason::ConditionFailed);
    assert!(
        err.to_string().contains("step 1 (Update of `STOCK`"),
        "{err}"
    );
    assert_eq!(table.get(&Account::key("o2").unwrap()).await.unwrap(), None);

    // Creating an existing record says that it exists; a stale versioned put is a version
    // conflict.
    let err = table
        .transact_write()
        .put(table.put(&account("o1")).if_not_exists())
        .put(table.put(&stock("sku-1", 5)))
        .await
        .unwrap_err();
    let Error::TransactionCanceled { canceled } = &err else {
        panic!("{err:?}");
    };
    let reasons: Vec<(usize, &CancelReason)> =
        canceled.iter().map(|c| (c.step.index, &c.reason)).collect();
    assert_eq!(
        reasons,
        [
            (0, &CancelReason::AlreadyExists),
            (1, &CancelReason::VersionConflict)
        ]
    );
    assert!(
        err.to_string().contains(&format!(
            "step 0 (Put of `ACCOUNT` in table `{}`, PK \"#ACCOUNT_o1\", SK \"#ACCOUNT_o1\"): \
             a record with its key already exists",
            table.name()
        )),
        "{err}"
    );
    assert_eq!(table.get(&key).await.unwrap().unwrap().on_hand, 0);

    // A condition check and a delete, with an idempotency token.
    let a = Account::fields();
    table
        .transact_write()
        .check(&key, s.on_hand.eq(0))
        .delete(
            table
                .delete(&Account::key("o1").unwrap())
                .when(a.balance.eq(100)),
        )
        .idempotency_token("order-o1-cancel")
        .await
        .unwrap();
    assert_eq!(table.get(&Account::key("o1").unwrap()).await.unwrap(), None);
}

async fn requests_dynamodb_would_refuse_are_refused_before_sending() {
    let table = fresh_table::<TestTable>("tx-refused").await;
    let err = table
        .transact_write()
        .put(table.put(&stock("a", 1)))
        .delete(table.delete(&Stock::key("a").unwrap()))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidRequest(m) if m.contains("steps 0 and 1")),
        "{err}"
    );
    let mut tx = table.transact_write();
    for i in 0..101 {
        tx = tx.put(table.put(&stock(&format!("s{i}"), 1)));
    }
    let err = tx.await.unwrap_err();
    assert!(
        matches!(&err, Error::InvalidRequest(m) if m.contains("101")),
        "{err}"
    );
    let err = table.transact_write().await.unwrap_err();
    assert!(matches!(err, Error::InvalidRequest(_)));
    // A step cannot branch on whether its record exists: an update that may create is
    // refused, naming what to do instead.
    let s = Stock::fields();
    let template = stock("b", 1);
    let err = table
        .transact_write()
        .put(table.put(&stock("c", 1)))
        .update(
            table
                .update(&Stock::key("b").unwrap(), s.on_hand.add(1))
                .or_create(&template),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidRequest(m) if m.contains("or_create") && m.contains("if_not_exists")),
        "{err}"
    );
    assert!(stored_keys(&table).await.is_empty(), "nothing was sent");
}

async fn reads_are_one_typed_snapshot() {
    let table = fresh_table::<TestTable>("tx-read").await;
    table.put(&stock("sku-7", 3)).await.unwrap();
    table.put(&account("acc")).await.unwrap();
    let mut tx = table.transact_get();
    let st = tx.get(&Stock::key("sku-7").unwrap());
    let acc = tx.get(&Account::key("acc").unwrap());
    let none = tx.get(&Stock::key("absent").unwrap());
    let mut got = tx.await.unwrap();
    assert_eq!(got.take(st).unwrap().map(|s| s.on_hand), Some(3));
    assert_eq!(got.take(acc).unwrap(), Some(account("acc")));
    assert_eq!(got.take(none).unwrap(), None);
}

/// An update step keeps index keys true as a single update does, and a step whose value
/// named unchanged is not the stored one is reported with the field.
async fn update_steps_rebuild_index_keys() {
    let table = fresh_table::<TestTable>("tx-index").await;
    table.put(&note("book", 1)).await.unwrap(); // author bob, status open
    table.put(&stock("sku-9", 5)).await.unwrap();
    let n = Note::fields();
    let s = Stock::fields();
    let key = Note::key("book", "n001").unwrap();
    let err = table
        .transact_write()
        .update(table.update(&Stock::key("sku-9").unwrap(), s.on_hand.subtract(1)))
        .update(table.update(
            &key,
            n.author.set("carol") & n.status.unchanged(Status::Done),
        ))
        .await
        .unwrap_err();
    match &err {
        Error::TransactionCanceled { canceled } => {
            assert_eq!(canceled.len(), 1, "{err}");
            assert_eq!(canceled[0].step.index, 1);
            assert_eq!(
                canceled[0].reason,
                faceteer::error::CancelReason::StoredValueDiffers { field: "status" }
            );
        }
        other => panic!("expected a cancellation, got {other:?}"),
    }
    table
        .transact_write()
        .update(table.update(&Stock::key("sku-9").unwrap(), s.on_hand.subtract(1)))
        .update(table.update(
            &key,
            n.author.set("carol") & n.status.unchanged(Status::Open),
        ))
        .await
        .unwrap();
    let after = table.get(&key).await.unwrap().unwrap();
    assert_eq!(after.author, "carol");
    assert_eq!(
        get_record_item(&table, key.to_item()).await.unwrap(),
        faceteer::to_item(&after).unwrap()
    );
    let by_new = table
        .query(Note::by_author_status("carol", Status::Open).list())
        .await
        .unwrap();
    assert_eq!(by_new.records, vec![after]);
}

faceteer_suite::engines!(
    update_steps_rebuild_index_keys,
    writes_apply_together_or_not_at_all,
    requests_dynamodb_would_refuse_are_refused_before_sending,
    reads_are_one_typed_snapshot,
);
