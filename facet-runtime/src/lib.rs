//! # faceteer
//!
//! Type-safe DynamoDB single-table design for Rust: the counterpart of the TypeScript
//! library [Faceteer](https://github.com/faceteer/facet), with its wire format.
//!
//! Annotate a plain struct with `#[derive(Facet)]` and key attributes; get typed key
//! builders and typed per-index queries, executed with the official AWS SDK.
//!
//! ```no_run
//! use faceteer::{Facet, Table};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, Facet, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! #[facet(
//!     name = "TASK",
//!     pk(prefix = "#TEAM", fields(team_id)),
//!     sk(prefix = "#TASK", fields(task_id)),
//!     gsi(n = 1, alias = "GSIUserTasks", pk(prefix = "#USER", fields(user_id)), sk(prefix = "#TEAM", fields(team_id)))
//! )]
//! struct Task {
//!     team_id: String,
//!     task_id: String,
//!     user_id: String,
//!     title: String,
//! }
//!
//! # async fn demo(client: aws_sdk_dynamodb::Client) -> faceteer::Result<()> {
//! faceteer::table! { pub struct App { Task } }
//! let table = Table::declared::<App>(client, "app");
//! let task = Task { team_id: "t1".into(), task_id: "k1".into(), user_id: "u1".into(), title: "Ship".into() };
//! table.put(&task).await?;                                        // PK "#TEAM_t1", SK "#TASK_k1"
//! let again = table.get(&Task::key("t1", "k1")?).await?;          // typed key builder
//! let page = table.query(Task::query("t1").list().limit(20)).await?;
//! let by_user = table.query(Task::by_gsi_user_tasks("u1").begins_with("t")).await?;
//! # Ok(()) }
//! ```
//!
//! ## Attributes
//!
//! Every attribute and option the derives read: [`guide::attributes`].
//!
//! Generated for each facet: `Facet::key(..)` (the base key, from the key fields),
//! `Facet::query(..)` (the base partition), and for each index `Facet::gsiN(..)` plus
//! `Facet::by_<snake_case alias>(..)`; `Facet::fields()` (typed handles for conditions,
//! filters and updates; an update that sets a field index keys or the TTL are built from
//! rebuilds them too). Query operators: `equals`, `greater_than`,
//! `greater_than_or_equal`, `less_than`, `less_than_or_equal`, `begins_with`, `between`,
//! `list`; then one builder, [`Query`](crate::query::Query), whose options work in any order: `limit`,
//! `reverse`, `cursor`, `shard`, `shard_concurrency`, `filter`, `consistent`, and the two
//! that change what running it returns, `first` and `select`. Run it with
//! [`Table::query`].
//!
//! Writes: [`Table::put`], [`Table::delete`], [`Table::update`] (typed
//! [`Update`]s; [`UpdateItem::or_create`](crate::write::UpdateItem::or_create) to create), [`Table::upsert`], [`Table::modify`] (versioned read–modify–write), batches
//! ([`Table::put_many`], [`Table::delete_many`], [`Table::get_many`], mixed facets with
//! [`Table::write_batch`]) whose every input ends done, failed or unknown, and transactions
//! ([`Table::transact_write`], [`Table::transact_get`]).
//!
//! ## Where things are
//!
//! The crate root holds what an application writes daily: the derives, [`Table`], [`Key`],
//! [`Item`], [`Update`], [`Expr`], [`Page`], [`Error`]. The rest is grouped by audience:
//!
//! * builders and what they return: [`read`](mod@read), [`write`](mod@write), [`query`], [`batch`],
//!   [`transaction`];
//! * conditions, filters and updates: [`expr`]; keys and key parts: [`key`]; projections:
//!   [`pick`]; items and conversions: [`item`];
//! * the error's parts: [`error`]; descriptions of facets and tables: [`schema`];
//! * operating a table: [`admin`] (create, verify, apply settings), [`settings`], [`lock`]
//!   (the design lock and its change check),
//!   [`backfill`], [`stream`], [`design`],
//!   [`plan`] (the requests an operation would send);
//! * tests: `embedded` (an in-process engine) and `testing` (a fault proxy, a history
//!   checker), behind cargo features;
//! * the guide: [`guide`], pages with examples that compile.
//!
//! ## One style
//!
//! Every operation starts at the [`Table`] and is an awaitable builder: `table.get(&key)`,
//! `table.put(&record)`, `table.delete(&key)`, `table.put_many(records)`,
//! `table.delete_many(keys)`, `table.get_many(keys)`, `table.query(query)`. Options are
//! methods with one name per idea, the same everywhere: `.consistent()` and
//! `.select::<P>()` on every read, `.if_not_exists()` / `.if_exists()` and `.when(cond)` on
//! every single write. Builders and batch reports are `#[must_use]`: a forgotten `.await`
//! or an unread report is a warning.
//!
//! ## Batches, conditions, projections
//!
//! ```no_run
//! use faceteer::{Facet, Pick, Table};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, Clone, Facet, Serialize, Deserialize)]
//! #[facet(name = "DOC", pick_validator = trust)]
//! struct Doc {
//!     #[pk(prefix = "#DOC")]
//!     #[sk(prefix = "#DOC")]
//!     id: String,
//!     version: u64,
//!     title: String,
//! }
//!
//! #[derive(Debug, Pick)]
//! #[pick(facet = Doc)]
//! struct Title {
//!     title: String,
//! }
//!
//! # async fn demo(table: &Table, docs: Vec<Doc>) -> faceteer::Result<()> {
//! // Batch writes report every record: written, or failed with a reason.
//! let report = table.put_many(docs).await;
//! for failed in &report.failed {
//!     eprintln!("not written: {}", failed.reason);
//! }
//!
//! // Typed conditions: optimistic locking.
//! let f = Doc::fields();
//! if let Some(mut doc) = table.get(&Doc::key("d1")?).consistent().await? {
//!     doc.version += 1;
//!     table.put(&doc).when(f.version.eq(doc.version - 1)).await?;
//! }
//!
//! // Projections: only `title` and the key fields are read.
//! let title = table.get(&Doc::key("d1")?).select::<Title>().await?;
//! # Ok(()) }
//! ```
//!
//! ## Beyond Faceteer
//!
//! * A key value containing the delimiter before another key value is refused
//!   ([`KeyError::DelimiterInValue`](crate::error::KeyError::DelimiterInValue)): such keys are ambiguous and records would overwrite
//!   each other.
//! * Range operators stay within the facet's sort-key prefix, so a query never returns
//!   another facet's records from a shared partition.
//! * A page's `cursor` is `None` exactly when the query is exhausted; cursors are checked
//!   against the query they are used with.
//!
//! ## Features
//!
//! * `chrono` (default): [`timestamp`] and key parts for `chrono` dates.
//! * `embedded`: `faceteer::embedded`, an in-process DynamoDB engine (dynoxide) that hands
//!   back a ready [`Table`] for tests and examples, with nothing to install.
//! * `testing`: `faceteer::testing`, a fault-injecting proxy (lost answers, throttling,
//!   unprocessed items, stalls, late writes, a crashed server) and a stub server, to test
//!   your own code against them.
#![warn(missing_docs)]

