//! Conditions, filters and updates, typed by the facet's fields.
//!
//! `Facet::fields()` gives one [`Field`] per field; its methods build an [`Expr`] (a
//! condition or filter) or an [`Update`] (a change), and the marker traits below decide at
//! compile time which fields a change may touch:
//!
//! * [`Settable`]: fields any update may set; a field of an index key or the TTL is
//!   [`PartOfAnIndexKeyOrTheTtl`] (its derived attributes are rebuilt with it);
//! * [`PartOfThePrimaryKey`], [`TheVersionCounter`], [`SetByTheLibrary`]: fields no update
//!   may set, each refused with a message saying what to do instead.

pub use faceteer_core::expr::{
    Attribute, Comparable, Encrypted, Expr, ExprError, Field, FieldValue, IfAbsent, Member, Nested,
    NestedAttribute, Numeric, Operand, PartOfAnIndexKeyOrTheTtl, PartOfThePrimaryKey, Path,
    SetByTheLibrary, SetValue, Settable, SignedOnly, Size, Sum, Term, TheVersionCounter, TopLevel,
    Updatable, Update,
};
