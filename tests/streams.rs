//! Typed change streams: a table's stream read through the Streams API as the changes of a
//! facet or a collection, with every record accounted for; Lambda events decoded the same
//! way; expiry marked.

use std::time::Duration;

use chrono::{DateTime, Utc};
use faceteer::stream::{self, Change, Changes, Record, StreamView};
use faceteer::{schema::TableNames, Collection, Facet};
use faceteer_suite::{fresh_streamed_table, fresh_table, stream_reader};
use serde::{Deserialize, Serialize};

use crate::common::put_raw;

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "TICKET", validator = open_tickets_have_titles)]
struct Ticket {
    #[pk(prefix = "#BOARD")]
    board: String,
    #[sk(prefix = "#TICKET")]
    id: String,
    title: String,
    open: bool,
    #[ttl]
    expires: Option<DateTime<Utc>>,
}

fn open_tickets_have_titles(t: &Ticket) -> Result<(), String> {
    if t.open && t.title.is_empty() {
        return Err("an open ticket needs a title".into());
    }
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "BOARD")]
struct Board {
    #[pk(prefix = "#BOARD")]
    #[sk(prefix = "#BOARD")]
    board: String,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "MEMBER")]
struct Member {
    #[pk(prefix = "#BOARD")]
    board: String,
    #[sk(prefix = "#MEMBER")]
    user: String,
}

faceteer::table! {
    struct Boards { Ticket, Board, Member }
}

#[derive(Debug, Clone, PartialEq, Collection)]
enum BoardItems {
    Ticket(Ticket),
    Board(Board),
}

fn ticket(id: &str, title: &str) -> Ticket {
    Ticket {
        board: "b1".into(),
        id: id.into(),
        title: title.into(),
        open: true,
        expires: None,
    }
}

