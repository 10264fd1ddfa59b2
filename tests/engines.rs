//! What real DynamoDB documents, on each engine, for the limits and validation the library
//! relies on. Each case states the documented behaviour (with its source) and, where an engine
//! is known to deviate, exactly what that engine does instead: the test fails both when an
//! engine breaks a documented rule it kept and when a known deviation goes away (so the list
//! stays true). Raw SDK requests, so the library's own checks are not in the way.

use crate::common;

use std::collections::HashMap;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    AttributeValue as AV, KeysAndAttributes, PutRequest, ReturnConsumedCapacity, WriteRequest,
};
use common::{put_raw, TestTable};
use faceteer::Table;
use faceteer_suite::{fresh_table, server, Server};

/// What a request did: `accepted`, or the error code the server answered with.
fn outcome<T, E: ProvideErrorMetadata + std::fmt::Debug>(result: Result<T, SdkError<E>>) -> String {
    match result {
        Ok(_) => "accepted".into(),
        Err(SdkError::ServiceError(e)) => e.err().code().unwrap_or("no error code").to_owned(),
        Err(other) => format!("not answered: {other:?}"),
    }
}

/// Which engine the running arm reaches, as deviations name it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Name {
    Dynoxide,
    Moto,
    /// Another configured server or real AWS: held to the documentation.
    Other,
}

fn name() -> Name {
    match server() {
        Server::Embedded(_) => Name::Dynoxide,
        Server::Moto(_) => Name::Moto,
        Server::Endpoint(_) | Server::Aws => Name::Other,
    }
}

/// The cases of one test, checked together so that one run reports every difference.
#[derive(Default)]
struct Pins(Vec<String>);

impl Pins {
    /// Check `observed` against the documented behaviour, or against the known deviation of
    /// this engine.
    fn pin(
        &mut self,
        case: &str,
        observed: &str,
        documented: &str,
        source: &str,
        deviations: &[(Name, &str)],
    ) {
        let engine = name();
        match deviations.iter().find(|(n, _)| *n == engine) {
            Some((_, known)) if observed != *known => self.0.push(format!(
                "{case}: {engine:?} was known to deviate from DynamoDB ({documented:?}, \
                 {source}) by answering {known:?}; it now answers {observed:?}. Update the \
                 deviation list and the README's table if the engine changed."
            )),
            None if observed != documented => self.0.push(format!(
                "{case}: DynamoDB documents {documented:?} ({source}); {engine:?} answers \
                 {observed:?}. If this engine deviates, record it in the deviation list."
            )),
            _ => {}
        }
    }

    fn check(self) {
        assert!(self.0.is_empty(), "{}", self.0.join("\n"));
    }
}

fn s(v: impl Into<String>) -> AV {
    AV::S(v.into())
}

/// An item of only string attributes, so that its size by DynamoDB's rule (UTF-8 name
/// lengths plus UTF-8 value lengths) is exact: `PK`, `SK` and one padding attribute `p`
/// making it `size` bytes.
fn item_of_size(pk: &str, sk: &str, size: usize) -> HashMap<String, AV> {
    let fixed = "PK".len() + pk.len() + "SK".len() + sk.len() + "p".len();
    HashMap::from([
        ("PK".to_owned(), s(pk)),
        ("SK".to_owned(), s(sk)),
        ("p".to_owned(), s("x".repeat(size - fixed))),
    ])
}

async fn put(table: &Table, item: HashMap<String, AV>) -> String {
    outcome(put_raw(table, item).await)
}

const SIZES: &str = "Developer Guide, Service quotas: item size, partition and sort key length";

/// 400 KB, attribute names included: exactly 409,600 bytes is stored, one more is refused.
async fn item_size_limit_is_400_kb_names_included() {
    let table = fresh_table::<TestTable>("size").await;
    let mut pins = Pins::default();
    let at_limit = put(&table, item_of_size("p", "at", 409_600)).await;
    pins.pin(
        "an item of exactly 400 KB",
        &at_limit,
        "accepted",
        SIZES,
        // moto refuses items over 405,000 bytes.
        &[(Name::Moto, "ValidationException")],
    );
    let over = put(&table, item_of_size("p", "over", 409_601)).await;
    pins.pin(
        "an item one byte over 400 KB",
        &over,
        "ValidationException",
        SIZES,
        &[],
    );
    pins.check();
}

