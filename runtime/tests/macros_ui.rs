//! Compile-fail tests of the declarative macros: each misuse is a file under `ui/` with the
//! expected diagnostics beside it (regenerate with `TRYBUILD=overwrite`, then read them).
#![cfg(not(loom))]

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
