//! The requests faceteer sends itself (reads, and single-item writes): each SDK input
//! builder written as the JSON body the SDK would send, and sent through the SDK (only to
//! read an error's answer) when the server refuses it.

use std::future::Future;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::batch_get_item::builders::BatchGetItemInputBuilder;
use aws_sdk_dynamodb::operation::batch_get_item::{BatchGetItemError, BatchGetItemOutput};
use aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemInputBuilder;
use aws_sdk_dynamodb::operation::batch_write_item::{BatchWriteItemError, BatchWriteItemOutput};
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::delete_item::{DeleteItemError, DeleteItemOutput};
use aws_sdk_dynamodb::operation::get_item::builders::GetItemInputBuilder;
use aws_sdk_dynamodb::operation::get_item::{GetItemError, GetItemOutput};
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::operation::put_item::{PutItemError, PutItemOutput};
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::operation::query::{QueryError, QueryOutput};
use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use aws_sdk_dynamodb::operation::scan::{ScanError, ScanOutput};
use aws_sdk_dynamodb::operation::transact_get_items::builders::TransactGetItemsInputBuilder;
use aws_sdk_dynamodb::operation::transact_get_items::{
    TransactGetItemsError, TransactGetItemsOutput,
};
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::operation::update_item::{UpdateItemError, UpdateItemOutput};
use aws_sdk_dynamodb::types::{KeysAndAttributes, ReturnConsumedCapacity};
use aws_sdk_dynamodb::Client;

use super::json::Object;

/// A request faceteer can send without the SDK.
pub(crate) trait Request: Clone + Send {
    /// The operation, as `X-Amz-Target` names it after `DynamoDB_20120810.`.
    const OPERATION: &'static str;
    /// What the SDK answers.
    type Output;
    /// The SDK's error for the operation.
    type Error;

    /// The request's JSON body, as the SDK writes it; `None` when it uses a member this
    /// writer does not (the SDK sends it instead).
    fn body(&self) -> Option<Vec<u8>>;

    /// Send it through `client` (the SDK): how an error's answer is read.
    fn send_by(
        self,
        client: &Client,
    ) -> impl Future<Output = Result<Self::Output, SdkError<Self::Error, HttpResponse>>> + Send;
}

/// [`Request`] for an SDK input builder: its operation, output and error types, and its
/// body (`$body`, reading the builder as `$self`).
macro_rules! request {
    ($builder:ty, $operation:literal, $output:ty, $error:ty, |$self:ident| $body:block) => {
        impl Request for $builder {
            const OPERATION: &'static str = $operation;
            type Output = $output;
            type Error = $error;

            fn body(&$self) -> Option<Vec<u8>> $body

            fn send_by(
                self,
                client: &Client,
            ) -> impl Future<Output = Result<$output, SdkError<$error, HttpResponse>>> + Send {
                self.send_with(client)
            }
        }
    };
}

/// A `Request` whose members are those a family of operations shares (`$members`: the
/// macro writing them), then `$own`, unless one of its `$legacy` members is set (the SDK
/// sends it then).
macro_rules! family_request {
    ($members:ident, $builder:ty, $operation:literal, $output:ty, $error:ty, |$self:ident, $o:ident| $own:block, [$($legacy:ident),*]) => {
        request!($builder, $operation, $output, $error, |$self| {
            if false $(|| $self.$legacy().is_some())* {
                return None;
            }
            let mut out = Vec::with_capacity(512);
            let mut $o = Object::open(&mut out);
            $members!($self, $o);
            $own
            $o.close();
            Some(out)
        });
    };
}

/// `ReturnConsumedCapacity`, when set.
fn capacity(o: &mut Object<'_>, c: Option<&aws_sdk_dynamodb::types::ReturnConsumedCapacity>) {
    o.text("ReturnConsumedCapacity", c.map(|c| c.as_str()));
}

