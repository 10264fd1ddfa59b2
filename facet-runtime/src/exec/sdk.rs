//! The one layer that talks to the SDK: plans rendered into the SDK's input builders are
//! sent here with `send_with`, their consumed capacity is counted on the operation's span,
//! and SDK errors become [`Error`]s. Nothing else in the crate calls the client.

use std::collections::HashMap;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::batch_get_item::builders::BatchGetItemInputBuilder;
use aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemInputBuilder;
use aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder;
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::describe_table::builders::DescribeTableInputBuilder;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemInputBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use aws_sdk_dynamodb::operation::transact_get_items::builders::TransactGetItemsInputBuilder;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::types::{
    CancellationReason, KeysAndAttributes, TableDescription, TransactGetItem, TransactWriteItem,
    WriteRequest,
};
use faceteer_core::schema::{PK, SK};
use faceteer_core::Item;

use crate::error::Context;
use crate::error::{Error, Result};
use crate::exec::trace::{Op, Params};
use crate::table::Table;
use crate::wire::direct::Tries;
use crate::wire::sent::{self, Answer, Failure};
use crate::wire::stored::{OnePass, Stored};
use crate::wire::tap;
use aws_sdk_dynamodb::operation::RequestId;
use faceteer_core::wire::answer as wire;

/// Send a read (`send` sends `request` once) on the table's read path: sent by faceteer
/// ([`crate::wire::direct`]), sent by the SDK and read directly ([`tap::tapped`]), or
/// decoded by the SDK. An answer whose body could not be read is sent
/// again after a pause, as the SDK tries again a response error, up to the client's
/// attempts (once on a client without retries: its caller retries). The request is copied
/// only when another try may follow.
async fn read<T: RequestId, E, R, Fut>(
    table: &Table,
    client: &aws_sdk_dynamodb::Client,
    request: R,
    send: impl Fn(R) -> Fut,
) -> std::result::Result<Answer<T>, SdkError<E, HttpResponse>>
where
    R: crate::wire::direct::request::Request<Error = E>,
    Fut: std::future::Future<Output = std::result::Result<T, SdkError<E, HttpResponse>>>,
{
    if !table.reads_direct() {
        let sent = learning(table, Box::pin(send(request)));
        return sent.await.map(Answer::Decoded);
    }
    let attempts = attempts(client);
    if let Some(route) = table.direct_route() {
        if let Some(body) = request.body() {
            return send_direct(table, client, route, request, body, attempts).await;
        }
    }
    let mut kept = Some(request);
    let mut tried = 1;
    loop {
        let request = if tried < attempts {
            kept.clone()
        } else {
            kept.take()
        };
        let request = request.expect("a request is kept until the last try");
        // The SDK's request future (several kilobytes) is pinned where it is made: the
        // layers above move a pointer, not it.
        let sent = tap::tapped(table.timeouts().attempt, Box::pin(send(request)));
        match learning(table, sent).await {
            Err(Failure::BodyUnread(why)) if tried < attempts => {
                tracing::debug!(%why, "an answer's body could not be read; trying again");
                tokio::time::sleep(table.batch_options().backoff(tried)).await;
                tried += 1;
            }
            other => return other.map_err(Failure::into_sdk),
        }
    }
}

/// How many tries `client` gives a request.
fn attempts(client: &aws_sdk_dynamodb::Client) -> u32 {
    client
        .config()
        .retry_config()
        .map_or(1, |r| r.max_attempts())
        .max(1)
}

/// Send one try of a write: by faceteer when the table's route is learned
/// ([`crate::WritePath::Direct`]), else by the SDK, on the client without its retries.
/// Either way the SDK's error for the try, or the answer.
async fn write_once<R>(
    table: &Table,
    request: R,
) -> std::result::Result<Answer<R::Output>, SdkError<R::Error, HttpResponse>>
where
    R: crate::wire::direct::request::Request,
{
    if let Some(route) = table.direct_write_route() {
        if let Some(body) = request.body() {
            return send_direct(table, table.batch_client(), route, request, body, 1).await;
        }
    }
    // Pinned where it is made: the layers above move a pointer, not it.
    let sent = Box::pin(request.send_by(table.batch_client()));
    learning(table, sent).await.map(Answer::Decoded)
}

/// Send `request` (whose JSON is `body`) by faceteer on `route`, tried `attempts` times as
/// `client` tries, under the table's timeouts: its answer's JSON, or the SDK's error.
async fn send_direct<T, R: crate::wire::direct::request::Request>(
    table: &Table,
    client: &aws_sdk_dynamodb::Client,
    route: &crate::wire::direct::Route,
    request: R,
    body: Vec<u8>,
    attempts: u32,
) -> std::result::Result<Answer<T>, SdkError<R::Error, HttpResponse>> {
    let timeouts = table.timeouts();
    let tries = Tries::of(client, attempts, timeouts.attempt, timeouts.operation);
    Box::pin(crate::wire::direct::send(route, request, body, tries))
        .await
        .map(|(json, id)| Answer::Json(json, id))
        .map_err(Failure::into_sdk)
}

/// Send the SDK's requests of `fut` as faceteer's for `table`: the route of the table's own
/// requests is learned from them, until it is.
async fn learning<T>(table: &Table, fut: impl std::future::Future<Output = T>) -> T {
    if table.direct().settled() {
        fut.await
    } else {
        crate::wire::sent::sending(table.shared_name(), fut).await
    }
}

