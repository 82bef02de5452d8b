#!/usr/bin/env bash
# http_cpu.sh: server CPU per HTTP request, our runtime beside tokio.
#
# For each server pair (raw: examples/examples/raw_responder.rs on ours and on tokio;
# hyper: hyper 1.x on ours (hyper_server.rs) and on tokio (hyper_tokio.rs); each tokio
# server also as tuned tokio, `-tokio-tuned`: built again with `--cfg tokio_unstable`, the
# alternative timer and the eager driver hand-off) and for each
# connection count (default -c50 and -c2): start the server, read its user and system CPU
# time from /proc/<pid>/stat (utime, stime: fields 14 and 15, in clock ticks), run
# `wrk -t1 -cN -dD`, read them again, and divide by the requests wrk completed; the servers
# take turns, round after round. Prints, as medians over the rounds, requests/s, user and
# system µs per request and the ours/tokio ratios of CPU per request (target <= 1.00 for
# both pairs at both connection counts) and of requests/s at -c2 (target >= 0.95).
#
# Usage, from anywhere:  bash benches/scripts/http_cpu.sh
# Environment:
#   HTTP_WORKERS     worker threads of every server (default 2)
#   HTTP_DURATION    wrk duration per run (default 10s)
#   HTTP_ROUNDS      rounds (default 3): each runs every server at every connection count
#                    once, so the servers alternate; the table shows medians over the
#                    rounds and each ratio both of the medians and paired by round
#   HTTP_CONNS_LIST  connection counts (default "50 2")
#   HTTP_SERVERS     servers (default "raw-ours raw-tokio raw-tokio-tuned hyper-ours
#                    hyper-tokio hyper-tokio-tuned"; a -tuned one needs the second build,
#                    in $CARGO_TARGET_DIR/tokio-tuned)
#   CARGO_TARGET_DIR where to build (default: target/)
# Installs wrk with apt-get when missing. wrk shares the machine with the server: on a
# small or shared box the numbers are indicative only.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
WORKERS=${HTTP_WORKERS:-2}
DURATION=${HTTP_DURATION:-10s}
ROUNDS=${HTTP_ROUNDS:-3}
CONNS_LIST=${HTTP_CONNS_LIST:-50 2}
SERVERS=${HTTP_SERVERS:-raw-ours raw-tokio raw-tokio-tuned hyper-ours hyper-tokio hyper-tokio-tuned}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/examples
BIN_TUNED=$TARGET/tokio-tuned/release/examples
TICKS=$(getconf CLK_TCK)

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

WORK=$(mktemp -d)
echo "== building the servers (release)"
if ! cargo build --release -p examples --example hyper_server --example hyper_tokio \
    --example raw_responder >"$WORK/build.log" 2>&1; then
    cat "$WORK/build.log" >&2
    exit 1
fi
if [[ $SERVERS == *-tuned* ]]; then
    echo "== building the tuned-tokio servers (--cfg tokio_unstable, $TARGET/tokio-tuned)"
    if ! RUSTFLAGS="${RUSTFLAGS:-} --cfg tokio_unstable" CARGO_TARGET_DIR=$TARGET/tokio-tuned \
        cargo build --release -p examples --example hyper_tokio --example raw_responder \
        >"$WORK/build-tuned.log" 2>&1; then
        cat "$WORK/build-tuned.log" >&2
        exit 1
    fi
fi

export RUNTIME_WORKER_THREADS=$WORKERS TOKIO_WORKER_THREADS=$WORKERS
# shellcheck source=benches/scripts/http_servers.sh
source "$ROOT/benches/scripts/http_servers.sh"

# One line per run: conns server round req/s user-µs/req sys-µs/req.
RUNS=$WORK/runs.txt
: >"$RUNS"
for round in $(seq "$ROUNDS"); do
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
            rps=$(awk '/^Requests\/sec:/ {print $2}' "$WORK/$s.$c.wrk")
            usr=$(awk -v d="$((u1 - u0))" -v t="$TICKS" -v r="$reqs" 'BEGIN { printf "%.2f", d / t * 1e6 / r }')
            sys=$(awk -v d="$((s1 - s0))" -v t="$TICKS" -v r="$reqs" 'BEGIN { printf "%.2f", d / t * 1e6 / r }')
            echo "$c $s $round $rps $usr $sys" >>"$RUNS"
            echo "   round $round -c$c $s: $rps req/s, user $usr µs/req, sys $sys µs/req"
        done
    done
done

echo
echo "== server CPU per request, wrk -t1 -d$DURATION, $WORKERS workers per server, $ROUNDS alternated rounds ($(nproc) cores shared with wrk; clock tick $TICKS/s)"
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
print("%-12s %5s %10s %10s %10s %10s   %s" % ("server", "conns", "req/s", "user µs", "sys µs",
                                              "total µs", "total per round"))
for c in conns:
    for s in servers:
        tot = col(c, s, total)
        print("%-12s %5s %10.0f %10.2f %10.2f %10.2f   %s" % (
            s, c, st.median(col(c, s, lambda rps, u, y: rps)),
            st.median(col(c, s, lambda rps, u, y: u)),
            st.median(col(c, s, lambda rps, u, y: y)), st.median(tot),
            " ".join("%.2f" % t for t in tot)))
print("\nmedians over the rounds; the ratios: of the medians, and the median of each round's")
print("ratio (the two servers of a pair run back to back within a round)")
print("%-40s %8s %8s %8s" % ("ratio (ours / tokio, ours / tuned tokio)", "medians", "paired",
                              "target"))
for pair in ("raw", "hyper"):
    for peer in ("tokio", "tokio-tuned"):
        ours, tokio = pair + "-ours", pair + "-" + peer
        if ours not in servers or tokio not in servers:
            continue
        for c in conns:
            for name, f, target in (("CPU per request", total, "<= 1.00"),
                                    ("requests/s", lambda rps, u, y: rps, ">= 0.95")):
                if name == "requests/s" and c != "2":
                    continue
                o, t = col(c, ours, f), col(c, tokio, f)
                paired = st.median(a / b for a, b in zip(o, t))
                print("%-40s %8.2f %8.2f %8s" % ("%s vs %s -c%s %s" % (pair, peer, c, name),
                                                 st.median(o) / st.median(t), paired, target))
PY
