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

mkdir -p "$crate" "$state/run"
python3 "$here/tokio_suite.py" gen "$TOKIO_SRC" "$patch_dir" "$crate" || exit 2

if [[ $# -gt 0 ]]; then
    printf '%s\n' "$@" >"$crate/tests.txt"
fi
mapfile -t names <"$crate/tests.txt"

export CARGO_INCREMENTAL=0
export RUSTFLAGS=""
export CARGO_TARGET_DIR="$state/target"
unset RUSTDOCFLAGS CARGO_ENCODED_RUSTFLAGS

commit="$(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
if ! git -C "$here" diff --quiet HEAD -- . 2>/dev/null; then
    commit="$commit (+ uncommitted changes in compat/)"
fi
if ! git -C "$here/.." diff --quiet HEAD -- runtime 2>/dev/null; then
    commit="$commit (+ uncommitted changes in runtime/)"
fi

# One build of every target, continuing past the ones that fail, with JSON messages so
# that each error and each executable is attributed to its own test target.
test_args=()
for n in "${names[@]}"; do test_args+=(--test "$n"); done
echo "building ${#names[@]} test targets (log: $state/build.log)" >&2
(cd "$crate" && timeout "$build_timeout" cargo test --no-run --keep-going \
    --message-format=json "${test_args[@]}") \
    >"$state/build.json.log" 2>"$state/build.log"
echo "build exit status $?" >&2
python3 "$here/tokio_suite.py" build-json "$state/build.json.log" "$state/build.json" || exit 2

# Run each test binary that was built, alone, under a per-file timeout. Each runs in its
# own scratch directory (some tests create files relative to the working directory).
rm -f "$state"/run/*.log "$state"/run/*.rc
for n in "${names[@]}"; do
    exe="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2],{}).get("exe",""))' "$state/build.json" "$n")"
    [[ -n "$exe" ]] || continue
    wd="$state/run/$n.wd"
    rm -rf "$wd" && mkdir -p "$wd"
    echo "running $n" >&2
    (cd "$wd" && timeout -k 10 "$per_file_timeout" "$exe") >"$state/run/$n.log" 2>&1
    echo $? >"$state/run/$n.rc"
    rm -rf "$wd"
done

python3 "$here/tokio_suite.py" report "$state" "$TOKIO_SRC" "$commit" "$state/report.md"
