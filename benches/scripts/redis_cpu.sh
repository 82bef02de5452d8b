#!/usr/bin/env bash
# redis_cpu.sh: server CPU per request of a Redis-protocol server, our runtime beside
# tokio and tuned tokio, under `redis-benchmark -t set,get`.
#
# The server is examples/examples/redis_server.rs (mini-redis's shape: a task per
# connection, one shared map under a mutex), the same code on ours and on tokio; the tuned
# tokio one is built again with `--cfg tokio_unstable` (the alternative timer and the
# eager driver hand-off). For each round, connection count and server: start the server,
# warm it up (`redis-benchmark -n WARMUP`), read its user and system CPU time from
# /proc/<pid>/stat, run `redis-benchmark -c C -n N -t set,get` (N SETs, then N GETs: a
# fixed 2N requests), read them again and divide; the servers take turns, round after
# round. Prints every run, then medians over the rounds (requests/s is the mean of the SET
# and GET rates) and the ours/tokio and ours/tuned-tokio ratios of CPU per request, both of
# the medians and the median of the per-round ratios (target <= 0.95 at 50 connections),
# and of requests/s (target >= 0.95).
#
# Usage, from anywhere:  bash benches/scripts/redis_cpu.sh
# Environment:
#   REDIS_WORKERS     worker threads of every server (default 2)
#   REDIS_REQUESTS    N, requests per command per run (default 100000)
#   REDIS_ROUNDS      rounds (default 5)
#   REDIS_CONNS_LIST  connection counts (default "50 2 200")
#   REDIS_SERVERS     servers (default "redis-ours redis-tokio redis-tokio-tuned")
#   CARGO_TARGET_DIR  where to build (default: target/)
# Installs redis-tools (redis-benchmark) with apt-get when missing. The client shares the
# machine with the server: on a small or shared box the numbers are indicative only.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
WORKERS=${REDIS_WORKERS:-2}
REQUESTS=${REDIS_REQUESTS:-100000}
ROUNDS=${REDIS_ROUNDS:-5}
CONNS_LIST=${REDIS_CONNS_LIST:-50 2 200}
SERVERS=${REDIS_SERVERS:-redis-ours redis-tokio redis-tokio-tuned}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/examples
BIN_TUNED=$TARGET/tokio-tuned/release/examples
TICKS=$(getconf CLK_TCK)

command -v redis-benchmark >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-tools >/dev/null; }

WORK=$(mktemp -d)
echo "== building the server (release)"
if ! cargo build --release -p examples --example redis_server >"$WORK/build.log" 2>&1; then
    cat "$WORK/build.log" >&2
    exit 1
fi
if [[ $SERVERS == *-tuned* ]]; then
    echo "== building the tuned-tokio server (--cfg tokio_unstable, $TARGET/tokio-tuned)"
    if ! RUSTFLAGS="${RUSTFLAGS:-} --cfg tokio_unstable" CARGO_TARGET_DIR=$TARGET/tokio-tuned \
        cargo build --release -p examples --example redis_server >"$WORK/build-tuned.log" 2>&1; then
        cat "$WORK/build-tuned.log" >&2
        exit 1
    fi
fi

export RUNTIME_WORKER_THREADS=$WORKERS TOKIO_WORKER_THREADS=$WORKERS
# shellcheck source=benches/scripts/http_servers.sh
source "$ROOT/benches/scripts/http_servers.sh"

COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- runtime io-driver queue task shim examples || echo "+dirty")
echo "== commit $COMMIT, $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# One line per run: conns server round req/s user-µs/req sys-µs/req.
RUNS=$WORK/runs.txt
: >"$RUNS"
for round in $(seq "$ROUNDS"); do
    for c in $CONNS_LIST; do
        for s in $SERVERS; do
            start_server "$s"
            redis-benchmark -p "$PORT" -c "$c" -n $((REQUESTS / 5)) -t set,get -q >/dev/null
            read -r u0 s0 < <(cpu_of "$SERVER_PID")
            redis-benchmark -p "$PORT" -c "$c" -n "$REQUESTS" -t set,get --csv >"$WORK/bench.csv"
            read -r u1 s1 < <(cpu_of "$SERVER_PID")
            stop_server
            # "SET","<rps>",... and "GET","<rps>",...: both must be there.
            rps=$(awk -F'"' '$2 == "SET" || $2 == "GET" { n++; sum += $4 } END { if (n == 2) printf "%.0f", sum / 2 }' "$WORK/bench.csv")
            [[ -n $rps ]] || { cat "$WORK/bench.csv" >&2; echo "redis-benchmark gave no SET and GET rates" >&2; exit 1; }
            reqs=$((2 * REQUESTS))
            usr=$(awk -v d="$((u1 - u0))" -v t="$TICKS" -v r="$reqs" 'BEGIN { printf "%.2f", d / t * 1e6 / r }')
            sys=$(awk -v d="$((s1 - s0))" -v t="$TICKS" -v r="$reqs" 'BEGIN { printf "%.2f", d / t * 1e6 / r }')
            echo "$c $s $round $rps $usr $sys" >>"$RUNS"
            echo "   round $round -c$c $s: $rps req/s, user $usr µs/req, sys $sys µs/req"
        done
    done
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "== server CPU per request, redis-benchmark -t set,get -n $REQUESTS, $WORKERS workers per server, $ROUNDS alternated rounds ($(nproc) cores shared with the client; clock tick $TICKS/s); commit $COMMIT"
python3 - "$RUNS" "$CONNS_LIST" "$SERVERS" <<'PY'
import statistics as st
import sys

runs, conns, servers = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
data = {}
for line in open(runs):
    c, s, r, rps, usr, sys_ = line.split()
    data[(c, s, int(r))] = (float(rps), float(usr), float(sys_))
rounds = sorted({r for (_, _, r) in data})

def col(c, s, f):
    return [f(*data[(c, s, r)]) for r in rounds if (c, s, r) in data]

total = lambda rps, u, y: u + y
print()
print("| server | conns | req/s | user µs/req | sys µs/req | CPU µs/req | spread | per round |")
print("|---|---|---|---|---|---|---|---|")
for c in conns:
    for s in servers:
        tot = col(c, s, total)
        print("| %s | %s | %.0f | %.2f | %.2f | %.2f | %.0f%% | %s |" % (
            s, c, st.median(col(c, s, lambda rps, u, y: rps)),
            st.median(col(c, s, lambda rps, u, y: u)),
            st.median(col(c, s, lambda rps, u, y: y)), st.median(tot),
            (max(tot) - min(tot)) / st.median(tot) * 100, " ".join("%.2f" % t for t in tot)))
print()
print("| ratio | conns | of the medians | median of per-round ratios | per-round ratios | target |")
print("|---|---|---|---|---|---|")
for peer in ("redis-tokio", "redis-tokio-tuned"):
    if "redis-ours" not in servers or peer not in servers:
        continue
    for c in conns:
        for name, f, target in (("CPU per request", total, "<= 0.95" if c == "50" else "<= 1.00"),
                                ("requests/s", lambda rps, u, y: rps, ">= 0.95")):
            o, t = col(c, "redis-ours", f), col(c, peer, f)
            per = [a / b for a, b in zip(o, t)]
            print("| ours / %s %s | %s | %.2f | %.2f | %s | %s |" % (
                peer[len("redis-"):], name, c, st.median(o) / st.median(t), st.median(per),
                " ".join("%.2f" % p for p in per), target))
PY
