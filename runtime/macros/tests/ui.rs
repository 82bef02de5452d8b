//! Compile-fail tests: each misuse of the macros is one file under `ui/` with its
//! expected diagnostics in the `.stderr` beside it (regenerate with
//! `TRYBUILD=overwrite`, then read them). `ui/pass/` holds whole programs that must
//! build and run, e.g. a real `fn main` returning a `Result`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
