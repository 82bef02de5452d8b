#!/usr/bin/env bash
# compare.sh: runs the bench files (the scheduler's multi-thread and current-thread
# flavors, join_set, the sync locks and channels, the I/O trait layers), then prints tables
# of medians (ours beside tokio, tuned tokio, smol, smol's static executor and the floor
# where a group has them) and callgrind instruction counts per spawned task and per channel
# message. Tuned tokio is tokio as production users run it: built with `--cfg
# tokio_unstable`, the multi-thread flavor with `enable_alt_timer()` and
# `enable_eager_driver_handoff()` (benches/src/adapters/tokio_rt.rs); it needs a second
# build of the bench binaries ($CARGO_TARGET_DIR/tokio-tuned), which runs only its rows.
# See benches/README.md for how to read it.
#
# Usage, from the repository root:
#   bash benches/scripts/compare.sh                    # 4 workers (the default)
#   BENCH_WORKERS=2 bash benches/scripts/compare.sh    # 2 workers
# Options:
#   --no-bench   skip criterion; print the table from the last run's results
#   --no-instr   skip the callgrind instruction counts
#   --no-tuned   skip tuned tokio (its second build and its runs)
# Environment:
#   BENCH_WORKERS          worker threads of the multi-thread runtimes (default 4)
#   BENCH_FILES            the bench files to run (default: rt_multi_threaded
#                          rt_current_thread join_set sync_locks sync_chan io_traits)
#   BENCH_ROUNDS           rounds of the files (default 3); each time in the table is
#                          the median over the rounds of criterion's median, each ratio
#                          the median over the rounds of that round's ratio
#   RUNTIME_BENCH_METRICS  =1: also print our runtime's per-worker counters per group
#   CRITERION_ARGS         criterion flags (default: short runs, see below)
#   CARGO_TARGET_DIR       where to build (default: target/); results go to
#                          $CARGO_TARGET_DIR/criterion-compare/workers-N/
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
WORKERS=${BENCH_WORKERS:-4}
export BENCH_WORKERS=$WORKERS
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=$TARGET/criterion-compare/workers-$WORKERS
# Short runs, several rounds: this machine's speed drifts by tens of percent from one
# minute to the next, so a single pass can catch one runtime in a slow minute and its
# neighbour in a fast one. Rounds spread every runtime over the whole run; the table shows
# the median of the rounds' medians. The whole script takes about 10 minutes on 2 cores
# (after the first, slow, fat-LTO build). Groups with long iterations override the sample
# size in code.
ROUNDS=${BENCH_ROUNDS:-3}
BENCH_FILES=${BENCH_FILES:-rt_multi_threaded rt_current_thread join_set sync_locks sync_chan io_traits}
CRITERION_ARGS=${CRITERION_ARGS:---noplot --warm-up-time 0.3 --measurement-time 1 --sample-size 15 --nresamples 20000}

RUN_BENCH=1
RUN_INSTR=1
RUN_TUNED=1
for arg in "$@"; do
    case $arg in
        --no-bench) RUN_BENCH=0 ;;
        --no-instr) RUN_INSTR=0 ;;
        --no-tuned) RUN_TUNED=0 ;;
        -h | --help)
            sed -n '2,29p' "${BASH_SOURCE[0]}"
            exit 0
            ;;
        *)
            echo "compare.sh: unknown option $arg (try --help)" >&2
            exit 2
            ;;
    esac
done

command -v python3 >/dev/null || {
    echo "compare.sh: python3 is needed to read criterion's results" >&2
    exit 1
}

if [[ $RUN_BENCH == 1 ]]; then
    rm -rf "$OUT"
fi
mkdir -p "$OUT/bin"

# Builds with cargo, logging to $OUT/build.log; prints "target<TAB>executable" per binary.
build() {
    cargo "$@" --message-format=json 2>>"$OUT/build.log" | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["name"] + "\t" + m["executable"])
'
}

