//! [`Table`]: the single DynamoDB table every facet lives in.

use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use faceteer_core::layout::{check_names, TableNames};
use faceteer_core::schema::FacetSchema;
use faceteer_core::settings::TableSettings;
use faceteer_core::table::{check_table, TableSchema};
use faceteer_core::Facet;

use crate::error::{Error, Result};

mod batch_options;
mod hooks;
mod lost_answers;
pub(crate) mod rename;
pub(crate) mod signing;
mod timeouts;

use rename::Renamer;

pub use batch_options::BatchOptions;
pub use lost_answers::LostAnswers;
use signing::CursorKey;
pub use timeouts::Timeouts;

/// A handle on the single table: an SDK client, the table name and, when declared, the
/// facets stored in it. Cheap to clone.
///
/// Declare the facets that share a table with [`faceteer::table!`](crate::table!) and open it
/// with [`Table::declared`]: the declaration is checked at compile time so that no two facets
/// can write the same `(PK, SK)`, writes of other facets are refused
/// ([`Error::UndeclaredFacet`]), and [`Table::create_table`] creates exactly the indexes the facets
/// use.
///
/// Every request runs under [`Timeouts`]: the client's own, with defaults for those it lacks.
#[derive(Clone)]
pub struct Table {
    client: Client,
    /// The same client without the SDK's own retries, for writes and batch requests (built
    /// once: a per-request configuration override costs more than the request's own work).
    /// faceteer retries those itself, knowing which tries may have been applied.
    batch_client: Client,
    /// The bound of one whole call ([`Timeouts::call`]).
    call_timeout: std::time::Duration,
    /// The deadline every call on this handle shares (a `modify` runs its read and its
    /// write on one), instead of one per call.
    deadline: Option<tokio::time::Instant>,
    name: Arc<str>,
    batch: BatchOptions,
    facets: Option<Arc<[&'static FacetSchema]>>,
    cursor_key: Option<CursorKey>,
    /// What must live as long as the table is used (the embedded engine serving it).
    keep_alive: Option<KeepAlive>,
    /// The endpoint the client was pointed at, when faceteer set it up: named by errors.
    endpoint: Option<Arc<str>>,
    /// Reads pass over records whose `#[ttl]` time has passed ([`Table::hiding_expired`]).
    hide_expired: bool,
    /// The table's attribute and index names ([`Table::with_names`]).
    names: TableNames,
    /// Their renames on the wire, when they are not faceteer's own.
    renamer: Option<Arc<Renamer>>,
    /// How answers to reads are decoded ([`Table::with_read_path`]).
    read_path: ReadPath,
    /// How single-item writes are sent ([`Table::with_write_path`]).
    write_path: WritePath,
    /// What writes do when an answer is lost ([`Table::with_lost_answers`]).
    lost_answers: LostAnswers,
    /// The table's declared settings ([`Table::with_settings`]).
    settings: TableSettings,
    /// The server its requests went to, once one was sent (for spans).
    server: crate::wire::tap::Server,
    /// Where its reads go when faceteer sends them itself ([`ReadPath::Direct`]).
    direct: crate::wire::direct::Direct,
    /// The hooks its calls run ([`Table::with_hooks`]).
    hooks: Option<Arc<crate::hook::Hooks>>,
    /// The values its hooks see ([`Table::with_context`]).
    context: Option<Arc<crate::hook::Context>>,
}

/// How a table's reads decode DynamoDB's answers ([`Table::with_read_path`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ReadPath {
    /// Sent by faceteer and read straight from the answer's JSON into records. The default.
    ///
    /// The request's JSON is written straight from the read, signed with SigV4 (the
    /// `aws-sigv4` crate the SDK signs with) and sent through the client's own HTTP
    /// connector, skipping the SDK's orchestrator. It is sent to the endpoint, in the
    /// region, with the credentials (through the client's identity cache), retries and
    /// timeouts the SDK would use, learned from the first data request the SDK sends for the
    /// table; an error answer is read by the SDK itself, so errors are the SDK's. Until
    /// then, and on a client with interceptors of its own (which only the SDK runs), reads
    /// are sent as [`ReadPath::SdkSent`] sends them.
    ///
    /// A table with its own attribute names ([`Table::with_names`]) reads as
    /// [`ReadPath::Sdk`] does.
    #[default]
    Direct,
    /// Sent by the SDK (which signs, retries and sends), read straight from the answer's
    /// JSON into records, with no `AttributeValue` tree in between.
    SdkSent,
    /// Sent by the SDK and read by its own decoder into `AttributeValue`s, then into records.
    Sdk,
}

