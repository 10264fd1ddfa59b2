//! Decoding the DynamoDB stream events a Lambda function receives (feature `lambda`).
//!
//! ```no_run
//! # use faceteer::Facet;
//! # #[derive(Facet, serde::Serialize, serde::Deserialize)]
//! # struct Task { #[pk(prefix = "T")] id: String, #[sk(prefix = "T")] n: String }
//! use aws_lambda_events::dynamodb::Event;
//! use faceteer::stream::{decode, lambda, Change};
//!
//! fn handle(event: &Event) {
//!     let changes = decode::<Task>(lambda::records(event, &faceteer::schema::TableNames::DEFAULT));
//!     for e in &changes.events {
//!         if let Change::Remove { old, expired: true } = &e.change {
//!             println!("task {} expired", old.id);
//!         }
//!     }
//!     for bad in &changes.unreadable {
//!         eprintln!("{} {}: {}", bad.pk, bad.sk, bad.error);
//!     }
//! }
//! ```

use std::time::SystemTime;

use aws_lambda_events::dynamodb::{Event, EventRecord};
use faceteer_core::layout::TableNames;
use faceteer_core::Item;

use super::change::{is_expiry, Kind, Record};
use crate::table::rename::Renamer;

/// The records of a Lambda event, in faceteer's names (`names`: the table's, as declared
/// with `faceteer::table!`; [`TableNames::DEFAULT`] for faceteer's own). A record whose event
/// name is none of `INSERT`, `MODIFY` and `REMOVE` is left out (DynamoDB sends no other).
pub fn records(event: &Event, names: &TableNames) -> Vec<Record> {
    let renamer = Renamer::of(*names);
    event
        .records
        .iter()
        .filter_map(record)
        .map(|r| r.renamed(renamer.as_ref()))
        .collect()
}

/// One Lambda event record as a [`Record`] (in the table's names).
pub fn record(r: &EventRecord) -> Option<Record> {
    let kind = match r.event_name.as_str() {
        "INSERT" => Kind::Insert,
        "MODIFY" => Kind::Modify,
        "REMOVE" => Kind::Remove,
        _ => return None,
    };
    let image =
        |i: &serde_dynamo::Item| -> Option<Item> { (!i.is_empty()).then(|| i.clone().into()) };
    let change = &r.change;
    let at = SystemTime::from(change.approximate_creation_date_time);
    Some(Record {
        kind,
        keys: image(&change.keys).unwrap_or_default(),
        old: image(&change.old_image),
        new: image(&change.new_image),
        sequence_number: change.sequence_number.clone().unwrap_or_default(),
        at: (at > SystemTime::UNIX_EPOCH).then_some(at),
        expired: r
            .user_identity
            .as_ref()
            .is_some_and(|u| is_expiry(Some(&u.type_), Some(&u.principal_id))),
    })
}
