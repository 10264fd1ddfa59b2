//! The marker traits `#[derive(Facet)]` implements: what a facet's records allow.

use super::record::Facet;

/// A facet with a `#[version]` field: its records can be changed with optimistic locking
/// (`Table::modify`). Implemented by `#[derive(Facet)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `#[version]` field",
    note = "add a `#[version] version: u64` field to `{Self}`: read-modify-write needs a \
            version to detect a concurrent change"
)]
pub trait Versioned: Facet {}

/// A facet whose records can be put in a batch write (`put_many`, `write_batch`): one with
/// neither a `#[version]` field nor `#[unique]` fields, which every write must check, and a
/// batch write cannot. Implemented by `#[derive(Facet)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` records cannot be put in a batch write",
    label = "a batch write cannot check a version or a unique value",
    note = "`{Self}` has a `#[version]` field or `#[unique]` fields, which every write must \
            check, and a batch write carries no condition: write each record with \
            `table.put(..)` or `table.modify(..)`, or several at once, all or none, with \
            `table.transact_write()`"
)]
pub trait BatchWritable: Facet {}

/// A facet whose records can be deleted in a batch write (`delete_many`, `write_batch`):
/// one without `#[unique]` fields, whose guards a delete must remove in the same
/// transaction. Implemented by `#[derive(Facet)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` records cannot be deleted in a batch write",
    label = "a batch write cannot remove the guards of unique values",
    note = "`{Self}` has `#[unique]` fields: a delete removes their guard items in one \
            transaction with the record; delete each record with `table.delete(..)`, or \
            several with `table.transact_write()`"
)]
pub trait BatchDeletable: Facet {}

/// A type a `#[unique]` field can have: any type a key can be built from (strings, integers,
/// `bool`, `DateTime<Utc>`, `#[derive(KeyPart)]` enums), or an `Option` of one (an absent
/// value is not guarded).
#[diagnostic::on_unimplemented(
    message = "a `#[unique]` field cannot have the type `{Self}`",
    note = "a unique value is guarded by an item whose key is built from it: use a string, an \
            integer, a `bool`, a `DateTime<Utc>` or a `#[derive(KeyPart)]` enum, or an \
            `Option` of one"
)]
pub trait UniqueValue {}

impl<T: crate::key::KeyPart + ?Sized> UniqueValue for T {}