request!(
    GetItemInputBuilder,
    "GetItem",
    GetItemOutput,
    GetItemError,
    |self| {
        if self.get_attributes_to_get().is_some() {
            return None;
        }
        let mut out = Vec::with_capacity(256);
        let mut o = Object::open(&mut out);
        o.text("TableName", self.get_table_name().as_deref());
        o.item("Key", self.get_key().as_ref())?;
        o.boolean("ConsistentRead", *self.get_consistent_read());
        capacity(&mut o, self.get_return_consumed_capacity().as_ref());
        o.text(
            "ProjectionExpression",
            self.get_projection_expression().as_deref(),
        );
        o.names(
            "ExpressionAttributeNames",
            self.get_expression_attribute_names().as_ref(),
        );
        o.close();
        Some(out)
    }
);

/// The members a Query and a Scan share.
macro_rules! page_members {
    ($self:ident, $o:ident) => {
        $o.text("TableName", $self.get_table_name().as_deref());
        $o.text("IndexName", $self.get_index_name().as_deref());
        $o.text("Select", $self.get_select().as_ref().map(|s| s.as_str()));
        $o.integer("Limit", *$self.get_limit());
        $o.boolean("ConsistentRead", *$self.get_consistent_read());
        $o.item(
            "ExclusiveStartKey",
            $self.get_exclusive_start_key().as_ref(),
        )?;
        capacity(&mut $o, $self.get_return_consumed_capacity().as_ref());
        $o.text(
            "ProjectionExpression",
            $self.get_projection_expression().as_deref(),
        );
        $o.text("FilterExpression", $self.get_filter_expression().as_deref());
        $o.names(
            "ExpressionAttributeNames",
            $self.get_expression_attribute_names().as_ref(),
        );
        $o.item(
            "ExpressionAttributeValues",
            $self.get_expression_attribute_values().as_ref(),
        )?;
    };
}

family_request!(
    page_members,
    QueryInputBuilder,
    "Query",
    QueryOutput,
    QueryError,
    |self, o| {
        o.boolean("ScanIndexForward", *self.get_scan_index_forward());
        o.text(
            "KeyConditionExpression",
            self.get_key_condition_expression().as_deref(),
        );
    },
    [
        get_attributes_to_get,
        get_key_conditions,
        get_query_filter,
        get_conditional_operator
    ]
);

family_request!(
    page_members,
    ScanInputBuilder,
    "Scan",
    ScanOutput,
    ScanError,
    |self, o| {
        o.integer("TotalSegments", *self.get_total_segments());
        o.integer("Segment", *self.get_segment());
    },
    [
        get_attributes_to_get,
        get_scan_filter,
        get_conditional_operator
    ]
);

request!(
    BatchGetItemInputBuilder,
    "BatchGetItem",
    BatchGetItemOutput,
    BatchGetItemError,
    |self| {
        let tables = self.get_request_items().as_ref();
        batch_get_body(
            tables.map(|t| t.iter().map(|(name, keys)| (name.as_str(), keys))),
            self.get_return_consumed_capacity().as_ref(),
        )
    }
);

/// The body of a BatchGetItem of `tables`' keys, as the SDK writes it (`None`: one uses
/// `AttributesToGet`, which the SDK sends): written from borrowed keys, so that a caller
/// can take them back once it is.
pub(crate) fn batch_get_body<'a>(
    tables: Option<impl IntoIterator<Item = (&'a str, &'a KeysAndAttributes)>>,
    consumed: Option<&ReturnConsumedCapacity>,
) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    let mut o = Object::open(&mut out);
    if let Some(tables) = tables {
        let mut requests = Object::open(o.key("RequestItems"));
        for (table, keys) in tables {
            if keys.attributes_to_get.is_some() {
                return None;
            }
            let mut t = Object::open(requests.key(table));
            let list = t.key("Keys");
            list.push(b'[');
            for (i, key) in keys.keys.iter().enumerate() {
                if i > 0 {
                    list.push(b',');
                }
                super::json::item(list, key)?;
            }
            list.push(b']');
            t.boolean("ConsistentRead", keys.consistent_read);
            t.text(
                "ProjectionExpression",
                keys.projection_expression.as_deref(),
            );
            t.names(
                "ExpressionAttributeNames",
                keys.expression_attribute_names.as_ref(),
            );
            t.close();
        }
        requests.close();
    }
    capacity(&mut o, consumed);
    o.close();
    Some(out)
}