/// An answer faceteer could not read, as the error of `operation`.
fn unreadable<E>(
    operation: &'static str,
    context: Context,
    cause: impl std::error::Error + Send + Sync + 'static,
) -> Error
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    Error::dynamo(operation, context, sent::unreadable::<E>(cause))
}

/// The operation's context with the key of `item` (its `PK` and `SK`).
fn with_key(op: &Op, item: Option<&Item>) -> Context {
    let mut context = op.context();
    let text = |name: &str| match item.and_then(|i| i.get(name)) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    };
    if let Some(pk) = text(PK) {
        context.key = Some((pk, text(SK)));
    }
    context
}

/// Items of an answer, in faceteer's names.
fn answer(table: &Table, items: Vec<Item>) -> Vec<Item> {
    match table.renamer() {
        Some(r) => r.answer(items),
        None => items,
    }
}

/// One item or key of an answer, in faceteer's names.
fn answer_one(table: &Table, item: Option<Item>) -> Option<Item> {
    match table.renamer() {
        Some(r) => r.answer_one(item),
        None => item,
    }
}

/// The context of a request outside any facet operation (table administration).
fn table_context(table: &Table) -> Context {
    Context {
        table: table.name().to_owned(),
        endpoint: table.endpoint().cloned(),
        ..Context::default()
    }
}

/// The answer to one try of a conditional single-item write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// It was applied: the attributes it returned, if it asked for any.
    Applied(Option<Item>),
    /// Its condition did not hold, nothing changed: the stored item, when one exists (every
    /// write asks for it, to recognise its own earlier try).
    ConditionFailed(Option<Item>),
}

/// GetItem: the item, if any.
pub(crate) async fn get_item(
    table: &Table,
    op: &Op,
    request: GetItemInputBuilder,
) -> Result<Option<Stored>> {
    op.prepare().await?;
    use aws_sdk_dynamodb::operation::get_item::GetItemError;
    let context = with_key(op, request.get_key().as_ref());
    let request = match table.renamer() {
        Some(r) => r.get(request),
        None => request,
    };
    let request = request.return_consumed_capacity(op.capacity_asked());
    op.note_request(&Params {
        consistent_read: request.get_consistent_read().to_owned(),
        projection: request.get_projection_expression().as_deref(),
        ..Params::default()
    });
    let out = op
        .within(async {
            read(table, table.client(), request, |r| {
                r.send_with(table.client())
            })
            .await
            .map_err(|e| Error::dynamo("GetItem", context.clone(), e))
        })
        .await?;
    match out {
        Answer::Decoded(out) => {
            op.note_request_id(out.request_id());
            op.request(out.consumed_capacity.as_slice());
            Ok(answer_one(table, out.item).map(Stored::Tree))
        }
        Answer::Json(json, id) => {
            op.note_request_id(id.as_deref());
            let (item, consumed) =
                wire::get(json).map_err(|e| unreadable::<GetItemError>("GetItem", context, e))?;
            op.request_read(consumed);
            Ok(item.map(Stored::Wire))
        }
    }
}

/// Send one try of a single-item write (`PutItem`, `DeleteItem`, `UpdateItem`: each its own
/// SDK builder and error type) about the item or key `$key`, on the client without the SDK's
/// retries ([`crate::exec::once`] retries, knowing which tries may have been applied), asking for
/// the stored item when its condition fails.
macro_rules! send_write {
    ($table:expr, $op:expr, $operation:literal, $request:ident, $key:ident, $error:ident, $rename:ident) => {{
        $op.prepare().await?;
        let context = with_key($op, $request.$key().as_ref());
        let $request = match $table.renamer() {
            Some(r) => r.$rename($request),
            None => $request,
        };
        // The stored item is asked for when a condition can fail, and only then.
        let all_old = $request
            .get_condition_expression()
            .is_some()
            .then_some(aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure::AllOld);
        let request = $request
            .return_consumed_capacity($op.capacity_asked())
            .set_return_values_on_condition_check_failure(all_old)
            .set_return_item_collection_metrics(item_collection_metrics($table));
        let result = $op
            .within(async { Ok(write_once($table, request).await) })
            .await?;
        match result {
            Ok(Answer::Decoded(out)) => {
                $op.note_request_id(out.request_id());
                $op.note_item_collection(out.item_collection_metrics());
                $op.request(out.consumed_capacity.as_slice());
                let attributes = out.attributes.filter(|a| !a.is_empty());
                Ok(Reply::Applied(answer_one($table, attributes)))
            }
            Ok(Answer::Json(json, id)) => {
                $op.note_request_id(id.as_deref());
                match wire::written(&json) {
                    Ok(written) => {
                        if let Some((key, size)) = written.collection {
                            let metrics = aws_sdk_dynamodb::types::ItemCollectionMetrics::builder()
                                .set_item_collection_key(key)
                                .set_size_estimate_range_gb(size)
                                .build();
                            $op.note_item_collection(Some(&metrics));
                        }
                        $op.request_read(written.consumed);
                        Ok(Reply::Applied(answer_one($table, written.attributes)))
                    }
                    Err(e) => {
                        $op.request(&[]);
                        Err(unreadable::<$error>($operation, context, e))
                    }
                }
            }
            Err(e) => {
                $op.request(&[]);
                $op.note_request_id(e.request_id());
                match e.as_service_error() {
                    Some($error::ConditionalCheckFailedException(failed)) => {
                        let stored = failed.item.clone().filter(|i| !i.is_empty());
                        Ok(Reply::ConditionFailed(answer_one($table, stored)))
                    }
                    _ => Err(Error::dynamo($operation, context, e)),
                }
            }
        }
    }};
}