# Build everything first and run copies of the binaries, so that all numbers of one run
# come from one build even if the sources change while it runs.
HAVE_VALGRIND=1
command -v valgrind >/dev/null || HAVE_VALGRIND=0
if [[ $RUN_BENCH == 1 || ($RUN_INSTR == 1 && $HAVE_VALGRIND == 1) ]]; then
    echo "building (the first build, with fat LTO, takes minutes; log: $OUT/build.log)..."
fi
if [[ $RUN_BENCH == 1 ]]; then
    if ! bins=$(build bench -p benches --no-run); then
        echo "compare.sh: the build failed; the end of its log:" >&2
        tail -n 30 "$OUT/build.log" >&2
        exit 1
    fi
    while IFS=$'\t' read -r name exe; do
        cp "$exe" "$OUT/bin/$name"
    done <<<"$bins"
    if [[ $RUN_TUNED == 1 ]]; then
        # Tuned tokio: the same bench files with `--cfg tokio_unstable`, in a target dir of
        # their own (the flag rebuilds every crate); only their `tokio_tuned` rows run.
        mkdir -p "$OUT/bin-tuned"
        if ! bins=$(RUSTFLAGS="${RUSTFLAGS:-} --cfg tokio_unstable" CARGO_TARGET_DIR="$TARGET/tokio-tuned" \
            build bench -p benches --no-run); then
            echo "compare.sh: the tuned-tokio build failed; the end of its log:" >&2
            tail -n 30 "$OUT/build.log" >&2
            exit 1
        fi
        while IFS=$'\t' read -r name exe; do
            cp "$exe" "$OUT/bin-tuned/$name"
        done <<<"$bins"
    fi
fi
if [[ $RUN_INSTR == 1 && $HAVE_VALGRIND == 1 ]]; then
    if ! bins=$(build build --profile bench -p benches --bin instr); then
        echo "compare.sh: building instr failed; the end of its log:" >&2
        tail -n 30 "$OUT/build.log" >&2
        exit 1
    fi
    cp "$(cut -f2 <<<"$bins")" "$OUT/bin/instr"
    if ! bins=$(build build --profile bench -p benches --bin instr_chan); then
        echo "compare.sh: building instr_chan failed; the end of its log:" >&2
        tail -n 30 "$OUT/build.log" >&2
        exit 1
    fi
    cp "$(cut -f2 <<<"$bins")" "$OUT/bin/instr_chan"
fi

if [[ $RUN_BENCH == 1 ]]; then
    export CRITERION_HOME=$OUT
    cut -d' ' -f1-3 /proc/loadavg >"$OUT/load-start" 2>/dev/null || true
    for round in $(seq 1 "$ROUNDS"); do
        for file in $BENCH_FILES; do
            echo "round $round/$ROUNDS: running $file (BENCH_WORKERS=$WORKERS; log: $OUT/$file.log)..."
            start=$SECONDS
            # `--bench` is what cargo passes: without it criterion runs each function once.
            # shellcheck disable=SC2086 # CRITERION_ARGS is a list of flags
            if ! (cd benches && "$OUT/bin/$file" --bench $CRITERION_ARGS) >"$OUT/$file.log" 2>&1; then
                echo "compare.sh: $file failed; the end of its log:" >&2
                tail -n 30 "$OUT/$file.log" >&2
                exit 1
            fi
            if [[ $RUN_TUNED == 1 && -x $OUT/bin-tuned/$file ]]; then
                # shellcheck disable=SC2086 # CRITERION_ARGS is a list of flags
                if ! (cd benches && "$OUT/bin-tuned/$file" --bench $CRITERION_ARGS tokio_tuned) \
                    >>"$OUT/$file.log" 2>&1; then
                    echo "compare.sh: $file (tuned tokio) failed; the end of its log:" >&2
                    tail -n 30 "$OUT/$file.log" >&2
                    exit 1
                fi
            fi
            cp "$OUT/$file.log" "$OUT/$file.round$round.log"
            echo "  done in $((SECONDS - start)) s"
        done
        # This round's medians (criterion overwrites its `new` estimates every round).
        python3 - "$OUT" "$OUT/round-$round.json" <<'PY'
