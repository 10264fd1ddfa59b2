//! Reading a table's stream through the DynamoDB Streams API.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodbstreams::types::{
    AttributeValue as StreamValue, OperationType, Record as SdkRecord, Shard, ShardIteratorType,
};
use faceteer_core::collection::Collection;
use faceteer_core::{Facet, Item};
use serde::{Deserialize, Serialize};

use super::change::{decode_collection, is_expiry, Changes, Kind, Record};
use crate::admin::stream::stream_of;
use crate::error::{Error, Result, StreamError};
use crate::table::Table;

/// Where a reader stands in one shard.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardPosition {
    /// The sequence number of the last record handed out (`None`: none yet).
    pub after: Option<String>,
    /// Whether the shard is closed and read to its end.
    pub done: bool,
}

/// Where a [`StreamReader`] stands in every shard of a stream: hand it to
/// [`StreamReader::resume_from`] to go on after the last record handed out. Store it (with
/// serde or as [`StreamCheckpoint::to_text`]) once the records handed out are handled: a
/// reader resumed from it hands out each record after it exactly once more, and none before.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamCheckpoint {
    /// The stream's ARN.
    pub stream: String,
    /// Each shard's position, by shard id.
    pub shards: BTreeMap<String, ShardPosition>,
}

impl StreamCheckpoint {
    /// The checkpoint as URL-safe text.
    pub fn to_text(&self) -> String {
        crate::codec::to_text(self)
    }

    /// Read a checkpoint written by [`StreamCheckpoint::to_text`].
    pub fn from_text(text: &str) -> std::result::Result<StreamCheckpoint, StreamError> {
        crate::codec::from_text(text).map_err(StreamError::Checkpoint)
    }
}

/// A shard the reader knows.
#[derive(Clone)]
struct Open {
    parent: Option<String>,
    iterator: Option<String>,
    /// Start at its newest record when it has no position: a shard open when the reader
    /// first listed them, for a reader [`StreamReader::from_latest`].
    latest: bool,
}

/// Reads every shard of a table's stream, parents before children, handing out batches of
/// records in each shard's order (see the [module](super)).
///
/// ```no_run
/// # use faceteer::Facet;
/// # #[derive(Facet, serde::Serialize, serde::Deserialize)]
/// # struct Task { #[pk(prefix = "T")] id: String, #[sk(prefix = "T")] n: String }
/// # async fn run(table: faceteer::Table) -> faceteer::Result<()> {
/// use faceteer::stream::Change;
///
/// let mut reader = table.stream_reader().await?;
/// loop {
///     let changes = reader.next::<Task>().await?;
///     for event in &changes.events {
///         match &event.change {
///             Change::Insert(task) => println!("new task {}", task.id),
///             Change::Modify { new, .. } => println!("changed {:?}", new.as_ref().map(|t| &t.id)),
///             Change::Remove { old, expired } => println!("gone {} (expired: {expired})", old.id),
///         }
///     }
///     let _save = reader.checkpoint().to_text();
/// #   break;
/// }
/// # Ok(()) }
/// ```
pub struct StreamReader {
    client: aws_sdk_dynamodbstreams::Client,
    table: Table,
    checkpoint: StreamCheckpoint,
    shards: BTreeMap<String, Open>,
    from_latest: bool,
    limit: i32,
    listed: Option<std::time::Instant>,
}

impl std::fmt::Debug for StreamReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamReader")
            .field("table", &self.table.name())
            .field("checkpoint", &self.checkpoint)
            .finish()
    }
}

/// A DynamoDB Streams client for the local server at `endpoint` (the embedded engine,
/// moto, DynamoDB Local), with the environment's region and keys or `us-east-1` and dummy
/// ones, as [`crate::local_client`] makes a DynamoDB client, under the default
/// [`Timeouts`](crate::Timeouts).
pub fn local_client(endpoint: &str) -> Result<aws_sdk_dynamodbstreams::Client> {
    local_client_with(endpoint, crate::table::Timeouts::default())
}

