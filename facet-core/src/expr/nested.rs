//! [`Nested`]: a struct stored as a map inside a facet's attribute, whose members get typed
//! handles (`f.address.city`).

/// A struct stored as a map inside an attribute, with typed handles on its members.
///
/// `#[derive(Nested)]` implements it; mark the facet's field `#[nested]` and its handle
/// reaches each member (`Task::fields().address.city`), for conditions, filters, updates and
/// projections, each value encoded as the member's own serde options store it. The handle
/// of the whole field stays reachable through the members' `Deref` (`f.address.exists()`,
/// `f.address.set(addr)`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no typed member handles",
    label = "a `#[nested]` field holds `{Self}`",
    note = "add `#[derive(faceteer::Nested)]` to `{Self}` (a struct with named fields), or \
            remove `#[nested]` and reach its members with `.member::<T>(\"name\")`"
)]
pub trait Nested {
    /// The handles on the members, under a field of facet `F` declared as `S`, of kind `K`.
    type Members<F, S, K>: Copy;
}