import json, os, sys
out, dst = sys.argv[1], sys.argv[2]
medians = []
for dirpath, dirnames, filenames in os.walk(out):
    if os.path.basename(dirpath) != "new" or "benchmark.json" not in filenames:
        continue
    with open(os.path.join(dirpath, "benchmark.json")) as f:
        meta = json.load(f)
    with open(os.path.join(dirpath, "estimates.json")) as f:
        est = json.load(f)
    medians.append([meta["group_id"], meta["function_id"], est["median"]["point_estimate"]])
with open(dst, "w") as f:
    json.dump(medians, f)
PY
    done
    cut -d' ' -f1-3 /proc/loadavg >"$OUT/load-end" 2>/dev/null || true
fi

INSTR_FILE=$OUT/instr.tsv
INSTR_CHAN_FILE=$OUT/instr_chan.tsv
if [[ $RUN_INSTR == 1 ]]; then
    rm -f "$INSTR_FILE" "$INSTR_CHAN_FILE"
    if [[ $HAVE_VALGRIND == 0 ]]; then
        echo "valgrind not found: skipping the instruction counts (apt-get install valgrind)"
    else
        echo "counting instructions under callgrind..."
        INSTR=$OUT/bin/instr
        # Prints the instructions callgrind collected over the whole process.
        collected() {
            timeout 600 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$INSTR" "$@" 2>&1 |
                sed -n 's/.*Collected : \([0-9]*\).*/\1/p' || true
        }
        for rt in runtime tokio smol smol_static floor; do
            for wl in spawn_many_local chained_spawn; do
                for flavor in current "$WORKERS"; do
                    [[ $rt == floor && $flavor != current ]] && continue
                    tasks=$(timeout 600 "$INSTR" "$rt" "$wl" 0 "$flavor" | sed -n 's/tasks_per_iteration //p' || true)
                    one=$(collected "$rt" "$wl" 1 "$flavor")
                    eleven=$(collected "$rt" "$wl" 11 "$flavor")
                    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$rt" "$wl" "$flavor" "$tasks" "$one" "$eleven" >>"$INSTR_FILE"
                done
            done
        done
        # Channel messages: instr_chan <rt> <workload> N prints the messages per iteration.
        for rt in runtime tokio smol; do
            for wl in uncontended_bounded uncontended_unbounded full_ping; do
                msgs=$(timeout 600 "$OUT/bin/instr_chan" "$rt" "$wl" 0 || true)
                one=$(INSTR=$OUT/bin/instr_chan collected "$rt" "$wl" 1)
                eleven=$(INSTR=$OUT/bin/instr_chan collected "$rt" "$wl" 11)
                printf '%s\t%s\t%s\t%s\t%s\n' "$rt" "$wl" "$msgs" "$one" "$eleven" >>"$INSTR_CHAN_FILE"
            done
        done
    fi
fi

if [[ ${RUNTIME_BENCH_METRICS:-} == 1 ]]; then
    echo
    echo "=== our runtime's counters per group (RUNTIME_BENCH_METRICS=1) ==="
    for file in $BENCH_FILES; do
        if [[ -f $OUT/$file.log ]]; then
            awk '/^runtime metrics,/{p=1} p&&/^$/{p=0; print ""} p' "$OUT/$file.log"
        fi
    done
fi

python3 - "$OUT" "$WORKERS" "$INSTR_FILE" "$INSTR_CHAN_FILE" <<'PY'
import glob, json, os, statistics, sys, platform