/// Partition key values up to 2,048 bytes, sort key values up to 1,024 bytes.
async fn key_length_limits() {
    let table = fresh_table::<TestTable>("key-size").await;
    let mut pins = Pins::default();
    let pk_at = put(&table, item_of_size(&"k".repeat(2048), "s", 3000)).await;
    pins.pin("a 2,048-byte partition key", &pk_at, "accepted", SIZES, &[]);
    let pk_over = put(&table, item_of_size(&"k".repeat(2049), "s", 3000)).await;
    pins.pin(
        "a 2,049-byte partition key",
        &pk_over,
        "ValidationException",
        SIZES,
        &[],
    );
    let sk_at = put(&table, item_of_size("p", &"k".repeat(1024), 2000)).await;
    pins.pin("a 1,024-byte sort key", &sk_at, "accepted", SIZES, &[]);
    let sk_over = put(&table, item_of_size("p", &"k".repeat(1025), 2000)).await;
    pins.pin(
        "a 1,025-byte sort key",
        &sk_over,
        "ValidationException",
        SIZES,
        &[],
    );
    pins.check();
}

/// Key attributes, of the table and of its indexes, cannot be empty strings; numbers have at
/// most 38 significant digits.
async fn empty_keys_and_number_precision() {
    const SOURCE: &str = "Developer Guide, Supported data types and naming rules";
    let table = fresh_table::<TestTable>("values").await;
    let mut pins = Pins::default();
    let empty_sk = put(
        &table,
        HashMap::from([("PK".into(), s("p")), ("SK".into(), s(""))]),
    )
    .await;
    pins.pin(
        "an empty sort key",
        &empty_sk,
        "ValidationException",
        SOURCE,
        &[],
    );
    let empty_index_key = put(
        &table,
        HashMap::from([
            ("PK".into(), s("p")),
            ("SK".into(), s("s")),
            ("GSI1PK".into(), s("")),
            ("GSI1SK".into(), s("x")),
        ]),
    )
    .await;
    pins.pin(
        "an empty index key attribute",
        &empty_index_key,
        "ValidationException",
        SOURCE,
        &[],
    );
    let digits_38 = put(
        &table,
        HashMap::from([
            ("PK".into(), s("p")),
            ("SK".into(), s("n38")),
            ("n".into(), AV::N("1".repeat(38))),
        ]),
    )
    .await;
    pins.pin("a 38-digit number", &digits_38, "accepted", SOURCE, &[]);
    let digits_39 = put(
        &table,
        HashMap::from([
            ("PK".into(), s("p")),
            ("SK".into(), s("n39")),
            ("n".into(), AV::N("1".repeat(39))),
        ]),
    )
    .await;
    pins.pin(
        "a 39-digit number",
        &digits_39,
        "ValidationException",
        SOURCE,
        // moto stores any number of digits.
        &[(Name::Moto, "accepted")],
    );
    let not_a_number = put(
        &table,
        HashMap::from([
            ("PK".into(), s("p")),
            ("SK".into(), s("nan")),
            ("n".into(), AV::N("NaN".into())),
        ]),
    )
    .await;
    pins.pin("NaN", &not_a_number, "ValidationException", SOURCE, &[]);
    let empty_set = || {
        HashMap::from([
            ("PK".into(), s("p")),
            ("SK".into(), s("set")),
            ("tags".into(), AV::Ss(Vec::new())),
        ])
    };
    let put_empty_set = put(&table, empty_set()).await;
    pins.pin(
        "an empty string set (PutItem)",
        &put_empty_set,
        "ValidationException",
        SOURCE,
        &[],
    );
    let batch_empty_set = batch_write(&table, vec![put_request(empty_set())]).await;
    pins.pin(
        "an empty string set (BatchWriteItem)",
        &batch_empty_set,
        "ValidationException",
        SOURCE,
        // moto checks sets in PutItem only.
        &[(Name::Moto, "accepted")],
    );
    pins.check();
}

