//! Running a facet's hooks: before a write (on an owned copy of the record, collecting what
//! they require of the stored record) and after a read.

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::expr::{same_value, Expr, Update};
use faceteer_core::facet::{ItemError, Veto};
use faceteer_core::schema::PK;
use faceteer_core::{Facet, Item, Key};

use super::context::Context;
use super::registry::FacetHooks;
use super::traits::{ReadKind, Reading};
use super::write::{Requirement, Target, Write, WritePath};
use crate::error::{Error, Result};

/// The hooks of facet `F` on one call of a table, with the call's context.
pub(crate) struct Hooked<'t, F> {
    hooks: &'t FacetHooks<F>,
    context: Context,
    table: &'t str,
    /// When the call must be over: hooks run under the call's deadline too.
    deadline: tokio::time::Instant,
    /// The call's bound, for the error.
    bound: std::time::Duration,
}

impl<'t, F: Facet> Hooked<'t, F> {
    /// The hooks of `F` among `hooks`, for a call on table `table` with `context`.
    pub(crate) fn of(
        hooks: &'t super::registry::Hooks,
        context: Context,
        table: &'t str,
        deadline: tokio::time::Instant,
        bound: std::time::Duration,
    ) -> Option<Self> {
        Some(Hooked {
            hooks: hooks.of::<F>()?,
            context,
            table,
            deadline,
            bound,
        })
    }
}

/// What the hooks required of the stored record, checked in a write's condition.
#[derive(Debug, Clone, Default)]
pub(crate) struct Requires(pub(crate) Vec<Requirement>);

impl Requires {
    /// The condition: the stored record holds each value; `may_create`: or none is stored.
    pub(crate) fn condition<F>(&self, may_create: bool) -> Option<Expr<F>> {
        let all = self
            .0
            .iter()
            .map(|r| Expr::stored_as(r.attribute, r.value.clone()))
            .reduce(Expr::and)?;
        Some(if may_create {
            Expr::absent(PK).or(all)
        } else {
            all
        })
    }

    /// The first requirement `stored` breaks (a refused write's stored record), as the
    /// refusal of its hook.
    pub(crate) fn broken(&self, stored: Option<&Item>) -> Option<Veto> {
        let stored = stored?;
        self.0
            .iter()
            .find(|r| !same_value(stored.get(r.attribute), r.value.as_ref()))
            .map(|r| {
                Veto::because(
                    r.hook,
                    format!(
                        "the stored record's `{}` is {}, not {}",
                        r.attribute,
                        shown(stored, r.attribute, stored.get(r.attribute)),
                        shown(stored, r.attribute, r.value.as_ref())
                    ),
                )
            })
    }
}

/// A value of `attribute` of the item `stored` as a refusal prints it (masked when the field
/// is `#[sensitive]`).
fn shown(stored: &Item, attribute: &str, v: Option<&AttributeValue>) -> String {
    let facet = match stored.get(faceteer_core::schema::FACET_ATTRIBUTE) {
        Some(AttributeValue::S(f)) => Some(f.as_str()),
        _ => None,
    };
    if v.is_some() && faceteer_core::redact::is_sensitive(facet, attribute) {
        return faceteer_core::redact::REDACTED.into();
    }
    match v {
        None => "absent".into(),
        Some(AttributeValue::S(s)) => format!("{s:?}"),
        Some(AttributeValue::N(n)) => n.clone(),
        Some(other) => format!("{other:?}"),
    }
}

/// A whole record, as itself (for the `after_read` hooks of a page).
pub(crate) fn whole<F>(record: &mut F) -> Option<&mut F> {
    Some(record)
}

/// An owned copy of `record` (through its attributes: facets need not be `Clone`).
pub(crate) fn copy_of<F: Facet>(record: &F) -> std::result::Result<F, ItemError> {
    let item = faceteer_core::convert::record_attributes(record)?;
    faceteer_core::unmarshal::from_attributes(item, &|_, _| false)
        .map_err(|source| ItemError::deserialize(F::SCHEMA.name, source))
}

/// A hook's refusal of a write of `F` under `key`, as the error of `operation`.
pub(crate) fn refused<F: Facet>(
    operation: &'static str,
    key: Option<&Key<F>>,
    veto: Veto,
) -> Error {
    let (pk, sk) = key.map_or_else(Default::default, |k| (k.pk().to_owned(), k.sk().to_owned()));
    Error::Refused {
        operation,
        facet: F::SCHEMA.name,
        pk: pk.into(),
        sk: sk.into(),
        veto,
    }
}

