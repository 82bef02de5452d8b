#!/usr/bin/env bash
# http.sh: HTTP/1.1 throughput on loopback, our runtime beside tokio, in one go.
#
# Servers (all answer "Hello, World!" with keep-alive, all with the same worker count):
#   ours-http     our hyper-like server (examples::http)      examples/examples/http_server.rs
#   hyper-ours    hyper 1.x on our runtime (TokioIo, HyperTimer) examples/examples/hyper_server.rs
#   hyper-tokio   hyper 1.x on tokio, the classic setup        examples/examples/hyper_tokio.rs
#   raw-ours      minimal keep-alive responder on our runtime  examples/examples/raw_responder.rs
#   raw-tokio     the same responder code on tokio             (--runtime tokio)
# For each: start it on a port the OS picks (127.0.0.1 only), run `wrk -t1 -c50 -d10s`, then
# attach `strace -c -f` for a second, shorter wrk run and divide the syscalls counted by
# the requests wrk completed meanwhile; kill it. Prints requests/second side by side with
# the ratios to tokio, and syscalls per request.
#
# Usage, from anywhere:  bash benches/scripts/http.sh [--no-strace]
# Environment:
#   HTTP_WORKERS      worker threads of every server (default 2; sets RUNTIME_WORKER_THREADS
#                     and TOKIO_WORKER_THREADS)
#   HTTP_DURATION     wrk duration of the throughput run (default 10s)
#   HTTP_CONNS        wrk connections (default 50)
#   HTTP_STRACE_SECS  duration of the wrk run under strace (default 2)
#   HTTP_SERVERS      which servers, space-separated (default: all five, in the order above)
#   CARGO_TARGET_DIR  where to build (default: target/)
# Installs wrk and strace with apt-get when missing. The load generator shares the machine
# with the server: on a small box the numbers are relative, not absolute.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
WORKERS=${HTTP_WORKERS:-2}
DURATION=${HTTP_DURATION:-10s}
CONNS=${HTTP_CONNS:-50}
STRACE_SECS=${HTTP_STRACE_SECS:-2}
SERVERS=${HTTP_SERVERS:-ours-http hyper-ours hyper-tokio raw-ours raw-tokio}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release/examples
RUN_STRACE=1
for arg in "$@"; do
    case $arg in
        --no-strace) RUN_STRACE=0 ;;
        *) echo "unknown option: $arg" >&2; exit 2 ;;
    esac
done

need=()
command -v wrk >/dev/null || need+=(wrk)
[[ $RUN_STRACE == 0 ]] || command -v strace >/dev/null || need+=(strace)
if ((${#need[@]})); then
    echo "== installing ${need[*]}"
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

# Logs and strace summaries of this run (kept until it ends).
WORK=$TARGET/http-bench/run-$$
mkdir -p "$WORK"

echo "== building the servers (release)"
if ! cargo build --release -p examples --example http_server --example hyper_server \
    --example hyper_tokio --example raw_responder >"$WORK/build.log" 2>&1; then
    cat "$WORK/build.log" >&2
    exit 1
fi

export RUNTIME_WORKER_THREADS=$WORKERS TOKIO_WORKER_THREADS=$WORKERS
# shellcheck source=benches/scripts/http_servers.sh
source "$ROOT/benches/scripts/http_servers.sh"

# wrk's "Requests/sec:" and its request count.
rps_of() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
requests_of() { awk '/requests in/ {print $1}' "$1"; }

declare -A RPS SYS TOP
for s in $SERVERS; do
    echo "== $s"
    start_server "$s"
    url=http://127.0.0.1:$PORT/
    # Sanity: it answers "Hello, World!" (read for at most 2 s: the raw responder never closes).
    body=$(printf 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
        timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; cat >&3; cat <&3" | head -c 4096 | tail -c 13 || true)
    [[ $body == "Hello, World!" ]] || { echo "$s answered ${body@Q}" >&2; exit 1; }

    wrk -t1 -c"$CONNS" -d"$DURATION" "$url" >"$WORK/$s.wrk"
    RPS[$s]=$(rps_of "$WORK/$s.wrk")
    echo "   ${RPS[$s]} req/s"

    if [[ $RUN_STRACE == 1 ]]; then
        strace -c -f -p "$SERVER_PID" -o "$WORK/$s.strace" 2>/dev/null &
        strace_pid=$!
        sleep 1 # let strace attach to every thread
        wrk -t1 -c"$CONNS" -d"${STRACE_SECS}s" "$url" >"$WORK/$s.strace-wrk"
        kill -INT "$strace_pid"
        wait "$strace_pid" 2>/dev/null || true
        reqs=$(requests_of "$WORK/$s.strace-wrk")
        # Syscall rows sit between the two dashed lines; their 4th column is the call count.
        read -r total top < <(awk -v reqs="$reqs" '
            /^-+ / { section++; next }
            section == 1 && NF >= 5 { calls[$NF] = $4; total += $4 }
            END {
                n = 0
                for (k in calls) order[n++] = k
                for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
                    if (calls[order[j]] > calls[order[i]]) { t = order[i]; order[i] = order[j]; order[j] = t }
                s = ""
                for (i = 0; i < n && i < 4; i++) s = s sprintf("%s%s %.2f", (i ? ", " : ""), order[i], calls[order[i]] / reqs)
                printf "%.2f %s\n", total / reqs, s
            }' "$WORK/$s.strace")
        SYS[$s]=$total
        TOP[$s]=$top
        echo "   ${SYS[$s]} syscalls/request ($reqs requests under strace: $top)"
    fi
    stop_server
done

ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

echo
echo "== wrk -t1 -c$CONNS -d$DURATION on 127.0.0.1, $WORKERS worker threads per server ($(nproc) cores, shared with wrk)"
printf '%-13s %12s %14s   %s\n' server "req/s" "syscalls/req" "top syscalls per request"
for s in $SERVERS; do
    printf '%-13s %12s %14s   %s\n' "$s" "${RPS[$s]:--}" "${SYS[$s]:--}" "${TOP[$s]:-}"
done
echo
printf '%-34s %8s %8s\n' "ratio" value target
has() { [[ " $SERVERS " == *" $1 "* && " $SERVERS " == *" $2 "* ]]; }
has hyper-ours hyper-tokio && printf '%-34s %8s %8s\n' "hyper: ours / tokio" "$(ratio "${RPS[hyper-ours]}" "${RPS[hyper-tokio]}")" ">= 1.10"
has raw-ours raw-tokio && printf '%-34s %8s %8s\n' "raw: ours / tokio" "$(ratio "${RPS[raw-ours]}" "${RPS[raw-tokio]}")" ">= 1.10"
has ours-http hyper-tokio && printf '%-34s %8s %8s\n' "hyper-like (ours) / hyper on tokio" "$(ratio "${RPS[ours-http]}" "${RPS[hyper-tokio]}")" ">= 1.15"
if [[ $RUN_STRACE == 1 ]]; then
    has hyper-ours hyper-tokio && printf '%-34s %8s %8s\n' "syscalls/req hyper: ours / tokio" "$(ratio "${SYS[hyper-ours]}" "${SYS[hyper-tokio]}")" "<= 1.00"
    has raw-ours raw-tokio && printf '%-34s %8s %8s\n' "syscalls/req raw: ours / tokio" "$(ratio "${SYS[raw-ours]}" "${SYS[raw-tokio]}")" "<= 1.00"
fi
