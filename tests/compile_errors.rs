//! Compile-fail tests: the derive's errors, with `.stderr` snapshots a user can act on.
//! Regenerate snapshots with `TRYBUILD=overwrite cargo test --test integration -- compile_errors` and
//! review them.
//!
//! They run inside the integration binary, beside its tests: trybuild spends most of its
//! time checking the dependencies, while most integration tests wait on their servers.

#[test]
fn tell_what_to_do() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