/// Read the stream until `wanted` records have arrived (the engines publish a write's
/// record as it is applied; the loop only waits for what is already written).
async fn read_records(reader: &mut stream::StreamReader, wanted: usize) -> Vec<Record> {
    let mut records = Vec::new();
    for _ in 0..600 {
        records.extend(reader.next_records().await.unwrap());
        if records.len() >= wanted {
            return records;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{} of {wanted} stream records arrived", records.len());
}

async fn changes_of_a_facet_are_typed_and_every_record_counted() {
    let table = fresh_streamed_table::<Boards>("streams", StreamView::NewAndOldImages).await;
    let verification = table.verify().await.unwrap();
    assert!(verification.is_ok(), "{verification:?}");
    assert_eq!(verification.stream, Some(StreamView::NewAndOldImages));
    assert_eq!(
        table.stream_view().await.unwrap(),
        Some(StreamView::NewAndOldImages)
    );
    let mut reader = stream_reader(&table).await;

    table.put(&ticket("t1", "Fix the login")).await.unwrap();
    table
        .update(
            &Ticket::key("b1", "t1").unwrap(),
            Ticket::fields().title.set("Fix the login page"),
        )
        .await
        .unwrap();
    table.put(&ticket("t2", "Write docs")).await.unwrap();
    table
        .delete(&Ticket::key("b1", "t2").unwrap())
        .await
        .unwrap();
    table
        .put(&Board {
            board: "b1".into(),
            name: "Core".into(),
        })
        .await
        .unwrap();
    table
        .put(&Member {
            board: "b1".into(),
            user: "ann".into(),
        })
        .await
        .unwrap();
    // A ticket the facet cannot read: open, without a title (the validator refuses it).
    let mut bad = faceteer::to_item(&ticket("t3", "x")).unwrap();
    bad.insert(
        "title".into(),
        aws_sdk_dynamodb::types::AttributeValue::S(String::new()),
    );
    put_raw(&table, bad).await.unwrap();
    table.put(&ticket("t4", "After the bad one")).await.unwrap();

    let records = read_records(&mut reader, 8).await;
    assert_eq!(records.len(), 8, "{records:#?}");
    let changes: Changes<Ticket> = stream::decode(records.clone());
    assert_eq!(changes.records(), 8);
    let summary: Vec<String> = changes
        .events
        .iter()
        .map(|e| match &e.change {
            Change::Insert(t) => format!("insert {} {}", t.id, t.title),
            Change::Modify { old, new } => format!(
                "modify {} -> {}",
                old.as_ref().unwrap().title,
                new.as_ref().unwrap().title
            ),
            Change::Remove { old, expired } => format!("remove {} expired={expired}", old.id),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "insert t1 Fix the login",
            "modify Fix the login -> Fix the login page",
            "insert t2 Write docs",
            "remove t2 expired=false",
            "insert t4 After the bad one",
        ]
    );
    assert_eq!(changes.events[0].pk, "#BOARD_b1");
    assert_eq!(changes.events[0].sk, "#TICKET_t1");
    assert!(changes.events.iter().all(|e| !e.sequence_number.is_empty()));
    assert_eq!(
        changes.skipped.iter().collect::<Vec<_>>(),
        [(&"BOARD".to_owned(), &1), (&"MEMBER".to_owned(), &1)]
    );
    assert_eq!(changes.unreadable.len(), 1);
    let bad = &changes.unreadable[0];
    assert_eq!(
        (bad.facet.as_str(), bad.sk.as_str()),
        ("TICKET", "#TICKET_t3")
    );
    assert!(
        bad.error.to_string().contains("needs a title"),
        "{}",
        bad.error
    );

    // The same records as a collection: tickets and boards, members skipped.
    let board: Changes<BoardItems> = stream::decode_collection(records);
    assert_eq!(board.events.len(), 6);
    assert!(matches!(
        &board.events[4].change,
        Change::Insert(BoardItems::Board(b)) if b.name == "Core"
    ));
    assert_eq!(board.skipped.get("MEMBER"), Some(&1));
    assert_eq!(board.unreadable.len(), 1);

    // A reader resumed from the checkpoint (stored as text) hands out only what follows.
    let saved = reader.checkpoint().to_text();
    table.put(&ticket("t5", "Later")).await.unwrap();
    let checkpoint = stream::StreamCheckpoint::from_text(&saved).unwrap();
    let mut resumed = stream_reader(&table).await.resume_from(checkpoint).unwrap();
    let later: Changes<Ticket> = stream::decode(read_records(&mut resumed, 1).await);
    assert_eq!(later.events.len(), 1);
    assert!(matches!(&later.events[0].change, Change::Insert(t) if t.id == "t5"));
    // And the first reader goes on from where it was, too.
    let next: Changes<Ticket> = stream::decode(read_records(&mut reader, 1).await);
    assert_eq!(next.events.len(), 1);
    assert!(stream::StreamCheckpoint::from_text("nonsense!").is_err());
}

async fn a_table_without_a_stream_says_so_and_can_turn_one_on() {
    let table = fresh_table::<Boards>("no-stream").await;
    assert_eq!(table.verify().await.unwrap().stream, None);
    let err = table.stream_reader().await.err().map(|e| e.to_string());
    let client = faceteer::stream::local_client(&faceteer_suite::endpoint().unwrap()).unwrap();
    let refused = faceteer::stream::StreamReader::new(client, &table).await;
    assert!(
        matches!(
            refused,
            Err(faceteer::Error::Stream(
                faceteer::error::StreamError::NotEnabled { .. }
            ))
        ),
        "{refused:?} / {err:?}"
    );
    table.enable_stream(StreamView::KeysOnly).await.unwrap();
    assert_eq!(
        table.verify().await.unwrap().stream,
        Some(StreamView::KeysOnly)
    );
    // Turning it on again with the same view is nothing to do; another view is refused.
    table.enable_stream(StreamView::KeysOnly).await.unwrap();
    assert!(table.enable_stream(StreamView::NewImage).await.is_err());
    let mut reader = stream_reader(&table).await;
    table.put(&ticket("t1", "Keys only")).await.unwrap();
    let changes: Changes<Ticket> = stream::decode(read_records(&mut reader, 1).await);
    // A keys-only record tells no facet: counted, not typed, not dropped.
    assert_eq!(changes.events.len(), 0);
    assert_eq!(changes.without_image, 1);
}

faceteer_suite::engines!(
    changes_of_a_facet_are_typed_and_every_record_counted,
    a_table_without_a_stream_says_so_and_can_turn_one_on,
);

/// DynamoDB deletes an expired item itself: its record is marked (the embedded engine
/// deletes on demand; moto never expires items).
#[test]
fn a_removal_by_expiry_is_marked() {
    faceteer_suite::run(faceteer_suite::Engine::Embedded, async {
        let table = fresh_streamed_table::<Boards>("expiry", StreamView::OldImage).await;
        let mut reader = stream_reader(&table).await;
        let mut gone = ticket("t1", "Expires");
        gone.expires = Some(Utc::now() - chrono::Duration::hours(1));
        table.put(&gone).await.unwrap();
        table.put(&ticket("t2", "Stays")).await.unwrap();
        table
            .delete(&Ticket::key("b1", "t2").unwrap())
            .await
            .unwrap();
        let engine = faceteer_suite::embedded_engine().unwrap();
        assert_eq!(engine.delete_expired().unwrap(), 1);
        let changes: Changes<Ticket> = stream::decode(read_records(&mut reader, 4).await);
        // OLD_IMAGE: inserts carry no image to read; the removals do.
        assert_eq!(changes.without_image, 2);
        let removals: Vec<(String, bool)> = changes
            .events
            .iter()
            .map(|e| match &e.change {
                Change::Remove { old, expired } => (old.id.clone(), *expired),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            removals,
            [("t2".to_owned(), false), ("t1".to_owned(), true)]
        );
    });
}

/// A Lambda event of a table with OneTable's names (`pk`, `sk`, `_type`, `expires`),
/// decoded in faceteer's.
#[test]
fn lambda_events_decode_like_the_streams_api() {
    const NAMES: TableNames = TableNames {
        pk: "pk",
        sk: "sk",
        facet: "_type",
        ttl: "expires_at",
        indexes: &[],
    };
    let event: aws_lambda_events::dynamodb::Event =
        serde_json::from_str(include_str!("data/lambda_dynamodb_event.json")).unwrap();
    let changes: Changes<Ticket> = stream::decode(stream::lambda::records(&event, &NAMES));
    assert_eq!(changes.records(), 4);
    let kinds: Vec<String> = changes
        .events
        .iter()
        .map(|e| format!("{:?} {}", e.change.kind(), e.sk))
        .collect();
    assert_eq!(
        kinds,
        [
            "Insert #TICKET_t1",
            "Modify #TICKET_t1",
            "Remove #TICKET_t1"
        ]
    );
    match &changes.events[1].change {
        Change::Modify { old, new } => {
            assert_eq!(old.as_ref().unwrap().title, "Draft");
            assert_eq!(new.as_ref().unwrap().title, "Final");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        &changes.events[2].change,
        Change::Remove { expired: true, .. }
    ));
    assert!(changes.events[0].at.is_some());
    assert_eq!(changes.skipped.get("BOARD"), Some(&1));
}
