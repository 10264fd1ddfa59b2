//! Compile-time projections against a real DynamoDB-API server: only the chosen and key
//! attributes are read, and projected keys feed back into get and delete.

use crate::common;

use std::collections::HashSet;

use common::*;
use faceteer::{error::ItemError, Error, Key};
use faceteer_core::plan::GetPlan;

fn set(attrs: &[&str]) -> HashSet<String> {
    attrs.iter().map(|a| a.to_string()).collect()
}

async fn projections_read_exactly_the_chosen_and_key_attributes() {
    let table = fresh_table::<TestTable>("projection-attrs").await;
    let mut n = note("book", 1);
    n.expires_at = Some(1_900_000_000);
    table.put(&n).await.unwrap();

    // Base-table reads: chosen fields, base key fields, and the key attributes.
    let base = Note::query("book").list().select::<NoteBody>();
    assert_eq!(
        set(&base.attributes().unwrap()),
        set(&["body", "notebook", "noteId", "PK", "SK", "facet"])
    );
    // Index reads add the index's key fields and attributes.
    let index = Note::by_author_rank("bob").list().select::<NoteRank>();
    assert_eq!(
        set(&index.attributes().unwrap()),
        set(&[
            "rank",
            "status",
            "expiresAt",
            "notebook",
            "noteId",
            "author",
            "PK",
            "SK",
            "GSI1PK",
            "GSI1SK",
            "facet"
        ])
    );

    // The server returns exactly those attributes for that ProjectionExpression.
    let attrs = base.attributes().unwrap();
    let raw = GetPlan {
        key: Note::key("book", "n001").unwrap().to_item(),
        consistent_read: false,
        projection: Some(attrs.clone()),
    }
    .request(table.name())
    .send_with(table.client())
    .await
    .unwrap()
    .item
    .unwrap();
    assert_eq!(raw.keys().cloned().collect::<HashSet<_>>(), set(&attrs));
    assert!(!raw.contains_key("author") && !raw.contains_key("rank"));
}

async fn select_on_get_batch_get_and_queries() {
    let table = fresh_table::<TestTable>("projection-reads").await;
    let notes: Vec<Note> = (0..12).map(|i| note("book", i)).collect();
    assert!(table.put_many(notes.clone()).await.is_complete());

    // get
    let picked = table
        .get(&Note::key("book", "n003").unwrap())
        .select::<NoteBody>()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(picked.body, "body 3");
    assert_eq!(picked.keys.notebook, "book");
    assert_eq!(picked.keys.note_id, "n003");
    assert!(table
        .get(&Note::key("book", "nope").unwrap())
        .select::<NoteBody>()
        .await
        .unwrap()
        .is_none());

    // batch get
    let keys: Vec<Key<Note>> = ["n001", "n002", "zzz"]
        .iter()
        .map(|id| Note::key("book", *id).unwrap())
        .collect();
    let got = table.get_many(keys).select::<NoteRank>().await;
    assert_eq!(got.found.len(), 2);
    assert_eq!(got.missing.len(), 1);
    assert_eq!(got.found[0].rank, notes[1].rank);
    assert_eq!(got.found[1].keys.note_id, "n002");

    // every query operator, base table
    let page = table
        .query(
            Note::query("book")
                .between("n002", "n005")
                .select::<NoteBody>(),
        )
        .await
        .unwrap();
    let bodies: Vec<&str> = page.records.iter().map(|p| p.body.as_str()).collect();
    assert_eq!(bodies, ["body 2", "body 3", "body 4", "body 5"]);
    let first = table
        .query(
            Note::query("book")
                .greater_than("n009")
                .select::<NoteBody>()
                .limit(1),
        )
        .await
        .unwrap();
    assert_eq!(first.records[0].keys.note_id, "n010");
    assert!(first.cursor.is_some());

    // first
    let first = table
        .query(
            Note::query("book")
                .list()
                .first()
                .reverse()
                .select::<NoteBody>(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.keys.note_id, "n011");
    assert_eq!(first.body, "body 11");

    // index query: index key fields come along, pagination works on projections
    let ann = Note::by_author_rank("ann")
        .list()
        .select::<NoteRank>()
        .limit(2);
    let all = table.query(ann.clone()).all().await.unwrap();
    let want = notes.iter().filter(|n| n.author == "ann").count();
    assert_eq!(all.len(), want);
    for p in &all {
        assert_eq!(p.index_keys.author, "ann");
        assert_eq!(p.index_keys.rank, p.rank);
        assert_eq!(p.expires_at, None);
    }
    assert!(all.windows(2).all(|w| w[0].rank <= w[1].rank));

    // filters combine with projections
    let f = Note::fields();
    let done = table
        .query(
            Note::query("book")
                .list()
                .select::<NoteRank>()
                .filter(f.status.eq(Status::Done)),
        )
        .all()
        .await
        .unwrap();
    assert!(!done.is_empty() && done.iter().all(|p| p.status == Status::Done));
}

async fn projected_keys_feed_back_into_get_and_delete() {
    let table = fresh_table::<TestTable>("projection-feedback").await;
    let notes: Vec<Note> = (0..5).map(|i| note("book", i)).collect();
    assert!(table.put_many(notes.clone()).await.is_complete());

    let picked = table
        .query(Note::query("book").list().select::<NoteBody>())
        .all()
        .await
        .unwrap();
    assert_eq!(picked.len(), 5);
    // Full records from projected keys.
    let full = table.get(&picked[2].key().unwrap()).await.unwrap().unwrap();
    assert_eq!(full, notes[2]);
    let keys: Vec<Key<Note>> = picked.iter().map(|p| p.keys.key().unwrap()).collect();
    let got = table.get_many(keys.clone()).await;
    assert_eq!(got.found, notes);
    // Index projections give base keys too.
    let by_index = table
        .query(Note::by_author_rank("ann").list().select::<NoteRank>())
        .all()
        .await
        .unwrap();
    let deleted = table
        .delete_many(by_index.iter().map(|p| p.key().unwrap()))
        .await;
    assert!(deleted.is_complete());
    assert_eq!(deleted.deleted.len(), 3);
    let left = table.query(Note::query("book").list()).all().await.unwrap();
    assert!(left.iter().all(|n| n.author == "bob"));
    table.delete(&picked[1].key().unwrap()).await.unwrap();
    assert!(table
        .get(&picked[1].key().unwrap())
        .await
        .unwrap()
        .is_none());
}

async fn the_pick_validator_runs_on_projected_reads() {
    let table = fresh_table::<TestTable>("projection-validate").await;
    let mut bad = note("book", 1);
    bad.body = "INVALID".into();
    table.put(&bad).await.unwrap();
    let err = table
        .get(&Note::key("book", "n001").unwrap())
        .select::<NoteBody>()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Item(ItemError::Validation { message, .. }) if message.contains("projected")),
        "{err:?}"
    );
    // A projection without the body is not affected.
    let ok = table
        .get(&Note::key("book", "n001").unwrap())
        .select::<NoteRank>()
        .await
        .unwrap();
    assert!(ok.is_some());
}

faceteer_suite::engines!(
    projections_read_exactly_the_chosen_and_key_attributes,
    select_on_get_batch_get_and_queries,
    projected_keys_feed_back_into_get_and_delete,
    the_pick_validator_runs_on_projected_reads,
);