impl<F: Facet> Hooked<'_, F> {
    /// The call's deadline passed while `operation`'s hooks ran: nothing was sent.
    fn too_late(&self, operation: &'static str) -> Error {
        Error::DeadlineExceeded {
            operation,
            table: self.table.to_owned(),
            after: self.bound,
            sent: false,
        }
    }

    /// [`Self::run`] under the call's deadline.
    async fn run_within(
        &self,
        operation: &'static str,
        target: Target<'_, F>,
        path: WritePath,
    ) -> Result<std::result::Result<Requires, Veto>> {
        tokio::time::timeout_at(self.deadline, self.run(target, path))
            .await
            .map_err(|_| self.too_late(operation))
    }

    async fn run(
        &self,
        target: Target<'_, F>,
        path: WritePath,
    ) -> std::result::Result<Requires, Veto> {
        let mut requires = Vec::new();
        let mut write = Write {
            target,
            path,
            context: &self.context,
            table: self.table,
            hook: "",
            requires: &mut requires,
        };
        for hook in &self.hooks.list {
            write.hook = hook.name();
            hook.before_write(&mut write).await?;
        }
        // The server cannot compare an encrypted attribute (and the plaintext would travel
        // in the condition): such a requirement refuses the write before anything is sent.
        if let Some(r) = requires
            .iter()
            .find(|r| F::CRYPTO.is_some_and(|c| c.is_encrypted(r.attribute)))
        {
            return Err(Veto::because(
                r.hook,
                format!(
                    "it requires the stored `{}`, which is encrypted: the server cannot compare \
                     it",
                    r.attribute
                ),
            ));
        }
        Ok(Requires(requires))
    }

    /// Before a write of `record` on `path` (by `operation`): the record as the hooks leave
    /// it, and what they require of the stored record.
    pub(crate) async fn record(
        &self,
        operation: &'static str,
        record: &F,
        path: WritePath,
    ) -> Result<(F, Requires)> {
        let mut owned = copy_of(record)?;
        match self
            .run_within(operation, Target::Record(&mut owned), path)
            .await?
        {
            Ok(requires) => Ok((owned, requires)),
            Err(veto) => Err(refused::<F>(
                operation,
                record.primary_key().ok().as_ref(),
                veto,
            )),
        }
    }

    /// Before an update of the record under `key` (and the record it creates).
    pub(crate) async fn change(
        &self,
        key: &Key<F>,
        change: &mut Update<F>,
        create: Option<&mut F>,
    ) -> Result<Requires> {
        let target = Target::Change {
            key,
            change,
            create,
        };
        self.run_within("UpdateItem", target, WritePath::Update)
            .await?
            .map_err(|veto| refused::<F>("UpdateItem", Some(key), veto))
    }

    /// Before a delete of the record under `key`.
    pub(crate) async fn delete(&self, key: &Key<F>, path: WritePath) -> Result<Requires> {
        self.run_within("DeleteItem", Target::Delete { key }, path)
            .await?
            .map_err(|veto| refused::<F>("DeleteItem", Some(key), veto))
    }

    /// After a write that returns `record`: the `after_read` hooks, best effort. The write
    /// was applied, so a hook that refuses the record does not fail it: the record is
    /// returned as the write left it, and a warning is logged.
    pub(crate) async fn returned(&self, record: &mut F) {
        let before = copy_of(record);
        if let Err(e) = self.after_read(record, ReadKind::Returned).await {
            tracing::warn!(
                facet = F::SCHEMA.name,
                error = %e,
                "faceteer: a hook refused a record a write returned; it is returned as written"
            );
            if let Ok(before) = before {
                *record = before;
            }
        }
    }

    /// After a read of `record` (hooks in reverse order), under the call's deadline: a hook
    /// still running then refuses the record.
    pub(crate) async fn after_read(
        &self,
        record: &mut F,
        kind: ReadKind,
    ) -> std::result::Result<(), ItemError> {
        let read = Reading {
            kind,
            context: &self.context,
            table: self.table,
        };
        let run = async {
            for hook in self.hooks.list.iter().rev() {
                hook.after_read(record, &read).await?;
            }
            Ok(())
        };
        let refused = |veto| ItemError::Refused {
            facet: F::SCHEMA.name,
            veto,
        };
        match tokio::time::timeout_at(self.deadline, run).await {
            Ok(ran) => ran.map_err(refused),
            Err(_) => Err(refused(Veto::because(
                "",
                format!(
                    "the read's hooks did not finish within the call's {:?}",
                    self.bound
                ),
            ))),
        }
    }
}