/// A BatchWriteItem put of `item`.
fn put_request(item: HashMap<String, AV>) -> WriteRequest {
    WriteRequest::builder()
        .put_request(PutRequest::builder().set_item(Some(item)).build().unwrap())
        .build()
}

/// A small item with key `(pk, sk)` and a version attribute `v`.
fn versioned(pk: &str, sk: &str, version: u32) -> HashMap<String, AV> {
    HashMap::from([
        ("PK".into(), s(pk)),
        ("SK".into(), s(sk)),
        ("v".into(), AV::N(version.to_string())),
    ])
}

async fn batch_write(table: &Table, requests: Vec<WriteRequest>) -> String {
    outcome(
        table
            .client()
            .batch_write_item()
            .request_items(table.name(), requests)
            .send()
            .await,
    )
}

/// BatchWriteItem: at most 25 requests, no two on the same key; BatchGetItem: at most 100
/// keys, no duplicates.
async fn batch_limits_and_duplicates() {
    const WRITE: &str = "API Reference, BatchWriteItem";
    const GET: &str = "API Reference, BatchGetItem";
    let table = fresh_table::<TestTable>("batches").await;
    let mut pins = Pins::default();
    let n = |count: usize| -> Vec<WriteRequest> {
        (0..count)
            .map(|i| put_request(versioned("p", &format!("{i:03}"), 1)))
            .collect()
    };
    pins.pin(
        "25 writes",
        &batch_write(&table, n(25)).await,
        "accepted",
        WRITE,
        &[],
    );
    pins.pin(
        "26 writes",
        &batch_write(&table, n(26)).await,
        "ValidationException",
        WRITE,
        // moto does not count the requests of a batch.
        &[(Name::Moto, "accepted")],
    );
    pins.pin(
        "two writes of one key, different items",
        &batch_write(
            &table,
            vec![
                put_request(versioned("p", "dup", 1)),
                put_request(versioned("p", "dup", 2)),
            ],
        )
        .await,
        "ValidationException",
        WRITE,
        // moto refuses only identical items (compared as JSON text), and
        // then only when their attributes happen to be serialized in the same order.
        &[(Name::Moto, "accepted")],
    );

    let keys = |count: usize, dup: bool| {
        let mut keys = KeysAndAttributes::builder();
        for i in 0..count {
            let sk = if dup {
                "000".to_owned()
            } else {
                format!("{i:03}")
            };
            keys = keys.keys(HashMap::from([("PK".into(), s("p")), ("SK".into(), s(sk))]));
        }
        keys.build().unwrap()
    };
    let batch_get = |k: KeysAndAttributes| {
        table
            .client()
            .batch_get_item()
            .request_items(table.name(), k)
            .send()
    };
    pins.pin(
        "100 reads",
        &outcome(batch_get(keys(100, false)).await),
        "accepted",
        GET,
        &[],
    );
    pins.pin(
        "101 reads",
        &outcome(batch_get(keys(101, false)).await),
        "ValidationException",
        GET,
        &[],
    );
    pins.pin(
        "two reads of one key",
        &outcome(batch_get(keys(2, true)).await),
        "ValidationException",
        GET,
        &[],
    );
    pins.check();
}

