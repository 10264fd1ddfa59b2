//! The plan of a `PutItem` (shared by puts, transactions and moves).

use aws_sdk_dynamodb::types::AttributeValue;

use super::condition::RenderedCondition;
use super::stamp::{stamped_item, Created, WriteClock};
use super::update::PlanError;
use super::write::PutPlan;
use crate::expr::Expr;
use crate::facet::Facet;

/// The plan of a put of `record` at `now`: for a facet with a `#[version]` field it stores
/// the version plus one, on condition that the stored record is at the record's version (no
/// record, for version 0). It stores nothing a put of the record by Faceteer would not.
/// `created` is what the `#[created]` field gets.
pub fn put_plan<F: Facet>(
    record: &F,
    item_exists: Option<bool>,
    when: Option<&Expr<F>>,
    created: Created,
    now: &WriteClock,
) -> Result<PutPlan, PlanError> {
    let mut item = stamped_item::<F>(record, created, now)?;
    let version = F::VERSION.map(|name| (name, record.version()));
    if let Some((name, v)) = version {
        item.insert(name.to_owned(), AttributeValue::N((v + 1).to_string()));
    }
    // Encrypted last, over the whole item the put stores.
    let item = crate::convert::encrypt_item::<F>(item)?;
    Ok(PutPlan {
        item,
        condition: RenderedCondition::versioned(item_exists, when, version)?,
    })
}
