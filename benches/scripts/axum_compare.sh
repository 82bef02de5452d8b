#!/usr/bin/env bash
# axum_compare.sh: one axum + reqwest program on this runtime (through compat's `tokio`
# patch) beside the same source on the registry's tokio.
#
# Builds compat/bench's axum_server and reqwest_client twice, release: in the compat
# workspace (where `tokio` is the patch crate, so they run on this runtime) and in
# compat/bench/tokio-baseline (its own workspace, no patch, the same main.rs files: tokio).
# Each server is checked to run on the runtime it should (the name of its worker threads:
# `runtime-worker` against tokio's `tokio-rt-worker`). Then, for ROUNDS rounds, each round
# running the two runtimes one after the other (ours first in odd rounds, tokio first in
# even ones), for each load generator:
#   wrk      `wrk -t1 -cC -dD` on `GET /json` (the same client for both servers);
#   reqwest  reqwest_client of the same runtime as the server (both ends on the runtime
#            under test), C keep-alive connections for D seconds on `POST /echo` with a
#            JSON body of POST_BYTES bytes (0: `GET /json` instead);
# start the server (2 worker threads, fixed in its source), warm it up for 1 s with the
# same load, read its user and system CPU time from /proc/<pid>/stat (fields 14 and 15, in
# clock ticks), run the load, read them again, stop the server with SIGTERM (it must exit
# 0), and divide the CPU by the requests the load generator completed. Prints every run,
# then per load generator and runtime the medians over the rounds with their range and
# spread ((max - min) / median), and the ours/tokio ratios of requests/s (target >= 0.95)
# and of server CPU per request (target <= 1.00), both as the ratio of the medians and as
# the median of the per-round ratios.
#
# Usage, from anywhere:  bash benches/scripts/axum_compare.sh
# Environment:
#   AXUM_ROUNDS      rounds (default 5)
#   AXUM_DURATION    seconds of load per run (default 5)
#   AXUM_CONNS       connections of both load generators (default 50)
#   AXUM_LOADS       load generators (default "wrk reqwest")
#   AXUM_POST_BYTES  body size of the reqwest client's POST (default 64; 0: GET /json)
#   AXUM_NICE        niceness of the builds (default 5)
# Installs wrk with apt-get when missing. The load generator shares the machine with the
# server: on a small or shared box the numbers are indicative only; the script prints the
# load average before and after.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
ROUNDS=${AXUM_ROUNDS:-5}
DURATION=${AXUM_DURATION:-5}
CONNS=${AXUM_CONNS:-50}
LOADS=${AXUM_LOADS:-wrk reqwest}
POST_BYTES=${AXUM_POST_BYTES:-64}
NICE=${AXUM_NICE:-5}
TICKS=$(getconf CLK_TCK)
# Each workspace builds into its own target folder: the binaries carry the same names.
OURS_TARGET=$ROOT/compat/target
TOKIO_TARGET=$ROOT/compat/bench/tokio-baseline/target

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
    if [[ -n $SERVER_PID ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "== building (release, nice -n $NICE): compat workspace (ours), compat/bench/tokio-baseline (tokio)"
build() {
    local dir=$1 target=$2 log=$3
    shift 3
    if ! (cd "$dir" && env -u CARGO_TARGET_DIR CARGO_INCREMENTAL=0 nice -n "$NICE" \
        cargo build --release --target-dir "$target" "$@") >"$log" 2>&1; then
        cat "$log" >&2
        exit 1
    fi
}
build "$ROOT/compat" "$OURS_TARGET" "$WORK/build-ours.log" -p axum_server -p reqwest_client
build "$ROOT/compat/bench/tokio-baseline" "$TOKIO_TARGET" "$WORK/build-tokio.log" --locked

bin() { # bin RUNTIME NAME
    case $1 in
        ours) echo "$OURS_TARGET/release/$2" ;;
        tokio) echo "$TOKIO_TARGET/release/$2" ;;
    esac
}
expected_worker() {
    case $1 in
        ours) echo runtime-worker ;;
        tokio) echo tokio-rt-worker ;;
    esac
}

