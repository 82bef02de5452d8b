#!/usr/bin/env bash
# idle_syscalls.sh: an idle runtime must make no periodic wake-ups.
# Starts benches/examples/idle_runtime.rs (4 workers, a listener in accept, a sleeping
# task), waits a second for it to settle, attaches `strace -c` to every one of its threads
# for IDLE_SECS seconds (default 5) and prints the syscall summary; exits 1 when any
# syscall was counted.
# Usage, from anywhere:  bash benches/scripts/idle_syscalls.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SECS=${IDLE_SECS:-5}
TARGET=${CARGO_TARGET_DIR:-$(pwd)/target}
cargo build --release -p benches --example idle_runtime >/dev/null 2>&1
OUT=$(mktemp -d)
"$TARGET/release/examples/idle_runtime" $((SECS + 10)) >"$OUT/out" &
PID=$!
trap 'kill $PID 2>/dev/null || true; rm -rf "$OUT"' EXIT
sleep 1
args=()
threads=0
for t in /proc/$PID/task/*; do args+=(-p "${t##*/}"); threads=$((threads + 1)); done
timeout -s INT "$SECS" strace -c -o "$OUT/strace" "${args[@]}" 2>"$OUT/attach" || true
attached=$(grep -c ' attached' "$OUT/attach" || true)
echo "== strace -c over ${SECS}s on $attached of $threads threads of an idle runtime (pid $PID)"
[[ $attached == "$threads" ]] || { cat "$OUT/attach" >&2; echo "strace did not attach to every thread" >&2; exit 2; }
# strace -c prints no table at all when it counted nothing.
cat "$OUT/strace"
calls=$(awk '/^-+ / { s++; next } s == 1 && NF >= 5 { n += $4 } END { print n + 0 }' "$OUT/strace")
echo "syscalls: $calls"
[[ $calls == 0 ]]
