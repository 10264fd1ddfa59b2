//! Facets shared by the integration tests.

pub mod spans;

use faceteer::{Facet, KeyPart};
use serde::{Deserialize, Serialize};

pub use faceteer_suite::fresh_table;

pub use faceteer_suite::patient_client as patient;

/// Store `item` exactly as given, through the SDK: no key, facet or validation checks of the
/// library in the way.
pub async fn put_raw(
    table: &faceteer::Table,
    item: faceteer::Item,
) -> Result<
    aws_sdk_dynamodb::operation::put_item::PutItemOutput,
    aws_sdk_dynamodb::error::SdkError<aws_sdk_dynamodb::operation::put_item::PutItemError>,
> {
    patient(table)
        .put_item()
        .table_name(table.name())
        .set_item(Some(item))
        .send()
        .await
}

/// The keys (PK, SK) stored in the table, read with a paginated Scan.
pub async fn stored_keys(table: &faceteer::Table) -> std::collections::HashSet<(String, String)> {
    let mut keys = std::collections::HashSet::new();
    let mut start = None;
    let client = patient(table);
    loop {
        let out = client
            .scan()
            .table_name(table.name())
            .set_exclusive_start_key(start)
            .send()
            .await
            .unwrap();
        for item in out.items() {
            let s = |n: &str| item[n].as_s().unwrap().clone();
            assert!(keys.insert((s("PK"), s("SK"))), "a key is stored once");
        }
        match out.last_evaluated_key {
            Some(k) if !k.is_empty() => start = Some(k),
            _ => return keys,
        }
    }
}

/// A key as its (PK, SK) strings.
pub fn key_pair<F>(k: &faceteer::Key<F>) -> (String, String) {
    (k.pk().to_owned(), k.sk().to_owned())
}

/// Records of the largest fault tests: 10,000 on the embedded engine, 2,000 on moto, whose
/// single Python process would otherwise take most of the suite's time (the exactness they
/// check does not depend on the count).
pub fn fault_total() -> usize {
    match faceteer_suite::server() {
        faceteer_suite::Server::Moto(_) => 2_000,
        _ => 10_000,
    }
}

/// The item stored under `key`, exactly as the server holds it.
pub async fn get_raw(table: &faceteer::Table, key: faceteer::Item) -> Option<faceteer::Item> {
    patient(table)
        .get_item()
        .table_name(table.name())
        .set_key(Some(key))
        .send()
        .await
        .unwrap()
        .item
}

/// Every item of the table, read with a paginated Scan straight from the engine.
pub async fn raw_items(table: &faceteer::Table) -> Vec<faceteer::Item> {
    let client = patient(table);
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let out = client
            .scan()
            .table_name(table.name())
            .set_exclusive_start_key(start)
            .consistent_read(true)
            .send()
            .await
            .unwrap();
        items.extend(out.items.unwrap_or_default());
        match out.last_evaluated_key {
            Some(k) if !k.is_empty() => start = Some(k),
            _ => return items,
        }
    }
}

/// The item stored under `key`, checked to hold no write token (strict readers refuse
/// one; see the README's "Sharing a table with Faceteer for TypeScript").
pub async fn get_record_item(
    table: &faceteer::Table,
    key: faceteer::Item,
) -> Option<faceteer::Item> {
    let item = get_raw(table, key).await?;
    assert!(
        !item.contains_key(faceteer_core::schema::WRITE_TOKEN),
        "an item holds a write token: {item:?}"
    );
    Some(item)
}

/// `$FACETEER_VECTORS`, else the repository's copy (`tests/vectors/`) of the conformance
/// vectors produced by `@faceteer/facet` 6.0.0.
pub fn vectors_dir() -> std::path::PathBuf {
    match std::env::var_os("FACETEER_VECTORS") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors"),
    }
}

