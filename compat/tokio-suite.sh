#!/usr/bin/env bash
# tokio's own test suite (tokio 1.54.1's `tests/`, unmodified) built and run against the
# patch crate `compat/tokio`, reporting pass / fail / does-not-compile per file.
#
# The scratch package lives in compat/target/tokio-suite/crate: its own workspace with
# `[patch.crates-io] tokio = { path = <compat/tokio> }`, so tokio-test, tokio-stream and
# every other dev-dependency that names tokio get the patch too. Each `[[test]]` points at
# the original file in the registry source, so `mod support { ... }` resolves to the
# original tests/support/. Features are tokio's CI's without `--cfg tokio_unstable`
# (RUSTFLAGS is cleared); `#[ignore]`d tests are skipped, as libtest does by default.
#
# Usage: compat/tokio-suite.sh [TEST_NAME...]   (default: every tests/*.rs)
#        compat/tokio-suite.sh --report-only     (the report again from the last run's logs)
# Environment: TOKIO_SRC (tokio-1.54.1 source dir), PER_FILE_TIMEOUT (seconds, default 120),
#              BUILD_TIMEOUT (seconds, default 5400), CARGO_BUILD_JOBS.
# Output: a table on stdout and compat/target/tokio-suite/report.md.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
patch_dir="$here/tokio"
state="$here/target/tokio-suite"
crate="$state/crate"
per_file_timeout="${PER_FILE_TIMEOUT:-120}"
build_timeout="${BUILD_TIMEOUT:-5400}"

if [[ -z "${TOKIO_SRC:-}" ]]; then
    TOKIO_SRC="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tokio-1.54.1 2>/dev/null | head -n1)"
fi
if [[ ! -d "$TOKIO_SRC/tests" ]]; then
    echo "tokio 1.54.1 sources not found (set TOKIO_SRC; \`cargo fetch\` of a crate depending on tokio = \"=1.54.1\" brings them)" >&2
    exit 2
fi

report_only=0
if [[ "${1:-}" == "--report-only" ]]; then
    report_only=1
    shift
fi

mkdir -p "$crate" "$state/run"
if [[ $report_only == 1 ]]; then
    python3 "$here/tokio_suite.py" build-json "$state/build.json.log" "$state/build.json" || exit 2
    exec python3 "$here/tokio_suite.py" report "$state" "$TOKIO_SRC" "$(cat "$state/commit.txt")" "$state/report.md"
fi
python3 "$here/tokio_suite.py" gen "$TOKIO_SRC" "$patch_dir" "$crate" || exit 2

if [[ $# -gt 0 ]]; then
    printf '%s\n' "$@" >"$crate/tests.txt"
fi
mapfile -t names <"$crate/tests.txt"

export CARGO_INCREMENTAL=0
export RUSTFLAGS=""
export CARGO_TARGET_DIR="$state/target"
unset RUSTDOCFLAGS CARGO_ENCODED_RUSTFLAGS

# The code under test is runtime/ and compat/tokio/: name the last commit that changed
# them, and the checked-out commit the suite ran on.
root="$(cd "$here/.." && pwd)"
head="$(git -C "$root" rev-parse --short=10 HEAD 2>/dev/null || echo unknown)"
code="$(git -C "$root" log -1 --format=%h --abbrev=10 -- runtime compat/tokio 2>/dev/null || echo unknown)"
commit="$code (last change to runtime/ and compat/tokio/; ran on checkout $head"
if ! git -C "$root" diff --quiet HEAD -- runtime compat/tokio 2>/dev/null; then
    commit="$commit, with uncommitted changes to runtime/ or compat/tokio/"
fi
commit="$commit)"
echo "$commit" >"$state/commit.txt"

# One build of every target, continuing past the ones that fail, with JSON messages so
# that each error and each executable is attributed to its own test target.
test_args=()
for n in "${names[@]}"; do test_args+=(--test "$n"); done
echo "building ${#names[@]} test targets (log: $state/build.log)" >&2
(cd "$crate" && timeout "$build_timeout" cargo build --keep-going \
    --message-format=json "${test_args[@]}") \
    >"$state/build.json.log" 2>"$state/build.log"
echo "build exit status $?" >&2
python3 "$here/tokio_suite.py" build-json "$state/build.json.log" "$state/build.json" || exit 2

# Run each test binary that was built, alone, under a per-file timeout, in a fresh copy of
# tokio's package root: `cargo test` runs a test binary in its package root, and tokio's
# tests read files there (rt_handle_block_on's `basic_fs` reads `Cargo.toml`). The copy
# keeps the registry source untouched by tests that write relative to the working directory.
rm -f "$state"/run/*.log "$state"/run/*.rc "$state"/run/*.list
for n in "${names[@]}"; do
    exe="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2],{}).get("exe",""))' "$state/build.json" "$n")"
    [[ -n "$exe" ]] || continue
    wd="$state/run/pkg"
    rm -rf "$wd" && cp -r "$TOKIO_SRC" "$wd" && chmod -R u+w "$wd"
    echo "running $n" >&2
    (cd "$wd" && timeout 30 "$exe" --list --format terse) >"$state/run/$n.list" 2>/dev/null
    (cd "$wd" && timeout -k 10 "$per_file_timeout" "$exe") >"$state/run/$n.log" 2>&1
    echo $? >"$state/run/$n.rc"
done
rm -rf "$state/run/pkg"

# In a file the per-file timeout killed, the tests that never finished are run again one at
# a time, so that a test queued behind a hung one is not counted as hung itself. Each result
# lands in run/NAME.retry/TEST.log and .rc; the report reads them.
retry_unfinished() {
    local n exe rc t wd
    for n in "${names[@]}"; do
        [[ -f "$state/run/$n.rc" ]] || continue
        rc="$(cat "$state/run/$n.rc")"
        [[ "$rc" == 124 || "$rc" == 137 ]] || continue
        exe="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2],{}).get("exe",""))' "$state/build.json" "$n")"
        rm -rf "$state/run/$n.retry" && mkdir -p "$state/run/$n.retry"
        python3 "$here/tokio_suite.py" unfinished "$state/run/$n.list" "$state/run/$n.log" |
            while read -r t; do
                wd="$state/run/pkg"
                rm -rf "$wd" && cp -r "$TOKIO_SRC" "$wd" && chmod -R u+w "$wd"
                echo "rerunning $n::$t alone" >&2
                (cd "$wd" && timeout -k 10 "$per_file_timeout" "$exe" --exact "$t") \
                    >"$state/run/$n.retry/$t.log" 2>&1
                echo $? >"$state/run/$n.retry/$t.rc"
            done
    done
    rm -rf "$state/run/pkg"
}
retry_unfinished

python3 "$here/tokio_suite.py" report "$state" "$TOKIO_SRC" "$commit" "$state/report.md"