out, workers, instr_file, instr_chan_file = sys.argv[1:5]
RUNTIMES = ["runtime", "tokio", "tokio_tuned", "smol", "smol_static", "floor"]
WORKLOADS = ["spawn_many_local", "spawn_many_remote_idle", "spawn_many_remote_busy1",
             "spawn_many_remote_busy2", "spawn_remote_threads_1", "spawn_remote_threads_4",
             "spawn_remote_threads_16", "spawn_remote_threads_64", "ping_pong", "ping_pong_own_oneshot", "yield_many",
             "chained_spawn", "join_set"]
# Spawns from many plain threads: multi-thread only (a current-thread runtime's tasks run
# on the bench thread, which is blocked in the barrier).
MULTI_ONLY = {"spawn_remote_threads_1", "spawn_remote_threads_4", "spawn_remote_threads_16",
              "spawn_remote_threads_64"}
# The sync groups (benches/benches/sync_{locks,chan}.rs), multi-thread only: group, row name.
SYNC_GROUPS = [("sync/" + w, w) for w in (
    "semaphore_uncontended", "semaphore_contended_1", "semaphore_contended_n",
    "mutex_contended", "rwlock_read_uncontended", "rwlock_read_contended",
    "rwlock_write_held", "notify_one", "notify_waiters")] + \
    [("sync_chan/" + w, w) for w in (
    "mpsc_contention_bounded", "mpsc_contention_unbounded", "mpsc_uncontended_bounded",
    "mpsc_uncontended_unbounded", "mpsc_full_ping", "watch_fanout_16",
    "broadcast_fanout_16")]
IO_GROUPS = ["io_echo/1KiB", "io_echo/64KiB"]
FLAVORS = [("multi_thread", f"multi({workers})"), ("current_thread", "current")]

# Each round's criterion medians (round-N.json). A time shown is the median over the
# rounds; a ratio is the median over the rounds of that round's ratio (the two times of
# one round were taken minutes apart at most, so drift between rounds cancels out).
per_round = {}
round_files = sorted(glob.glob(os.path.join(out, "round-*.json")))
for index, path in enumerate(round_files):
    with open(path) as f:
        for group, function, median in json.load(f):
            per_round.setdefault((group, function), {})[index] = median
medians = {key: statistics.median(values.values()) for key, values in per_round.items()}
rounds = len(round_files)

def paired(group, num, den):
    """Median over the rounds of num's time / den's time; None if no round has both."""
    a, b = per_round.get((group, num), {}), per_round.get((group, den), {})
    ratios = [a[i] / b[i] for i in a if i in b and b[i]]
    return statistics.median(ratios) if ratios else None

