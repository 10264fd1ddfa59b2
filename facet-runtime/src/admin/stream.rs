//! A table's stream: turning it on, and what it records.

use std::time::Duration;

use aws_sdk_dynamodb::types::{StreamSpecification, TableStatus};

use crate::error::{Error, Result};
use crate::exec::sdk;
use crate::table::Table;

/// The stream specification of `view` (`None`: off).
pub(crate) fn stream_specification(view: Option<StreamView>) -> Result<StreamSpecification> {
    StreamSpecification::builder()
        .stream_enabled(view.is_some())
        .set_stream_view_type(view.map(sdk_view))
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))
}

pub use faceteer_core::design::StreamView;

/// The SDK's name of `view`.
pub(crate) fn sdk_view(view: StreamView) -> aws_sdk_dynamodb::types::StreamViewType {
    aws_sdk_dynamodb::types::StreamViewType::from(view.as_str())
}

/// The view DynamoDB names `name`.
pub(crate) fn view_named(name: &str) -> Option<StreamView> {
    [
        StreamView::KeysOnly,
        StreamView::NewImage,
        StreamView::OldImage,
        StreamView::NewAndOldImages,
    ]
    .into_iter()
    .find(|v| v.as_str() == name)
}

/// The table's latest stream ARN and view type, when its stream is on.
pub(crate) async fn stream_of(table: &Table) -> Result<Option<(String, StreamView)>> {
    let Some(d) = sdk::describe_table(table).await? else {
        return Ok(None);
    };
    let spec = d.stream_specification();
    let enabled = spec.is_some_and(|s| s.stream_enabled);
    let view = spec
        .and_then(|s| s.stream_view_type())
        .and_then(|v| view_named(v.as_str()));
    Ok(match (enabled, d.latest_stream_arn, view) {
        (true, Some(arn), Some(view)) => Some((arn, view)),
        _ => None,
    })
}

impl Table {
    /// The view type of the table's stream, `None` when it has none.
    pub async fn stream_view(&self) -> Result<Option<StreamView>> {
        Ok(stream_of(self).await?.map(|(_, view)| view))
    }

    /// Turn the table's stream on, recording `view` of each change (`UpdateTable`), and wait
    /// until the table is active again. A stream already on with this view is left as it
    /// is; one with another view is [`Error::TableSetup`] (DynamoDB changes a view only by
    /// turning the stream off, which starts a new stream).
    pub async fn enable_stream(&self, view: StreamView) -> Result<()> {
        match stream_of(self).await? {
            Some((_, on)) if on == view => return Ok(()),
            Some((_, on)) => {
                return Err(Error::TableSetup(format!(
                    "table {} already has a stream recording {on:?}; turn it off first to \
                     record {view:?}",
                    self.name()
                )))
            }
            None => {}
        }
        sdk::update_stream(self, stream_specification(Some(view))?).await?;
        for attempt in 0..120u64 {
            let active = sdk::describe_table(self)
                .await?
                .is_some_and(|t| t.table_status == Some(TableStatus::Active));
            if active && stream_of(self).await?.is_some() {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis((100 * (attempt + 1)).min(2000))).await;
        }
        Err(Error::TableSetup(format!(
            "the stream of table {} did not turn on in time",
            self.name()
        )))
    }
}
