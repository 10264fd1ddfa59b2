//! Values a call carries to its hooks: set on a handle
//! ([`Table::with_context`](crate::Table::with_context)) or, for middleware, around a task
//! ([`scope`]).

use std::any::{Any, TypeId};
use std::future::Future;
use std::sync::Arc;

/// Typed values for hooks, one per type: the tenant, the user, a request id.
#[derive(Clone, Default)]
pub struct Context {
    values: Vec<(TypeId, Arc<dyn Any + Send + Sync>)>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("values", &self.values.len())
            .finish()
    }
}

impl Context {
    /// The same values, and `value` (replacing one of its type).
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.values.retain(|(id, _)| *id != TypeId::of::<T>());
        self.values.push((TypeId::of::<T>(), Arc::new(value)));
        self
    }

    /// The value of type `T`, if one is set.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.values
            .iter()
            .find(|(id, _)| *id == TypeId::of::<T>())
            .and_then(|(_, v)| v.downcast_ref::<T>())
    }

    /// The values of `self`, then those of `fallback` for types `self` does not hold.
    pub(crate) fn or(&self, fallback: &Context) -> Context {
        let mut out = self.clone();
        for (id, v) in &fallback.values {
            if !out.values.iter().any(|(mine, _)| mine == id) {
                out.values.push((*id, v.clone()));
            }
        }
        out
    }
}

tokio::task_local! {
    static SCOPED: Context;
}

/// Run `fut` with `value` in the context of every call it makes (for middleware that knows
/// the tenant or user of a request): a value set on the handle
/// ([`Table::with_context`](crate::Table::with_context)) wins over one of the same type here.
pub async fn scope<T: Send + Sync + 'static, R>(value: T, fut: impl Future<Output = R>) -> R {
    let context = SCOPED
        .try_with(Context::clone)
        .unwrap_or_default()
        .with(value);
    SCOPED.scope(context, fut).await
}

/// The context of a call on a handle whose own values are `handle`: those, then the task's.
pub(crate) fn current(handle: Option<&Context>) -> Context {
    let handle = handle.cloned().unwrap_or_default();
    match SCOPED.try_with(Context::clone) {
        Ok(scoped) => handle.or(&scoped),
        Err(_) => handle,
    }
}