/// One try of a PutItem.
pub(crate) async fn put_item(
    table: &Table,
    op: &Op,
    request: PutItemInputBuilder,
) -> Result<Reply> {
    use aws_sdk_dynamodb::operation::put_item::PutItemError;
    send_write!(table, op, "PutItem", request, get_item, PutItemError, put)
}

/// One try of a DeleteItem.
pub(crate) async fn delete_item(
    table: &Table,
    op: &Op,
    request: DeleteItemInputBuilder,
) -> Result<Reply> {
    use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
    send_write!(
        table,
        op,
        "DeleteItem",
        request,
        get_key,
        DeleteItemError,
        delete
    )
}

/// One try of an UpdateItem.
pub(crate) async fn update_item(
    table: &Table,
    op: &Op,
    request: UpdateItemInputBuilder,
) -> Result<Reply> {
    use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
    send_write!(
        table,
        op,
        "UpdateItem",
        request,
        get_key,
        UpdateItemError,
        update
    )
}

/// Send a Query or Scan request (each its own SDK builder type, `$error` its error type):
/// the items, `LastEvaluatedKey` and the capacity units consumed. `$context` is built only
/// when the request fails.
macro_rules! send_page {
    ($table:expr, $op:expr, $operation:literal, $error:ty, $request:expr, $context:expr, $pass:expr) => {{
        let request = $request.return_consumed_capacity($op.capacity_asked());
        let out = $op
            .within(async {
                read($table, $table.client(), request, |r| {
                    r.send_with($table.client())
                })
                .await
                .map_err(|e| Error::dynamo($operation, $context, e))
            })
            .await?;
        match out {
            Answer::Decoded(out) => {
                $op.note_request_id(out.request_id());
                $op.note_counts(
                    u64::try_from(out.count).unwrap_or(0),
                    u64::try_from(out.scanned_count).unwrap_or(0),
                );
                $op.request(out.consumed_capacity.as_slice());
                let units: f64 = out
                    .consumed_capacity
                    .iter()
                    .filter_map(|c| c.capacity_units)
                    .sum();
                let last = answer_one($table, out.last_evaluated_key.filter(|k| !k.is_empty()));
                let items = answer($table, out.items.unwrap_or_default());
                Ok((items.into_iter().map(Stored::Tree).collect(), last, units))
            }
            Answer::Json(json, id) => {
                $op.note_request_id(id.as_deref());
                let body = std::sync::Arc::new(json);
                let pass: Option<OnePass> = $pass;
                let (items, last, count, scanned, consumed) = match pass.and_then(|p| p.page(&body))
                {
                    Some(read) => read,
                    None => {
                        let page = wire::page_in(body)
                            .map_err(|e| unreadable::<$error>($operation, $context, e))?;
                        let items = page.items.into_iter().map(Stored::Wire).collect();
                        let last = page.last_evaluated_key;
                        (items, last, page.count, page.scanned_count, page.consumed)
                    }
                };
                $op.note_counts(count, scanned);
                let units = consumed.units;
                $op.request_read(consumed);
                Ok((items, last, units))
            }
        }
    }};
}

/// Record a Query's parameters on its operation's span.
fn note_query(op: &Op, request: &QueryInputBuilder) {
    op.note_request(&Params {
        consistent_read: request.get_consistent_read().to_owned(),
        projection: request.get_projection_expression().as_deref(),
        limit: request.get_limit().to_owned(),
        select: request.get_select().as_ref().map(|s| s.as_str()),
        scan_forward: request.get_scan_index_forward().to_owned(),
        index: request.get_index_name().as_deref(),
        ..Params::default()
    });
}

/// `ReturnItemCollectionMetrics` for a single-item write: `SIZE` on a table with a local
/// index (DynamoDB reports item collections only there), else not asked.
fn item_collection_metrics(
    table: &Table,
) -> Option<aws_sdk_dynamodb::types::ReturnItemCollectionMetrics> {
    let local = table.facets().is_some_and(|facets| {
        facets.iter().any(|f| {
            f.indexes
                .iter()
                .any(|i| i.kind == faceteer_core::schema::IndexKind::Local)
        })
    });
    local.then_some(aws_sdk_dynamodb::types::ReturnItemCollectionMetrics::Size)
}

/// One Query request to `partition`: the items (read in one `pass` when given and the
/// direct read path reads the answer) and `LastEvaluatedKey`.
pub(crate) async fn query(
    table: &Table,
    op: &Op,
    partition: &str,
    request: QueryInputBuilder,
    pass: Option<OnePass>,
) -> Result<(Vec<Stored>, Option<Item>)> {
    op.prepare().await?;
    use aws_sdk_dynamodb::operation::query::QueryError;
    let request = match table.renamer() {
        Some(r) => r.query(request),
        None => request,
    };
    note_query(op, &request);
    let page: Result<(Vec<Stored>, Option<Item>, f64)> = send_page!(
        table,
        op,
        "Query",
        QueryError,
        request,
        {
            let mut context = op.context();
            context.key = Some((partition.to_owned(), None));
            context
        },
        pass
    );
    page.map(|(items, last, _)| (items, last))
}

