#!/usr/bin/env bash
# http_cpu.sh: server CPU per HTTP request, our runtime beside tokio.
#
# For each server pair (raw: examples/examples/raw_responder.rs on ours and on tokio;
# hyper: hyper 1.x on ours (hyper_server.rs) and on tokio (hyper_tokio.rs)) and for each
# connection count (default -c50 and -c2): start the server, read its user and system CPU
# time from /proc/<pid>/stat (utime, stime: fields 14 and 15, in clock ticks), run
# `wrk -t1 -cN -dD`, read them again, and divide by the requests wrk completed. Prints
# requests/s, user and system µs per request and the ours/tokio ratios of CPU per request
# (target <= 1.00 for both pairs at both connection counts) and of requests/s at -c2
# (target >= 0.95).
#
# Usage, from anywhere:  bash benches/scripts/http_cpu.sh
# Environment:
#   HTTP_WORKERS     worker threads of every server (default 2)
#   HTTP_DURATION    wrk duration per run (default 10s)
#   HTTP_CONNS_LIST  connection counts (default "50 2")
#   HTTP_SERVERS     servers (default "raw-ours raw-tokio hyper-ours hyper-tokio")
#   CARGO_TARGET_DIR where to build (default: target/)
# Installs wrk with apt-get when missing. wrk shares the machine with the server: on a
# small or shared box the numbers are indicative only.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
WORKERS=${HTTP_WORKERS:-2}
DURATION=${HTTP_DURATION:-10s}
CONNS_LIST=${HTTP_CONNS_LIST:-50 2}
SERVERS=${HTTP_SERVERS:-raw-ours raw-tokio hyper-ours hyper-tokio}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/examples
TICKS=$(getconf CLK_TCK)

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

WORK=$(mktemp -d)
echo "== building the servers (release)"
if ! cargo build --release -p examples --example hyper_server --example hyper_tokio \
    --example raw_responder >"$WORK/build.log" 2>&1; then
    cat "$WORK/build.log" >&2
    exit 1
fi

export RUNTIME_WORKER_THREADS=$WORKERS TOKIO_WORKER_THREADS=$WORKERS
# shellcheck source=benches/scripts/http_servers.sh
source "$ROOT/benches/scripts/http_servers.sh"

declare -A RPS USR SYS
for c in $CONNS_LIST; do
    for s in $SERVERS; do
        start_server "$s"
        # A short warm-up, so connection set-up and lazy allocation stay out of the count.
        wrk -t1 -c"$c" -d1s "http://127.0.0.1:$PORT/" >/dev/null
        read -r u0 s0 < <(cpu_of "$SERVER_PID")
        wrk -t1 -c"$c" -d"$DURATION" "http://127.0.0.1:$PORT/" >"$WORK/$s.$c.wrk"
        read -r u1 s1 < <(cpu_of "$SERVER_PID")
        stop_server
        reqs=$(awk '/requests in/ {print $1}' "$WORK/$s.$c.wrk")
        RPS[$s,$c]=$(awk '/^Requests\/sec:/ {print $2}' "$WORK/$s.$c.wrk")
        USR[$s,$c]=$(awk -v d="$((u1 - u0))" -v t="$TICKS" -v r="$reqs" 'BEGIN { printf "%.2f", d / t * 1e6 / r }')
        SYS[$s,$c]=$(awk -v d="$((s1 - s0))" -v t="$TICKS" -v r="$reqs" 'BEGIN { printf "%.2f", d / t * 1e6 / r }')
        echo "   -c$c $s: ${RPS[$s,$c]} req/s, user ${USR[$s,$c]} µs/req, sys ${SYS[$s,$c]} µs/req"
    done
done

ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
sum() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { printf "%.2f", a + b }'; }

echo
echo "== server CPU per request, wrk -t1 -d$DURATION, $WORKERS workers per server ($(nproc) cores shared with wrk; clock tick $TICKS/s)"
printf '%-12s %5s %12s %10s %10s %10s\n' server conns "req/s" "user µs" "sys µs" "total µs"
for c in $CONNS_LIST; do
    for s in $SERVERS; do
        printf '%-12s %5s %12s %10s %10s %10s\n' "$s" "$c" "${RPS[$s,$c]}" "${USR[$s,$c]}" "${SYS[$s,$c]}" "$(sum "${USR[$s,$c]}" "${SYS[$s,$c]}")"
    done
done
echo
printf '%-40s %8s %8s\n' "ratio (ours / tokio)" value target
has() { [[ " $SERVERS " == *" $1 "* && " $SERVERS " == *" $2 "* ]]; }
for pair in raw hyper; do
    has "$pair-ours" "$pair-tokio" || continue
    for c in $CONNS_LIST; do
        o=$(sum "${USR[$pair-ours,$c]}" "${SYS[$pair-ours,$c]}")
        t=$(sum "${USR[$pair-tokio,$c]}" "${SYS[$pair-tokio,$c]}")
        printf '%-40s %8s %8s\n' "$pair -c$c CPU per request" "$(ratio "$o" "$t")" "<= 1.00"
        if [[ $c == 2 ]]; then
            printf '%-40s %8s %8s\n' "$pair -c$c requests/s" "$(ratio "${RPS[$pair-ours,$c]}" "${RPS[$pair-tokio,$c]}")" ">= 0.95"
        fi
    done
done
