//! The hooks and context of a handle: [`Table::with_context`], and the hooks of a call.

use std::sync::Arc;

use faceteer_core::Facet;

use super::Table;
use crate::hook::{current, Hooked};

impl Table {
    /// The same table, with `value` in the context its hooks see (replacing one of its
    /// type): cheap, like every handle option.
    ///
    /// ```no_run
    /// # async fn demo(table: &faceteer::Table) {
    /// #[derive(Clone)]
    /// struct UserId(String);
    /// let as_ann = table.with_context(UserId("ann".into()));
    /// # }
    /// ```
    pub fn with_context<T: Send + Sync + 'static>(&self, value: T) -> Table {
        let mut table = self.clone();
        let context = self.context.as_deref().cloned().unwrap_or_default();
        table.context = Some(Arc::new(context.with(value)));
        table
    }

    /// The same table, acting for tenant `id` (the context of the built-in
    /// [`Tenant`](crate::hook::Tenant) hook): `with_context(TenantId(id))`.
    pub fn for_tenant(&self, id: impl Into<std::sync::Arc<str>>) -> Table {
        self.with_context(crate::hook::TenantId(id.into()))
    }

    /// The request hooks of a call starting now, with its context, when the table has any.
    pub(crate) fn request_hooks(&self) -> Option<(Arc<crate::hook::Hooks>, crate::hook::Context)> {
        let hooks = self.hooks.as_ref()?;
        if hooks.request_hooks().is_empty() {
            return None;
        }
        Some((hooks.clone(), current(self.context.as_deref())))
    }

    /// Whether the table runs no hooks.
    pub(crate) fn hooks_none(&self) -> bool {
        self.hooks.is_none()
    }

    /// The hooks of facet `F` for a call starting now (with the call's context), or `None`
    /// when it has none.
    pub(crate) fn hooks_for<F: Facet>(&self) -> Option<Hooked<'_, F>> {
        Hooked::of(
            self.hooks.as_deref()?,
            current(self.context.as_deref()),
            self.name(),
            self.call_deadline(),
            self.timeouts().call,
        )
    }
}
