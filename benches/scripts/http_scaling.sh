#!/usr/bin/env bash
# http_scaling.sh: HTTP throughput, server CPU per request and how evenly the server's
# worker threads share the work, our runtime beside tokio, on a many-core machine.
#
# Servers (the same as http_cpu.sh): raw-ours / raw-tokio (examples/examples/raw_responder.rs
# with --runtime ours|tokio), hyper-ours (hyper_server.rs, hyper 1.x on ours) and
# hyper-tokio (hyper_tokio.rs). For each connection count x worker count x round x server:
# start the server with RUNTIME_WORKER_THREADS / TOKIO_WORKER_THREADS = workers, warm up
# with a 1 s wrk run, then read /proc, run `wrk -tT -cC -dD`, read /proc again, stop it.
#
# Placement: with N = nproc >= 8 the server is pinned (taskset) to CPUs 0..N-5 and wrk -t4
# to the last 4 CPUs, and worker counts above N-4 are lowered to N-4 (duplicates dropped).
# With N < 8 nothing is pinned, wrk runs -t1 beside the server and workers are capped at
# N: the figures then only check that the script works.
#
# Per run it reports:
#   req/s            wrk's Requests/sec
#   CPU µs/req       server user + system time (/proc/PID/stat utime + stime, clock ticks)
#                    over the run, divided by the requests wrk completed
#   worker share     /proc/PID/task/*/stat utime + stime of every thread before and after
#                    the run; for the worker threads, each one's ticks divided by the mean
#                    over the workers: the min and max of that (target: every worker within
#                    0.5x-1.5x of the mean)
#   busy             workers that used any CPU / workers, and threads (any) that did
#
# Worker threads are found by name (the `comm` of /proc/PID/task/TID, at most 15 bytes):
#   ours   "runtime-worker": `Builder::thread_name`'s default (runtime/src/builder.rs). The
#          runtime's monitor thread and its blocking-pool threads get the same name.
#   tokio  "tokio-rt-worker": the default of tokio's `Builder::thread_name` since 1.44
#          (tokio 1.54 in Cargo.lock); older versions name them "tokio-runtime-worker",
#          cut to "tokio-runtime-w", which is matched too. Tokio's blocking-pool threads
#          get the same name.
# Both runtimes start their workers first, when the runtime is built (ours then its
# monitor; blocking threads only on demand), so the workers are the first W threads with
# that name in thread-id order; the rest (the monitor, blocking threads, the main thread
# running the accept loop in `block_on`) count only in "busy threads".
#
# Usage, from anywhere:  bash benches/scripts/http_scaling.sh
# Environment:
#   HTTP_CONNS_LIST    connection counts (default "64 256 1024")
#   HTTP_WORKERS_LIST  server worker threads (default "4 8 12"; capped as above)
#   HTTP_SERVERS       servers (default "raw-ours raw-tokio hyper-ours hyper-tokio"); each
#                      round runs them in this order, the next round in reverse, so ours
#                      and tokio alternate and neither always runs first
#   HTTP_ROUNDS        rounds per configuration (default 1)
#   HTTP_DURATION      wrk duration per run (default 5s)
#   CARGO_TARGET_DIR   where to build (default: target/)
# The final table gives medians over rounds for req/s and CPU µs/req, and the extremes over
# rounds for the worker share (lowest min, highest max) and the busy counts (fewest busy
# workers, most busy threads). Installs wrk with apt-get when missing.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
NCPU=$(nproc)
CONNS_LIST=${HTTP_CONNS_LIST:-64 256 1024}
WORKERS_LIST=${HTTP_WORKERS_LIST:-4 8 12}
SERVERS=${HTTP_SERVERS:-raw-ours raw-tokio hyper-ours hyper-tokio}
ROUNDS=${HTTP_ROUNDS:-1}
DURATION=${HTTP_DURATION:-5s}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/examples
TICKS=$(getconf CLK_TCK)

if ((NCPU >= 8)); then
    SERVER_CPUS=$((NCPU - 4))
    PIN_SERVER=(taskset -c "0-$((NCPU - 5))")
    PIN_WRK=(taskset -c "$((NCPU - 4))-$((NCPU - 1))")
    WRK_THREADS=4
    PLACEMENT="server on CPUs 0-$((NCPU - 5)), wrk -t4 on CPUs $((NCPU - 4))-$((NCPU - 1))"
    SMALL=
else
    SERVER_CPUS=$NCPU
    PIN_SERVER=()
    PIN_WRK=()
    WRK_THREADS=1
    PLACEMENT="no pinning, wrk -t1 shares the $NCPU CPUs with the server"
    SMALL="NOTE: $NCPU CPUs (< 8): no pinning, wrk -t1 beside the server; these figures only check that the script works."