/// One counting Query request (`Select = COUNT`) to `partition`: the count and
/// `LastEvaluatedKey`.
pub(crate) async fn count(
    table: &Table,
    op: &Op,
    partition: &str,
    request: QueryInputBuilder,
) -> Result<(u64, Option<Item>)> {
    op.prepare().await?;
    let request = match table.renamer() {
        Some(r) => r.query(request),
        None => request,
    };
    note_query(op, &request);
    let out = op
        .within(async {
            request
                .return_consumed_capacity(op.capacity_asked())
                .send_with(table.client())
                .await
                .map_err(|e| {
                    let mut context = op.context();
                    context.key = Some((partition.to_owned(), None));
                    Error::dynamo("Query", context, e)
                })
        })
        .await?;
    op.note_request_id(out.request_id());
    op.note_counts(
        u64::try_from(out.count).unwrap_or(0),
        u64::try_from(out.scanned_count).unwrap_or(0),
    );
    op.request(out.consumed_capacity.as_slice());
    let last = answer_one(table, out.last_evaluated_key.filter(|k| !k.is_empty()));
    Ok((u64::try_from(out.count).unwrap_or(0), last))
}

/// One Scan request: the items, `LastEvaluatedKey` and the capacity units consumed.
pub(crate) async fn scan(
    table: &Table,
    op: &Op,
    request: ScanInputBuilder,
) -> Result<(Vec<Stored>, Option<Item>, f64)> {
    op.prepare().await?;
    use aws_sdk_dynamodb::operation::scan::ScanError;
    let request = match table.renamer() {
        Some(r) => r.scan(request),
        None => request,
    };
    op.note_request(&Params {
        consistent_read: request.get_consistent_read().to_owned(),
        projection: request.get_projection_expression().as_deref(),
        limit: request.get_limit().to_owned(),
        select: request.get_select().as_ref().map(|s| s.as_str()),
        segment: request.get_segment().to_owned(),
        total_segments: request.get_total_segments().to_owned(),
        index: request.get_index_name().as_deref(),
        ..Params::default()
    });
    send_page!(table, op, "Scan", ScanError, request, op.context(), None)
}

/// One BatchWriteItem request, sent once (the SDK's own retries are off, so that a failure
/// describes exactly one attempt and the caller knows what may have been applied): the
/// requests left unprocessed.
pub(crate) async fn batch_write(
    table: &Table,
    op: &Op,
    requests: Vec<WriteRequest>,
) -> Result<Vec<WriteRequest>> {
    op.prepare().await?;
    let requests = match table.renamer() {
        Some(r) => r.writes(requests, false),
        None => requests,
    };
    let request = BatchWriteItemInputBuilder::default()
        .request_items(table.name(), requests)
        .return_consumed_capacity(op.capacity_asked());
    let result = op
        .within(async { Ok(write_once(table, request).await) })
        .await?;
    let unprocessed = match result {
        Ok(Answer::Decoded(out)) => {
            op.note_request_id(out.request_id());
            op.request(out.consumed_capacity.as_deref().unwrap_or_default());
            out.unprocessed_items
                .and_then(|mut m| m.remove(table.name()))
                .unwrap_or_default()
        }
        Ok(Answer::Json(json, id)) => {
            op.note_request_id(id.as_deref());
            use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemError;
            let written = wire::batch_written(&json, table.name()).map_err(|e| {
                op.request(&[]);
                unreadable::<BatchWriteItemError>("BatchWriteItem", op.context(), e)
            })?;
            op.request_read(written.consumed);
            written
                .unprocessed
                .into_iter()
                .map(write_request)
                .collect::<Result<_>>()?
        }
        Err(e) => {
            op.request(&[]);
            return Err(Error::dynamo("BatchWriteItem", op.context(), e));
        }
    };
    Ok(match table.renamer() {
        Some(r) => r.writes(unprocessed, true),
        None => unprocessed,
    })
}

/// An unprocessed request of a BatchWriteItem answer, as the SDK's.
fn write_request(request: wire::Unprocessed) -> Result<WriteRequest> {
    use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest};
    let built = match request {
        wire::Unprocessed::Put(item) => PutRequest::builder()
            .set_item(Some(item))
            .build()
            .map(|p| WriteRequest::builder().put_request(p).build()),
        wire::Unprocessed::Delete(key) => DeleteRequest::builder()
            .set_key(Some(key))
            .build()
            .map(|d| WriteRequest::builder().delete_request(d).build()),
    };
    built.map_err(|e| Error::InvalidRequest(e.to_string()))
}

/// One BatchGetItem request: the items found (read in one `pass` when given and the direct
/// read path reads the answer) and the keys left unprocessed.
pub(crate) async fn batch_get(
    table: &Table,
    op: &Op,
    request: KeysAndAttributes,
    pass: Option<OnePass>,
) -> (Result<(Vec<Stored>, Vec<Item>)>, Vec<Item>) {
    if let Err(e) = op.prepare().await {
        return (Err(e), request.keys);
    }
    let client = table.batch_client();
    let builder = |request| {
        BatchGetItemInputBuilder::default()
            .request_items(table.name(), request)
            .return_consumed_capacity(op.capacity_asked())
    };
    // Sent by faceteer, the keys are written into the body and taken back (the request
    // replayed to read an error's answer needs none): only the SDK's sending copies them.
    let direct = table.direct_route().and_then(|route| {
        let tables = Some([(table.name(), &request)]);
        let body = crate::wire::direct::request::batch_get_body(tables, Some(&op.capacity_asked()));
        body.map(|body| (route, body))
    });
    let (result, keys) = match direct {
        Some((route, body)) => {
            let mut request = request;
            let keys = std::mem::take(&mut request.keys);
            let sent = send_direct(
                table,
                client,
                route,
                builder(request),
                body,
                attempts(client),
            );
            (op.within(async { Ok(sent.await) }).await, keys)
        }
        None => {
            let keys = request.keys.clone();
            let request = match table.renamer() {
                Some(r) => r.keys(request),
                None => request,
            };
            let sent = read(table, client, builder(request), |r| r.send_with(client));
            (op.within(async { Ok(sent.await) }).await, keys)
        }
    };
    let result = match result {
        Ok(result) => result,
        Err(e) => return (Err(e), keys),
    };
    (batch_got(table, op, result, pass), keys)
}

