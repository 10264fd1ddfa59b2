//! The plan of a `PutItem` (shared by puts, transactions and moves).

use faceteer_core::expr::Expr;
use faceteer_core::plan::{PutPlan, RenderedCondition};
use faceteer_core::{to_item, Facet};

use crate::error::Result;
use crate::plans::stamp::{stamp_item, Created};

/// The plan of a put of `record` (shared with transactions): for a facet with a
/// `#[version]` field it stores the version plus one, on condition that the stored record is
/// at the record's version (no record, for version 0). It stores nothing a put of the record
/// by Faceteer would not. `created` is what the `#[created]` field gets.
pub(crate) fn put_plan<F: Facet>(
    record: &F,
    item_exists: Option<bool>,
    when: Option<&Expr<F>>,
    created: Created,
) -> Result<PutPlan> {
    let mut item = stamp_item::<F>(to_item(record)?, created)?;
    let version = F::VERSION.map(|name| (name, record.version()));
    if let Some((name, v)) = version {
        item.insert(
            name.to_owned(),
            aws_sdk_dynamodb::types::AttributeValue::N((v + 1).to_string()),
        );
    }
    Ok(PutPlan {
        item,
        condition: RenderedCondition::versioned(item_exists, when, version)?,
    })
}