/// A query reads at most 1 MB per page and says where to go on; `Limit` counts the items
/// evaluated, before the filter.
async fn query_pages_and_limit() {
    const SOURCE: &str = "API Reference, Query: Limit and LastEvaluatedKey; Developer Guide, \
                          Paginating query results";
    let table = fresh_table::<TestTable>("pages").await;
    let mut pins = Pins::default();
    // 30 items of 50,004 bytes each: 1.5 MB in one partition.
    for chunk in (0..30).collect::<Vec<_>>().chunks(5) {
        let requests = chunk
            .iter()
            .map(|i| {
                let mut item = item_of_size("big", &format!("{i:03}"), 50_000);
                item.insert("k".into(), s(format!("{i:03}")));
                put_request(item)
            })
            .collect();
        assert_eq!(batch_write(&table, requests).await, "accepted");
    }
    let page = table
        .client()
        .query()
        .table_name(table.name())
        .key_condition_expression("PK = :p")
        .expression_attribute_values(":p", s("big"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    // DynamoDB documents "up to 1 MB" per page without saying whether the item that crosses
    // 1,048,576 bytes is included: 20 or 21 items of 50,004 bytes, and a key to go on.
    let (count, continues) = (page.count(), page.last_evaluated_key().is_some());
    let observed = if (20..=21).contains(&count) && continues {
        "a page of about 1 MB, with a key to go on".to_owned()
    } else {
        format!("{count} items of 50,004 bytes, continues: {continues}")
    };
    pins.pin(
        "a 1.5 MB partition read without a limit",
        &observed,
        "a page of about 1 MB, with a key to go on",
        SOURCE,
        // moto ends a page at 1,000,000 bytes.
        &[(Name::Moto, "19 items of 50,004 bytes, continues: true")],
    );
    let capacity = format!(
        "consumed capacity returned: {}",
        page.consumed_capacity().is_some()
    );
    pins.pin(
        "ReturnConsumedCapacity=TOTAL",
        &capacity,
        "consumed capacity returned: true",
        "API Reference, Query: ReturnConsumedCapacity",
        &[],
    );

    // Limit=5 with a filter that keeps 3 of the first 5: 5 evaluated, 3 returned.
    let filtered = table
        .client()
        .query()
        .table_name(table.name())
        .key_condition_expression("PK = :p")
        .filter_expression("k IN (:a, :b, :c)")
        .expression_attribute_values(":p", s("big"))
        .expression_attribute_values(":a", s("000"))
        .expression_attribute_values(":b", s("002"))
        .expression_attribute_values(":c", s("004"))
        .limit(5)
        .send()
        .await
        .unwrap();
    let observed = format!(
        "scanned {}, returned {}, continues: {}",
        filtered.scanned_count(),
        filtered.count(),
        filtered.last_evaluated_key().is_some()
    );
    pins.pin(
        "Limit=5 with a filter",
        &observed,
        "scanned 5, returned 3, continues: true",
        SOURCE,
        &[],
    );
    pins.check();
}

/// A failed condition is `ConditionalCheckFailedException`, which the library reports as
/// `Error::ConditionFailed`; strongly consistent reads of a global secondary index are refused.
async fn conditions_and_index_consistency() {
    let table = fresh_table::<TestTable>("conditions").await;
    let mut pins = Pins::default();
    let put_new = || {
        table
            .client()
            .put_item()
            .table_name(table.name())
            .set_item(Some(item_of_size("p", "s", 100)))
            .condition_expression("attribute_not_exists(PK)")
            .send()
    };
    pins.pin(
        "a first conditional put",
        &outcome(put_new().await),
        "accepted",
        "API Reference, PutItem",
        &[],
    );
    pins.pin(
        "a second conditional put of the same key",
        &outcome(put_new().await),
        "ConditionalCheckFailedException",
        "API Reference, PutItem: ConditionalCheckFailedException",
        &[],
    );
    let consistent_index_read = table
        .client()
        .query()
        .table_name(table.name())
        .index_name("GSI1")
        .key_condition_expression("GSI1PK = :p")
        .expression_attribute_values(":p", s("p"))
        .consistent_read(true)
        .send()
        .await;
    pins.pin(
        "a strongly consistent query of a global secondary index",
        &outcome(consistent_index_read),
        "ValidationException",
        "API Reference, Query: ConsistentRead is not supported on global secondary indexes",
        &[],
    );
    pins.check();
}

faceteer_suite::engines!(
    conditions_and_index_consistency,
    item_size_limit_is_400_kb_names_included,
    key_length_limits,
    empty_keys_and_number_precision,
    batch_limits_and_duplicates,
    query_pages_and_limit,
);
