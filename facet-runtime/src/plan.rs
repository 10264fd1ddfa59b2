//! Requests as faceteer builds them, before anything is sent: what the `plan()` methods of
//! [`Get`](crate::read::Get), [`Put`](crate::write::Put), [`Delete`](crate::write::Delete),
//! [`UpdateItem`](crate::write::UpdateItem), [`Query`](crate::query::Query), [`ScanRun`](crate::query::ScanRun) and
//! [`CollectionRun`](crate::query::CollectionRun) return. Inspect them in tests, or log them; each
//! renders into the `aws-sdk-dynamodb` input builder of its request.

pub use faceteer_core::names::Placeholders;
pub use faceteer_core::plan::scan::ScanPlan;
pub use faceteer_core::plan::{
    DeletePlan, GetPlan, PutPlan, QueryPlan, RenderedCondition, Returning, SortCondition,
    UpdatePlan,
};
