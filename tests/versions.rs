//! Optimistic locking with `#[version]`: puts check and move it, updates move it, `modify`
//! retries on conflicts.

use crate::common;

use std::sync::Arc;

use common::*;
use faceteer::Error;

async fn puts_check_and_move_the_version() {
    let table = fresh_table::<TestTable>("versions").await;
    let key = Stock::key("sku-1").unwrap();
    let new = Stock {
        sku: "sku-1".into(),
        on_hand: 10,
        version: 0,
    };
    table.put(&new).await.unwrap();
    let stored = table.get(&key).await.unwrap().unwrap();
    assert_eq!(stored.version, 1, "a new record is stored at version 1");

    // Writing "a new record" again, or a stale copy, is a conflict; nothing is written.
    let err = table.put(&new).await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::VersionConflict {
                facet: "STOCK",
                version: 0,
                ..
            }
        ),
        "{err:?}"
    );
    let mut current = stored.clone();
    current.on_hand = 9;
    table.put(&current).await.unwrap();
    let err = table.put(&current).await.unwrap_err();
    assert!(err.is_version_conflict(), "{err:?}");
    let stored = table.get(&key).await.unwrap().unwrap();
    assert_eq!((stored.on_hand, stored.version), (9, 2));

    // Updates move it too.
    let f = Stock::fields();
    let after: Stock = table
        .update(&key, f.on_hand.add(5))
        .returning_new()
        .await
        .unwrap();
    assert_eq!((after.on_hand, after.version), (14, 3));
    let err = table.put(&stored).await.unwrap_err();
    assert!(
        err.is_version_conflict(),
        "a copy read before the update is stale"
    );

    // A batch write cannot check versions: refused at compile time
    // (`tests/ui/batch_refusals.rs`).
}

/// Ten concurrent read–modify–writes of one record: every change lands once.
async fn concurrent_modifies_lose_nothing() {
    let table = Arc::new(fresh_table::<TestTable>("modify").await);
    table
        .put(&Stock {
            sku: "sku-9".into(),
            on_hand: 100,
            version: 0,
        })
        .await
        .unwrap();
    let key = Stock::key("sku-9").unwrap();
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let (table, key) = (table.clone(), key.clone());
            tokio::spawn(async move {
                table
                    .modify(&key, |s: &mut Stock| s.on_hand -= 1)
                    .attempts(50)
                    .await
            })
        })
        .collect();
    for task in tasks {
        let written = task.await.unwrap().unwrap().expect("the record exists");
        assert!(written.version >= 2);
    }
    let stored = table.get(&key).await.unwrap().unwrap();
    assert_eq!((stored.on_hand, stored.version), (90, 11));

    // A missing record: nothing to modify.
    let none = table
        .modify(&Stock::key("absent").unwrap(), |s: &mut Stock| {
            s.on_hand = 0
        })
        .await
        .unwrap();
    assert_eq!(none, None);

    // Out of tries: the conflict is returned.
    let err = table
        .modify(&key, |s: &mut Stock| {
            s.on_hand += 1;
            // Another writer moves the record between this read and its write.
            let (table, key) = (table.clone(), key.clone());
            std::thread::spawn(move || {
                tokio::runtime::Runtime::new().unwrap().block_on(async {
                    let f = Stock::fields();
                    table.update(&key, f.on_hand.add(0)).await.unwrap();
                })
            })
            .join()
            .unwrap();
        })
        .attempts(2)
        .await
        .unwrap_err();
    assert!(err.is_version_conflict(), "{err:?}");
}

faceteer_suite::engines!(
    puts_check_and_move_the_version,
    concurrent_modifies_lose_nothing
);