/// What a BatchGetItem answered: the items found and the keys left unprocessed.
fn batch_got(
    table: &Table,
    op: &Op,
    result: std::result::Result<
        Answer<aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput>,
        SdkError<aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemError, HttpResponse>,
    >,
    pass: Option<OnePass>,
) -> Result<(Vec<Stored>, Vec<Item>)> {
    use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemError;
    match result {
        Ok(Answer::Decoded(out)) => {
            op.note_request_id(out.request_id());
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
            let found = answer(table, found).into_iter().map(Stored::Tree).collect();
            Ok((found, answer(table, unprocessed)))
        }
        Ok(Answer::Json(json, id)) => {
            let body = std::sync::Arc::new(json);
            let read = match pass.and_then(|p| p.batch(&body, table.name())) {
                Some(read) => Ok(read),
                None => wire::batch_get_in(body, table.name()).map(|answer| {
                    let found = answer.found.into_iter().map(Stored::Wire).collect();
                    (found, answer.unprocessed, answer.consumed)
                }),
            };
            match read {
                Ok((found, unprocessed, consumed)) => {
                    op.note_request_id(id.as_deref());
                    op.request_read(consumed);
                    Ok((found, unprocessed))
                }
                Err(e) => {
                    op.request(&[]);
                    Err(unreadable::<BatchGetItemError>(
                        "BatchGetItem",
                        op.context(),
                        e,
                    ))
                }
            }
        }
        Err(e) => {
            op.request(&[]);
            Err(Error::dynamo("BatchGetItem", op.context(), e))
        }
    }
}

/// A canceled transaction's reasons, one `(code, message)` per step.
pub(crate) type Cancellation = Vec<(String, String, Option<Item>)>;

/// One try of a TransactWriteItems (on the client without the SDK's retries:
/// [`crate::exec::once`] retries it with the same token), sent by `table`: `Err` with the
/// reasons when DynamoDB canceled it. The steps may act on several tables: each is in its
/// own table's names already, and so are the items the reasons hold.
pub(crate) async fn transact_write(
    table: &Table,
    op: &Op,
    items: Vec<TransactWriteItem>,
    token: &str,
) -> Result<std::result::Result<(), Cancellation>> {
    op.prepare().await?;
    let result = op
        .within(async {
            let sent = table
                .batch_client()
                .transact_write_items()
                .set_transact_items(Some(items))
                .client_request_token(token)
                .return_consumed_capacity(op.capacity_asked())
                .send();
            Ok(Box::pin(sent).await)
        })
        .await?;
    match result {
        Ok(out) => {
            op.note_request_id(out.request_id());
            op.request(out.consumed_capacity.as_deref().unwrap_or_default());
            Ok(Ok(()))
        }
        Err(e) => cancellation(None, op, "TransactWriteItems", e, |e| match e {
            TransactWriteItemsError::TransactionCanceledException(t) => {
                Some(t.cancellation_reasons())
            }
            _ => None,
        })
        .map(Err),
    }
}

/// TransactGetItems: the items (in order), or `Err` with the reasons when canceled.
pub(crate) async fn transact_get(
    table: &Table,
    op: &Op,
    items: Vec<TransactGetItem>,
) -> Result<std::result::Result<Vec<Option<Stored>>, Cancellation>> {
    op.prepare().await?;
    let items = match table.renamer() {
        Some(r) => r.transact_gets(items),
        None => items,
    };
    let client = table.client();
    let request = TransactGetItemsInputBuilder::default()
        .set_transact_items(Some(items))
        .return_consumed_capacity(op.capacity_asked());
    let result = op
        .within(async { Ok(read(table, client, request, |r| r.send_with(client)).await) })
        .await?;
    match result {
        Ok(Answer::Decoded(out)) => {
            op.note_request_id(out.request_id());
            op.request(out.consumed_capacity.as_deref().unwrap_or_default());
            Ok(Ok(out
                .responses
                .unwrap_or_default()
                .into_iter()
                .map(|r| answer_one(table, r.item.filter(|i| !i.is_empty())).map(Stored::Tree))
                .collect()))
        }
        Ok(Answer::Json(json, id)) => {
            op.note_request_id(id.as_deref());
            let (items, consumed) = wire::transact_get(json).map_err(|e| {
                unreadable::<TransactGetItemsError>("TransactGetItems", op.context(), e)
            })?;
            op.request_read(consumed);
            Ok(Ok(items.into_iter().map(|i| i.map(Stored::Wire)).collect()))
        }
        Err(e) => cancellation(Some(table), op, "TransactGetItems", e, |e| match e {
            TransactGetItemsError::TransactionCanceledException(t) => {
                Some(t.cancellation_reasons())
            }
            _ => None,
        })
        .map(Err),
    }
}

