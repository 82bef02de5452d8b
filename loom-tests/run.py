#!/usr/bin/env python3
"""Builds the loom test binaries and runs every model in them, each test in its own
process, `--jobs` at a time (default: the CPU count), the slowest models first.

Why not `cargo test`: it runs one binary after another, each with its tests two at a time
in name order, so the last long model of a binary leaves the other core idle until it
ends. Here the models form one queue across the binaries, longest first (`SLOW_FIRST`,
then the rest in binary and name order), so both cores stay busy until the queue is short.

The build is `cargo test -p loom-tests --release --no-run` with `--cfg loom`, the release
profile without debug info, and debug assertions (the task state machine's `debug_assert!`s are checked in
every explored execution). `LOOM_MAX_PREEMPTIONS` defaults to 2. Ignored models are not
run. Prints each test's wall and CPU seconds and every suite's totals (a suite is a module
of a binary: `loom_scheduler::wake::multi_spawn_one_worker`); on a failure, the failing tests'
output, and exits 1.

  python3 loom-tests/run.py                     # what .ci/run's loom stage does
  python3 loom-tests/run.py --jobs 1 loom_lifo::  # one suite (a substring filter), serially
  python3 loom-tests/run.py --results loom-tests/RESULTS.md   # also record the run there

`--results FILE` writes the run's per-model table (executions, wall and CPU seconds, the
suite totals) into FILE between the lines BEGIN and END below, replacing what was between
them and keeping the rest of FILE (the section is appended where FILE has no markers; FILE
is created where missing), stamped with the commit it ran on (a tree with uncommitted
changes says so), the date, the bound, the job count and the filter.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The models that take longest, started first (roughly by CPU time; their measured costs
# are in benches/RESULTS.md). A name missing from the binaries is an error, so the list
# follows renames.
SLOW_FIRST = [
    "loom_scheduler::parallelism::local_spawn_wakes_sibling_two_workers",
    "loom_scheduler::shutdown::shutdown_with_queued_and_idle_tasks_two_workers",
    "loom_block_in_place::hand_off_racing_a_steal_two_workers",
    "loom_sync_chan::mpsc::mpsc_two_senders_contend_for_capacity",
    "loom_scheduler::wake::wake_from_worker_racing_park_two_workers",
    "loom_scheduler::wake::multi_spawn_two_workers",
    "loom_block_in_place::wake_from_the_blocked_thread_one_worker",
    "loom_scheduler::shutdown::waker_outlives_runtime_two_workers",
    "loom_scheduler::wake::spawn_from_outside_while_worker_parks",
    "loom_scheduler::parallelism::searcher_hand_off_two_workers",
    "loom_scheduler::shutdown::spawn_racing_shutdown_two_workers",
    "loom_scheduler::shutdown::shutdown_while_waking_one_worker",
    "loom_local::two_thieves_vs_overflow",
]


# The markers of the generated section in a `--results` file.
BEGIN = "<!-- run.py --results: begin -->"
END = "<!-- run.py --results: end -->"


def env():
    e = dict(os.environ)
    if "--cfg loom" not in e.get("RUSTFLAGS", ""):
        e["RUSTFLAGS"] = (e.get("RUSTFLAGS", "") + " --cfg loom").strip()
    e["CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS"] = "true"
    # No debug info: it only slows the fat-LTO links (a loom failure names its panic's
    # file and line without it).
    e.setdefault("CARGO_PROFILE_RELEASE_DEBUG", "0")
    e.setdefault("CARGO_TARGET_DIR", os.path.join(ROOT, "target", "loom"))
    e.setdefault("LOOM_MAX_PREEMPTIONS", "2")
    e.setdefault("RUST_BACKTRACE", "0")
    return e


def build():
    """The test executables, by target name."""
    p = subprocess.run(
        ["cargo", "test", "-p", "loom-tests", "--release", "--no-run",
         "--message-format=json-render-diagnostics"],
        cwd=ROOT, env=env(), stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"loom build failed (exit {p.returncode})")
    exes = {}
    for line in p.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and \
                "test" in msg["target"]["kind"]:
            exes[msg["target"]["name"]] = msg["executable"]
    return exes


def list_tests(exe):
    p = subprocess.run([exe, "--list"], capture_output=True, text=True, env=env(), check=True)
    listed = [l[:-len(": test")] for l in p.stdout.splitlines() if l.endswith(": test")]
    q = subprocess.run([exe, "--list", "--ignored"], capture_output=True, text=True,
                       env=env(), check=True)
    ignored = {l[:-len(": test")] for l in q.stdout.splitlines() if l.endswith(": test")}
    return [t for t in listed if t not in ignored]


def run_one(exe, test):
    """Runs one test alone; returns (ok, wall s, cpu s, output)."""
    start = time.monotonic()
    p = subprocess.Popen([exe, "--exact", test, "--test-threads=1", "--nocapture"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env())
    out = []
    reader = threading.Thread(target=lambda: out.append(p.stdout.read()))
    reader.start()
    _, status, usage = os.wait4(p.pid, 0)
    reader.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    text = out[0].decode(errors="replace")
    ok = p.returncode == 0 and "1 passed" in text
    return ok, wall, usage.ru_utime + usage.ru_stime, text


def commit_stamp():
    """The commit the tree is at, with a note when it has uncommitted changes."""
    def git(*args):
        p = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else ""
    head = git("rev-parse", "--short", "HEAD") or "unknown commit"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + (" with uncommitted changes" if dirty else "")


def write_results(path, results, suites, filt, jobs, ran):
    """The generated section of `path` (see the module doc)."""
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    bound = env()["LOOM_MAX_PREEMPTIONS"]
    lines = [
        BEGIN,
        f"Generated by `loom-tests/run.py` at {commit_stamp()}, {stamp}: bound {bound} "
        f"(`LOOM_MAX_PREEMPTIONS`; capped models at their cap), {jobs} at a time on "
        f"{os.cpu_count()} CPUs, " + (f"filter `{filt}`" if filt else "every model")
        + f"; {len(results)} models in {ran:.0f} s.",
        "",
        "| model | result | executions | wall s | CPU s |",
        "|---|---|---|---|---|",
    ]
    for name, t, ok, wall, cpu, text in sorted(results, key=lambda r: (r[0], r[1])):
        runs = "+".join(re.findall(r"explored (\d+) executions", text)) or "-"
        lines.append(f"| `{name}` `{t}` | {'ok' if ok else 'FAIL'} | {runs} | "
                     f"{wall:.1f} | {cpu:.1f} |")
    lines += ["", "| suite | models | wall s (summed) | CPU s |", "|---|---|---|---|"]
    for s, (n, wall, cpu) in sorted(suites.items(), key=lambda kv: -kv[1][2]):
        lines.append(f"| `{s}` | {n} | {wall:.1f} | {cpu:.1f} |")
    lines.append(END)
    section = "\n".join(lines)
    try:
        with open(path, encoding="utf-8") as f:
            old = f.read()
    except FileNotFoundError:
        old = ""
    if BEGIN in old and END in old.split(BEGIN, 1)[1]:
        before, rest = old.split(BEGIN, 1)
        after = rest.split(END, 1)[1]
        new = before + section + after
    else:
        new = old + ("\n" if old and not old.endswith("\n") else "") + section + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"results written to {path}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--results", metavar="FILE",
                    help="write the run's table into FILE's generated section")
    ap.add_argument("filter", nargs="?", default="", help="run only tests containing this")
    a = ap.parse_args()

    start = time.monotonic()
    exes = build()
    built = time.monotonic() - start
    print(f"loom build took {built:.0f}s ({len(exes)} test binaries)", flush=True)

    tests = [(name, exe, t) for name, exe in sorted(exes.items()) for t in list_tests(exe)]
    by_test = {t: (name, exe) for name, exe, t in tests}
    missing = [t for t in SLOW_FIRST if t not in by_test]
    if missing:
        sys.exit(f"run.py SLOW_FIRST names tests no binary has: {', '.join(missing)}")
    slow = set(SLOW_FIRST)
    order = [(by_test[t][0], by_test[t][1], t) for t in SLOW_FIRST] + \
        [x for x in tests if x[2] not in slow]
    order = [x for x in order if a.filter in x[2]]

    lock = threading.Lock()
    results = []

    def job(item):
        name, exe, t = item
        ok, wall, cpu, text = run_one(exe, t)
        with lock:
            results.append((name, t, ok, wall, cpu, text))
            runs = re.findall(r"explored (\d+) executions", text)
            print(f"{'ok  ' if ok else 'FAIL'} {wall:7.1f}s wall {cpu:7.1f}s cpu  {name} {t}"
                  + (f" ({'+'.join(runs)} executions)" if runs else ""), flush=True)

    run_start = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        list(pool.map(job, order))
    ran = time.monotonic() - run_start

    suites = {}
    for name, t, ok, wall, cpu, _ in results:
        s = suites.setdefault(t.split("::")[0] if "::" in t else name, [0, 0.0, 0.0])
        s[0] += 1
        s[1] += wall
        s[2] += cpu
    print("suite: tests, wall s (summed over its tests), cpu s")
    for s, (n, wall, cpu) in sorted(suites.items(), key=lambda kv: -kv[1][2]):
        print(f"  {s}: {n}, {wall:.1f}, {cpu:.1f}")
    cpu = sum(r[4] for r in results)
    print(f"loom models took {ran:.0f}s ({len(results)} tests, {cpu:.0f}s cpu, "
          f"{a.jobs} at a time); build and models {time.monotonic() - start:.0f}s")
    if a.results:
        write_results(a.results, results, suites, a.filter, a.jobs, ran)
    failed = [r for r in results if not r[2]]
    for name, t, _, _, _, text in failed:
        print(f"\n---- {name} {t} ----\n{text}")
    if failed:
        print(f"{len(failed)} loom test(s) failed: " + ", ".join(r[1] for r in failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