/// How a table sends its writes ([`Table::with_write_path`]): `PutItem`, `UpdateItem`,
/// `DeleteItem` (puts, saves, updates, `modify`, deletes, unique-field and lock writes) and
/// `BatchWriteItem` (`put_many`, `delete_many`, backfills). Transactions are sent by the SDK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum WritePath {
    /// Sent by faceteer, as [`ReadPath::Direct`] sends reads: the request's JSON written
    /// straight from the write, signed with SigV4, sent through the client's own HTTP
    /// connector, once (faceteer's own tries decide what a failed one means, as for the
    /// SDK's); the answer read from its JSON, an error answer read by the SDK. Until the
    /// table's route is learned, and on a client with interceptors of your own, the SDK sends
    /// them. The default.
    #[default]
    Direct,
    /// Sent by the SDK.
    Sdk,
}

/// A value kept alive by every clone of a [`Table`].
#[derive(Clone)]
pub(crate) struct KeepAlive(#[allow(dead_code)] Arc<dyn std::any::Any + Send + Sync>);

impl std::fmt::Debug for KeepAlive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeepAlive")
    }
}

/// No client internals: the client's configuration holds credentials.
impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("name", &self.name)
            .field(
                "facets",
                &self
                    .facets
                    .as_ref()
                    .map(|fs| fs.iter().map(|f| f.name).collect::<Vec<_>>()),
            )
            .field("batch", &self.batch)
            .field("timeouts", &self.timeouts())
            .field("signs_cursors", &self.cursor_key.is_some())
            .finish_non_exhaustive()
    }
}

impl Table {
    /// A handle on table `name`, reached through `client`, for any facet. Prefer
    /// [`Table::declared`]: an undeclared table cannot check that its facets' keys never
    /// collide, nor create its indexes.
    ///
    /// The client's timeouts are kept; those it lacks are set from [`Timeouts::default`].
    pub fn new(client: Client, name: impl Into<String>) -> Self {
        let name: Arc<str> = name.into().into();
        let timeouts = Timeouts::of(&client, Timeouts::default());
        let (client, server, direct) =
            crate::wire::tap::with_tap(&timeouts.apply(&client), name.clone());
        Table {
            batch_client: without_retries(&client),
            call_timeout: timeouts.call,
            deadline: None,
            client,
            name,
            batch: BatchOptions::default(),
            facets: None,
            cursor_key: None,
            keep_alive: None,
            endpoint: None,
            hide_expired: false,
            names: TableNames::DEFAULT,
            renamer: None,
            read_path: ReadPath::Direct,
            write_path: WritePath::Direct,
            lost_answers: LostAnswers::Report,
            settings: TableSettings::DEFAULT,
            server,
            direct,
            hooks: None,
            context: None,
        }
    }

    /// The same table, running `hooks` on its calls (replacing hooks set before): each
    /// facet's `before_write` before every write of its records, `after_read` after every
    /// read ([`crate::hook`]). Fails when a hook is on a facet the table does not declare,
    /// or a table hook could not reach every facet of its table.
    pub fn with_hooks(mut self, hooks: crate::hook::Hooks) -> Result<Self> {
        if let Some(problem) = hooks.problems().first() {
            return Err(Error::InvalidRequest(problem.clone()));
        }
        if let Some(facets) = &self.facets {
            if let Some(name) = hooks
                .facet_names()
                .iter()
                .find(|n| !facets.iter().any(|f| f.name == **n))
            {
                return Err(Error::UndeclaredFacet {
                    facet: name,
                    table: self.name.to_string(),
                });
            }
        }
        self.hooks = Some(Arc::new(hooks));
        Ok(self)
    }

    /// The hooks its calls run, if any.
    pub(crate) fn hooks(&self) -> Option<&crate::hook::Hooks> {
        self.hooks.as_deref()
    }