/// A failed transaction: its cancellation reasons when DynamoDB canceled it, else the error.
/// The items they hold are renamed back with `table`'s names, when given.
fn cancellation<E>(
    table: Option<&Table>,
    op: &Op,
    operation: &'static str,
    e: SdkError<E, HttpResponse>,
    reasons_of: impl FnOnce(&E) -> Option<&[CancellationReason]>,
) -> Result<Cancellation>
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    op.request(&[]);
    if let Some(r) = e.as_service_error().and_then(reasons_of) {
        return Ok(r
            .iter()
            .map(|r| {
                (
                    r.code().unwrap_or_default().to_owned(),
                    r.message().unwrap_or_default().to_owned(),
                    {
                        let item = r.item.clone().filter(|i| !i.is_empty());
                        match table {
                            Some(table) => answer_one(table, item),
                            None => item,
                        }
                    },
                )
            })
            .collect());
    }
    Err(Error::dynamo(operation, op.context(), e))
}

/// Run administration call `operation` on `table` in its own span (see
/// [`crate::exec::trace`]): `note` records the request's fields, `call` sends it.
async fn admin<T>(
    table: &Table,
    operation: &'static str,
    note: impl FnOnce(&Op),
    call: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    use tracing::Instrument;
    let op = Op::admin(operation, table);
    note(&op);
    let result = call.instrument(op.span()).await;
    op.request(&[]);
    op.finish(result.as_ref().map(|_| 0));
    result
}

/// A key schema as DynamoDB writes it in JSON.
fn key_schema_json(keys: &[aws_sdk_dynamodb::types::KeySchemaElement]) -> serde_json::Value {
    keys.iter()
        .map(|k| serde_json::json!({"AttributeName": k.attribute_name(), "KeyType": k.key_type().as_str()}))
        .collect()
}

fn projection_json(p: Option<&aws_sdk_dynamodb::types::Projection>) -> serde_json::Value {
    let mut o = serde_json::Map::new();
    if let Some(p) = p {
        if let Some(t) = p.projection_type() {
            o.insert("ProjectionType".into(), t.as_str().into());
        }
        if !p.non_key_attributes().is_empty() {
            o.insert("NonKeyAttributes".into(), p.non_key_attributes().into());
        }
    }
    o.into()
}

fn throughput_json(
    p: Option<&aws_sdk_dynamodb::types::ProvisionedThroughput>,
) -> Option<serde_json::Value> {
    p.map(|p| {
        serde_json::json!({
            "ReadCapacityUnits": p.read_capacity_units(),
            "WriteCapacityUnits": p.write_capacity_units(),
        })
    })
}

/// Each element of `items` as JSON, in one JSON list of strings (the conventions'
/// `string[]`).
fn json_strings(items: impl Iterator<Item = serde_json::Value>) -> String {
    let texts: Vec<String> = items.map(|v| v.to_string()).collect();
    serde_json::to_string(&texts).unwrap_or_else(|_| "[]".to_owned())
}

/// Record a request's provisioned capacity (CreateTable, UpdateTable).
fn note_provisioned(op: &Op, p: Option<&aws_sdk_dynamodb::types::ProvisionedThroughput>) {
    if let Some(p) = p {
        op.note(
            "aws.dynamodb.provisioned_read_capacity",
            &(p.read_capacity_units() as f64),
        );
        op.note(
            "aws.dynamodb.provisioned_write_capacity",
            &(p.write_capacity_units() as f64),
        );
    }
}

/// Record an UpdateTable request's attribute definitions and index updates.
fn note_update(
    op: &Op,
    request: &aws_sdk_dynamodb::operation::update_table::builders::UpdateTableInputBuilder,
) {
    if let Some(defs) = request.get_attribute_definitions() {
        let list = json_strings(defs.iter().map(|d| {
            serde_json::json!({"AttributeName": d.attribute_name(), "AttributeType": d.attribute_type().as_str()})
        }));
        op.note("aws.dynamodb.attribute_definitions", &list.as_str());
    }
    if let Some(updates) = request.get_global_secondary_index_updates() {
        let list = json_strings(updates.iter().map(|u| {
            let mut o = serde_json::Map::new();
            if let Some(c) = u.create() {
                o.insert(
                    "Create".into(),
                    serde_json::json!({
                        "IndexName": c.index_name(),
                        "KeySchema": key_schema_json(c.key_schema()),
                        "Projection": projection_json(c.projection()),
                    }),
                );
            }
            if let Some(up) = u.update() {
                let mut update = serde_json::Map::new();
                update.insert("IndexName".into(), up.index_name().into());
                if let Some(t) = throughput_json(up.provisioned_throughput()) {
                    update.insert("ProvisionedThroughput".into(), t);
                }
                o.insert("Update".into(), update.into());
            }
            if let Some(d) = u.delete() {
                o.insert(
                    "Delete".into(),
                    serde_json::json!({"IndexName": d.index_name()}),
                );
            }
            serde_json::Value::Object(o)
        }));
        op.note(
            "aws.dynamodb.global_secondary_index_updates",
            &list.as_str(),
        );
    }
    note_provisioned(op, request.get_provisioned_throughput().as_ref());
}

