//! Why one input of a batch call failed.

use std::sync::Arc;

use faceteer_core::ItemError;

use super::Error;

/// Why one input of a batch was not written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FailureReason {
    /// The record could not be turned into an item (or a read item into a record, including
    /// validator failures). Nothing was sent for it.
    #[error(transparent)]
    Item(ItemError),
    /// DynamoDB still returned it as unprocessed after every try.
    #[error("still unprocessed after {attempts} attempts")]
    Unprocessed {
        /// Tries made.
        attempts: u32,
    },
    /// The request carrying it failed and was certainly not applied (shared by every input
    /// of that request), or could not be sent (for example a facet not declared on the table:
    /// nothing was sent).
    #[error("the batch request failed: {0}")]
    Request(Arc<Error>),
    /// DynamoDB refused this input as invalid. The request that carried it was split until
    /// it was alone, so its neighbours were written or read without it.
    #[error("DynamoDB refused it: {0}")]
    Refused(Arc<Error>),
}

impl FailureReason {
    /// The same reason for another input that shared the request (an item error, which is
    /// one input's own, is described by its text).
    pub(crate) fn shared(&self) -> FailureReason {
        match self {
            FailureReason::Item(e) => {
                FailureReason::Request(Arc::new(Error::InvalidRequest(e.to_string())))
            }
            FailureReason::Unprocessed { attempts } => FailureReason::Unprocessed {
                attempts: *attempts,
            },
            FailureReason::Request(e) => FailureReason::Request(e.clone()),
            FailureReason::Refused(e) => FailureReason::Refused(e.clone()),
        }
    }
}