    /// The same table with `settings` (capacity, recovery, protection, encryption, class,
    /// tags, warm throughput; see [`crate::settings`]), which
    /// [`Table::create_table`], [`Table::apply_settings`] and [`Table::verify`] use. A table
    /// declared with `faceteer::table! { .. } settings = ..` has them already.
    ///
    /// Refused when they break one of DynamoDB's rules, or name an index the declared facets
    /// do not use ([`Error::Settings`]).
    pub fn with_settings(mut self, settings: TableSettings) -> Result<Self> {
        settings.check(self.facets().unwrap_or(&[]))?;
        self.settings = settings;
        Ok(self)
    }

    /// The table's declared settings.
    pub fn settings(&self) -> &TableSettings {
        &self.settings
    }

    /// The same table, sending and decoding its reads as `path` says: sent by faceteer and
    /// read from their JSON ([`ReadPath::Direct`], the default), sent by the SDK and read
    /// from their JSON ([`ReadPath::SdkSent`]), or sent by the SDK and read by its own
    /// decoder ([`ReadPath::Sdk`]). All read the same records, with the same errors.
    pub fn with_read_path(mut self, path: ReadPath) -> Self {
        self.read_path = path;
        self
    }

    /// The same table, sending its writes as `path` says: by faceteer
    /// ([`WritePath::Direct`], the default) or by the SDK ([`WritePath::Sdk`]). Both send the
    /// same requests, with the same errors and the same outcomes.
    pub fn with_write_path(mut self, path: WritePath) -> Self {
        self.write_path = path;
        self
    }

    /// The same table, whose single-item writes and transactions do as `choice` says when
    /// the answer to a try is lost: report [`Error::OutcomeUnknown`] ([`LostAnswers::Report`],
    /// the default), or send it again under a `ClientRequestToken` ([`LostAnswers::Resend`],
    /// twice the write capacity, on servers that keep tokens). See [`LostAnswers`] for what
    /// each costs and guarantees.
    pub fn with_lost_answers(mut self, choice: LostAnswers) -> Self {
        self.lost_answers = choice;
        self
    }

    /// What writes do when an answer is lost.
    pub fn lost_answers(&self) -> LostAnswers {
        self.lost_answers
    }

    /// Whether reads decode their answers directly ([`ReadPath::Direct`] or
    /// [`ReadPath::SdkSent`], on a table in faceteer's own names).
    pub(crate) fn reads_direct(&self) -> bool {
        self.read_path != ReadPath::Sdk && self.renamer.is_none()
    }

    /// The table's name, shared.
    pub(crate) fn shared_name(&self) -> Arc<str> {
        self.name.clone()
    }

    /// The route of the table's own requests ([`crate::wire::direct`]).
    pub(crate) fn direct(&self) -> &crate::wire::direct::Direct {
        &self.direct
    }

    /// Where faceteer sends the table's writes itself, when it does
    /// ([`WritePath::Direct`], once learned).
    pub(crate) fn direct_write_route(&self) -> Option<&crate::wire::direct::Route> {
        match self.write_path {
            WritePath::Direct => self.direct.route(),
            WritePath::Sdk => None,
        }
    }

    /// Where faceteer sends the table's reads itself, when it does ([`ReadPath::Direct`],
    /// once learned).
    pub(crate) fn direct_route(&self) -> Option<&crate::wire::direct::Route> {
        if self.read_path != ReadPath::Direct || !self.reads_direct() {
            return None;
        }
        self.direct.route()
    }

    /// The same table, laid out with `names`: its key attributes, index names, facet
    /// attribute and TTL attribute named as another library or a hand-made table names
    /// them (OneTable: `pk`, `sk`, `gsi1pk`, `gsi1sk`, `_type`, index `gsi1`). Every request
    /// and answer is renamed on the wire; facets keep describing their keys with faceteer's
    /// names. A table declared with `faceteer::table!` and `names = ..` gets them at
    /// compile time, checked against its facets' fields; here they are checked against one
    /// another ([`Error::Names`]).
    pub fn with_names(mut self, names: TableNames) -> Result<Self> {
        check_names(&names, &[])?;
        self.renamer = Renamer::of(names).map(Arc::new);
        self.names = names;
        Ok(self)
    }

    /// The table's attribute and index names.
    pub fn names(&self) -> &TableNames {
        &self.names
    }

    /// The renames on the wire, when the table's names are not faceteer's own.
    pub(crate) fn renamer(&self) -> Option<&Renamer> {
        self.renamer.as_deref()
    }