/// UpdateTable, creating one global index (with its key attributes' definitions).
pub(crate) async fn add_index(
    table: &Table,
    definitions: Vec<aws_sdk_dynamodb::types::AttributeDefinition>,
    update: aws_sdk_dynamodb::types::GlobalSecondaryIndexUpdate,
) -> Result<()> {
    let request =
        aws_sdk_dynamodb::operation::update_table::builders::UpdateTableInputBuilder::default()
            .set_attribute_definitions(Some(definitions))
            .global_secondary_index_updates(update);
    update_table(table, request).await
}

/// UpdateTable adding a vector index (one per request), with the search schema's
/// attribute definitions.
pub(crate) async fn add_vector_index(
    table: &Table,
    definitions: Vec<aws_sdk_dynamodb::types::AttributeDefinition>,
    update: aws_sdk_dynamodb::types::VectorIndexUpdate,
) -> Result<()> {
    let request =
        aws_sdk_dynamodb::operation::update_table::builders::UpdateTableInputBuilder::default()
            .set_attribute_definitions((!definitions.is_empty()).then_some(definitions))
            .vector_index_updates(update);
    update_table(table, request).await
}

/// UpdateTable, turning the stream on or off.
pub(crate) async fn update_stream(
    table: &Table,
    spec: aws_sdk_dynamodb::types::StreamSpecification,
) -> Result<()> {
    let request =
        aws_sdk_dynamodb::operation::update_table::builders::UpdateTableInputBuilder::default()
            .stream_specification(spec);
    update_table(table, request).await
}

/// UpdateTable with the changes `request` holds (DynamoDB takes one kind of change per
/// call).
pub(crate) async fn update_table(
    table: &Table,
    request: aws_sdk_dynamodb::operation::update_table::builders::UpdateTableInputBuilder,
) -> Result<()> {
    admin(
        table,
        "UpdateTable",
        |op| note_update(op, &request),
        async {
            request
                .clone()
                .table_name(table.name())
                .send_with(table.client())
                .await
                .map_err(|e| Error::dynamo("UpdateTable", table_context(table), e))
        },
    )
    .await
    .map(|_| ())
}

/// CreateTable.
pub(crate) async fn create_table(table: &Table, request: CreateTableInputBuilder) -> Result<()> {
    let note = |op: &Op| {
        let global = request
            .get_global_secondary_indexes()
            .as_deref()
            .unwrap_or_default();
        if !global.is_empty() {
            let list = json_strings(global.iter().map(|g| {
                let mut o = serde_json::json!({
                    "IndexName": g.index_name(),
                    "KeySchema": key_schema_json(g.key_schema()),
                    "Projection": projection_json(g.projection()),
                });
                if let Some(t) = throughput_json(g.provisioned_throughput()) {
                    o["ProvisionedThroughput"] = t;
                }
                o
            }));
            op.note("aws.dynamodb.global_secondary_indexes", &list.as_str());
        }
        let local = request
            .get_local_secondary_indexes()
            .as_deref()
            .unwrap_or_default();
        if !local.is_empty() {
            let list = json_strings(local.iter().map(|l| {
                serde_json::json!({
                    "IndexName": l.index_name(),
                    "KeySchema": key_schema_json(l.key_schema()),
                    "Projection": projection_json(l.projection()),
                })
            }));
            op.note("aws.dynamodb.local_secondary_indexes", &list.as_str());
        }
        note_provisioned(op, request.get_provisioned_throughput().as_ref());
    };
    admin(table, "CreateTable", note, async {
        request
            .clone()
            .table_name(table.name())
            .send_with(table.client())
            .await
            .map_err(|e| Error::dynamo("CreateTable", table_context(table), e))
    })
    .await
    .map(|_| ())
}

/// DescribeTable.
pub(crate) async fn describe_table(table: &Table) -> Result<Option<TableDescription>> {
    admin(table, "DescribeTable", |_| {}, async {
        DescribeTableInputBuilder::default()
            .table_name(table.name())
            .send_with(table.client())
            .await
            .map_err(|e| Error::dynamo("DescribeTable", table_context(table), e))
    })
    .await
    .map(|out| out.table)
}

/// An error of operation `operation` on `table`, with the table's context.
pub(crate) fn error_of<E>(
    operation: &'static str,
    table: &Table,
    e: aws_sdk_dynamodb::error::SdkError<E, aws_sdk_dynamodb::config::http::HttpResponse>,
) -> Error
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    aws_sdk_dynamodb::Error:
        From<aws_sdk_dynamodb::error::SdkError<E, aws_sdk_dynamodb::config::http::HttpResponse>>,
{
    Error::dynamo(operation, table_context(table), e)
}

/// DeleteTable.
pub(crate) async fn delete_table(table: &Table) -> Result<()> {
    admin(table, "DeleteTable", |_| {}, async {
        aws_sdk_dynamodb::operation::delete_table::builders::DeleteTableInputBuilder::default()
            .table_name(table.name())
            .send_with(table.client())
            .await
            .map_err(|e| Error::dynamo("DeleteTable", table_context(table), e))
    })
    .await
    .map(|_| ())
}

