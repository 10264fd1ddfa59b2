//! What a `before_write` hook sees of a write ([`Write`]), and what it may ask of the stored
//! record ([`Write::require`]).

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::expr::{Field, TopLevel, Update};
use faceteer_core::facet::Veto;
use faceteer_core::{Facet, Key};

use super::context::Context;

/// Which kind of call a write is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WritePath {
    /// `put` (and a `modify` that writes the whole record).
    Put,
    /// `upsert`.
    Upsert,
    /// `update` (also an update that may create, and a `save` or `modify` of what changed).
    Update,
    /// `delete`.
    Delete,
    /// `move_to`: the record at its new key (the old one is deleted).
    Move,
    /// A step of `transact_write`.
    Transaction,
    /// `put_many`, `delete_many`, `write_batch`.
    Batch,
    /// A record rewritten by a backfill.
    Backfill,
}

/// What is written.
#[non_exhaustive]
pub enum Target<'w, F> {
    /// A whole record (a put, an upsert, a move, a batch put, a backfill's rewrite).
    Record(&'w mut F),
    /// A change of the record under `key` (an update), and the record it creates when none
    /// is stored (`or_create`).
    Change {
        /// The record's key.
        key: &'w Key<F>,
        /// The change, which the hook may add to.
        change: &'w mut Update<F>,
        /// The record to create when none is stored.
        create: Option<&'w mut F>,
    },
    /// A delete of the record under `key`.
    Delete {
        /// The record's key.
        key: &'w Key<F>,
    },
}

/// A value the stored record must hold for the write to apply: checked on the server in the
/// write's condition, and named as the hook's refusal when it does not hold.
#[derive(Debug, Clone)]
pub(crate) struct Requirement {
    pub(crate) hook: &'static str,
    pub(crate) attribute: &'static str,
    pub(crate) value: Option<AttributeValue>,
}

/// A write as a `before_write` hook sees it: what is written, on which path, with the
/// call's context. The hook may change the record (or the update), add requirements on the
/// stored record, or refuse the write with its [`Veto`].
pub struct Write<'w, F> {
    pub(crate) target: Target<'w, F>,
    pub(crate) path: WritePath,
    pub(crate) context: &'w Context,
    pub(crate) table: &'w str,
    pub(crate) hook: &'static str,
    pub(crate) requires: &'w mut Vec<Requirement>,
}

impl<'w, F: Facet> Write<'w, F> {
    /// What is written.
    pub fn target(&mut self) -> &mut Target<'w, F> {
        &mut self.target
    }

    /// The record written: a whole record, or the one an update creates when none is stored.
    pub fn record(&mut self) -> Option<&mut F> {
        match &mut self.target {
            Target::Record(r) => Some(r),
            Target::Change { create, .. } => create.as_deref_mut(),
            Target::Delete { .. } => None,
        }
    }

    /// The update, for an update.
    pub fn change(&mut self) -> Option<&mut Update<F>> {
        match &mut self.target {
            Target::Change { change, .. } => Some(change),
            _ => None,
        }
    }

    /// The key written, for an update or a delete (a record's key is
    /// `record.primary_key()`).
    pub fn key(&self) -> Option<&Key<F>> {
        match &self.target {
            Target::Change { key, .. } | Target::Delete { key } => Some(key),
            Target::Record(_) => None,
        }
    }

    /// The kind of call.
    pub fn path(&self) -> WritePath {
        self.path
    }

    /// The value of type `T` in the call's context.
    pub fn context<T: 'static>(&self) -> Option<&T> {
        self.context.get::<T>()
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        self.table
    }

    /// [`Write::require`] by attribute name, with the value as stored (`None`: no
    /// attribute): for hooks on every facet of a table, which know no field handles.
    pub fn require_attribute(&mut self, attribute: &'static str, value: Option<AttributeValue>) {
        self.requires.push(Requirement {
            hook: self.hook,
            attribute,
            value,
        });
    }

    /// The write applies only if the stored record holds `value` in `field` (absent when it
    /// is stored as nothing); a write that may create the record also applies when none is
    /// stored. Checked on the server in the write's own condition, so no other writer can
    /// slip between; when it does not hold, the write fails with
    /// [`Error::Refused`](crate::Error::Refused), this hook named. Batches carry no
    /// conditions: a requirement on a batch write refuses it.
    pub fn require<T, S, K: TopLevel + faceteer_core::expr::Comparable>(
        &mut self,
        field: Field<F, T, S, K>,
        value: T,
    ) -> Result<(), Veto> {
        let value = field
            .encoded(value)
            .map_err(|e| Veto::because(self.hook, format!("`{}`: {e}", field.name())))?;
        self.require_attribute(field.name(), value);
        Ok(())
    }
}
