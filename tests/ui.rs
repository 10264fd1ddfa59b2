//! Compile-fail tests: the derive's errors, with `.stderr` snapshots a user can act on.
//! Regenerate snapshots with `TRYBUILD=overwrite cargo test --test ui` and review them.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
