//! [`Hooks`]: the hooks of a table, by facet, in the order they run.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use faceteer_core::table::{FacetVisitor, TableSchema};
use faceteer_core::Facet;

use super::request::{DynRequestHook, RequestHook};
use super::traits::{DynFacetHook, EveryFacet, FacetHook, TableHook};

/// The hooks of one facet, in registration order.
pub(crate) struct FacetHooks<F> {
    pub(crate) list: Vec<Arc<dyn DynFacetHook<F>>>,
}

/// The hooks of a table: give them to [`Table::with_hooks`](crate::Table::with_hooks).
///
/// ```no_run
/// # use faceteer::hook::{FacetHook, Hooks, Write};
/// # use faceteer::hook::Veto;
/// # use faceteer::{Facet, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Facet, Serialize, Deserialize)]
/// # struct Note { #[pk(prefix = "#N")] #[sk(prefix = "#N")] id: String, body: String }
/// # struct Audit;
/// # impl FacetHook<Note> for Audit { fn name(&self) -> &'static str { "audit" } }
/// # fn demo(table: Table) -> faceteer::Result<Table> {
/// let table = table.with_hooks(Hooks::new().facet::<Note, _>(Audit))?;
/// # Ok(table) }
/// ```
#[derive(Default)]
pub struct Hooks {
    /// `FacetHooks<F>` by the facet's type.
    facets: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
    /// The facet names with hooks (an undeclared facet is refused by `with_hooks`).
    names: Vec<&'static str>,
    /// Why the hooks cannot be used (a table hook given a table whose facets are unknown).
    problems: Vec<String>,
    /// The request hooks, in order.
    requests: Vec<Arc<dyn DynRequestHook>>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("facets", &self.names)
            .finish()
    }
}

impl Hooks {
    /// No hooks yet.
    pub fn new() -> Self {
        Hooks::default()
    }

    /// `hook` on the records of facet `F`, after the hooks registered before it.
    pub fn facet<F: Facet, H: FacetHook<F>>(mut self, hook: H) -> Self {
        self.push::<F>(Arc::new(hook));
        self
    }

    /// `hook` on the records of every facet of table `S` (declared with
    /// `faceteer::table!`), after the hooks registered before it.
    pub fn table<S: TableSchema, H: TableHook>(mut self, hook: H) -> Self {
        struct Each<'h, H> {
            hooks: &'h mut Hooks,
            hook: Arc<H>,
            seen: usize,
        }
        impl<H: TableHook> FacetVisitor for Each<'_, H> {
            fn visit<F: Facet>(&mut self) {
                self.hooks
                    .push::<F>(Arc::new(EveryFacet(self.hook.clone())));
                self.seen += 1;
            }
        }
        let mut each = Each {
            hooks: &mut self,
            hook: Arc::new(hook),
            seen: 0,
        };
        S::visit_facets(&mut each);
        let (seen, name) = (each.seen, each.hook.name());
        if seen != S::FACETS.len() {
            self.problems.push(format!(
                "the table hook `{name}` reached {seen} of the {} facets of `{}`: declare the \
                 table with `faceteer::table!`, or register the hook on each facet",
                S::FACETS.len(),
                std::any::type_name::<S>()
            ));
        }
        self
    }

    /// `hook` around the requests of every operation, after the request hooks registered
    /// before it.
    pub fn requests<H: RequestHook>(mut self, hook: H) -> Self {
        self.requests.push(Arc::new(hook));
        self
    }

    /// The request hooks.
    pub(crate) fn request_hooks(&self) -> &[Arc<dyn DynRequestHook>] {
        &self.requests
    }

    fn push<F: Facet>(&mut self, hook: Arc<dyn DynFacetHook<F>>) {
        let slot = self
            .facets
            .entry(TypeId::of::<F>())
            .or_insert_with(|| Box::new(FacetHooks::<F> { list: Vec::new() }));
        if let Some(hooks) = slot.downcast_mut::<FacetHooks<F>>() {
            hooks.list.push(hook);
        }
        if !self.names.contains(&F::SCHEMA.name) {
            self.names.push(F::SCHEMA.name);
        }
    }

    /// The hooks of facet `F`, if any.
    pub(crate) fn of<F: Facet>(&self) -> Option<&FacetHooks<F>> {
        self.facets
            .get(&TypeId::of::<F>())
            .and_then(|h| h.downcast_ref::<FacetHooks<F>>())
            .filter(|h| !h.list.is_empty())
    }

    /// The facets with hooks.
    pub(crate) fn facet_names(&self) -> &[&'static str] {
        &self.names
    }

    /// Why the hooks cannot be used, if they cannot.
    pub(crate) fn problems(&self) -> &[String] {
        &self.problems
    }
}