pub mod admin;
pub mod backfill;
pub mod batch;
mod codec;
pub mod design;
#[cfg(feature = "embedded")]
pub mod embedded;
#[cfg(feature = "encryption")]
pub mod encryption;
pub mod erased;
pub mod error;
mod exec;
pub mod expr;
pub mod guide;
pub mod hook;
pub mod item;
pub mod key;
pub mod lock;
#[cfg(feature = "ops")]
pub mod ops;
mod pause;
pub mod pick;
pub mod plan;
pub mod query;
pub mod read;
pub mod schema;
pub mod settings;
mod setup;
pub mod stream;
mod table;
#[cfg(feature = "testing")]
pub mod testing;
pub mod transaction;
mod unique;
pub mod vector;
mod wire;
pub mod write;

// What an application writes daily. Everything else lives in the modules above, by audience:
// builders and their typestates in `read`, `write`, `query`, `batch`, `transaction`; schema
// descriptions in `schema`; sub-errors in `error`.
pub use error::{Error, Result};
pub use exec::future::BoxFuture;
pub use faceteer_core::collection::Collection;
pub use faceteer_core::convert::to_stored_item;
/// What the derive declares about encrypted fields, and the cipher seam (the `encryption`
/// feature installs AWS's Database Encryption SDK): [`crypto::CipherError`] is what
/// [`ItemError::Encryption`](crate::error::ItemError::Encryption) holds.
pub use faceteer_core::crypto;
pub use faceteer_core::expr::{Expr, Field, Nested, Update};
pub use faceteer_core::facet::EpochTime;
#[cfg(feature = "chrono")]
pub use faceteer_core::facet::WriteTime;
/// `#[sensitive]` values masked as keys and items are printed: [`redact::KeyText`] is the
/// type of the keys errors carry.
pub use faceteer_core::redact;
pub use faceteer_core::redact::KeyText;
pub use faceteer_core::table::TableSchema;
#[cfg(feature = "chrono")]
pub use faceteer_core::timestamp;
pub use faceteer_core::{
    from_item, to_item, Facet, Item, Key, KeyPart, Nullable, Sortable, TtlValue,
};
pub use faceteer_derive::{Collection, Facet, KeyPart, Nested, Pick};
pub use query::Page;
pub use setup::{connect, local_client, ENDPOINT_VARIABLE};
pub use table::{BatchOptions, LostAnswers, ReadPath, Table, Timeouts, WritePath};