/// UpdateTimeToLive: enable expiry on `attribute`.
pub(crate) async fn enable_time_to_live(table: &Table, attribute: &str) -> Result<()> {
    use aws_sdk_dynamodb::types::TimeToLiveSpecification;
    let spec = TimeToLiveSpecification::builder()
        .attribute_name(attribute)
        .enabled(true)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))?;
    admin(table, "UpdateTimeToLive", |_| {}, async {
        aws_sdk_dynamodb::operation::update_time_to_live::builders::UpdateTimeToLiveInputBuilder::default()
            .table_name(table.name())
            .time_to_live_specification(spec)
            .send_with(table.client())
            .await
            .map_err(|e| Error::dynamo("UpdateTimeToLive", table_context(table), e))
    })
    .await
    .map(|_| ())
}

/// DescribeTimeToLive: the status (`ENABLED`, `DISABLED`, …) and attribute, if any.
pub(crate) async fn describe_time_to_live(table: &Table) -> Result<(String, Option<String>)> {
    let out = admin(table, "DescribeTimeToLive", |_| {}, async {
        aws_sdk_dynamodb::operation::describe_time_to_live::builders::DescribeTimeToLiveInputBuilder::default()
            .table_name(table.name())
            .send_with(table.client())
            .await
            .map_err(|e| Error::dynamo("DescribeTimeToLive", table_context(table), e))
    })
    .await?;
    let description = out.time_to_live_description;
    let status = description
        .as_ref()
        .and_then(|d| d.time_to_live_status.as_ref())
        .map_or_else(|| "DISABLED".to_owned(), |s| s.as_str().to_owned());
    Ok((status, description.and_then(|d| d.attribute_name)))
}

/// UpdateContinuousBackups: point-in-time recovery on (with its period) or off.
pub(crate) async fn update_continuous_backups(
    table: &Table,
    enabled: bool,
    days: Option<i32>,
) -> Result<()> {
    use aws_sdk_dynamodb::types::PointInTimeRecoverySpecification;
    let spec = PointInTimeRecoverySpecification::builder()
        .point_in_time_recovery_enabled(enabled)
        .set_recovery_period_in_days(days)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))?;
    admin(table, "UpdateContinuousBackups", |_| {}, async {
        table
            .client()
            .update_continuous_backups()
            .table_name(table.name())
            .point_in_time_recovery_specification(spec)
            .send()
            .await
            .map_err(|e| Error::dynamo("UpdateContinuousBackups", table_context(table), e))
    })
    .await
    .map(|_| ())
}

/// DescribeContinuousBackups: whether point-in-time recovery is on, and its period.
pub(crate) async fn describe_continuous_backups(table: &Table) -> Result<(bool, Option<i32>)> {
    let out = admin(table, "DescribeContinuousBackups", |_| {}, async {
        table
            .client()
            .describe_continuous_backups()
            .table_name(table.name())
            .send()
            .await
            .map_err(|e| Error::dynamo("DescribeContinuousBackups", table_context(table), e))
    })
    .await?;
    let recovery = out
        .continuous_backups_description()
        .and_then(|d| d.point_in_time_recovery_description());
    let on = recovery
        .and_then(|r| r.point_in_time_recovery_status())
        .is_some_and(|s| s.as_str() == "ENABLED");
    Ok((on, recovery.and_then(|r| r.recovery_period_in_days())))
}

/// The tag `key` = `value`.
pub(crate) fn tag(key: &str, value: &str) -> Result<aws_sdk_dynamodb::types::Tag> {
    aws_sdk_dynamodb::types::Tag::builder()
        .key(key)
        .value(value)
        .build()
        .map_err(|e| Error::TableSetup(e.to_string()))
}

/// TagResource: add or replace `tags` on the table `arn`.
pub(crate) async fn tag_resource(table: &Table, arn: &str, tags: &[(&str, &str)]) -> Result<()> {
    let tags = tags
        .iter()
        .map(|(k, v)| tag(k, v))
        .collect::<Result<Vec<_>>>()?;
    admin(table, "TagResource", |_| {}, async {
        table
            .client()
            .tag_resource()
            .resource_arn(arn)
            .set_tags(Some(tags))
            .send()
            .await
            .map_err(|e| Error::dynamo("TagResource", table_context(table), e))
    })
    .await
    .map(|_| ())
}

/// UntagResource: remove the tags `keys` from the table `arn`.
pub(crate) async fn untag_resource(table: &Table, arn: &str, keys: &[&str]) -> Result<()> {
    admin(table, "UntagResource", |_| {}, async {
        table
            .client()
            .untag_resource()
            .resource_arn(arn)
            .set_tag_keys(Some(keys.iter().map(|k| (*k).to_owned()).collect()))
            .send()
            .await
            .map_err(|e| Error::dynamo("UntagResource", table_context(table), e))
    })
    .await
    .map(|_| ())
}

/// ListTagsOfResource, every page: the tags of the table `arn`.
pub(crate) async fn list_tags(table: &Table, arn: &str) -> Result<Vec<(String, String)>> {
    admin(table, "ListTagsOfResource", |_| {}, async {
        let mut tags = Vec::new();
        let mut next: Option<String> = None;
        loop {
            let out = table
                .client()
                .list_tags_of_resource()
                .resource_arn(arn)
                .set_next_token(next.take())
                .send()
                .await
                .map_err(|e| Error::dynamo("ListTagsOfResource", table_context(table), e))?;
            tags.extend(
                out.tags()
                    .iter()
                    .map(|t| (t.key().to_owned(), t.value().to_owned())),
            );
            match out.next_token {
                Some(token) if !token.is_empty() => next = Some(token),
                _ => return Ok(tags),
            }
        }
    })
    .await
}