fi

# Worker counts, capped at the server's CPUs, duplicates dropped (order kept).
WORKERS=()
for w in $WORKERS_LIST; do
    if ((w > SERVER_CPUS)); then
        echo "   workers $w > $SERVER_CPUS server CPUs: using $SERVER_CPUS"
        w=$SERVER_CPUS
    fi
    [[ " ${WORKERS[*]-} " == *" $w "* ]] || WORKERS+=("$w")
done

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
if ((NCPU >= 8)); then command -v taskset >/dev/null || { echo "taskset (util-linux) is missing" >&2; exit 1; }; fi
# 1024 connections need more than 1024 descriptors on each side.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

WORK=$(mktemp -d)
echo "== building the servers (release)"
if ! cargo build --release -p examples --example hyper_server --example hyper_tokio \
    --example raw_responder >"$WORK/build.log" 2>&1; then
    cat "$WORK/build.log" >&2
    exit 1
fi

# shellcheck source=benches/scripts/http_servers.sh
source "$ROOT/benches/scripts/http_servers.sh"

# A pattern (awk regex) matching the `comm` of a server's worker threads (header).
worker_name() {
    case $1 in
        *-ours) echo '^runtime-worker$' ;;
        *-tokio) echo '^tokio-(rt-worker|runtime-w)$' ;;
    esac
}

# One line per thread of process $1: "TID TICKS COMM" (utime + stime; spaces in the name
# become '_'). A thread that exits while being read is skipped.
threads_of() {
    local d tid comm t
    for d in /proc/"$1"/task/*; do
        tid=${d##*/}
        comm=$(tr ' ' '_' 2>/dev/null <"$d/comm") || continue
        t=$(sed 's/^.*) //' "$d/stat" 2>/dev/null | awk '{ print $12 + $13 }') || continue
        [[ -n $t ]] && echo "$tid $t $comm"
    done
}

# share BEFORE AFTER PATTERN W: "MIN MAX BUSY_WORKERS WORKERS_FOUND BUSY_THREADS TICKS"
# where the workers are the first W threads whose name matches PATTERN by thread id, MIN/MAX their ticks over the
# run divided by the workers' mean, TICKS the workers' ticks (comma-separated).
share() {
    awk 'NR == FNR { before[$1] = $2; next }
         { print $1, $2 - (($1 in before) ? before[$1] : 0), $3 }' "$1" "$2" |
        sort -n -k1,1 |
        awk -v pat="$3" -v w="$4" '
            $2 > 0 { busy++ }
            $3 ~ pat && n < w { n++; t[n] = $2; sum += $2; if ($2 > 0) bw++ }
            END {
                if (n == 0 || sum == 0) { printf "- - %d %d %d -\n", bw, n, busy; exit }
                mean = sum / n; min = max = t[1]; list = t[1]
                for (i = 2; i <= n; i++) {
                    if (t[i] < min) min = t[i]
                    if (t[i] > max) max = t[i]
                    list = list "," t[i]
                }
                printf "%.2f %.2f %d %d %d %s\n", min / mean, max / mean, bw, n, busy, list
            }'
}

reversed() { local out=() x; for x in $1; do out=("$x" "${out[@]}"); done; echo "${out[*]}"; }

echo "== $NCPU CPUs; $PLACEMENT; wrk -d$DURATION after a 1 s warm-up; $ROUNDS round(s); workers ${WORKERS[*]}; clock tick $TICKS/s"
[[ -z $SMALL ]] || echo "$SMALL"

