//! The one layer that talks to the SDK: plans rendered into the SDK's input builders are
//! sent here with `send_with`, their consumed capacity is counted on the operation's span,
//! and SDK errors become [`Error`]s. Nothing else in the crate calls the client.

use std::collections::HashMap;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::batch_get_item::builders::BatchGetItemInputBuilder;
use aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemInputBuilder;
use aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder;
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::describe_table::builders::DescribeTableInputBuilder;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemInputBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::types::{
    ConsumedCapacity, KeysAndAttributes, ReturnConsumedCapacity, TableDescription, WriteRequest,
};
use faceteer_core::Item;

use crate::error::{Error, Result};
use crate::retry::is_retryable;
use crate::table::Table;
use crate::trace::Op;

/// Whether a conditional write happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Written {
    /// It was applied.
    Applied,
    /// Its condition did not hold; nothing changed.
    ConditionFailed,
}

/// GetItem: the item, if any.
pub(crate) async fn get_item(
    table: &Table,
    op: &Op,
    request: GetItemInputBuilder,
) -> Result<Option<Item>> {
    let out = request
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send_with(table.client())
        .await
        .map_err(|e| Error::dynamo("GetItem", e))?;
    op.request(out.consumed_capacity.as_slice());
    Ok(out.item)
}

/// PutItem.
pub(crate) async fn put_item(
    table: &Table,
    op: &Op,
    request: PutItemInputBuilder,
) -> Result<Written> {
    let result = request
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send_with(table.client())
        .await;
    conditional_write(
        op,
        "PutItem",
        result,
        |out| out.consumed_capacity.as_slice(),
        |e| e.is_conditional_check_failed_exception(),
    )
}

/// DeleteItem.
pub(crate) async fn delete_item(
    table: &Table,
    op: &Op,
    request: DeleteItemInputBuilder,
) -> Result<Written> {
    let result = request
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send_with(table.client())
        .await;
    conditional_write(
        op,
        "DeleteItem",
        result,
        |out| out.consumed_capacity.as_slice(),
        |e| e.is_conditional_check_failed_exception(),
    )
}

/// The outcome of a conditional write: applied, its condition failed, or an error.
fn conditional_write<O, E>(
    op: &Op,
    operation: &'static str,
    result: std::result::Result<O, SdkError<E, HttpResponse>>,
    consumed: impl FnOnce(&O) -> &[ConsumedCapacity],
    is_condition_failure: impl FnOnce(&E) -> bool,
) -> Result<Written>
where
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    match result {
        Ok(out) => {
            op.request(consumed(&out));
            Ok(Written::Applied)
        }
        Err(e) if e.as_service_error().is_some_and(is_condition_failure) => {
            op.request(&[]);
            Ok(Written::ConditionFailed)
        }
        Err(e) => Err(Error::dynamo(operation, e)),
    }
}

/// One Query request: the items and `LastEvaluatedKey`.
pub(crate) async fn query(
    table: &Table,
    op: &Op,
    request: QueryInputBuilder,
) -> Result<(Vec<Item>, Option<Item>)> {
    let out = request
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send_with(table.client())
        .await
        .map_err(|e| Error::dynamo("Query", e))?;
    op.request(out.consumed_capacity.as_slice());
    let last = out.last_evaluated_key.filter(|k| !k.is_empty());
    Ok((out.items.unwrap_or_default(), last))
}

/// A batch request that failed as a whole, and whether another try may succeed.
pub(crate) type BatchError = (Error, bool);

/// One BatchWriteItem request: the requests left unprocessed.
pub(crate) async fn batch_write(
    table: &Table,
    op: &Op,
    requests: Vec<WriteRequest>,
) -> std::result::Result<Vec<WriteRequest>, BatchError> {
    let result = BatchWriteItemInputBuilder::default()
        .request_items(table.name(), requests)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send_with(table.client())
        .await;
    match result {
        Ok(out) => {
            op.request(out.consumed_capacity.as_deref().unwrap_or_default());
            Ok(out
                .unprocessed_items
                .and_then(|mut m| m.remove(table.name()))
                .unwrap_or_default())
        }
        Err(e) => {
            op.request(&[]);
            let retryable = is_retryable(&e);
            Err((Error::dynamo("BatchWriteItem", e), retryable))
        }
    }
}

/// One BatchGetItem request: the items found and the keys left unprocessed.
pub(crate) async fn batch_get(
    table: &Table,
    op: &Op,
    request: KeysAndAttributes,
) -> std::result::Result<(Vec<Item>, Vec<Item>), BatchError> {
    let result = BatchGetItemInputBuilder::default()
        .request_items(table.name(), request)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send_with(table.client())
        .await;
    match result {
        Ok(out) => {
            op.request(out.consumed_capacity.as_deref().unwrap_or_default());
            let found = out
                .responses
                .and_then(|mut r: HashMap<_, _>| r.remove(table.name()))
                .unwrap_or_default();
            let unprocessed = out
                .unprocessed_keys
                .and_then(|mut u| u.remove(table.name()))
                .map(|k| k.keys)
                .unwrap_or_default();
            Ok((found, unprocessed))
        }
        Err(e) => {
            op.request(&[]);
            let retryable = is_retryable(&e);
            Err((Error::dynamo("BatchGetItem", e), retryable))
        }
    }
}

/// CreateTable.
pub(crate) async fn create_table(table: &Table, request: CreateTableInputBuilder) -> Result<()> {
    request
        .table_name(table.name())
        .send_with(table.client())
        .await
        .map_err(|e| Error::dynamo("CreateTable", e))?;
    Ok(())
}

/// DescribeTable.
pub(crate) async fn describe_table(table: &Table) -> Result<Option<TableDescription>> {
    let out = DescribeTableInputBuilder::default()
        .table_name(table.name())
        .send_with(table.client())
        .await
        .map_err(|e| Error::dynamo("DescribeTable", e))?;
    Ok(out.table)
}

/// DeleteTable.
pub(crate) async fn delete_table(table: &Table) -> Result<()> {
    aws_sdk_dynamodb::operation::delete_table::builders::DeleteTableInputBuilder::default()
        .table_name(table.name())
        .send_with(table.client())
        .await
        .map_err(|e| Error::dynamo("DeleteTable", e))?;
    Ok(())
}