/// One conformance vector file, parsed.
pub fn load_vectors<T: serde::de::DeserializeOwned>(file: &str) -> T {
    let path = vectors_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

faceteer::table! {
    /// The table most integration tests use: every facet below.
    pub struct TestTable { Note, Neighbour, Neighbour2, Event, Strict, Entry, Sample, Account, Stock }
}

/// Run a query that must fail, and return its error.
pub async fn query_error<
    F: Facet + std::fmt::Debug,
    I: faceteer::pick::KeyFields + faceteer::pick::WholeRecords,
>(
    table: &faceteer::Table,
    query: faceteer::query::Query<F, I>,
) -> faceteer::Error {
    table.query(query).await.expect_err("the query should fail")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, KeyPart, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Open,
    Done,
}

/// A note in a notebook; indexed by author (GSI1, sorted by rank, sortable numbers) and
/// by author + status (GSI2, sorted by notebook then note id).
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "NOTE", validator = validate_note, pick_validator = validate_note_pick)]
#[serde(rename_all = "camelCase")]
pub struct Note {
    #[pk(prefix = "#BOOK")]
    #[gsi(n = 2, sk, prefix = "#NOTE")]
    pub notebook: String,
    #[sk(prefix = "#NOTE")]
    #[gsi(n = 2, sk)]
    pub note_id: String,
    #[gsi(n = 1, alias = "AuthorRank", pk, prefix = "#AUTHOR")]
    #[gsi(n = 2, alias = "AuthorStatus", pk, prefix = "#AUTHOR_STATUS")]
    pub author: String,
    #[gsi(n = 2, pk)]
    pub status: Status,
    #[gsi(n = 1, sk, prefix = "#RANK", sortable)]
    pub rank: u64,
    pub body: String,
    #[ttl]
    pub expires_at: Option<i64>,
}

/// Bodies starting with "INVALID" fail validation on read.
pub fn validate_note(note: &Note) -> Result<(), String> {
    if note.body.starts_with("INVALID") {
        return Err(format!("note {} has an invalid body", note.note_id));
    }
    Ok(())
}

/// Projected items are checked too: a projected body starting with "INVALID" is refused.
pub fn validate_note_pick(item: &faceteer::Item, attributes: &[&str]) -> Result<(), String> {
    if attributes.contains(&"body") {
        if let Some(body) = item.get("body").and_then(|b| b.as_s().ok()) {
            if body.starts_with("INVALID") {
                return Err("a projected note has an invalid body".into());
            }
        }
    }
    Ok(())
}

/// Just the body of a note.
#[derive(Debug, Clone, PartialEq, faceteer::Pick)]
#[pick(facet = Note)]
pub struct NoteBody {
    pub body: String,
}

/// Rank, status and expiry of a note.
#[derive(Debug, Clone, PartialEq, faceteer::Pick)]
#[pick(facet = Note)]
pub struct NoteRank {
    pub rank: u64,
    pub status: Status,
    pub expires_at: Option<i64>,
}

pub fn note(notebook: &str, id: usize) -> Note {
    Note {
        notebook: notebook.into(),
        note_id: format!("n{id:03}"),
        author: if id.is_multiple_of(2) { "ann" } else { "bob" }.into(),
        status: if id.is_multiple_of(3) {
            Status::Done
        } else {
            Status::Open
        },
        rank: (id as u64 * 7) % 50,
        body: format!("body {id}"),
        expires_at: None,
    }
}

/// Shares the notebook partition with `Note`, with sort keys on both sides of `#NOTE`.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "NEIGHBOUR")]
pub struct Neighbour {
    #[pk(prefix = "#BOOK")]
    pub notebook: String,
    #[sk(prefix = "#NOTD")]
    pub id: String,
}

#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "NEIGHBOUR2")]
pub struct Neighbour2 {
    #[pk(prefix = "#BOOK")]
    pub notebook: String,
    #[sk(prefix = "#NOTF")]
    pub id: String,
}

/// A sharded facet whose shard field is not in the partition key.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "EVENT")]
pub struct Event {
    #[pk(prefix = "#DAY")]
    pub day: String,
    #[sk(prefix = "#EVENT")]
    #[shard(count = 4)]
    pub event_id: String,
}

/// A facet whose validator also runs before writes.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "STRICT", validator = validate_strict, validate_on_write)]
pub struct Strict {
    #[pk(prefix = "#S")]
    #[sk(prefix = "#S")]
    pub id: String,
    pub value: i32,
}