# start_server RUNTIME: starts that runtime's axum_server on an OS-picked port, with a time
# limit well past the run as a backstop; sets SERVER_PID and PORT once it prints its address,
# and checks the name of its worker threads.
SERVER_RUNS=0
start_server() {
    SERVER_RUNS=$((SERVER_RUNS + 1))
    # A fresh log per run, so the wait below cannot read an earlier server's port.
    local rt=$1 log=$WORK/server-$SERVER_RUNS-$1.log
    : >"$log"
    "$(bin "$rt" axum_server)" --secs $((DURATION * 4 + 60)) >"$log" 2>&1 &
    SERVER_PID=$!
    PORT=
    for _ in $(seq 100); do
        PORT=$(sed -n 's/^listening on http:\/\/127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log" 2>/dev/null | head -n1 || true)
        [[ -n $PORT ]] && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log" >&2; echo "the $rt server died" >&2; exit 1; }
        sleep 0.1
    done
    [[ -n $PORT ]] || { cat "$log" >&2; echo "the $rt server did not start" >&2; exit 1; }
    local worker
    worker=$(sed -n 's/^worker thread: //p' "$log")
    if [[ $worker != "$(expected_worker "$rt")" ]]; then
        echo "the $rt server's tasks run on threads named '$worker', not '$(expected_worker "$rt")'" >&2
        exit 1
    fi
}

# stop_server: SIGTERM, then up to 10 s for a graceful exit with status 0.
stop_server() {
    kill -TERM "$SERVER_PID"
    for _ in $(seq 100); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -KILL "$SERVER_PID"
        echo "the server did not exit within 10 s of SIGTERM" >&2
        exit 1
    fi
    local rc=0
    wait "$SERVER_PID" || rc=$?
    SERVER_PID=
    [[ $rc == 0 ]] || { echo "the server exited with status $rc after SIGTERM" >&2; exit 1; }
}

# "utime stime" of a process, in clock ticks (after the command name's closing parenthesis,
# utime and stime are the 12th and 13th fields).
cpu_of() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12, $13 }'; }

# run_load LOAD RUNTIME SECONDS OUT: runs the load generator against the server on PORT.
run_load() {
    local load=$1 rt=$2 secs=$3 out=$4
    case $load in
        wrk) wrk -t1 -c"$CONNS" -d"${secs}s" "http://127.0.0.1:$PORT/json" >"$out" ;;
        reqwest)
            if [[ $POST_BYTES -gt 0 ]]; then
                "$(bin "$rt" reqwest_client)" "http://127.0.0.1:$PORT/echo" -c "$CONNS" -d "$secs" --post "$POST_BYTES" >"$out"
            else
                "$(bin "$rt" reqwest_client)" "http://127.0.0.1:$PORT/json" -c "$CONNS" -d "$secs" >"$out"
            fi
            local worker
            worker=$(sed -n 's/^worker thread: //p' "$out")
            if [[ $worker != "$(expected_worker "$rt")" ]]; then
                echo "the $rt client's tasks run on threads named '$worker'" >&2
                exit 1
            fi
            ;;
        *) echo "unknown load generator $load" >&2; exit 2 ;;
    esac
}

# "requests req/s client-µs/req errors" from a load generator's output.
parse_load() {
    local load=$1 out=$2
    case $load in
        wrk)
            local errs
            errs=$(awk '/Non-2xx|Socket errors/ { n++ } END { print n + 0 }' "$out")
            echo "$(awk '/requests in/ { print $1 }' "$out") $(awk '/^Requests\/sec:/ { print $2 }' "$out") - $errs"
            ;;
        reqwest)
            echo "$(awk '/^requests:/ { print $2 }' "$out") $(awk '/^req\/s:/ { print $2 }' "$out")" \
                "$(awk '/^cpu_us_per_req:/ { print $2 }' "$out") $(awk '/^errors:/ { print $2 }' "$out")"
            ;;
    esac
}

COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- compat runtime io-driver queue task shim || echo "+dirty")
echo "== commit $COMMIT, $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# One line per run: load runtime round req/s server-µs/req client-µs/req.
RUNS=$WORK/runs.txt
: >"$RUNS"
for round in $(seq "$ROUNDS"); do
    if ((round % 2)); then order="ours tokio"; else order="tokio ours"; fi
    for load in $LOADS; do
        for rt in $order; do
            start_server "$rt"
            run_load "$load" "$rt" 1 "$WORK/warmup.out"
            read -r u0 s0 < <(cpu_of "$SERVER_PID")
            run_load "$load" "$rt" "$DURATION" "$WORK/load.out"
            read -r u1 s1 < <(cpu_of "$SERVER_PID")
            stop_server
            read -r reqs rps cli errs < <(parse_load "$load" "$WORK/load.out")
            if [[ $errs != 0 ]]; then
                cat "$WORK/load.out" >&2
                echo "round $round $load $rt: the load generator saw errors" >&2
                exit 1
            fi
            srv=$(awk -v d="$((u1 - u0 + s1 - s0))" -v t="$TICKS" -v r="$reqs" 'BEGIN { printf "%.2f", d / t * 1e6 / r }')
            echo "$load $rt $round $rps $srv $cli" >>"$RUNS"
            printf '   round %d %-7s %-5s %9.0f req/s, server %6.2f CPU µs/req, client %s\n' \
                "$round" "$load" "$rt" "$rps" "$srv" "$cli"
        done
    done
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "== axum_server, 2 workers; $ROUNDS alternated rounds of ${DURATION}s, -c$CONNS; wrk: wrk -t1 GET /json;"
echo "   reqwest: reqwest_client (2 workers, same runtime as the server) POST /echo ${POST_BYTES} B (0: GET /json);"
echo "   CPU: the server's user + system time per request (clock tick $TICKS/s); commit $COMMIT"
python3 - "$RUNS" "$LOADS" <<'PY'
import statistics as st
import sys

runs, loads = sys.argv[1], sys.argv[2].split()
data = {}
for line in open(runs):
    load, rt, rnd, rps, srv, cli = line.split()
    data[(load, rt, int(rnd))] = (float(rps), float(srv), None if cli == "-" else float(cli))

def col(load, rt, i):
    return [v[i] for (l, r, _), v in sorted(data.items()) if l == load and r == rt]

def spread(xs):
    return (max(xs) - min(xs)) / st.median(xs) * 100

print()
print("| load | runtime | req/s median | req/s range | spread | server CPU µs/req median | range | spread | client CPU µs/req |")
print("|---|---|---|---|---|---|---|---|---|")
for load in loads:
    for rt in ("ours", "tokio"):
        rps, srv, cli = col(load, rt, 0), col(load, rt, 1), col(load, rt, 2)
        cli_s = "-" if None in cli else "%.2f" % st.median(cli)
        print("| %s | %s | %.0f | %.0f-%.0f | %.0f%% | %.2f | %.2f-%.2f | %.0f%% | %s |" % (
            load, rt, st.median(rps), min(rps), max(rps), spread(rps),
            st.median(srv), min(srv), max(srv), spread(srv), cli_s))
print()
print("| ratio ours / tokio | of the medians | median of per-round ratios | per-round ratios | target |")
print("|---|---|---|---|---|")
for load in loads:
    for name, i, target in (("req/s", 0, ">= 0.95"), ("server CPU per request", 1, "<= 1.00"),
                            ("client CPU per request", 2, "-")):
        o, t = col(load, "ours", i), col(load, "tokio", i)
        if None in o or None in t:
            continue
        per = [a / b for a, b in zip(o, t)]
        print("| %s %s | %.2f | %.2f | %s | %s |" % (
            load, name, st.median(o) / st.median(t), st.median(per),
            " ".join("%.2f" % p for p in per), target))
PY
