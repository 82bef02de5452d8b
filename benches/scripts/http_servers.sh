# http_servers.sh: what the server bench scripts (http.sh, http_cpu.sh, http_scaling.sh,
# redis_cpu.sh)
# share, sourced by each: the server binaries by name, starting one and waiting for its
# port, stopping it, and reading a process's CPU time. Expects BIN (the release examples
# folder) and WORK (a scratch folder) to be set; sets SERVER_PID and PORT.

SERVER_PID=
cleanup() {
    if [[ -n $SERVER_PID ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# The command line of server NAME, on an OS-picked port.
server_cmd() {
    case $1 in
        ours-http) echo "$BIN/http_server 0" ;;
        hyper-ours) echo "$BIN/hyper_server 0" ;;
        hyper-tokio) echo "$BIN/hyper_tokio 0" ;;
        raw-ours) echo "$BIN/raw_responder 0 --runtime ours" ;;
        raw-tokio) echo "$BIN/raw_responder 0 --runtime tokio" ;;
        # Tuned tokio: the same programs built with `--cfg tokio_unstable` (BIN_TUNED).
        hyper-tokio-tuned) echo "$BIN_TUNED/hyper_tokio 0" ;;
        raw-tokio-tuned) echo "$BIN_TUNED/raw_responder 0 --runtime tokio" ;;
        # The Redis-protocol server (redis_cpu.sh), the same three ways.
        redis-ours) echo "$BIN/redis_server 0 --runtime ours" ;;
        redis-tokio) echo "$BIN/redis_server 0 --runtime tokio" ;;
        redis-tokio-tuned) echo "$BIN_TUNED/redis_server 0 --runtime tokio" ;;
        *) echo "unknown server $1" >&2; exit 2 ;;
    esac
}

# start_server NAME [PREFIX...]: starts server NAME, its command line run after PREFIX (an
# `env`/`taskset` that execs it, so $! is the server's own PID); sets SERVER_PID and PORT
# once it prints its address.
start_server() {
    local name=$1 log=$WORK/$1.log
    shift
    # Emptied here, not by the redirection below: that one runs in the forked child, so the
    # wait loop could read the previous run's port from the old log before the child
    # truncates it.
    : >"$log"
    # shellcheck disable=SC2046
    "$@" $(server_cmd "$name") >"$log" 2>&1 &
    SERVER_PID=$!
    PORT=
    for _ in $(seq 100); do
        PORT=$(sed -n 's/.*listening on [a-z]*:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" 2>/dev/null | head -n1 || true)
        [[ -n $PORT ]] && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log" >&2; echo "$name died" >&2; exit 1; }
        sleep 0.1
    done
    [[ -n $PORT ]] || { cat "$log" >&2; echo "$name did not start" >&2; exit 1; }
}

stop_server() {
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

# "utime stime" of a process, in clock ticks (the command name may hold spaces: cut
# after its closing parenthesis; utime and stime are then the 12th and 13th fields).
cpu_of() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12, $13 }'; }
