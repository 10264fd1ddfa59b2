//! [`Veto`]: a hook's refusal of a write or of a record read, with the hook's own error.

use std::sync::Arc;

/// A hook's refusal: which hook refused, and its own error (reach it with
/// [`Veto::downcast_ref`]).
#[derive(Clone)]
pub struct Veto {
    hook: &'static str,
    why: Arc<dyn std::error::Error + Send + Sync>,
}

impl Veto {
    /// Hook `hook` refuses, for `why` (the hook's own error type).
    pub fn new(hook: &'static str, why: impl std::error::Error + Send + Sync + 'static) -> Self {
        Veto {
            hook,
            why: Arc::new(why),
        }
    }

    /// Hook `hook` refuses, saying `why`.
    pub fn because(hook: &'static str, why: impl Into<String>) -> Self {
        Veto::new(hook, Refused(why.into()))
    }

    /// The name of the hook that refused.
    pub fn hook(&self) -> &'static str {
        self.hook
    }

    /// The hook's error.
    pub fn error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.why
    }

    /// The hook's error as `E`, when it is one.
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.why.downcast_ref::<E>()
    }
}

impl std::fmt::Debug for Veto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Veto")
            .field("hook", &self.hook)
            .field("why", &self.why.to_string())
            .finish()
    }
}

impl std::fmt::Display for Veto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "hook `{}` refused: {}", self.hook, self.why)
    }
}

impl std::error::Error for Veto {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.why)
    }
}

/// A refusal given as text ([`Veto::because`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);
