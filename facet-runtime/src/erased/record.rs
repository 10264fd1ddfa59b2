//! A record of a facet from JSON, checked as a write checks it.

use faceteer_core::Facet;

/// The record `value` holds, deserialized and accepted by the facet's write checks.
pub(super) fn parse_record<F: Facet>(value: serde_json::Value) -> Result<F, String> {
    let record: F = serde_json::from_value(value).map_err(|e| e.to_string())?;
    faceteer_core::to_item(&record).map_err(|e| e.to_string())?;
    Ok(record)
}
