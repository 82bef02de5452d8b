#!/usr/bin/env bash
# axum_task_clock.sh: the axum + reqwest program of axum_compare.sh, measured with perf's
# counters instead of /proc's CPU times, and with the client's runtime varied apart from
# the server's.
#
# Uses the binaries axum_compare.sh builds (run it once first): compat/target/release and
# compat/bench/tokio-baseline/target/release, axum_server and reqwest_client. Each round
# runs four servers, the runtimes' order alternating by round: ours served by our client,
# tokio served by tokio's client (both ends on the runtime under test, as axum_compare.sh),
# then ours and tokio each served by tokio's client (the server's runtime alone varies).
# Each run: start the server, 1 s of warm-up load, then `perf stat` on the server process
# and on the client for SECS seconds of `POST /echo` (64-byte JSON body, C connections):
# task-clock (CPU time), context switches, and the syscall tracepoints epoll_wait, futex,
# sched_yield, recvfrom, each divided by the requests the client completed. Prints every
# run, then the medians of the per-round ratios ours / tokio and the medians of the
# per-request counts.
#
# Usage, from anywhere:  bash benches/scripts/axum_task_clock.sh
# Environment:
#   AXUM_ROUNDS  rounds (default 12)
#   AXUM_SECS    seconds of measured load per run (default 2)
#   AXUM_CONNS   client connections (default 50)
# Needs perf with the syscalls tracepoints (root, or perf_event_paranoid <= -1). The client
# shares the machine with the server: on a small or shared box the numbers are indicative
# only.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
ROUNDS=${AXUM_ROUNDS:-12}
SECS=${AXUM_SECS:-2}
CONNS=${AXUM_CONNS:-50}
EV=task-clock,context-switches,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_futex,syscalls:sys_enter_sched_yield,syscalls:sys_enter_recvfrom

dir() {
    case $1 in
        ours) echo "$ROOT/compat/target/release" ;;
        tokio) echo "$ROOT/compat/bench/tokio-baseline/target/release" ;;
    esac
}
for rt in ours tokio; do
    for b in axum_server reqwest_client; do
        [[ -x $(dir $rt)/$b ]] || { echo "$(dir $rt)/$b missing: run benches/scripts/axum_compare.sh first" >&2; exit 1; }
    done
done

WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
    if [[ -n $SERVER_PID ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# run ROUND SERVER CLIENT PAIR: one measured run; appends "round pair server client side
# reqs key=value..." lines (side s: the server, c: the client) to $WORK/runs.txt.
run() {
    local round=$1 sv=$2 cl=$3 pair=$4 log=$WORK/server.log port=
    : >"$log"
    "$(dir "$sv")/axum_server" --secs $((SECS * 4 + 60)) >"$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 100); do
        port=$(sed -n 's/^listening on http:\/\/127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log" | head -n1 || true)
        [[ -n $port ]] && break
        sleep 0.1
    done
    [[ -n $port ]] || { cat "$log" >&2; echo "the $sv server did not start" >&2; exit 1; }
    local url=http://127.0.0.1:$port/echo cli
    cli=$(dir "$cl")/reqwest_client
    "$cli" "$url" -c "$CONNS" -d 1 --post 64 >/dev/null
    perf stat -x, -e "$EV" -p "$SERVER_PID" -o "$WORK/s.txt" -- sleep "$SECS" &
    local perf_pid=$!
    perf stat -x, -e "$EV" -o "$WORK/c.txt" "$cli" "$url" -c "$CONNS" -d "$SECS" --post 64 >"$WORK/load.out"
    wait "$perf_pid"
    kill -TERM "$SERVER_PID"
    wait "$SERVER_PID" || { echo "the $sv server exited with an error" >&2; exit 1; }
    SERVER_PID=
    local reqs errs
    reqs=$(awk '/^requests:/ { print $2 }' "$WORK/load.out")
    errs=$(awk '/^errors:/ { print $2 }' "$WORK/load.out")
    [[ $errs == 0 ]] || { cat "$WORK/load.out" >&2; echo "the client saw errors" >&2; exit 1; }
    for side in s c; do
        awk -F, -v head="$round $pair $sv $cl $side $reqs" 'NF > 3 {
                name = $3; sub("syscalls:sys_enter_", "", name); line = line " " name "=" $1
            } END { print head line }' "$WORK/$side.txt" >>"$WORK/runs.txt"
    done
    tail -n2 "$WORK/runs.txt" | sed 's/^/   /'
}

echo "== $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$WORK/runs.txt"
for round in $(seq "$ROUNDS"); do
    if ((round % 2)); then order="ours tokio"; else order="tokio ours"; fi
    for rt in $order; do run "$round" "$rt" "$rt" both; done
    for rt in $order; do run "$round" "$rt" tokio tokio-client; done
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "== axum_server under reqwest_client, -c$CONNS, ${SECS}s per run, $ROUNDS alternated rounds; perf task-clock; commit $(git rev-parse --short HEAD)"
python3 - "$WORK/runs.txt" <<'PY'
import collections
import statistics as st
import sys

runs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    rnd, pair, sv, cl, side, reqs = int(f[0]), f[1], f[2], f[3], f[4], int(f[5])
    kv = {k: float(v) for k, v in (x.split("=") for x in f[6:])}
    kv["reqs"] = reqs
    runs[(pair, side, sv)][rnd] = kv

def per_req(kv, k):
    return kv[k] / kv["reqs"] * (1000.0 if k == "task-clock" else 1.0)

print()
print("| pair | side | figure | ours (median) | tokio (median) | median of per-round ratios | per-round ratios |")
print("|---|---|---|---|---|---|---|")
for pair, sides in (("both", "sc"), ("tokio-client", "s")):
    for side in sides:
        o, t = runs[(pair, side, "ours")], runs[(pair, side, "tokio")]
        rounds = sorted(set(o) & set(t))
        keys = [("task-clock", "CPU µs/req"), ("context-switches", "context switches/req"),
                ("epoll_wait", "epoll_wait/req"), ("futex", "futex/req"),
                ("sched_yield", "sched_yield/req")]
        if side == "s":
            keys.append(("reqs", "requests"))
        for k, name in keys:
            if k == "reqs":
                ov, tv = [o[r]["reqs"] for r in rounds], [t[r]["reqs"] for r in rounds]
            else:
                ov, tv = [per_req(o[r], k) for r in rounds], [per_req(t[r], k) for r in rounds]
            ratios = [a / b for a, b in zip(ov, tv) if b]
            fmt = "%.0f" if k == "reqs" else "%.3f"
            print(("| %s | %s | %s | " + fmt + " | " + fmt + " | %s | %s |") % (
                pair, {"s": "server", "c": "client"}[side], name, st.median(ov), st.median(tv),
                "%.2f" % st.median(ratios) if ratios else "-",
                " ".join("%.2f" % x for x in ratios) if k in ("task-clock", "reqs") else ""))
PY
