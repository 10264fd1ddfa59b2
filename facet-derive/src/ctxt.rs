//! The one error context of a derive, in the manner of serde_derive's `internals::ctxt`.
//!
//! Every step (parse, model, check, expansion) reports into one [`Ctxt`]; the caller
//! [`check`](Ctxt::check)s it once at the end and, on errors, emits them all. A context
//! dropped unchecked panics, so no error is ever lost.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use syn::spanned::Spanned;

/// The errors of one derive, in the order they are reported.
pub struct Ctxt {
    /// `None` once [`Ctxt::check`] has taken them.
    errors: RefCell<Option<Vec<syn::Error>>>,
    /// Errors in the syntax of a field's key attributes (`#[pk(..)]`, `#[gsi(..)]`, …),
    /// reported after all the others.
    syntax: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// An empty context.
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
            syntax: RefCell::new(Vec::new()),
        }
    }

    /// Report `msg` at `span`.
    pub fn error_at(&self, span: Span, msg: impl Display) {
        self.syn_error(syn::Error::new(span, msg));
    }

    /// Report `msg` at `node` (the span `node.span()` gives, as `darling::Error::with_span`).
    pub fn error_spanned_by<T: Spanned + ?Sized>(&self, node: &T, msg: impl Display) {
        self.error_at(node.span(), msg);
    }

    /// Report an error built elsewhere.
    pub fn syn_error(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("the context is checked once, at the end")
            .push(err);
    }

    /// Report darling's errors (each of a [`darling::Error::multiple`] in turn).
    pub fn darling_error(&self, err: darling::Error) {
        self.syn_error(err.into());
    }

    /// Report an error in a field's key attribute syntax: it comes after every other error.
    pub fn syntax_error(&self, err: darling::Error) {
        self.syntax.borrow_mut().push(err.into());
    }

    /// The value of a parsed key attribute, or `None` with its error reported as
    /// [`Ctxt::syntax_error`].
    pub fn syntax<T>(&self, parsed: darling::Result<T>) -> Option<T> {
        parsed.map_err(|e| self.syntax_error(e)).ok()
    }

    /// Take every error reported, in order; `Ok` when there were none.
    pub fn check(self) -> Result<(), Vec<syn::Error>> {
        let mut errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("the context is checked once");
        errors.append(&mut self.syntax.borrow_mut());
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("a derive's error context was dropped without being checked");
        }
    }
}
