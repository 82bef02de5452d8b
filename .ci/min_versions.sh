#!/usr/bin/env bash
# Dependency lower bounds: every requirement of the crates users build names a version the
# code builds with, so a project whose Cargo.lock predates the runtime adds it and builds
# without `cargo update`.
#
# 1. Minimal direct versions. A scratch copy holds only the crates users build (shim, queue,
#    task, io-driver, runtime, runtime-macros) and the root manifest's [workspace.dependencies],
#    without their dev-dependencies (a dependent never resolves those).
#    `cargo update -Z direct-minimal-versions` then locks every direct dependency at the
#    lowest version its requirement admits (transitive ones at their newest), and the runtime
#    builds in each feature set: default (`tokio-traits`), none (the `tokio` patch crate's
#    route), and `hyper`.
# 2. An old lock file. A scratch project shaped like tokio's mini-redis (tokio "full", bytes)
#    locks tokio 1.32.0 and shared crates of that lock's era, then adds the runtime as a path
#    dependency and runs `cargo build` with no `cargo update`. Cargo keeps each locked version
#    that the runtime's requirement accepts and moves only those it rejects, so a bound below
#    what the code needs fails here whenever the lock's version lies between the two
#    (`tokio = "1"` over a locked tokio 1.32.0: `error[E0432]: unresolved imports
#    tokio::io::join`).
#
# `-Z direct-minimal-versions` is unstable; RUSTC_BOOTSTRAP=1 lets the stable cargo take it.
# Needs the crates.io index. CARGO_TARGET_DIR, when set, is shared by both builds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0
scratch=$(mktemp -d "${TMPDIR:-/tmp}/min_versions.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

crates=(shim queue task io-driver runtime runtime/macros)

echo "== scratch workspace of the crates users build: $scratch/ws"
mkdir -p "$scratch/ws"
for c in "${crates[@]}"; do
  mkdir -p "$scratch/ws/$c"
  # Tracked files only: no target/, no untracked leftovers.
  (cd "$root" && git ls-files -z -- "$c") | (cd "$root" && xargs -0 cp --parents -t "$scratch/ws")
done
cp "$root/Cargo.toml" "$scratch/ws/Cargo.toml"
python3 - "$scratch/ws" "${crates[@]}" <<'EOF'
import re, sys, pathlib
ws, crates = pathlib.Path(sys.argv[1]), sys.argv[2:]
# The root manifest: members are the user crates only.
root = ws / "Cargo.toml"
text = root.read_text()
members = "members = [\n" + "".join(f'    "{c}",\n' for c in crates) + "]"
text, n = re.subn(r"(?ms)^members = \[.*?^\]", members, text, count=1)
assert n == 1, "root Cargo.toml: no members list"
root.write_text(text)
# Each crate: drop [dev-dependencies] and [target.'...'.dev-dependencies] tables.
for c in crates:
    manifest = ws / c / "Cargo.toml"
    out, skip = [], False
    for line in manifest.read_text().splitlines(keepends=True):
        header = re.match(r"\s*\[([^\[\]]+)\]\s*(#.*)?$", line)
        if header:
            skip = header.group(1).strip().endswith("dev-dependencies")
        if not skip:
            out.append(line)
    manifest.write_text("".join(out))
EOF

cd "$scratch/ws"
echo "== cargo update -Z direct-minimal-versions"
RUSTC_BOOTSTRAP=1 cargo update -Z direct-minimal-versions
echo "== cargo build -p runtime (default features: tokio-traits)"
cargo build --locked -p runtime
echo "== cargo build -p runtime --no-default-features"
cargo build --locked -p runtime --no-default-features
echo "== cargo build -p runtime --features hyper"
cargo build --locked -p runtime --features hyper
echo "== cargo build -p runtime-macros"
cargo build --locked -p runtime-macros

echo "== an old lock file (tokio 1.32.0) adds the runtime and builds without cargo update"
mkdir -p "$scratch/old-lock/src"
cd "$scratch/old-lock"
cat >Cargo.toml <<'EOF'
[package]
name = "old-lock"
version = "0.1.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
tokio = { version = "1", features = ["full"] }
bytes = "1"
futures = "0.3"
EOF
cat >src/main.rs <<'EOF'
fn main() {
    let rt = runtime::Runtime::new().unwrap();
    let n = rt.block_on(async { runtime::spawn(async { 1 + 1 }).await.unwrap() });
    assert_eq!(n, 2);
}
EOF
cargo generate-lockfile
# The versions of tokio's mini-redis lock file of September 2023 (tokio 1.32.0), each crate
# before the crates it depends on, so that every pin is accepted by the crates locked so far.
# futures-util 0.3.28 is yanked: a lock file keeps a yanked version, and `--precise` takes one.
pins=(
  futures@0.3.28 futures-executor@0.3.28 futures-util@0.3.28 futures-macro@0.3.28
  futures-channel@0.3.28 futures-io@0.3.28 futures-sink@0.3.28 futures-task@0.3.28
  futures-core@0.3.28 tokio@1.32.0 tokio-macros@2.1.0 backtrace@0.3.69 parking_lot@0.12.1
  parking_lot_core@0.9.8 signal-hook-registry@1.4.1 socket2@0.5.3 mio@0.8.8 syn@2.0.32
  quote@1.0.33 proc-macro2@1.0.66 bytes@1.5.0 libc@0.2.147
)
for pin in "${pins[@]}"; do
  name=${pin%@*} version=${pin#*@}
  # The spec names the semver-compatible series (`syn@2`, `mio@0.8`): a lock may hold
  # several majors of one crate (syn 2 and 3).
  if [[ $version == 0.* ]]; then series=${version%.*}; else series=${version%%.*}; fi
  cargo update --quiet -p "$name@$series" --precise "$version"
done
shown='^name = "(tokio|bytes|libc|futures-core|futures-io|futures-executor|syn|mio|socket2|backtrace|signal-hook-registry|parking_lot)"$'
echo "-- locked before the runtime joins:"
grep -A1 -E "$shown" Cargo.lock | grep -v '^--$' | paste - - | sed 's/name = //; s/version = //'
# Now the runtime joins, and the lock file is not updated.
sed -i "/^\[dependencies\]/a runtime = { path = \"$root/runtime\" }" Cargo.toml
cargo build
echo "-- locked after:"
grep -A1 -E "$shown" Cargo.lock | grep -v '^--$' | paste - - | sed 's/name = //; s/version = //'
cargo run --quiet
echo "== minimal versions: ok"
