#!/usr/bin/env bash
# redis_cpu.sh: server CPU per request of a Redis-protocol server in tokio's mini-redis
# shape (examples/examples/redis_server.rs, the same code on ours and on tokio; tuned tokio
# is the same program built again with `--cfg tokio_unstable`, the alternative timer and
# the eager driver hand-off), under Debian's `redis-benchmark -t set,get`.
#
# For each connection count (default 2, 50 and 200) and each server, round after round
# (the servers take turns): start the server, warm it up with a short run, read its user
# and system CPU time from /proc/<pid>/stat (utime, stime, in clock ticks), run
# `redis-benchmark -t set,get -c C -n N` (N requests of each), read them again, and divide
# by the 2 x N requests. Prints medians over the rounds of requests/s (SET and GET) and of
# CPU µs per request, and the ours/tokio ratios of CPU per request, of the medians and
# paired by round (target <= 0.95).
#
# Usage, from anywhere:  bash benches/scripts/redis_cpu.sh
# Environment:
#   REDIS_WORKERS     worker threads of every server (default 2)
#   REDIS_REQUESTS    N, requests per test (default 100000)
#   REDIS_ROUNDS      rounds (default 5)
#   REDIS_CONNS_LIST  connection counts (default "2 50 200")
#   REDIS_SERVERS     servers (default "redis-ours redis-tokio redis-tokio-tuned"; the tuned
#                     one needs the second build, in $CARGO_TARGET_DIR/tokio-tuned)
#   CARGO_TARGET_DIR  where to build (default: target/)
# Installs redis-tools with apt-get when redis-benchmark is missing. The client shares the
# machine with the server: on a small or shared box the numbers are indicative only.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
WORKERS=${REDIS_WORKERS:-2}
REQUESTS=${REDIS_REQUESTS:-100000}
ROUNDS=${REDIS_ROUNDS:-5}
CONNS_LIST=${REDIS_CONNS_LIST:-2 50 200}
SERVERS=${REDIS_SERVERS:-redis-ours redis-tokio redis-tokio-tuned}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/examples
BIN_TUNED=$TARGET/tokio-tuned/release/examples
TICKS=$(getconf CLK_TCK)

command -v redis-benchmark >/dev/null || {
    apt-get update -qq && apt-get install -y -qq redis-tools >/dev/null
}

WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
    if [[ -n $SERVER_PID ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

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

server_cmd() {
    case $1 in
        redis-ours) echo "$BIN/redis_server 0 --runtime ours" ;;
        redis-tokio) echo "$BIN/redis_server 0 --runtime tokio" ;;
        redis-tokio-tuned) echo "$BIN_TUNED/redis_server 0 --runtime tokio" ;;
        *) echo "unknown server $1" >&2; exit 2 ;;
    esac
}

# Starts server NAME; sets SERVER_PID and PORT once it prints its address.
start_server() {
    local log=$WORK/$1.log
    : >"$log"
    # shellcheck disable=SC2046
    $(server_cmd "$1") >"$log" 2>&1 &
    SERVER_PID=$!
    PORT=
    for _ in $(seq 100); do
        PORT=$(sed -n 's/.*listening on redis:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -n1 || true)
        [[ -n $PORT ]] && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log" >&2; echo "$1 died" >&2; exit 1; }
        sleep 0.1
    done
    [[ -n $PORT ]] || { cat "$log" >&2; echo "$1 did not start" >&2; exit 1; }
}

stop_server() {
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

# "utime stime" of a process, in clock ticks (fields 14 and 15 of /proc/<pid>/stat).
cpu_of() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12, $13 }'; }

# One line per run: conns server round set-rps get-rps cpu-µs/req.
RUNS=$WORK/runs.txt
: >"$RUNS"
for round in $(seq "$ROUNDS"); do
    for c in $CONNS_LIST; do
        for s in $SERVERS; do
            start_server "$s"
            redis-benchmark -p "$PORT" -t set,get -c "$c" -n $((REQUESTS / 10)) -q >/dev/null
            read -r u0 s0 < <(cpu_of "$SERVER_PID")
            redis-benchmark -p "$PORT" -t set,get -c "$c" -n "$REQUESTS" --csv >"$WORK/$s.$c.csv"
            read -r u1 s1 < <(cpu_of "$SERVER_PID")
            stop_server
            set_rps=$(awk -F'"' '$2 == "SET" { print $4 }' "$WORK/$s.$c.csv")
            get_rps=$(awk -F'"' '$2 == "GET" { print $4 }' "$WORK/$s.$c.csv")
            [[ -n $set_rps && -n $get_rps ]] || { cat "$WORK/$s.$c.csv" >&2; echo "no result from redis-benchmark" >&2; exit 1; }
            cpu=$(awk -v d="$((u1 - u0 + s1 - s0))" -v t="$TICKS" -v r="$((2 * REQUESTS))" 'BEGIN { printf "%.2f", d / t * 1e6 / r }')
            echo "$c $s $round $set_rps $get_rps $cpu" >>"$RUNS"
            echo "   round $round -c$c $s: SET $set_rps req/s, GET $get_rps req/s, $cpu µs CPU/req"
        done
    done
done

echo
echo "== server CPU per request, redis-benchmark -t set,get -n $REQUESTS, $WORKERS workers per server, $ROUNDS alternated rounds ($(nproc) cores shared with the client; clock tick $TICKS/s)"
python3 - "$RUNS" "$CONNS_LIST" "$SERVERS" <<'PY'
import statistics as st
import sys

runs, conns, servers = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
data = {}
for line in open(runs):
    c, s, r, set_rps, get_rps, cpu = line.split()
    data[(c, s, int(r))] = (float(set_rps), float(get_rps), float(cpu))
rounds = sorted({r for (_, _, r) in data})

def col(c, s, i):
    return [data[(c, s, r)][i] for r in rounds if (c, s, r) in data]

print("%-18s %5s %10s %10s %10s   %s" % ("server", "conns", "SET req/s", "GET req/s",
                                        "CPU µs/req", "CPU per round"))
for c in conns:
    for s in servers:
        cpu = col(c, s, 2)
        print("%-18s %5s %10.0f %10.0f %10.2f   %s" % (
            s, c, st.median(col(c, s, 0)), st.median(col(c, s, 1)), st.median(cpu),
            " ".join("%.2f" % t for t in cpu)))
print("\nratios: of the medians, and the median of each round's ratio (the servers run back")
print("to back within a round)")
print("%-44s %8s %8s %8s" % ("ratio", "medians", "paired", "target"))
for peer in ("redis-tokio", "redis-tokio-tuned"):
    if "redis-ours" not in servers or peer not in servers:
        continue
    for c in conns:
        o, t = col(c, "redis-ours", 2), col(c, peer, 2)
        paired = st.median(a / b for a, b in zip(o, t))
        print("%-44s %8.2f %8.2f %8s" % ("ours / %s -c%s CPU per request" % (peer[6:], c),
                                         st.median(o) / st.median(t), paired, "<= 0.95"))
        o, t = col(c, "redis-ours", 1), col(c, peer, 1)
        paired = st.median(a / b for a, b in zip(o, t))
        print("%-44s %8.2f %8.2f %8s" % ("ours / %s -c%s GET requests/s" % (peer[6:], c),
                                         st.median(o) / st.median(t), paired, "-"))
PY