request!(
    TransactGetItemsInputBuilder,
    "TransactGetItems",
    TransactGetItemsOutput,
    TransactGetItemsError,
    |self| {
        let mut out = Vec::with_capacity(1024);
        let mut o = Object::open(&mut out);
        if let Some(items) = self.get_transact_items() {
            let list = o.key("TransactItems");
            list.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    list.push(b',');
                }
                let get = item.get.as_ref()?;
                let mut step = Object::open(list);
                let mut g = Object::open(step.key("Get"));
                g.item("Key", Some(&get.key))?;
                g.text("TableName", Some(&get.table_name));
                g.text("ProjectionExpression", get.projection_expression.as_deref());
                g.names(
                    "ExpressionAttributeNames",
                    get.expression_attribute_names.as_ref(),
                );
                g.close();
                step.close();
            }
            list.push(b']');
        }
        capacity(&mut o, self.get_return_consumed_capacity().as_ref());
        o.close();
        Some(out)
    }
);

/// The members every single-item write has: what it returns and its condition.
macro_rules! write_members {
    ($self:ident, $o:ident) => {
        $o.text("TableName", $self.get_table_name().as_deref());
        $o.text(
            "ReturnValues",
            $self.get_return_values().as_ref().map(|r| r.as_str()),
        );
        capacity(&mut $o, $self.get_return_consumed_capacity().as_ref());
        $o.text(
            "ReturnItemCollectionMetrics",
            $self
                .get_return_item_collection_metrics()
                .as_ref()
                .map(|r| r.as_str()),
        );
        $o.text(
            "ConditionExpression",
            $self.get_condition_expression().as_deref(),
        );
        $o.names(
            "ExpressionAttributeNames",
            $self.get_expression_attribute_names().as_ref(),
        );
        $o.item(
            "ExpressionAttributeValues",
            $self.get_expression_attribute_values().as_ref(),
        )?;
        $o.text(
            "ReturnValuesOnConditionCheckFailure",
            $self
                .get_return_values_on_condition_check_failure()
                .as_ref()
                .map(|r| r.as_str()),
        );
    };
}

family_request!(
    write_members,
    PutItemInputBuilder,
    "PutItem",
    PutItemOutput,
    PutItemError,
    |self, o| {
        o.item("Item", self.get_item().as_ref())?;
    },
    [get_expected, get_conditional_operator]
);

family_request!(
    write_members,
    DeleteItemInputBuilder,
    "DeleteItem",
    DeleteItemOutput,
    DeleteItemError,
    |self, o| {
        o.item("Key", self.get_key().as_ref())?;
    },
    [get_expected, get_conditional_operator]
);

family_request!(
    write_members,
    UpdateItemInputBuilder,
    "UpdateItem",
    UpdateItemOutput,
    UpdateItemError,
    |self, o| {
        o.item("Key", self.get_key().as_ref())?;
        o.text("UpdateExpression", self.get_update_expression().as_deref());
    },
    [
        get_expected,
        get_conditional_operator,
        get_attribute_updates
    ]
);

