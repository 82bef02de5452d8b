#!/usr/bin/env bash
# scaling.sh: the scheduler benches at 1, 2, 4, 8 and 16 workers and the sync benches at 2
# and 16, ours beside tokio (and smol at 2), on a many-core machine such as the one the
# workplace's `device` tool lends. The project never needs that machine; this only
# prepares the run and reads its results.
#
#   bash benches/scripts/scaling.sh build        # here: builds the three bench binaries, strips them
#                                        # into .devbin/ (git-ignored through
#                                        # .git/info/exclude) with .devbin/run.sh
#   device run: command "bash .devbin/run.sh", carry [".devbin"], timeout_s 400
#                                        # about 170 s on 16 CPUs; at most 8 files come back
#   bash benches/scripts/scaling.sh table DIR    # here: prints the tables from the files in DIR
#
# Criterion runs short (0.2 s warm-up, 0.8 s measurement, 12 samples): one run per
# configuration, so read ratios, not absolute times, and rerun a surprising row.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

case "${1:-}" in
build)
    mkdir -p .git/info .devbin
    grep -qx '/.devbin/' .git/info/exclude 2>/dev/null || echo '/.devbin/' >> .git/info/exclude
    cargo bench -p benches --bench rt_multi_threaded --bench sync_locks --bench sync_chan --no-run \
        2>&1 | tail -3
    for b in rt_multi_threaded sync_locks sync_chan; do
        f=$(ls -t target/release/deps/$b-* | grep -v '\.d$' | head -1)
        strip -o .devbin/$b "$f"
    done
    cat > .devbin/run.sh <<'RUN'
#!/bin/bash
cd "$(dirname "$0")"
A="--noplot --warm-up-time 0.2 --measurement-time 0.8 --sample-size 12"
{ nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node\(s\)"; uname -r; } > $OUT/machine.txt 2>&1
for W in 1 2 4 8 16; do
    BENCH_WORKERS=$W ./rt_multi_threaded --bench $A '/(runtime|tokio)$' 2>&1 | grep -E "^multi|time:" > $OUT/rt_$W.txt
    echo "rt $W workers done $(date +%T)"
done
{ BENCH_WORKERS=2 ./sync_locks --bench $A; BENCH_WORKERS=2 ./sync_chan --bench $A; } 2>&1 | grep -E "^sync|time:" > $OUT/sync_2.txt
echo "sync 2 workers done $(date +%T)"
{ BENCH_WORKERS=16 ./sync_locks --bench $A '/(runtime|tokio)$'; BENCH_WORKERS=16 ./sync_chan --bench $A '/(runtime|tokio)$'; } 2>&1 | grep -E "^sync|time:" > $OUT/sync_16.txt
echo "sync 16 workers done $(date +%T)"
RUN
    chmod +x .devbin/run.sh
    du -sh .devbin
    ;;
table)
    dir=${2:?usage: scaling.sh table DIR}
    python3 - "$dir" <<'PY'
import re, sys, os
d = sys.argv[1]
def parse(path):
    res, name = {}, None
    for line in open(path):
        line = line.strip()
        m = re.match(r'^((?:sync\S*|multi_thread)/\S+)\s*(time:.*)?$', line)
        if m:
            name, line = m.group(1), m.group(2) or ''
        m = re.search(r'time:\s*\[(\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\]', line)
        if m and name:
            v = float(m.group(3)) * {'ns': 1e-3, 'µs': 1, 'us': 1, 'ms': 1e3, 's': 1e6}[m.group(4)]
            res[name], name = v, None
    return res
def fmt(v):
    return f"{v / 1000:.2f} ms" if v >= 1000 else f"{v:.0f} µs"
if os.path.exists(f"{d}/machine.txt"):
    print(open(f"{d}/machine.txt").read())
ws = [w for w in (1, 2, 4, 8, 16) if os.path.exists(f"{d}/rt_{w}.txt")]
rows = {}
for w in ws:
    for k, v in parse(f"{d}/rt_{w}.txt").items():
        _, wl, rt = k.split('/')
        rows.setdefault(wl, {})[(w, rt)] = v
print("ours / tokio (tokio's time over ours)")
print("| workload | " + " | ".join(f"{w} w" for w in ws) + " |")
print("|---|" + "---|" * len(ws))
for wl, r in rows.items():
    cells = []
    for w in ws:
        o, t = r.get((w, 'runtime')), r.get((w, 'tokio'))
        cells.append(f"{fmt(o)} / {fmt(t)} **{t / o:.2f}x**" if o and t else "-")
    print(f"| {wl} | " + " | ".join(cells) + " |")
for w in (2, 16):
    p = f"{d}/sync_{w}.txt"
    if not os.path.exists(p):
        continue
    print(f"\nsync, {w} workers")
    print("| workload | ours | tokio | tokio/ours | smol/ours |")
    print("|---|---|---|---|---|")
    res, wls = parse(p), []
    for k in res:
        wl = k.rsplit('/', 1)[0]
        if wl not in wls:
            wls.append(wl)
    for wl in wls:
        o, t, s = res.get(wl + '/runtime'), res.get(wl + '/tokio'), res.get(wl + '/smol')
        print(f"| {wl} | {fmt(o)} | {fmt(t)} | {t / o:.2f}x | " + (f"{s / o:.2f}x" if s else "-") + " |")
PY
    ;;
*)
    sed -n '2,16p' "$0"
    exit 2
    ;;
esac