/// [`local_client`] with `timeouts`.
fn local_client_with(
    endpoint: &str,
    timeouts: crate::table::Timeouts,
) -> Result<aws_sdk_dynamodbstreams::Client> {
    crate::setup::check_endpoint(endpoint)?;
    let (region, credentials) = crate::setup::local_settings();
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(aws_sdk_dynamodbstreams::config::BehaviorVersion::latest())
        .region(region)
        .credentials_provider(credentials)
        .endpoint_url(endpoint)
        .interceptor(super::lenient::LambdaSpelledIdentities)
        .timeout_config(stream_timeouts(timeouts))
        .build();
    Ok(aws_sdk_dynamodbstreams::Client::from_conf(config))
}

/// The SDK timeouts of a streams client, from the table's [`Timeouts`](crate::Timeouts).
fn stream_timeouts(
    t: crate::table::Timeouts,
) -> aws_sdk_dynamodbstreams::config::timeout::TimeoutConfig {
    aws_sdk_dynamodbstreams::config::timeout::TimeoutConfig::builder()
        .connect_timeout(t.connect)
        .operation_attempt_timeout(t.attempt)
        .operation_timeout(t.operation)
        .build()
}

/// A DynamoDB Streams client for `table`: at the local endpoint faceteer set the table up
/// with (the embedded engine, [`Table::from_env`] with `FACETEER_DYNAMODB_ENDPOINT`), else
/// configured from the environment as AWS's SDKs are (`aws_config::load_defaults`).
pub async fn streams_client(table: &Table) -> Result<aws_sdk_dynamodbstreams::Client> {
    match table.endpoint() {
        Some(endpoint) => local_client_with(endpoint, table.timeouts()),
        None => {
            let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
            let config = aws_sdk_dynamodbstreams::config::Builder::from(&config)
                .timeout_config(stream_timeouts(table.timeouts()))
                .build();
            Ok(aws_sdk_dynamodbstreams::Client::from_conf(config))
        }
    }
}