pub fn validate_strict(s: &Strict) -> Result<(), &'static str> {
    if s.value < 0 {
        Err("value must not be negative")
    } else {
        Ok(())
    }
}

/// A multi-field sort key: year, then month, then id.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(
    name = "ENTRY",
    pk(prefix = "#LEDGER", fields(ledger)),
    sk(prefix = "#ENTRY", fields(year, month, id))
)]
pub struct Entry {
    pub ledger: String,
    pub year: u16,
    pub month: String,
    pub id: String,
}

/// A record with a float, a free-size payload and a string set: for DynamoDB's limits.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "SAMPLE")]
pub struct Sample {
    #[pk(prefix = "#GROUP")]
    pub group: String,
    #[sk(prefix = "#SAMPLE")]
    pub id: String,
    pub score: f64,
    pub payload: String,
    #[serde(with = "serde_dynamo::string_set")]
    pub tags: Vec<String>,
}

pub fn sample(group: &str, id: usize) -> Sample {
    Sample {
        group: group.into(),
        id: format!("s{id:03}"),
        score: id as f64 / 4.0,
        payload: format!("payload {id}"),
        tags: vec!["a".into(), format!("t{id}")],
    }
}

/// An account with fields of every kind an update changes: numbers, a string set, a list,
/// an optional field and a nested struct.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "ACCOUNT")]
pub struct Account {
    #[pk(prefix = "#ACCOUNT")]
    #[sk(prefix = "#ACCOUNT")]
    pub id: String,
    pub balance: i64,
    #[serde(with = "serde_dynamo::string_set")]
    pub tags: Vec<String>,
    pub history: Vec<String>,
    pub note: Option<String>,
    #[nested]
    pub profile: Profile,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, faceteer::Nested)]
pub struct Profile {
    pub city: String,
    pub visits: u32,
}

pub fn account(id: &str) -> Account {
    Account {
        id: id.into(),
        balance: 100,
        tags: vec!["new".into()],
        history: vec!["opened".into()],
        note: Some("first".into()),
        profile: Profile {
            city: "Paris".into(),
            visits: 1,
        },
    }
}

/// Stock of one product, with optimistic locking.
#[derive(Debug, Clone, PartialEq, Facet, Serialize, Deserialize)]
#[facet(name = "STOCK")]
pub struct Stock {
    #[pk(prefix = "#SKU")]
    #[sk(prefix = "#SKU")]
    pub sku: String,
    pub on_hand: u32,
    #[version]
    pub version: u64,
}

/// A proxy that loses a quarter of all write answers after the server acted (a 500 or a
/// reset connection), a table reached through it, and the same table reached directly.
///
/// The tries' deadline is generous: a try abandoned while the server still works on it can
/// land after a later call's write, which nothing in DynamoDB can prevent (see the README,
/// "Exactly once"); requests held past their deadline are `late_writes_never_pass_for_done`'s
/// subject, in the same call.
pub async fn lossy_table<S: faceteer::TableSchema>(
    label: &str,
    seed: u64,
) -> (
    faceteer::testing::FaultProxy,
    faceteer::Table,
    faceteer::Table,
) {
    use faceteer::testing::FaultConfig;
    use std::time::Duration;
    let faults = FaultConfig {
        single_writes: true,
        fail_after: 0.1,
        reset_after: 0.15,
        seed,
        ..FaultConfig::default()
    };
    let timeouts = faceteer::Timeouts {
        attempt: Duration::from_secs(60),
        operation: Duration::from_secs(120),
        call: Duration::from_secs(300),
        ..faceteer::Timeouts::default()
    };
    lossy_table_with::<S>(label, faults, timeouts, 8).await
}