def fmt(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"

def cell(ns, ratio):
    if ns is None:
        return "-"
    if ratio is None:
        return fmt(ns)
    return f"{fmt(ns)} {ratio:5.2f}x"

def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read().strip()
    except OSError:
        return "?"

nproc = os.cpu_count()
print()
print(f"=== medians (of {rounds} rounds' criterion medians): multi-thread runtimes with {workers} workers; {nproc} cores, "
      f"{platform.node()}; load average (1/5/15 min) {load('load-start')} before the benches, "
      f"{load('load-end')} after ===")
print("each other runtime: its median, then THEIR TIME / OUR TIME (2.00x = ours is twice as"
      " fast; below 1.00x = ours is slower), the median of the rounds' ratios")
print("ours/floor = OUR TIME / FLOOR TIME (1.00x would be the floor itself), likewise")
print("target: multi <= 0.75x tokio and tuned tokio (>= 1.33x here) and faster than every other"
      " runtime; current <= 0.85x tokio (>= 1.18x); spawn_many_local & chained_spawn"
      " within 4x floor")
hdr = f"{'flavor':<9} {'workload':<24} {'runtime':>10}"
for rt in RUNTIMES[1:]:
    hdr += f" {rt:>16}"
hdr += f" {'ours/floor':>10}  target"
print(hdr)
print("-" * len(hdr))
missing = 0
for group_prefix, flavor in FLAVORS:
    for wl in WORKLOADS:
        if group_prefix != "multi_thread" and wl in MULTI_ONLY:
            continue
        group = f"{group_prefix}/{wl}"
        get = lambda rt: medians.get((group, rt))
        ratio = lambda rt: paired(group, rt, "runtime")
        ours = get("runtime")
        if ours is None and all(get(rt) is None for rt in RUNTIMES):
            missing += 1
            continue
        row = f"{flavor:<9} {wl:<24} {fmt(ours):>10}"
        for rt in RUNTIMES[1:]:
            row += f" {cell(get(rt), ratio(rt)):>16}"
        to_floor = paired(group, "runtime", "floor")
        row += f" {(f'{to_floor:.2f}x' if to_floor is not None else '-'):>10}"
        misses = []
        if ours is not None and wl != "join_set":
            need = 0.75 if group_prefix == "multi_thread" else 0.85
            # ours <= need x tokio  <=>  tokio / ours >= 1 / need; tuned tokio likewise
            for t in ("tokio", "tokio_tuned"):
                if ratio(t) is not None and ratio(t) * need < 1:
                    misses.append(t)
            if group_prefix == "multi_thread":
                misses += [rt for rt in ("smol", "smol_static")
                           if ratio(rt) is not None and ratio(rt) <= 1]
            if wl in ("spawn_many_local", "chained_spawn") and to_floor and to_floor > 4:
                misses.append("floor")
        row += "  " + ("ok" if not misses else "MISS: " + ",".join(misses))
        print(row)
if missing:
    print(f"({missing} workload rows had no results: a bench failed or was filtered out)")

def sync_table():
    rows = [(g, w) for g, w in SYNC_GROUPS if (g, "runtime") in medians or (g, "tokio") in medians]
    if not rows:
        return
    # The smol ecosystem's primitives on our runtime (async-lock / event-listener in
    # sync_locks, async-channel in sync_chan's mpsc groups): the primitives alone compared.
    on_ours = lambda group: "asyncchannel_on_ours" if group.startswith("sync_chan/") else "asynclock_on_ours"
    print()
    print(f"=== sync primitives (multi({workers})): medians, then THEIR TIME / OUR TIME as above ===")
    print("target: <= 0.8x tokio's and tuned tokio's time (>= 1.25x here), faster than smol's"
          " ecosystem (> 1.00x), and at least as fast as smol's primitives on our runtime"
          " (on_ours: async-lock / async-channel; >= 1.00x)")
    hdr = (f"{'group':<10} {'workload':<27} {'runtime':>10} {'tokio':>16} {'tokio_tuned':>16}"
           f" {'smol':>16} {'on_ours':>16}  target")
    print(hdr)
    print("-" * len(hdr))
    for group, wl in rows:
        get = lambda rt: medians.get((group, rt))
        ratio = lambda rt: paired(group, rt, "runtime")
        row = f"{group.split('/')[0]:<10} {wl:<27} {fmt(get('runtime')):>10}"
        for rt in ("tokio", "tokio_tuned", "smol", on_ours(group)):
            row += f" {cell(get(rt), ratio(rt)):>16}"
        misses = []
        if get("runtime") is not None:
            for t in ("tokio", "tokio_tuned"):
                if ratio(t) is not None and ratio(t) * 0.8 < 1:
                    misses.append(t)
            if ratio("smol") is not None and ratio("smol") <= 1:
                misses.append("smol")
            if ratio(on_ours(group)) is not None and ratio(on_ours(group)) < 1:
                misses.append("on_ours")
        row += "  " + ("ok" if not misses else "MISS: " + ",".join(misses))
        print(row)
    # The notify_waiters floor (benches/src/workloads/notify_floor.rs): the same loop over the least
    # a notify-all primitive can do, on our runtime and on tokio's.
    g = "sync/notify_waiters"
    floor, floor_tokio, tokio = (medians.get((g, f)) for f in ("floor", "floor_tokio", "tokio"))
    if floor is not None and tokio is not None:
        print(f"notify_waiters floor (one slot per waiter, no lock, no list): on ours {fmt(floor)},"
              f" on tokio {fmt(floor_tokio)}; the target (0.8x tokio's Notify) is {fmt(0.8 * tokio)},"
              f" ours/floor {paired(g, 'runtime', 'floor'):.2f}x,"
              f" target/floor {0.8 * tokio / floor:.2f}x (below 1.00x: under the floor)")

def io_table():
    rows = [g for g in IO_GROUPS if (g, "tokio_traits") in medians or (g, "futures_io") in medians]
    if not rows:
        return
    print()
    print("=== I/O trait layers (echo over loopback, one runtime::net::TcpStream): medians;"
          " futures_io / tokio_traits is the cost of one family over the other (expect ~1.00x) ===")
    hdr = f"{'group':<16} {'tokio_traits':>13} {'futures_io':>13} {'futures_io/tokio_traits':>24}"
    print(hdr)
    print("-" * len(hdr))
    for group in rows:
        r = paired(group, "futures_io", "tokio_traits")
        print(f"{group:<16} {fmt(medians.get((group, 'tokio_traits'))):>13}"
              f" {fmt(medians.get((group, 'futures_io'))):>13}"
              f" {(f'{r:.2f}x' if r is not None else '-'):>24}")

sync_table()
io_table()

if os.path.exists(instr_file) and os.path.getsize(instr_file) > 0:
    counts = {}
    with open(instr_file) as f:
        for line in f:
            rt, wl, flavor, tasks, one, eleven = line.rstrip("\n").split("\t")
            try:
                counts[(rt, wl, flavor)] = (int(eleven) - int(one)) / (10 * int(tasks))
            except ValueError:
                counts[(rt, wl, flavor)] = None
    cols = [(wl, fl) for wl in ("spawn_many_local", "chained_spawn")
            for fl in ("current", workers)]
    print()
    print("=== instructions per spawned task (callgrind: (I(11 iterations) - I(1)) /"
          " (10 x tasks per iteration); all threads; lower is better) ===")
    print(f"{'':<12}" + "".join(f" {wl + (' current' if fl == 'current' else f' multi({fl})'):>27}"
                               for wl, fl in cols) + "   ours/theirs, current: spawn_many / chained")
    base = {wl: counts.get(("runtime", wl, "current")) for wl, _ in cols}
    for rt in RUNTIMES:
        line = f"{rt:<12}"
        for wl, fl in cols:
            v = counts.get((rt, wl, fl))
            line += f" {('-' if v is None else f'{v:.0f}'):>27}"
        rel = []
        for wl in ("spawn_many_local", "chained_spawn"):
            v = counts.get((rt, wl, "current"))
            rel.append(f"{base[wl] / v:.2f}x" if v and base[wl] else "-")
        line += "   " + " / ".join(rel)
        print(line)

if os.path.exists(instr_chan_file) and os.path.getsize(instr_chan_file) > 0:
    per_msg = {}
    with open(instr_chan_file) as f:
        for line in f:
            rt, wl, msgs, one, eleven = line.rstrip("\n").split("\t")
            try:
                per_msg[(rt, wl)] = (int(eleven) - int(one)) / (10 * int(msgs))
            except ValueError:
                per_msg[(rt, wl)] = None
    wls = ("uncontended_bounded", "uncontended_unbounded", "full_ping")
    print()
    print("=== instructions per mpsc message (callgrind, instr_chan, current-thread: (I(11) - I(1)) /"
          " (10 x messages per iteration); lower is better) ===")
    print(f"{'':<12}" + "".join(f" {wl:>22}" for wl in wls))
    for rt in ("runtime", "tokio", "smol"):
        line = f"{rt:<12}"
        for wl in wls:
            v = per_msg.get((rt, wl))
            line += f" {('-' if v is None else f'{v:.0f}'):>22}"
        print(line)
PY
