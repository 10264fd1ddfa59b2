//! Local engines that send a stream record's `userIdentity` as Lambda events spell it.
//!
//! The Streams API names the identity's members `Type` and `PrincipalId`; a Lambda event
//! names them `type` and `principalId`. dynoxide 3.2 (the embedded engine) answers
//! `GetRecords` in the Lambda spelling, which the SDK does not read, so a removal by expiry
//! would look like any other. This interceptor, on the clients [`super::local_client`] makes
//! only, reads the identities of such an answer and gives them to the SDK's records. An
//! answer in the Streams API's spelling is left as it is.

use aws_sdk_dynamodbstreams::config::interceptors::FinalizerInterceptorContextMut;
use aws_sdk_dynamodbstreams::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodbstreams::error::BoxError;
use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsOutput;
use aws_sdk_dynamodbstreams::types::Identity;

/// Gives a `GetRecords` answer's Lambda-spelled identities to its records.
#[derive(Debug)]
pub(crate) struct LambdaSpelledIdentities;

/// The identities spelled as Lambda spells them in a `GetRecords` answer's body: (record
/// position, type, principal).
fn lambda_spelled(body: &[u8]) -> Vec<(usize, String, String)> {
    let Ok(answer) = serde_json::from_slice::<serde_json::Value>(body) else {
        return Vec::new();
    };
    let Some(records) = answer.get("Records").and_then(|r| r.as_array()) else {
        return Vec::new();
    };
    records
        .iter()
        .enumerate()
        .filter_map(|(i, record)| {
            let identity = record.get("userIdentity")?;
            let text = |name: &str| identity.get(name)?.as_str().map(str::to_owned);
            Some((i, text("type")?, text("principalId")?))
        })
        .collect()
}

impl Intercept for LambdaSpelledIdentities {
    fn name(&self) -> &'static str {
        "LambdaSpelledIdentities"
    }

    fn modify_before_attempt_completion(
        &self,
        context: &mut FinalizerInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(body) = context.response().and_then(|r| r.body().bytes()) else {
            return Ok(());
        };
        let found = lambda_spelled(body);
        if found.is_empty() {
            return Ok(());
        }
        let Some(Ok(output)) = context.output_or_error_mut() else {
            return Ok(());
        };
        let Some(output) = output.downcast_mut::<GetRecordsOutput>() else {
            return Ok(());
        };
        let Some(records) = output.records.as_mut() else {
            return Ok(());
        };
        for (i, kind, principal) in found {
            let Some(record) = records.get_mut(i) else {
                continue;
            };
            let unread = record
                .user_identity
                .as_ref()
                .is_none_or(|u| u.r#type.is_none() && u.principal_id.is_none());
            if unread {
                record.user_identity = Some(
                    Identity::builder()
                        .r#type(kind)
                        .principal_id(principal)
                        .build(),
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::lambda_spelled;

    #[test]
    fn only_lambda_spelled_identities_are_found() {
        let body = br#"{"Records":[
            {"eventName":"INSERT"},
            {"eventName":"REMOVE","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}},
            {"eventName":"REMOVE","userIdentity":{"Type":"Service","PrincipalId":"dynamodb.amazonaws.com"}}
        ]}"#;
        assert_eq!(
            lambda_spelled(body),
            vec![(1, "Service".to_owned(), "dynamodb.amazonaws.com".to_owned())]
        );
        assert!(lambda_spelled(b"not json").is_empty());
    }
}