/// A proxy with `faults`, a table reached through it with `timeouts` and `attempts` tries
/// per write (short backoffs), and the same table reached directly.
pub async fn lossy_table_with<S: faceteer::TableSchema>(
    label: &str,
    faults: faceteer::testing::FaultConfig,
    timeouts: faceteer::Timeouts,
    attempts: u32,
) -> (
    faceteer::testing::FaultProxy,
    faceteer::Table,
    faceteer::Table,
) {
    use faceteer::testing::FaultProxy;
    use faceteer::{BatchOptions, Table};
    use std::time::Duration;
    let upstream = faceteer_suite::endpoint().expect("a local endpoint");
    let proxy = FaultProxy::start(&upstream, faults).await.unwrap();
    let client = faceteer::local_client(&proxy.endpoint()).expect("a local endpoint");
    let table = faceteer_suite::fresh_table_with::<S>(client, label)
        .await
        .with_batch_options(BatchOptions {
            write_attempts: attempts,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(20),
            ..BatchOptions::default()
        })
        .with_timeouts(timeouts);
    let direct = faceteer_suite::patient(Table::declared::<S>(
        faceteer_suite::client().await,
        table.name(),
    ));
    (proxy, table, direct)
}

pub use strategies::attribute_value;

/// Random stored values, for property tests.
mod strategies {
    use aws_sdk_dynamodb::primitives::Blob;
    use aws_sdk_dynamodb::types::AttributeValue as AV;
    use proptest::prelude::*;

    /// Any stored attribute value, up to a few levels deep.
    pub fn attribute_value() -> impl Strategy<Value = AV> {
        let leaf = prop_oneof![
            ".{0,12}".prop_map(AV::S),
            prop_oneof![
                "-?[0-9]{1,45}(\\.[0-9]{0,5})?([eE][+-]?[0-9]{1,4})?",
                ".{0,6}"
            ]
            .prop_map(AV::N),
            any::<bool>().prop_map(AV::Bool),
            any::<bool>().prop_map(AV::Null),
            proptest::collection::vec(any::<u8>(), 0..8).prop_map(|b| AV::B(Blob::new(b))),
            proptest::collection::vec(".{0,4}", 0..3).prop_map(AV::Ss),
            proptest::collection::vec("[0-9]{1,3}", 0..3).prop_map(AV::Ns),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(AV::L),
                proptest::collection::hash_map("[a-zA-Z]{1,8}", inner, 0..4).prop_map(AV::M),
            ]
        })
    }
}

/// The live description of `table` (`DescribeTable`).
pub async fn describe(table: &faceteer::Table) -> aws_sdk_dynamodb::types::TableDescription {
    table
        .client()
        .describe_table()
        .table_name(table.name())
        .send()
        .await
        .unwrap()
        .table
        .unwrap()
}

/// Each request's `x-amz-target` and the value of one header, as sent.
pub type SeenHeader = Vec<(String, Option<String>)>;

/// An interceptor that records, for each request a client sends (each try), its operation
/// and the value of header `name`.
#[derive(Debug, Clone)]
pub struct HeaderLog {
    name: &'static str,
    pub seen: std::sync::Arc<std::sync::Mutex<SeenHeader>>,
}

impl HeaderLog {
    /// Records header `name`.
    pub fn new(name: &'static str) -> Self {
        HeaderLog {
            name,
            seen: Default::default(),
        }
    }

    /// `table` reached through a client that records its requests here.
    pub fn on<S: faceteer::TableSchema>(&self, table: &faceteer::Table) -> faceteer::Table {
        let config = table
            .client()
            .config()
            .to_builder()
            .interceptor(self.clone())
            .build();
        faceteer::Table::declared::<S>(aws_sdk_dynamodb::Client::from_conf(config), table.name())
    }

    /// What was recorded.
    pub fn seen(&self) -> SeenHeader {
        self.seen.lock().unwrap().clone()
    }
}

impl aws_sdk_dynamodb::config::Intercept for HeaderLog {
    fn name(&self) -> &'static str {
        "header-log"
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let headers = context.request().headers();
        let target = headers.get("x-amz-target").unwrap_or_default().to_owned();
        let value = headers.get(self.name).map(str::to_owned);
        self.seen.lock().unwrap().push((target, value));
        Ok(())
    }
}

/// What one write returned: applied, certainly not applied, or unknown (an answer lost).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    Applied,
    NotApplied,
    Unknown,
}

/// [`Said`] of a write's result.
pub fn said<T>(result: &faceteer::Result<T>) -> Said {
    match result {
        Ok(_) => Said::Applied,
        Err(e) if e.is_outcome_unknown() => Said::Unknown,
        Err(_) => Said::NotApplied,
    }
}
