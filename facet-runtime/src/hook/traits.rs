//! The hook traits: [`FacetHook`] for one facet, [`TableHook`] for every facet of a table.

use std::future::Future;
use std::sync::Arc;

use faceteer_core::facet::Veto;
use faceteer_core::Facet;

use super::context::Context;
use super::write::Write;

/// A boxed future of a hook.
type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Which kind of call read a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadKind {
    /// `get`.
    Get,
    /// A query (of the table or an index).
    Query,
    /// A scan.
    Scan,
    /// `get_many`.
    BatchGet,
    /// `transact_get`.
    Transaction,
    /// A stream's change, decoded for its facet.
    Stream,
    /// A record a write returns (`returning_new`, `returning_stored`, `modify`).
    Returned,
    /// A record a backfill rewrites (its `before_write` hooks run next).
    Backfill,
}

/// A read as an `after_read` hook sees it.
pub struct Reading<'r> {
    pub(crate) kind: ReadKind,
    pub(crate) context: &'r Context,
    pub(crate) table: &'r str,
}

impl Reading<'_> {
    /// The kind of call.
    pub fn kind(&self) -> ReadKind {
        self.kind
    }

    /// The value of type `T` in the call's context.
    pub fn context<T: 'static>(&self) -> Option<&T> {
        self.context.get::<T>()
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        self.table
    }
}

/// A hook on the records of facet `F`: before each write (it may change the record or the
/// update, require values of the stored record, or refuse), and after each read (it may
/// change the record, or refuse it). Async; hooks compose in the order they are registered
/// (reads run them in reverse: what a write hook encodes last, a read hook decodes first).
///
/// ```
/// use faceteer::hook::{FacetHook, Write};
/// use faceteer::hook::Veto;
/// # use faceteer::Facet;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Facet, Serialize, Deserialize)]
/// # struct Note { #[pk(prefix = "#N")] #[sk(prefix = "#N")] id: String, body: String }
///
/// /// Refuses notes with an empty body, and trims the others.
/// struct Trimmed;
///
/// impl FacetHook<Note> for Trimmed {
///     fn name(&self) -> &'static str {
///         "trimmed"
///     }
///
///     async fn before_write(&self, write: &mut Write<'_, Note>) -> Result<(), Veto> {
///         if let Some(note) = write.record() {
///             note.body = note.body.trim().to_owned();
///             if note.body.is_empty() {
///                 return Err(Veto::because(self.name(), "a note has a body"));
///             }
///         }
///         Ok(())
///     }
/// }
/// ```
pub trait FacetHook<F: Facet>: Send + Sync + 'static {
    /// The hook's name, in refusals and spans.
    fn name(&self) -> &'static str;

    /// Before a write of a record of `F` (once per call, before keys, index keys, unique
    /// guards and the validator are built from the record).
    fn before_write(
        &self,
        write: &mut Write<'_, F>,
    ) -> impl Future<Output = Result<(), Veto>> + Send {
        let _ = write;
        async { Ok(()) }
    }

    /// After a read of a record of `F` (on every read path, both read paths).
    fn after_read(
        &self,
        record: &mut F,
        read: &Reading<'_>,
    ) -> impl Future<Output = Result<(), Veto>> + Send {
        let _ = (record, read);
        async { Ok(()) }
    }
}

/// A hook on every facet of a table (its methods are generic over the facet):
/// registered with [`Hooks::table`](super::Hooks::table).
pub trait TableHook: Send + Sync + 'static {
    /// The hook's name, in refusals and spans.
    fn name(&self) -> &'static str;

    /// Before a write of a record of any facet `F`.
    fn before_write<F: Facet>(
        &self,
        write: &mut Write<'_, F>,
    ) -> impl Future<Output = Result<(), Veto>> + Send {
        let _ = write;
        async { Ok(()) }
    }

    /// After a read of a record of any facet `F`.
    fn after_read<F: Facet>(
        &self,
        record: &mut F,
        read: &Reading<'_>,
    ) -> impl Future<Output = Result<(), Veto>> + Send {
        let _ = (record, read);
        async { Ok(()) }
    }
}

/// A table hook, as the hook of one facet.
pub(crate) struct EveryFacet<H>(pub(crate) Arc<H>);

impl<F: Facet, H: TableHook> FacetHook<F> for EveryFacet<H> {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn before_write(
        &self,
        write: &mut Write<'_, F>,
    ) -> impl Future<Output = Result<(), Veto>> + Send {
        self.0.before_write(write)
    }

    fn after_read(
        &self,
        record: &mut F,
        read: &Reading<'_>,
    ) -> impl Future<Output = Result<(), Veto>> + Send {
        self.0.after_read(record, read)
    }
}

/// A facet hook behind a pointer: its futures boxed.
pub(crate) trait DynFacetHook<F>: Send + Sync {
    fn name(&self) -> &'static str;
    fn before_write<'a, 'w>(
        &'a self,
        write: &'a mut Write<'w, F>,
    ) -> BoxFuture<'a, Result<(), Veto>>;
    fn after_read<'a>(
        &'a self,
        record: &'a mut F,
        read: &'a Reading<'a>,
    ) -> BoxFuture<'a, Result<(), Veto>>;
}

impl<F: Facet, H: FacetHook<F>> DynFacetHook<F> for H {
    fn name(&self) -> &'static str {
        FacetHook::name(self)
    }

    fn before_write<'a, 'w>(
        &'a self,
        write: &'a mut Write<'w, F>,
    ) -> BoxFuture<'a, Result<(), Veto>> {
        Box::pin(FacetHook::before_write(self, write))
    }

    fn after_read<'a>(
        &'a self,
        record: &'a mut F,
        read: &'a Reading<'a>,
    ) -> BoxFuture<'a, Result<(), Veto>> {
        Box::pin(FacetHook::after_read(self, record, read))
    }
}
