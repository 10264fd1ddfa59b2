//! Requests as faceteer builds them, before anything is sent: what the `plan()` methods of
//! [`Get`](crate::Get), [`Put`](crate::Put), [`Delete`](crate::Delete),
//! [`UpdateItem`](crate::UpdateItem), [`Query`](crate::Query), [`ScanRun`](crate::ScanRun) and
//! [`CollectionRun`](crate::CollectionRun) return. Inspect them in tests, or log them; each
//! renders into the `aws-sdk-dynamodb` input builder of its request.

pub use faceteer_core::names::Placeholders;
pub use faceteer_core::plan::scan::ScanPlan;
pub use faceteer_core::plan::{
    DeletePlan, GetPlan, PutPlan, QueryPlan, RenderedCondition, Returning, SortCondition,
    UpdatePlan,
};