declare -A RPS CPU SMIN SMAX BW BT
for c in $CONNS_LIST; do
    for w in "${WORKERS[@]}"; do
        for ((r = 1; r <= ROUNDS; r++)); do
            order=$SERVERS
            ((r % 2 == 1)) || order=$(reversed "$SERVERS")
            for s in $order; do
                start_server "$s" env RUNTIME_WORKER_THREADS="$w" TOKIO_WORKER_THREADS="$w" "${PIN_SERVER[@]}"
                url="http://127.0.0.1:$PORT/"
                # A short warm-up, so connection set-up and lazy allocation stay out of the count.
                "${PIN_WRK[@]}" wrk -t"$WRK_THREADS" -c"$c" -d1s "$url" >/dev/null
                read -r u0 s0 < <(cpu_of "$SERVER_PID")
                threads_of "$SERVER_PID" >"$WORK/before"
                "${PIN_WRK[@]}" wrk -t"$WRK_THREADS" -c"$c" -d"$DURATION" "$url" >"$WORK/wrk"
                read -r u1 s1 < <(cpu_of "$SERVER_PID")
                threads_of "$SERVER_PID" >"$WORK/after"
                stop_server
                k=$s,$w,$c,$r
                reqs=$(awk '/requests in/ {print $1}' "$WORK/wrk")
                RPS[$k]=$(awk '/^Requests\/sec:/ {print $2}' "$WORK/wrk")
                CPU[$k]=$(awk -v d="$((u1 - u0 + s1 - s0))" -v t="$TICKS" -v r="$reqs" \
                    'BEGIN { if (r > 0) printf "%.2f", d / t * 1e6 / r; else printf "0" }')
                usr=$(awk -v d="$((u1 - u0))" -v t="$TICKS" -v r="$reqs" 'BEGIN { if (r > 0) printf "%.2f", d / t * 1e6 / r; else printf "0" }')
                read -r smin smax bw found bt ticks < <(share "$WORK/before" "$WORK/after" "$(worker_name "$s")" "$w")
                SMIN[$k]=$smin SMAX[$k]=$smax BW[$k]=$bw/$w BT[$k]=$bt
                note=
                ((found == w)) || note=" (only $found threads named $(worker_name "$s"))"
                errs=$(grep -E 'Socket errors|Non-2xx' "$WORK/wrk" | tr -s ' ' | tr '\n' ';' || true)
                echo "   -c$c w$w round $r $s: ${RPS[$k]} req/s, ${CPU[$k]} µs/req (user $usr), worker share ${SMIN[$k]}-${SMAX[$k]}, busy workers ${BW[$k]}$note, busy threads ${BT[$k]}, worker ticks $ticks${errs:+, wrk: $errs}"
            done
        done
    done
done

median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
lowest() { printf '%s\n' "$@" | sort -g | head -n1; }
highest() { printf '%s\n' "$@" | sort -g | tail -n1; }
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
# over_rounds ARRAY KEY_PREFIX: the values of ARRAY[KEY_PREFIX,1..ROUNDS].
over_rounds() {
    local -n arr=$1
    local r
    for ((r = 1; r <= ROUNDS; r++)); do echo "${arr[$2,$r]}"; done
}

echo
echo "== HTTP scaling: $PLACEMENT; wrk -d$DURATION; medians over $ROUNDS round(s) (shares: extremes)"
[[ -z $SMALL ]] || echo "$SMALL"
echo "   ratios: ours / tokio on the ours row (req/s: higher is better for ours; CPU µs/req: lower is)"
echo "   worker share: each worker's CPU ticks / the workers' mean, min/max (target 0.50/1.50 or tighter)"
printf '%-12s %7s %6s %12s %7s %9s %7s %11s %7s %7s\n' server workers conns "req/s" ratio "CPU µs/req" ratio "share" "busy w" "busy thr"
declare -A MRPS MCPU
for c in $CONNS_LIST; do
    for w in "${WORKERS[@]}"; do
        for s in $SERVERS; do
            # shellcheck disable=SC2046
            MRPS[$s]=$(median $(over_rounds RPS "$s,$w,$c"))
            # shellcheck disable=SC2046
            MCPU[$s]=$(median $(over_rounds CPU "$s,$w,$c"))
        done
        for s in $SERVERS; do
            rr= cr=
            if [[ $s == *-ours && " $SERVERS " == *" ${s%-ours}-tokio "* ]]; then
                t=${s%-ours}-tokio
                rr=$(ratio "${MRPS[$s]}" "${MRPS[$t]}")
                cr=$(ratio "${MCPU[$s]}" "${MCPU[$t]}")
            fi
            # shellcheck disable=SC2046
            smin=$(lowest $(over_rounds SMIN "$s,$w,$c"))
            # shellcheck disable=SC2046
            smax=$(highest $(over_rounds SMAX "$s,$w,$c"))
            # Fewest busy workers: "b/w" sorts on b.
            # shellcheck disable=SC2046
            bw=$(printf '%s\n' $(over_rounds BW "$s,$w,$c") | sort -t/ -k1,1n | head -n1)
            # shellcheck disable=SC2046
            bt=$(highest $(over_rounds BT "$s,$w,$c"))
            printf '%-12s %7s %6s %12s %7s %9s %7s %11s %7s %7s\n' "$s" "$w" "$c" "${MRPS[$s]}" "${rr:--}" \
                "${MCPU[$s]}" "${cr:--}" "$smin/$smax" "$bw" "$bt"
        done
    done
done
