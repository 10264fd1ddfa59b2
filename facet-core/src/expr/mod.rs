//! Typed expressions over a facet's fields: conditions and filters ([`Expr`]), and updates
//! ([`Update`]), built from the field handles ([`Field`]).
//!
//! `#[derive(Facet)]` generates a `<Facet>Fields` struct with one [`Field`] per struct field
//! (reach it with `Facet::fields()`). A [`Field<F, T>`] is typed by the field's value type
//! (`Option` removed), so comparisons take that type:
//!
//! ```text
//! let f = Task::fields();
//! let cond = f.status.eq(TaskStatus::Open) & f.date_due.lt(now) | !f.assigned_user_id.exists();
//! ```
//!
//! Expressions render with placeholders only (`#n0`, `:v0`): no field name or value is ever
//! spliced into the expression text.

mod condition;
mod error;
mod field;
mod member;
mod nested;
mod operand;
mod path;
mod update;

pub use condition::{same_value, Comparator, Expr, Size};
pub use error::ExprError;
pub(crate) use field::HandleDebug;
pub use field::{
    encode_plain, Attribute, Collection, Comparable, Encoded, Encoder, Encrypted, Field,
    FieldValue, NestedAttribute, Numeric, PartOfAnIndexKeyOrTheTtl, PartOfThePrimaryKey,
    SetByTheLibrary, Settable, SignedOnly, TheVersionCounter, TopLevel, Updatable,
};
pub use member::Member;
pub use nested::Nested;
pub use operand::{IfAbsent, Operand, Rhs, SetValue, Sum, Term};
pub use path::{Nest, Path, NEST_DEPTH};
pub use update::{
    derived_key, from_key_text, key_pieces, Derived, KeyValue, Keyed, KeyedValues, Need, Update,
};