/// Declare the facets stored in one table:
///
/// ```
/// # use faceteer::Facet;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Facet, Serialize, Deserialize)]
/// # struct Team { #[pk(prefix = "#TEAM")] #[sk(prefix = "#TEAM")] id: String }
/// # #[derive(Facet, Serialize, Deserialize)]
/// # struct User { #[pk(prefix = "#TEAM")] team: String, #[sk(prefix = "#USER")] id: String }
/// faceteer::table! {
///     /// The application's table.
///     pub struct AppTable { Team, User }
/// }
/// ```
///
/// This defines the unit struct `AppTable`, implementing [`TableSchema`], and checks at
/// compile time that no two of the facets can write the same `(PK, SK)` (for example sort-key
/// prefixes `#ORDER` and `#ORDER_LINE` in one partition: the order `LINE_5` and the line `5`
/// would share `#ORDER_LINE_5`). Open the table with [`Table::declared`].
#[macro_export]
macro_rules! table {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($facet:ty),+ $(,)? }
     $($option:ident = $value:expr);* $(;)?) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        $vis struct $name;

        impl $crate::TableSchema for $name {
            const FACETS: &'static [&'static $crate::schema::FacetSchema] =
                &[$(<$facet as $crate::Facet>::SCHEMA),+];
            const DESIGNS: &'static [$crate::design::FacetDesign<'static>] =
                &[$($crate::design::FacetDesign::of::<$facet>()),+];
            const REWRITERS: &'static [$crate::backfill::Rewriter] =
                &[$($crate::backfill::Rewriter::of::<$facet>()),+];
            $($crate::table!(@option $option $value);)*

            fn visit_facets<__V: $crate::__private_0_1_0::FacetVisitor>(__visitor: &mut __V) {
                $(__visitor.visit::<$facet>();)+
            }
        }

        impl $crate::erased::TableFacets for $name {
            fn any_facets() -> ::std::vec::Vec<$crate::erased::AnyFacet> {
                #[allow(unused_imports)]
                use $crate::erased::{ViaBatch as _, ViaPut as _};
                ::std::vec![$((&$crate::erased::Seeder::<$facet>::NEW).any_facet()),+]
            }
        }

        const _: () = $crate::__private_0_1_0::assert_table(<$name as $crate::TableSchema>::FACETS);
        const _: () = $crate::__private_0_1_0::assert_names(
            <$name as $crate::TableSchema>::DESIGNS,
            &<$name as $crate::TableSchema>::NAMES,
        );
        const _: () = $crate::__private_0_1_0::assert_settings(
            &<$name as $crate::TableSchema>::SETTINGS,
            <$name as $crate::TableSchema>::FACETS,
        );
    };
    (@option names $value:expr) => {
        const NAMES: $crate::schema::TableNames = $value;
    };
    (@option settings $value:expr) => {
        const SETTINGS: $crate::settings::TableSettings = $value;
    };
    (@option $other:ident $value:expr) => {
        ::core::compile_error!(::core::concat!(
            "`faceteer::table!` has no option `",
            ::core::stringify!($other),
            "`: its options are `names = ..` (the table's attribute and index names) and \
             `settings = ..` (capacity, recovery, protection, encryption, class, tags)"
        ));
    };
}

