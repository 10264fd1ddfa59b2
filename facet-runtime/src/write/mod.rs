//! Writes: awaitable builders made by [`Table::put`](crate::Table::put), [`Table::delete`](crate::Table::delete), [`Table::update`](crate::Table::update),
//! [`Table::upsert`](crate::Table::upsert), [`Table::modify`](crate::Table::modify), [`Table::save`](crate::Table::save) and [`Table::move_to`](crate::Table::move_to), with the same options
//! everywhere, exactly once. Reads of one record are in [`crate::read`].
//!
//! ```no_run
//! # use faceteer::{Facet, Pick, Table};
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Facet, Serialize, Deserialize)]
//! # #[facet(pick_validator = trust)]
//! # struct Doc { #[pk(prefix = "#DOC")] #[sk(prefix = "#DOC")] id: String, version: u64, title: String }
//! # #[derive(Pick)] #[pick(facet = Doc)] struct Title { title: String }
//! # async fn demo(table: &Table, doc: Doc) -> faceteer::Result<()> {
//! let f = Doc::fields();
//! table.put(&doc).if_not_exists().await?;
//! table.put(&doc).when(f.version.eq(3)).await?;
//! let title = table.get(&Doc::key("d1")?).consistent().select::<Title>().await?;
//! table.delete(&Doc::key("d1")?).if_exists().await?;
//! # Ok(()) }
//! ```

pub(crate) mod condition;
pub(crate) mod delete;
pub(crate) mod modify;
pub(crate) mod move_to;
pub(crate) mod put;
pub(crate) mod refusal;
pub(crate) mod returns;
pub(crate) mod save;
mod send;
mod transact;
pub(crate) mod update;
pub(crate) mod upsert;

pub use delete::Delete;
pub use faceteer_core::facet::{BatchDeletable, BatchWritable, UniqueValue, Versioned};
pub use modify::{Modify, DEFAULT_MODIFY_ATTEMPTS};
pub use move_to::MoveTo;
pub use put::{Put, PutReturning};
pub use refusal::{Conditional, Refusable, StoredOnFailure};
pub use returns::{CanCreate, New, Nothing, Old, Returns};
pub use save::{Save, Saved};
pub use update::UpdateItem;
pub use upsert::Upsert;
