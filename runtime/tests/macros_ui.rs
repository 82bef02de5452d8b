//! Compile-fail tests of the declarative macros: each misuse is a file under `ui/` with the
//! expected diagnostics beside it (regenerate with `TRYBUILD=overwrite`, then read them).
#![cfg(not(loom))]

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

/// `#[runtime::test(deterministic)]` without the `deterministic` feature says how to turn
/// it on (trybuild builds `runtime` with this test's features, so only without it).
#[cfg(not(feature = "deterministic"))]
#[test]
fn ui_without_the_deterministic_feature() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/without_feature/*.rs");
}