/// Items used by the code `#[derive(Facet)]` generates. Not a public API.
#[doc(hidden)]
pub mod __private_0_1_0 {
    pub use crate::error::Error;
    pub use crate::query::{NativeQuery, PartitionQuery};
    pub use crate::vector::VectorSearch;
    /// `Option` and `Result` with their variants, named in few tokens by generated code.
    pub use ::core::option::Option::{self, None, Some};
    pub use ::core::result::Result::{self, Err, Ok};
    pub use aws_sdk_dynamodb::types::AttributeValue;
    #[cfg(feature = "chrono")]
    pub use faceteer_core::chrono::{DateTime, Utc};
    pub use faceteer_core::collection::{
        facet_of, variant as collection_variant, Collection, RecordVisitor,
    };
    pub use faceteer_core::convert::upgrade_with;
    pub use faceteer_core::crypto::{
        Action as CryptoAction, BeaconSpec, Beaconed, CryptoField, CryptoSchema,
    };
    pub use faceteer_core::expr::{derived_key, from_key_text, key_pieces};
    pub use faceteer_core::expr::{encode_plain, Nested, NestedAttribute};
    pub use faceteer_core::expr::{
        Attribute, Derived, KeyValue, KeyedValues, Need, PartOfAnIndexKeyOrTheTtl,
        PartOfThePrimaryKey, SetByTheLibrary, TheVersionCounter, Update,
    };
    pub use faceteer_core::expr::{Encoded, ExprError, Field, FieldValue};
    pub use faceteer_core::expr::{Encrypted, SignedOnly};
    pub use faceteer_core::facet::handles::debug_handles;
    pub use faceteer_core::facet::register_sensitive as redact_register;
    pub use faceteer_core::facet::writer::{
        with as marshal_with, ByPlain, BySerde, FieldWriter, Value,
    };
    #[cfg(feature = "chrono")]
    pub use faceteer_core::facet::WriteTime;
    pub use faceteer_core::facet::{
        BatchDeletable, BatchWritable, EpochTime, UniqueValue, Versioned, WriteTimeAttributes,
    };
    pub use faceteer_core::facet::{KeyField, OptionalKey, RequiredKey, WriteKeys};
    pub use faceteer_core::key::from_sortable_text;
    pub use faceteer_core::key::{key_arg, key_part, write_key};
    pub use faceteer_core::key_writer::{
        check_layout, key_of as schema_key, partition_of as schema_partition, SchemaKeys,
    };
    pub use faceteer_core::limits::KeyLengths;
    pub use faceteer_core::marshal::to_attribute_value as encode_value;
    pub use faceteer_core::native::KeyScalar;
    pub use faceteer_core::partition::{PartitionKey, ShardChoice};
    pub use faceteer_core::pick::{
        pick_field, read_attribute, read_path, BaseTable, FieldAt, FromPicked, IndexProjects,
        KeyFields, PickValidator, ProjectedBy, Projection, WholeRecords,
    };
    pub use faceteer_core::redact::{masked as redact_masked, Registering};
    pub use faceteer_core::schema::FALLBACK_SCHEMA;
    pub use faceteer_core::schema::TTL_ATTRIBUTE;
    pub use faceteer_core::schema::{
        FacetSchema, IndexKind, IndexProjection, IndexSchema, KeyAttribute, KeyLayout, KeySchema,
        NativeKeys, ScalarType, ShardSchema, VectorDistance, VectorSchema,
    };
    pub use faceteer_core::schema::{FieldSchema, UniqueSchema};
    pub use faceteer_core::serde_key::write_serde_key;
    pub use faceteer_core::settings::assert_settings;
    pub use faceteer_core::shard::{shard_of, ShardPeriod};
    pub use faceteer_core::sort_key::{Four, NoFields, NoSortKey, One, Three, Two};
    pub use faceteer_core::table::assert_names;
    pub use faceteer_core::table::assert_table;
    pub use faceteer_core::table::FacetVisitor;
    pub use faceteer_core::{
        Facet, Item, ItemError, Key, KeyArg, KeyError, KeyPart, Sortable, SortableArg, TtlValue,
    };
    pub use serde;
    pub use serde_dynamo::Error as DynamoError;
}
