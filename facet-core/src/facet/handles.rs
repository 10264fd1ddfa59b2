//! What a facet's generated handles struct (`<Facet>Fields`) prints: one routine for every
//! facet, read from its [`Facet::FIELDS`], rather than a printing routine in each expansion.

use std::fmt;

use super::record::Facet;
use crate::expr::HandleDebug;

/// Print the handles struct of facet `F`, named `name`, as a derived `Debug` would:
/// `TaskFields { title: Field(title), .. }`, one handle per stored field, in declaration
/// order, each as [`crate::expr::Field`] prints itself.
#[doc(hidden)]
pub fn debug_handles<F: Facet>(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let mut out = f.debug_struct(name);
    for field in F::FIELDS.iter().filter(|field| field.stored) {
        out.field(field.field, &HandleDebug(field.attribute));
    }
    out.finish()
}