request!(
    BatchWriteItemInputBuilder,
    "BatchWriteItem",
    BatchWriteItemOutput,
    BatchWriteItemError,
    |self| {
        let mut out = Vec::with_capacity(16 * 1024);
        let mut o = Object::open(&mut out);
        if let Some(tables) = self.get_request_items() {
            let mut requests = Object::open(o.key("RequestItems"));
            for (table, writes) in tables {
                let list = requests.key(table);
                list.push(b'[');
                for (i, write) in writes.iter().enumerate() {
                    if i > 0 {
                        list.push(b',');
                    }
                    let mut w = Object::open(list);
                    match (&write.put_request, &write.delete_request) {
                        (Some(put), None) => {
                            let mut p = Object::open(w.key("PutRequest"));
                            p.item("Item", Some(&put.item))?;
                            p.close();
                        }
                        (None, Some(delete)) => {
                            let mut d = Object::open(w.key("DeleteRequest"));
                            d.item("Key", Some(&delete.key))?;
                            d.close();
                        }
                        // Neither or both: the SDK sends (and the server refuses) it.
                        _ => return None,
                    }
                    w.close();
                }
                list.push(b']');
            }
            requests.close();
        }
        capacity(&mut o, self.get_return_consumed_capacity().as_ref());
        o.text(
            "ReturnItemCollectionMetrics",
            self.get_return_item_collection_metrics()
                .as_ref()
                .map(|r| r.as_str()),
        );
        o.close();
        Some(out)
    }
);

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    use aws_sdk_dynamodb::primitives::Blob;
    use aws_sdk_dynamodb::types::{
        AttributeValue as AV, Get, KeysAndAttributes, ReturnConsumedCapacity, Select,
        TransactGetItem,
    };
    use aws_smithy_runtime_api::client::http::{
        HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
    };
    use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
    use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
    use aws_smithy_types::body::SdkBody;

    use super::*;

    /// An HTTP client that keeps the bodies the SDK sends and answers `{}`.
    #[derive(Debug, Clone, Default)]
    struct Keep(Arc<Mutex<Vec<Vec<u8>>>>);

    impl HttpConnector for Keep {
        fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
            let body = request.body().bytes().expect("an in-memory body").to_vec();
            self.0.lock().unwrap().push(body);
            let status = 200.try_into().expect("a status");
            HttpConnectorFuture::ready(Ok(HttpResponse::new(status, SdkBody::from("{}"))))
        }
    }

    impl HttpClient for Keep {
        fn http_connector(
            &self,
            _: &HttpConnectorSettings,
            _: &RuntimeComponents,
        ) -> SharedHttpConnector {
            SharedHttpConnector::new(self.clone())
        }
    }

    /// What the SDK sends for `request`, and what faceteer writes for it.
    async fn both<R: Request>(request: R) -> (serde_json::Value, serde_json::Value) {
        let keep = Keep::default();
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::from_static("eu-west-1"))
            .endpoint_url("http://sdk.invalid")
            .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                "a", "b", None, None, "test",
            ))
            .http_client(keep.clone())
            .build();
        let client = Client::from_conf(config);
        let ours = request.body().expect("a request faceteer writes");
        let _ = request.send_by(&client).await;
        let sdk = keep.0.lock().unwrap().pop().expect("the SDK sent it");
        (
            serde_json::from_slice(&sdk).expect("the SDK's JSON"),
            serde_json::from_slice(&ours).expect("faceteer's JSON"),
        )
    }

    /// faceteer writes `request` as the SDK does.
    async fn same<R: Request>(request: R) {
        let (sdk, ours) = both(request).await;
        assert_eq!(ours, sdk);
    }

    /// Every kind of value, with names and strings that need escaping.
    fn item() -> HashMap<String, AV> {
        let hostile = "quote \" backslash \\ newline \n tab \t nul \u{0} é 🦀 \u{2028}";
        let nested = HashMap::from([
            ("n".to_owned(), AV::N("-1.5e10".into())),
            (hostile.to_owned(), AV::S(hostile.into())),
        ]);
        HashMap::from([
            ("PK".to_owned(), AV::S("Task_#team-1".into())),
            ("SK".to_owned(), AV::S(String::new())),
            ("bytes".to_owned(), AV::B(Blob::new(vec![0, 255, 10, 13]))),
            ("yes".to_owned(), AV::Bool(true)),
            ("nothing".to_owned(), AV::Null(true)),
            ("ss".to_owned(), AV::Ss(vec!["a".into(), hostile.into()])),
            ("ns".to_owned(), AV::Ns(vec!["1".into(), "2.5".into()])),
            (
                "bs".to_owned(),
                AV::Bs(vec![Blob::new(vec![1]), Blob::new(vec![])]),
            ),
            ("map".to_owned(), AV::M(nested.clone())),
            (
                "list".to_owned(),
                AV::L(vec![AV::M(nested), AV::L(vec![]), AV::N("0".into())]),
            ),
            (hostile.to_owned(), AV::S("x".into())),
        ])
    }

    fn names() -> HashMap<String, String> {
        HashMap::from([
            ("#a".to_owned(), "ttl".to_owned()),
            ("#b".to_owned(), "na\"me".to_owned()),
        ])
    }

    #[tokio::test]
    async fn request_bodies_are_the_sdks() {
        let get = GetItemInputBuilder::default()
            .table_name("ta\"ble")
            .set_key(Some(item()))
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .projection_expression("#a, #b")
            .set_expression_attribute_names(Some(names()));
        same(get).await;
        same(GetItemInputBuilder::default().table_name("t")).await;

        let query = QueryInputBuilder::default()
            .table_name("t")
            .index_name("GSI1")
            .select(Select::SpecificAttributes)
            .limit(7)
            .consistent_read(false)
            .scan_index_forward(false)
            .set_exclusive_start_key(Some(item()))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .projection_expression("#a")
            .filter_expression("attribute_not_exists(#a) OR #a > :now")
            .key_condition_expression("PK = :pk AND begins_with(SK, :sk)")
            .set_expression_attribute_names(Some(names()))
            .set_expression_attribute_values(Some(item()));
        same(query).await;

        let scan = ScanInputBuilder::default()
            .table_name("t")
            .limit(1)
            .segment(3)
            .total_segments(8)
            .select(Select::Count)
            .set_exclusive_start_key(Some(item()))
            .filter_expression("#a = :v")
            .set_expression_attribute_names(Some(names()))
            .set_expression_attribute_values(Some(item()));
        same(scan).await;

        let keys = KeysAndAttributes::builder()
            .set_keys(Some(vec![item(), item()]))
            .consistent_read(true)
            .projection_expression("#a")
            .set_expression_attribute_names(Some(names()))
            .build()
            .expect("keys");
        let batch = BatchGetItemInputBuilder::default()
            .request_items("t1", keys.clone())
            .request_items("t\"2", keys)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        same(batch).await;

        let get = |table: &str| {
            Get::builder()
                .table_name(table)
                .set_key(Some(item()))
                .projection_expression("#a")
                .set_expression_attribute_names(Some(names()))
                .build()
                .expect("a get")
        };
        let transact = TransactGetItemsInputBuilder::default()
            .transact_items(TransactGetItem::builder().get(get("a")).build())
            .transact_items(TransactGetItem::builder().get(get("b")).build())
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        same(transact).await;

        use aws_sdk_dynamodb::types::{
            ReturnItemCollectionMetrics, ReturnValue, ReturnValuesOnConditionCheckFailure,
        };
        let put = PutItemInputBuilder::default()
            .table_name("t")
            .set_item(Some(item()))
            .condition_expression("attribute_not_exists(#a)")
            .set_expression_attribute_names(Some(names()))
            .set_expression_attribute_values(Some(item()))
            .return_values(ReturnValue::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        same(put).await;
        same(PutItemInputBuilder::default().table_name("t")).await;

        let delete = DeleteItemInputBuilder::default()
            .table_name("t")
            .set_key(Some(item()))
            .condition_expression("#a = :v")
            .set_expression_attribute_names(Some(names()))
            .set_expression_attribute_values(Some(item()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        same(delete).await;

        let update = UpdateItemInputBuilder::default()
            .table_name("t")
            .set_key(Some(item()))
            .update_expression("SET #a = :v REMOVE #b")
            .condition_expression("attribute_exists(PK)")
            .set_expression_attribute_names(Some(names()))
            .set_expression_attribute_values(Some(item()))
            .return_values(ReturnValue::UpdatedNew)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        same(update).await;

        use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};
        let put = WriteRequest::builder()
            .put_request(
                PutRequest::builder()
                    .set_item(Some(item()))
                    .build()
                    .unwrap(),
            )
            .build();
        let delete = WriteRequest::builder()
            .delete_request(
                DeleteRequest::builder()
                    .set_key(Some(item()))
                    .build()
                    .unwrap(),
            )
            .build();
        let batch = BatchWriteItemInputBuilder::default()
            .request_items("t", vec![put.clone(), delete.clone(), put])
            .request_items("t\"2", vec![delete])
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .return_item_collection_metrics(ReturnItemCollectionMetrics::Size);
        same(batch).await;
    }

    #[test]
    fn legacy_members_are_left_to_the_sdk() {
        let get = GetItemInputBuilder::default()
            .table_name("t")
            .attributes_to_get("a");
        assert!(get.body().is_none());
        let query = QueryInputBuilder::default()
            .table_name("t")
            .conditional_operator(aws_sdk_dynamodb::types::ConditionalOperator::And);
        assert!(query.body().is_none());
        let scan = ScanInputBuilder::default()
            .table_name("t")
            .attributes_to_get("a");
        assert!(scan.body().is_none());
    }
}