    /// The same table, whose reads pass over records already expired but not yet deleted:
    /// DynamoDB deletes an item some time (often hours) after the time in its `ttl`
    /// attribute, and reads return it until then. With this, gets (single, batch and
    /// transactional) answer "not found" for a record of a facet with a `#[ttl]` field whose
    /// time has passed, and queries, scans, searches, collections and counts filter such
    /// records out on the server (`attribute_not_exists(ttl) OR ttl > :now`). Writes are
    /// unchanged: an update or `modify` still sees the stored item.
    pub fn hiding_expired(mut self) -> Self {
        self.hide_expired = true;
        self
    }

    /// Whether reads pass over expired records ([`Table::hiding_expired`]).
    pub(crate) fn hiding_expired_records(&self) -> bool {
        self.hide_expired
    }

    /// The time reads of `facets` hide records expired before, if they do.
    pub(crate) fn expired_before<'a>(
        &self,
        mut facets: impl Iterator<Item = &'a FacetSchema>,
    ) -> Option<i64> {
        (self.hide_expired && facets.any(|f| f.ttl_field.is_some())).then(now_seconds)
    }

    /// Whether a get of facet `schema` passes over `item`, expired (when this table hides
    /// expired records).
    pub(crate) fn hides(&self, schema: &FacetSchema, item: &crate::wire::stored::Stored) -> bool {
        self.expired_before(std::iter::once(schema))
            .is_some_and(|now| item.is_expired(now))
    }

    /// The attributes a get of facet `schema` reads: `projection`, and `ttl` when this table
    /// hides expired records (so that it can tell them).
    pub(crate) fn read_attributes(
        &self,
        schema: &FacetSchema,
        projection: Option<&[&'static str]>,
    ) -> Option<Vec<&'static str>> {
        let mut attributes = projection?.to_vec();
        if self.expired_before(std::iter::once(schema)).is_some()
            && !attributes.contains(&faceteer_core::schema::TTL_ATTRIBUTE)
        {
            attributes.push(faceteer_core::schema::TTL_ATTRIBUTE);
        }
        Some(attributes)
    }

    /// Add to a read's server-side `filter` the condition hiding records of `facets`
    /// already expired, when this table hides them.
    pub(crate) fn filter_expired<'a>(
        &self,
        facets: impl Iterator<Item = &'a FacetSchema>,
        filter: &mut Option<faceteer_core::plan::RenderedCondition>,
    ) {
        if let Some(now) = self.expired_before(facets) {
            *filter = Some(faceteer_core::plan::hide_expired(filter.take(), now));
        }
    }

    /// The same handle, naming `endpoint` in the errors of requests that cannot reach it.
    pub(crate) fn at_endpoint(mut self, endpoint: Option<&str>) -> Self {
        self.endpoint = endpoint.map(Arc::from);
        self
    }

    /// The server requests went to (host, port), once one was sent.
    pub(crate) fn server(&self) -> &crate::wire::tap::Server {
        &self.server
    }

    /// The endpoint errors name, when faceteer set the client up.
    pub(crate) fn endpoint(&self) -> Option<&Arc<str>> {
        self.endpoint.as_ref()
    }

    /// The same table, keeping `value` alive for as long as any clone of it exists.
    #[cfg_attr(not(feature = "embedded"), allow(dead_code))]
    pub(crate) fn keeping(mut self, value: Arc<dyn std::any::Any + Send + Sync>) -> Self {
        self.keep_alive = Some(KeepAlive(value));
        self
    }

    /// A handle on table `name` holding the facets of `S` (declared with
    /// [`faceteer::table!`](crate::table!), which checks them at compile time).
    ///
    /// ```no_run
    /// # use faceteer::{Facet, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Facet, Serialize, Deserialize)]
    /// # struct Team { #[pk(prefix = "#TEAM")] #[sk(prefix = "#TEAM")] id: String }
    /// # #[derive(Facet, Serialize, Deserialize)]
    /// # struct User { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#USER")] id: String }
    /// faceteer::table! {
    ///     /// The application's table.
    ///     pub struct AppTable { Team, User }
    /// }
    /// # async fn demo(client: aws_sdk_dynamodb::Client) -> faceteer::Result<()> {
    /// let table = Table::declared::<AppTable>(client, "app");
    /// table.create_table().await?; // PK/SK and the indexes Team and User use
    /// # Ok(()) }
    /// ```
    pub fn declared<S: TableSchema>(client: Client, name: impl Into<String>) -> Self {
        let mut table = Table::new(client, name);
        table.facets = Some(S::FACETS.into());
        // `faceteer::table!` checked the names at compile time.
        table.renamer = Renamer::of(S::NAMES).map(Arc::new);
        table.names = S::NAMES;
        // And the settings.
        table.settings = S::SETTINGS;
        // Its facets with `#[sensitive]` fields print masked from now on.
        struct Register;
        impl faceteer_core::table::FacetVisitor for Register {
            fn visit<F: faceteer_core::Facet>(&mut self) {
                faceteer_core::facet::register_sensitive::<F>();
            }
        }
        S::visit_facets(&mut Register);
        table
    }

    /// A handle on table `name` holding `facets`, chosen at run time: the same check as
    /// [`faceteer::table!`](crate::table!), as a typed error ([`Error::Table`]).
    pub fn with_facets(
        client: Client,
        name: impl Into<String>,
        facets: impl IntoIterator<Item = &'static FacetSchema>,
    ) -> Result<Self> {
        let facets: Arc<[&'static FacetSchema]> = facets.into_iter().collect();
        check_table(&facets)?;
        let mut table = Table::new(client, name);
        table.facets = Some(facets);
        Ok(table)
    }

    /// The declared facets, when the table was declared.
    pub fn facets(&self) -> Option<&[&'static FacetSchema]> {
        self.facets.as_deref()
    }

    /// Refuse writes of a facet a declared table does not hold.
    pub(crate) fn check_declared<F: Facet>(&self) -> Result<()> {
        match &self.facets {
            Some(facets) if !facets.iter().any(|f| f.name == F::SCHEMA.name) => {
                Err(Error::UndeclaredFacet {
                    facet: F::SCHEMA.name,
                    table: self.name.to_string(),
                })
            }
            _ => Ok(()),
        }
    }

    /// The same table with other batch options (concurrency, retries).
    pub fn with_batch_options(mut self, options: BatchOptions) -> Self {
        self.batch = options;
        self
    }

    /// The options batch operations run with.
    pub fn batch_options(&self) -> &BatchOptions {
        &self.batch
    }

    /// The same table, signing the cursors its queries return with `key` (HMAC-SHA256) and
    /// refusing cursors that do not carry a matching signature
    /// ([`CursorError::BadSignature`](crate::error::CursorError::BadSignature)). Use it when cursors
    /// travel through clients you do not trust: they cannot forge or alter one. Keep the key
    /// secret and the same on every server that serves the same queries.
    pub fn with_cursor_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.cursor_key = Some(CursorKey::new(key.as_ref()));
        self
    }

    pub(crate) fn cursor_key(&self) -> Option<&CursorKey> {
        self.cursor_key.as_ref()
    }

    /// The same table with other request deadlines.
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.client = timeouts.apply(&self.client);
        self.batch_client = without_retries(&self.client);
        self.call_timeout = timeouts.call;
        self
    }

    /// The deadlines requests run under.
    pub fn timeouts(&self) -> Timeouts {
        Timeouts::of(
            &self.client,
            Timeouts {
                call: self.call_timeout,
                ..Timeouts::default()
            },
        )
    }

    /// The deadline of a call starting now: the one this handle shares, else
    /// [`Timeouts::call`] from now.
    pub(crate) fn call_deadline(&self) -> tokio::time::Instant {
        self.deadline
            .unwrap_or_else(|| tokio::time::Instant::now() + self.call_timeout)
    }

    /// This table with every call sharing `deadline` (the steps of one larger call).
    pub(crate) fn until(&self, deadline: tokio::time::Instant) -> Table {
        let mut table = self.clone();
        table.deadline = Some(deadline);
        table
    }

    /// The SDK client (with the table's [`Timeouts`]).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The client for writes and batch requests: the SDK's own retries are off, so that a
    /// failure describes exactly one attempt and the caller knows what may have been applied.
    pub(crate) fn batch_client(&self) -> &Client {
        &self.batch_client
    }

    /// The table name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// `client` with the SDK's retries disabled.
fn without_retries(client: &Client) -> Client {
    let config = client
        .config()
        .to_builder()
        .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled())
        .build();
    Client::from_conf(config)
}

/// The current time, in epoch seconds.
pub(crate) fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