fn api<E>(operation: &'static str, e: aws_sdk_dynamodbstreams::error::SdkError<E>) -> Error
where
    E: std::error::Error + Send + Sync + 'static,
{
    let message = aws_sdk_dynamodbstreams::error::DisplayErrorContext(&e).to_string();
    Error::Stream(StreamError::Api { operation, message })
}

impl Table {
    /// A reader of this table's stream, with the streams client of [`streams_client`] (use
    /// [`StreamReader::new`] to give your own). Fails with [`StreamError::NotEnabled`] when
    /// the table has no stream.
    pub async fn stream_reader(&self) -> Result<StreamReader> {
        let client = streams_client(self).await?;
        StreamReader::new(client, self).await
    }
}

impl StreamReader {
    /// A reader of `table`'s latest stream, through `client`.
    pub async fn new(
        client: aws_sdk_dynamodbstreams::Client,
        table: &Table,
    ) -> Result<StreamReader> {
        let Some((arn, _)) = stream_of(table).await? else {
            return Err(StreamError::NotEnabled {
                table: table.name().to_owned(),
            }
            .into());
        };
        Ok(StreamReader {
            client,
            table: table.clone(),
            checkpoint: StreamCheckpoint {
                stream: arn,
                shards: BTreeMap::new(),
            },
            shards: BTreeMap::new(),
            from_latest: false,
            limit: 1000,
            listed: None,
        })
    }

    /// Go on after `checkpoint`. A checkpoint of another stream (the stream was turned off
    /// and on again) is refused with [`StreamError::OtherStream`].
    pub fn resume_from(mut self, checkpoint: StreamCheckpoint) -> Result<StreamReader> {
        if checkpoint.stream != self.checkpoint.stream {
            return Err(StreamError::OtherStream {
                checkpoint: checkpoint.stream,
                stream: self.checkpoint.stream,
            }
            .into());
        }
        self.checkpoint = checkpoint;
        self.shards.clear();
        self.listed = None;
        Ok(self)
    }

    /// Start at the newest record of the shards open when the reader first lists them
    /// (changes made from now on), instead of their oldest (the last 24 hours). Shards found
    /// later (the children of a closed one) are always read from their oldest record, and a
    /// reader resumed from a checkpoint reads on from its positions.
    pub fn from_latest(mut self) -> Self {
        self.from_latest = true;
        self
    }

    /// Read at most `n` records per shard and call (1 to 1,000; default 1,000).
    pub fn limit(mut self, n: u32) -> Self {
        self.limit = n.clamp(1, 1000) as i32;
        self
    }

    /// Where the reader stands, after the records handed out so far.
    pub fn checkpoint(&self) -> &StreamCheckpoint {
        &self.checkpoint
    }

    /// The next records of facet `F`, typed (see [`decode`](super::change::decode)), through the facet's
    /// `after_read` hooks when the table has them.
    pub async fn next<F: Facet>(&mut self) -> Result<Changes<F>> {
        let records = self.next_records().await?;
        Ok(self.table.decode_changes(records).await)
    }

    /// The next records of collection `C`'s facets, typed (see [`decode_collection`]).
    pub async fn next_collection<C: Collection>(&mut self) -> Result<Changes<C>> {
        Ok(decode_collection(self.next_records().await?))
    }

    /// The next records of every shard ready to be read (one `GetRecords` call each; a
    /// child shard once its parent is read to its end), untyped. Empty when nothing new has
    /// arrived.
    ///
    /// The call has one deadline, the table's [`Timeouts::call`](crate::Timeouts): past it,
    /// it fails with [`Error::DeadlineExceeded`] and hands nothing out, whatever the streams
    /// client's own timeouts (or a server that never answers).
    pub async fn next_records(&mut self) -> Result<Vec<Record>> {
        // All or nothing: on an error, the positions go back to where they were, so that the
        // records read from other shards in this call are handed out by the next one.
        let (checkpoint, shards) = (self.checkpoint.clone(), self.shards.clone());
        let bound = self.table.timeouts().call;
        let read = match tokio::time::timeout(bound, self.read_ready()).await {
            Ok(read) => read,
            Err(_) => Err(Error::DeadlineExceeded {
                operation: "GetRecords",
                table: self.table.name().to_owned(),
                after: bound,
                sent: true,
            }),
        };
        if read.is_err() {
            self.checkpoint = checkpoint;
            self.shards = shards;
            for open in self.shards.values_mut() {
                open.iterator = None;
            }
        }
        read
    }

    async fn read_ready(&mut self) -> Result<Vec<Record>> {
        let relist = self
            .listed
            .is_none_or(|at| at.elapsed() > Duration::from_secs(10));
        if relist {
            self.list_shards().await?;
        }
        let ready: Vec<String> = self
            .shards
            .iter()
            .filter(|(id, open)| {
                !self.position(id).done
                    && open
                        .parent
                        .as_ref()
                        .is_none_or(|p| !self.shards.contains_key(p) || self.position(p).done)
            })
            .map(|(id, _)| id.clone())
            .collect();
        let mut out = Vec::new();
        let mut closed = false;
        for id in ready {
            let (records, done) = self.read_shard(&id).await?;
            out.extend(records);
            closed |= done;
        }
        if closed {
            // A closed shard's children are listed now.
            self.listed = None;
        }
        Ok(out)
    }

    fn position(&self, shard: &str) -> ShardPosition {
        self.checkpoint
            .shards
            .get(shard)
            .cloned()
            .unwrap_or_default()
    }

    async fn list_shards(&mut self) -> Result<()> {
        let mut start: Option<String> = None;
        let mut listed: Vec<String> = Vec::new();
        loop {
            let out = self
                .client
                .describe_stream()
                .stream_arn(&self.checkpoint.stream)
                .set_exclusive_start_shard_id(start.clone())
                .send()
                .await
                .map_err(|e| api("DescribeStream", e))?;
            let Some(description) = out.stream_description else {
                break;
            };
            for shard in description.shards() {
                listed.push(shard.shard_id().unwrap_or_default().to_owned());
                self.know(shard);
            }
            start = description.last_evaluated_shard_id;
            if start.is_none() {
                break;
            }
        }
        // A shard of the checkpoint the stream no longer lists was trimmed: finished, it is
        // forgotten; unfinished, its records after the position are lost.
        let gone: Vec<(String, bool)> = self
            .checkpoint
            .shards
            .iter()
            .filter(|(id, _)| !listed.contains(id))
            .map(|(id, p)| (id.clone(), p.done))
            .collect();
        for (shard, done) in gone {
            if !done {
                return Err(StreamError::Trimmed { shard }.into());
            }
            self.checkpoint.shards.remove(&shard);
        }
        self.listed = Some(std::time::Instant::now());
        Ok(())
    }

    fn know(&mut self, shard: &Shard) {
        let Some(id) = shard.shard_id() else {
            return;
        };
        // Only shards open at the first listing start at their newest record: a child found
        // later, or a shard the checkpoint names, is read from its oldest.
        let latest = self.from_latest
            && self.listed.is_none()
            && self.checkpoint.shards.is_empty()
            && shard
                .sequence_number_range()
                .is_none_or(|r| r.ending_sequence_number().is_none());
        self.shards.entry(id.to_owned()).or_insert_with(|| Open {
            parent: shard.parent_shard_id().map(str::to_owned),
            iterator: None,
            latest,
        });
    }

    async fn iterator(&self, shard: &str) -> Result<Option<String>> {
        let position = self.position(shard);
        let request = self
            .client
            .get_shard_iterator()
            .stream_arn(&self.checkpoint.stream)
            .shard_id(shard);
        let request = match position.after {
            Some(after) => request
                .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                .sequence_number(after),
            None if self.shards.get(shard).is_some_and(|o| o.latest) => {
                request.shard_iterator_type(ShardIteratorType::Latest)
            }
            None => request.shard_iterator_type(ShardIteratorType::TrimHorizon),
        };
        match request.send().await {
            Ok(out) => Ok(out.shard_iterator),
            Err(e) => {
                use aws_sdk_dynamodbstreams::operation::get_shard_iterator::GetShardIteratorError as E;
                match e.as_service_error() {
                    Some(E::TrimmedDataAccessException(_)) => Err(StreamError::Trimmed {
                        shard: shard.to_owned(),
                    }
                    .into()),
                    // The shard is gone: trimmed with records not read yet.
                    Some(E::ResourceNotFoundException(_)) => Err(StreamError::Trimmed {
                        shard: shard.to_owned(),
                    }
                    .into()),
                    _ => Err(api("GetShardIterator", e)),
                }
            }
        }
    }

    /// Read one page of `shard`: its records, and whether the shard is now read to its end.
    async fn read_shard(&mut self, shard: &str) -> Result<(Vec<Record>, bool)> {
        use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsError as E;
        for _ in 0..2 {
            let iterator = match self.shards.get(shard).and_then(|o| o.iterator.clone()) {
                Some(it) => Some(it),
                None => self.iterator(shard).await?,
            };
            let Some(iterator) = iterator else {
                return Ok((Vec::new(), self.finish(shard)));
            };
            let out = match self
                .client
                .get_records()
                .shard_iterator(iterator)
                .limit(self.limit)
                .send()
                .await
            {
                Ok(out) => out,
                Err(e) => match e.as_service_error() {
                    Some(E::ExpiredIteratorException(_)) => {
                        // Fetch a fresh iterator from the position and read again.
                        self.set_iterator(shard, None);
                        continue;
                    }
                    Some(E::TrimmedDataAccessException(_)) => {
                        return Err(StreamError::Trimmed {
                            shard: shard.to_owned(),
                        }
                        .into())
                    }
                    _ => return Err(api("GetRecords", e)),
                },
            };
            let renamer = self.table.renamer();
            let records: Vec<Record> = out
                .records()
                .iter()
                .filter_map(convert_record)
                .map(|r| r.renamed(renamer))
                .collect();
            let position = self.checkpoint.shards.entry(shard.to_owned()).or_default();
            if let Some(last) = records.last() {
                position.after = Some(last.sequence_number.clone());
            }
            return Ok(match out.next_shard_iterator {
                Some(next) => {
                    self.set_iterator(shard, Some(next));
                    (records, false)
                }
                None => (records, self.finish(shard)),
            });
        }
        Err(StreamError::Api {
            operation: "GetRecords",
            message: format!("shard {shard}: the iterator kept expiring"),
        }
        .into())
    }

    fn set_iterator(&mut self, shard: &str, iterator: Option<String>) {
        if let Some(open) = self.shards.get_mut(shard) {
            open.iterator = iterator;
        }
    }

    /// Mark `shard` read to its end.
    fn finish(&mut self, shard: &str) -> bool {
        self.checkpoint
            .shards
            .entry(shard.to_owned())
            .or_default()
            .done = true;
        self.shards.remove(shard);
        true
    }
}

/// A Streams API record as a [`Record`] (in the table's names); `None` for a record without
/// its change (which DynamoDB never sends).
fn convert_record(r: &SdkRecord) -> Option<Record> {
    let change = r.dynamodb()?;
    let kind = match r.event_name()? {
        OperationType::Insert => Kind::Insert,
        OperationType::Modify => Kind::Modify,
        OperationType::Remove => Kind::Remove,
        _ => return None,
    };
    let image = |i: Option<&std::collections::HashMap<String, StreamValue>>| {
        i.filter(|i| !i.is_empty()).map(convert_item)
    };
    let at = change
        .approximate_creation_date_time()
        .and_then(|t| SystemTime::try_from(*t).ok());
    Some(Record {
        kind,
        keys: image(change.keys.as_ref()).unwrap_or_default(),
        old: image(change.old_image.as_ref()),
        new: image(change.new_image.as_ref()),
        sequence_number: change.sequence_number().unwrap_or_default().to_owned(),
        at,
        expired: is_expiry(
            r.user_identity().and_then(|u| u.r#type()),
            r.user_identity().and_then(|u| u.principal_id()),
        ),
    })
}

fn convert_item(item: &std::collections::HashMap<String, StreamValue>) -> Item {
    item.iter()
        .map(|(k, v)| (k.clone(), convert_value(v)))
        .collect()
}

/// A Streams API attribute value as the DynamoDB API's (the same data, another crate's type).
fn convert_value(v: &StreamValue) -> AttributeValue {
    match v {
        StreamValue::S(s) => AttributeValue::S(s.clone()),
        StreamValue::N(n) => AttributeValue::N(n.clone()),
        StreamValue::B(b) => AttributeValue::B(b.clone()),
        StreamValue::Ss(s) => AttributeValue::Ss(s.clone()),
        StreamValue::Ns(n) => AttributeValue::Ns(n.clone()),
        StreamValue::Bs(b) => AttributeValue::Bs(b.clone()),
        StreamValue::M(m) => AttributeValue::M(convert_item(m)),
        StreamValue::L(l) => AttributeValue::L(l.iter().map(convert_value).collect()),
        StreamValue::Null(n) => AttributeValue::Null(*n),
        StreamValue::Bool(b) => AttributeValue::Bool(*b),
        // A type newer than this SDK: kept as an explicit null rather than dropped.
        _ => AttributeValue::Null(true),
    }
}
