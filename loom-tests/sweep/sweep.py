#!/usr/bin/env python3
"""The weakening sweep: does every atomic operation's ordering (and every CAS retry and
flag test) matter to some loom model?

For each atomic operation in the files that files.toml lists (the shipping code that goes
through the shim: queue/, task/, runtime/src/{park.rs,scheduler,sync/},
shim/src/spin_mutex.rs, io-driver/src/readiness.rs), this script makes the
one-step-weaker variant -- SeqCst -> AcqRel (RMW) / Acquire (load, CAS failure) /
Release (store), AcqRel -> Acquire and -> Release, Acquire/Release -> Relaxed; for a
`fence`, SeqCst -> AcqRel (loom models a SeqCst fence's total order, unlike SeqCst
accesses) and the fence removed -- plus the hand-written variants of manual.toml (a
retried CAS that gives up, a flag test removed, and planted bugs in the queues, the task
state machine, the sync primitives and the scheduler's wake-ups), applies it to a SCRATCH
COPY of the tree (never the tree itself: a copy under --scratch, default /tmp/loom-sweep),
builds the relevant loom suite there (suites.toml) and runs its tests one at a time (each
with a timeout) until one fails.

The data beside this script:
  manual.toml   the hand-written variants: id, file, the source text replaced (anchor),
                its replacement, what it does, and the notes of rows not run or resolved
  suites.toml   which loom suites exercise which file; per-file test filters
  files.toml    which files are scanned for atomics; which have no loom build (no_loom)
  argued.toml   the arguments of the no_loom rows, and how survivors were resolved
--check verifies, without building, that the data still match the tree (anchors found as
often as expected, every file, suite and test named exists, every scanned file still holds
operations, every argued row finds its argument); CI runs it.

Each variant ends as one of:
  caught     a loom test failed; the table names it and loom's message
  SURVIVES   every test of the suite(s) passed: a model is missing (or the ordering
             is stronger than needed)
  timeout    a test ran past --timeout without failing (inconclusive)
  build-err  the variant does not compile (should not happen; a bug in this script)

Usage (from anywhere; the tree is this script's repository):
  loom-tests/sweep/sweep.py --check              # the data match the code (seconds)
  loom-tests/sweep/sweep.py --list               # the variants, no build
  loom-tests/sweep/sweep.py                      # run them all (hours at full size)
  loom-tests/sweep/sweep.py --only local.rs      # variants whose id contains a string
  loom-tests/sweep/sweep.py --only plant: --timeout 300
Results: one line per variant on stdout (a Markdown table row), and appended as JSON to
--out (default <scratch>/results.jsonl). Environment: LOOM_MAX_PREEMPTIONS (default 2).
The build uses its own target dir, target/sweep (seeded from target/loom; see
SWEEP_TARGET for why it must not share target/loom). Python 3.11 or later (tomllib).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

try:
    import tomllib
except ImportError:  # Python < 3.11
    sys.exit("sweep.py: Python 3.11 or later is needed (tomllib reads the sweep's data)")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load(name):
    """One of the data files beside this script (a clear message when it is broken)."""
    path = os.path.join(HERE, name)
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        sys.exit(f"sweep.py: cannot read {os.path.relpath(path, ROOT)}: {e}")


_SUITES = load("suites.toml")
_FILES = load("files.toml")
_ARGUED = load("argued.toml")
_MANUAL = load("manual.toml")

# Which loom suites exercise which file: (path prefix, suites), the first match wins.
SUITES = [(row["prefix"], row["suites"]) for row in _SUITES.get("file", [])]
# The slow suite's tests that reach a file's code, per suite (the likely catcher first):
# used when no --tests filter is given, so that a variant never runs the whole suite.
TESTS = _SUITES.get("tests", {})
# The files scanned for atomic operations, in the sweep's order.
FILES = _FILES.get("files", [])
# Files of FILES with no atomic operation today (checked by --check).
NO_ATOMICS = set(_FILES.get("no_atomics", []))
# Files whose atomics loom cannot see: their rows are argued (`argued(v)`), never run.
NO_LOOM = set(_FILES.get("no_loom", []))
# Auto variants deliberately not made ("<file>:<fn>" -> reason).
NOT_SHIPPING = _FILES.get("not_shipping", {})
# The hand-written variants (dicts: id, file, what, anchor, replace, count, ...).
MANUAL = _MANUAL.get("variant", [])

ORD = r"(?:(?:shim::sync::atomic::|std::sync::atomic::)?Ordering::)?(Relaxed|Acquire|Release|AcqRel|SeqCst)\b"
CALL = re.compile(
    r"\.(load|store|swap|fetch_add|fetch_sub|fetch_and|fetch_or|fetch_xor|fetch_max|"
    r"fetch_min|compare_exchange_weak|compare_exchange)\s*\(")
Q = "shim::sync::atomic::Ordering::"


def q(rel):
    """The path of `Ordering` a variant writes: inside the shim itself it is `crate::`."""
    return "crate::sync::atomic::Ordering::" if rel.startswith("shim/") else Q


def weaker(order, role):
    """One-step-weaker orderings that are legal for `role` (load/store/rmw/fail)."""
    if order == "SeqCst":
        return {"load": ["Acquire"], "fail": ["Acquire"], "store": ["Release"],
                "rmw": ["AcqRel"]}[role]
    if order == "AcqRel":
        return ["Acquire", "Release"]
    if order in ("Acquire", "Release"):
        return ["Relaxed"]
    return []


def matching_paren(src, open_idx):
    depth = 0
    for i in range(open_idx, len(src)):
        if src[i] == "(":
            depth += 1
        elif src[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced")


def strip_comments_mask(src):
    """Indices inside // comments (so orderings named in comments are ignored)."""
    mask = bytearray(len(src))
    for m in re.finditer(r"//[^\n]*", src):
        for i in range(m.start(), m.end()):
            mask[i] = 1
    return mask



# Atomic operations (and fences) the scan found, per file (filled by `auto_variants`).
OPS = {}


def auto_variants():
    out = []
    for rel in FILES:
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            continue
        src = open(path).read()
        # Unit tests at the end of a file are not shipping code.
        end = len(src)
        m = re.search(r"\n#\[cfg\((all\()?test", src)
        if m:
            end = m.start()
        mask = strip_comments_mask(src)
        for call in CALL.finditer(src, 0, end):
            if mask[call.start()]:
                continue
            op = call.group(1)
            lparen = call.end() - 1
            rparen = matching_paren(src, lparen)
            args = src[lparen:rparen]
            # A std atomic (not through the shim) is a documented exception.
            line_start = src.rfind("\n", 0, call.start()) + 1
            prefix = src[max(0, call.start() - 200):call.start()]
            if "std::sync::atomic" in args or re.search(r"\bNEXT$", prefix.strip()):
                continue
            # An ordering inside a nested atomic call (`x.store(x.load(Relaxed) + 1, ..)`)
            # is that call's, which has its own row.
            nested = [(m.start(), matching_paren(args, m.end() - 1))
                      for m in CALL.finditer(args)]
            ords = [o for o in re.finditer(ORD, args) if not mask[lparen + o.start()]
                    and not any(a0 <= o.start() <= b0 for a0, b0 in nested)]
            if not ords:
                continue
            OPS[rel] = OPS.get(rel, 0) + 1
            for k, o in enumerate(ords):
                if op == "load":
                    role = "load"
                elif op == "store":
                    role = "store"
                elif op.startswith("compare_exchange"):
                    role = "rmw" if k == 0 else "fail"
                else:
                    role = "rmw"
                order = o.group(1)
                label = f"{op}" + (" success" if role == "rmw" and op.startswith("compare") else
                                   " failure" if role == "fail" else "")
                if rel in NO_LOOM:
                    # Argued rows name the word (two accesses may share a line).
                    recv = re.search(r"(\w+)\s*$", src[max(0, call.start() - 200):call.start()])
                    word = recv.group(1) if recv else "?"
                    if word == "0":  # a newtype's field: name the type
                        word = ("SpinToken" if rel.endswith("spin.rs") else
                                "MetaSlot" if rel.endswith("meta.rs") else "RemoteSpawns")
                    label = f"`{word}` {label}"
                if rel in NO_LOOM and order == "Relaxed":
                    a = lparen + o.start()
                    lineno = src.count("\n", 0, a) + 1
                    fn = enclosing_fn(src, call.start())
                    out.append({
                        "id": f"{rel}:{lineno}:{op}:Relaxed" + (f"#{k}" if len(ords) > 1 else ""),
                        "file": rel, "line": lineno, "fn": fn,
                        "what": f"{label} Relaxed (nothing weaker)", "apply": None,
                        "src": src[line_start:src.find("\n", call.start())].strip(),
                    })
                    continue
                for w in weaker(order, role):
                    a, b = lparen + o.start(), lparen + o.end()
                    lineno = src.count("\n", 0, a) + 1
                    fn = enclosing_fn(src, call.start())
                    if f"{rel}:{fn}" in NOT_SHIPPING:
                        continue
                    vid = f"{rel}:{lineno}:{op}:{order}->{w}" + (f"#{k}" if len(ords) > 1 else "")
                    out.append({
                        "id": vid, "file": rel, "line": lineno, "fn": fn,
                        "what": f"{label} {order} -> {w}",
                        "apply": None if rel in NO_LOOM else ("span", a, b, q(rel) + w),
                        "src": src[line_start:src.find("\n", call.start())].strip(),
                    })
        out += fence_variants(rel, src, end, mask)
    return out


# A free `fence(..)` call (not a method, not the `use` list).
FENCE = re.compile(r"(?<![\w.])fence\s*\(")


def fence_variants(rel, src, end, mask):
    """A fence's one-step-weaker ordering (SeqCst -> AcqRel, AcqRel -> Acquire and ->
    Release) and the fence removed. Unlike SeqCst accesses, loom models a SeqCst fence
    (its total order), so SeqCst -> AcqRel is a different program under loom."""
    out = []
    for call in FENCE.finditer(src, 0, end):
        if mask[call.start()]:
            continue
        lparen = call.end() - 1
        rparen = matching_paren(src, lparen)
        o = re.search(ORD, src[lparen:rparen])
        if not o:
            continue
        OPS[rel] = OPS.get(rel, 0) + 1
        order = o.group(1)
        a, b = lparen + o.start(), lparen + o.end()
        lineno = src.count("\n", 0, call.start()) + 1
        fn = enclosing_fn(src, call.start())
        line_start = src.rfind("\n", 0, call.start()) + 1
        line = src[line_start:src.find("\n", call.start())].strip()
        weaker_fence = {"SeqCst": ["AcqRel"], "AcqRel": ["Acquire", "Release"]}
        for w in weaker_fence.get(order, []):
            out.append({"id": f"{rel}:{lineno}:fence:{order}->{w}", "file": rel,
                        "line": lineno, "fn": fn, "what": f"fence {order} -> {w}",
                        "apply": ("span", a, b, q(rel) + w), "src": line})
        # Removed: the call becomes `()` (the statement `();`).
        out.append({"id": f"{rel}:{lineno}:fence:removed", "file": rel, "line": lineno,
                    "fn": fn, "what": f"fence({order}) removed",
                    "apply": ("span", call.start(), rparen + 1, "()"), "src": line})
    return out


def enclosing_fn(src, idx):
    fns = list(re.finditer(r"\bfn\s+(\w+)", src[:idx]))
    return fns[-1].group(1) if fns else "?"


def argued(v):
    """The argument of a no_loom row (None for a variant that runs): the text of the first
    rule of argued.toml whose conditions all hold."""
    if v["file"] not in NO_LOOM or v["apply"] is not None:
        return None
    rule = argued_rule(v)
    return _ARGUED["text"][rule["text"]] if rule else None


def argued_rule(v):
    for rule in _ARGUED.get("rule", []):
        if rule["file"] != v["file"]:
            continue
        if "fns" in rule and v["fn"] not in rule["fns"]:
            continue
        if "what_contains" in rule and rule["what_contains"] not in v["what"]:
            continue
        if "src_contains" in rule and rule["src_contains"] not in v.get("src", ""):
            continue
        return rule
    return None


def manual_variants():
    out = []
    for m in MANUAL:
        rel, old = m["file"], m["anchor"]
        path = os.path.join(ROOT, rel)
        src = open(path).read() if os.path.isfile(path) else ""
        n = src.count(old)
        lineno = src.count("\n", 0, src.find(old)) + 1 if n else 0
        out.append({
            "id": m["id"], "file": rel, "line": lineno,
            "fn": enclosing_fn(src, src.find(old)) if n else "?",
            "what": m["what"], "apply": ("replace", old, m["replace"], n, m.get("count", 1)),
        })
    return out


def suites_for(rel):
    for prefix, suites in SUITES:
        if rel.startswith(prefix):
            return suites
    return []


# The sweep's own target dir. NOT the tree's target/loom: cargo names a path crate's
# artifacts by its path relative to the workspace, so a scratch copy's planted build would
# overwrite the tree's own artifacts there. Seeded from target/loom (registry deps).
SWEEP_TARGET = os.path.join(ROOT, "target", "sweep")


def sync_scratch(scratch):
    if not os.path.exists(SWEEP_TARGET) and os.path.exists(os.path.join(ROOT, "target", "loom")):
        subprocess.run(["cp", "-a", os.path.join(ROOT, "target", "loom"), SWEEP_TARGET],
                       check=True)
    tree = os.path.join(scratch, "tree")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.rmtree(tree + ".orig", ignore_errors=True)
    # copy2 keeps mtimes, so cargo rebuilds only what a variant touches.
    shutil.copytree(ROOT, tree, symlinks=True, copy_function=shutil.copy2,
                    ignore=lambda d, names: [n for n in names if d == ROOT and n in
                                             ("target", ".git")])
    shutil.copytree(tree, tree + ".orig", symlinks=True, copy_function=shutil.copy2)
    # The copy keeps the sources' mtimes, so a workspace artifact left in SWEEP_TARGET by a
    # run that stopped with a variant applied looks newer than its (restored) source and
    # would be reused: a stale plant under every variant. The workspace's own crates are
    # rebuilt once per sweep instead (seconds; the registry deps stay).
    subprocess.run(["cargo", "clean", "--release"] +
                   [a for c in ("shim", "queue", "task", "io-driver", "runtime", "loom-tests")
                    for a in ("-p", c)],
                   cwd=tree, env=env(), capture_output=True)
    return tree


def apply(tree, v):
    path = os.path.join(tree, v["file"])
    src = open(path).read()
    kind = v["apply"][0]
    if kind == "span":
        _, a, b, new = v["apply"]
        src = src[:a] + new + src[b:]
    else:
        _, old, new, n, want = v["apply"]
        if n != want:
            raise ValueError(f"{v['id']}: anchor found {n} times, not {want} (--check)")
        src = src.replace(old, new)
    open(path, "w").write(src)


def restore(tree, v):
    # From the pristine copy taken at the start (the tree may be edited meanwhile, and the
    # variants' offsets were computed from the start's content).
    shutil.copyfile(os.path.join(tree + ".orig", v["file"]), os.path.join(tree, v["file"]))


def env():
    e = dict(os.environ)
    e.update({
        "RUSTFLAGS": "--cfg loom",
        "CARGO_PROFILE_RELEASE_LTO": "false",
        "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
        "CARGO_PROFILE_RELEASE_DEBUG": "0",
        "CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS": "true",
        "CARGO_TARGET_DIR": SWEEP_TARGET,
        "CARGO_TERM_COLOR": "never",
        "RUST_BACKTRACE": "0",
    })
    e.setdefault("LOOM_MAX_PREEMPTIONS", "2")
    return e


def binary_of(suite, root=None):
    """The test binary whose root (loom-tests/tests/<binary>.rs) includes the suite as a
    module (`#[path = "<suite>.rs"]`); None when none does."""
    tests = os.path.join(root or ROOT, "loom-tests", "tests")
    for name in sorted(os.listdir(tests)):
        if name.endswith(".rs") and f'#[path = "{suite}.rs"]' in open(os.path.join(tests, name)).read():
            return name[:-3]
    return None


def build(tree, suite):
    binary = binary_of(suite, tree)
    if binary is None:
        return None, f"no test binary in loom-tests/tests includes {suite}.rs"
    p = subprocess.run(
        ["cargo", "test", "-p", "loom-tests", "--release", "--test", binary, "--no-run",
         "--message-format=json"], cwd=tree, env=env(), capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr[-2000:]
    exe = None
    for line in p.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and \
                msg["target"]["name"] == binary:
            exe = msg["executable"]
    return exe, None


def list_tests(exe, suite, only_tests, ignored):
    """The suite's tests in its binary, as `<suite>::<test>`."""
    args = [exe, "--list"] + (["--include-ignored"] if ignored else [])
    p = subprocess.run(args, capture_output=True, text=True, env=env())
    tests = [l.split(": test")[0] for l in p.stdout.splitlines() if l.endswith(": test")]
    tests = [t for t in tests if t.startswith(suite + "::")]
    if only_tests:
        # In the order the filters were given (put the likely catcher first).
        picked = []
        for f in only_tests:
            picked += [t for t in tests if f in t and t not in picked]
        return picked
    # One-worker scheduler models first: they are the quick ones.
    return sorted(tests, key=lambda t: ("two_workers" in t, t))


def first_message(out):
    lines = out.splitlines()
    for i, l in enumerate(lines):
        if "panicked at" in l:
            msg = []
            for x in lines[i + 1:i + 6]:
                if not x.strip() or x.startswith(("stack backtrace", "note:")) or \
                        re.match(r"\s*\d+: ", x):
                    break
                msg.append(x.strip())
            return " ".join(msg)[:300]
    return (lines[-1] if lines else "")[:300]


def run_variant(tree, v, timeout, only_tests, only_suites=()):
    apply(tree, v)
    try:
        ran = 0
        for suite in suites_for(v["file"]):
            if only_suites and suite not in only_suites:
                continue
            exe, err = build(tree, suite)
            if exe is None:
                return "build-err", suite, "", (err or "").strip().splitlines()[-1:] or [""]
            timed_out = []
            filters = only_tests or TESTS.get(v["file"], {}).get(suite, [])
            # Ignored (slow) models run only when named with --tests.
            for t in list_tests(exe, suite, filters, ignored=bool(only_tests)):
                ran += 1
                try:
                    p = subprocess.run([exe, "--exact", t, "--test-threads=1"] +
                                       (["--include-ignored"] if only_tests else []), env=env(),
                                       capture_output=True, text=True, timeout=timeout)
                except subprocess.TimeoutExpired:
                    timed_out.append(t.split("::", 1)[-1])
                    continue
                if p.returncode != 0:
                    return "caught", suite, t.split("::", 1)[-1], first_message(p.stdout + p.stderr)
            if timed_out:
                return "timeout", suite, ",".join(timed_out), ""
        return ("SURVIVES" if ran else "no-tests"), ",".join(suites_for(v["file"])), "", ""
    finally:
        restore(tree, v)


# How each automatic variant that survived a run was resolved, keyed by (file, fn, variant
# text); the hand-written ones by id (argued.toml, manual.toml).
RESOLVED = {(r["file"], r["fn"], r["variant"]): r["note"] for r in _ARGUED.get("resolved", [])}
RESOLVED_MANUAL = {m["id"]: m["survived"] for m in MANUAL if "survived" in m}
NOT_RUN_MANUAL = {m["id"]: m["not_run"] for m in MANUAL if "not_run" in m}


def print_table(variants, files):
    """The results as recorded (line numbers of the code they ran on), then the current
    variants no result covers, as 'not run'."""
    latest = {}
    for path in files:
        for line in open(path):
            rec = json.loads(line)
            latest[rec["id"]] = rec
    print("| operation (file:line, fn) | variant | result | catching test, loom's message |")
    print("|---|---|---|---|")
    seen = set()
    steal_loads = 0
    for r in latest.values():
        what = r["what"]
        key = (r["file"], r["fn"], what)
        if key == ("queue/src/local.rs", "steal_into", "load Acquire -> Relaxed") and \
                r["status"] == "SURVIVES":
            steal_loads += 1
            key = (r["file"], r["fn"], what + ("#first" if steal_loads == 1 else "#reload"))
        seen.add((r["file"], r["fn"], what))
        status = r["status"]
        detail = f"{r['suite']}::{r['test']}: {r['message']}" if r["test"] else r["suite"]
        if status == "SURVIVES" and r["id"] in RESOLVED_MANUAL:
            status, detail = "survived", RESOLVED_MANUAL[r["id"]]
        elif status == "SURVIVES" and key in RESOLVED:
            status, detail = "survived", RESOLVED[key]
        detail = detail.replace("|", "\\|")
        print(f"| `{r['file']}:{r['line']}` `{r['fn']}` | {what} | {status} | {detail} |")
    for v in variants:
        if (v["file"], v["fn"], v["what"]) not in seen:
            note = ""
            if "SeqCst ->" in v["what"] and not v["what"].startswith("fence"):
                note = _ARGUED["not_run"]["seqcst"]
            elif v["id"] in NOT_RUN_MANUAL:
                note = NOT_RUN_MANUAL[v["id"]]
            if argued(v):
                print(f"| `{v['file']}:{v['line']}` `{v['fn']}` | {v['what']} | argued | "
                      f"{argued(v)} |")
                continue
            print(f"| `{v['file']}:{v['line']}` `{v['fn']}` | {v['what']} | not run | {note} |")


MANUAL_KEYS = {"id", "file", "what", "anchor", "replace", "count", "not_run", "survived"}
RULE_KEYS = {"file", "fns", "what_contains", "src_contains", "text"}


def check():
    """Verifies, without building, that the data still match the code: every hand-written
    variant's anchor occurs in its file as many times as it says (once by default), every
    file and suite named exists, every scanned file still holds atomic operations, and every
    argued row still finds its argument. Prints each problem; returns how many."""
    problems = []

    def bad(where, msg):
        problems.append(f"{where}: {msg}")

    def text(rel):
        path = os.path.join(ROOT, rel)
        return open(path).read() if os.path.isfile(path) else None

    def has_fn(src, name):
        return re.search(rf"\bfn\s+{re.escape(name)}\b", src) is not None

    def suite_text(suite):
        """A suite's source: loom-tests/tests/<suite>.rs and, for a suite whose models sit
        in modules, the files of loom-tests/tests/<suite>/."""
        src = text(os.path.join("loom-tests", "tests", suite + ".rs"))
        mods = os.path.join(ROOT, "loom-tests", "tests", suite)
        if src is not None and os.path.isdir(mods):
            for name in sorted(os.listdir(mods)):
                if name.endswith(".rs"):
                    src += "\n" + text(os.path.join("loom-tests", "tests", suite, name))
        return src

    def suite_exists(suite):
        return os.path.isfile(os.path.join(ROOT, "loom-tests", "tests", suite + ".rs")) \
            and binary_of(suite) is not None

    # The hand-written variants: their anchors.
    seen = set()
    for m in MANUAL:
        vid = m.get("id", "?")
        missing = {"id", "file", "what", "anchor", "replace"} - m.keys()
        if missing:
            bad(f"manual.toml {vid}", f"missing {', '.join(sorted(missing))}")
            continue
        if m.keys() - MANUAL_KEYS:
            bad(f"manual.toml {vid}", f"unknown keys {', '.join(sorted(m.keys() - MANUAL_KEYS))}")
        if vid in seen:
            bad(f"manual.toml {vid}", "id used twice")
        seen.add(vid)
        src = text(m["file"])
        if src is None:
            bad(f"stale anchor {vid} ({m['file']})", "the file does not exist")
            continue
        want, n = m.get("count", 1), src.count(m["anchor"])
        if n != want:
            first = m["anchor"].strip().splitlines()[0] if m["anchor"].strip() else ""
            bad(f"stale anchor {vid} ({m['file']})",
                f"anchor found {n} times, expected {want}: {first!r}")
        if not suites_for(m["file"]) and "not_run" not in m:
            bad(f"manual.toml {vid} ({m['file']})", "no suite in suites.toml runs this file")

    # The suites and their test filters.
    for prefix, suites in SUITES:
        if not os.path.exists(os.path.join(ROOT, prefix)):
            bad(f"suites.toml {prefix}", "no such file or directory")
        for suite in suites:
            if not suite_exists(suite):
                bad(f"suites.toml {prefix}", f"no suite loom-tests/tests/{suite}.rs in a test binary")
    for rel, per in TESTS.items():
        if text(rel) is None:
            bad(f"suites.toml tests {rel}", "no such file")
        for suite, tests in per.items():
            src = suite_text(suite)
            if src is None:
                bad(f"suites.toml tests {rel}", f"no suite loom-tests/tests/{suite}.rs")
                continue
            for t in tests:
                if not has_fn(src, t):
                    bad(f"suites.toml tests {rel}", f"no test `{t}` in {suite}.rs or {suite}/")

    # The scanned files: each still holds atomic operations, and has suites or is argued.
    OPS.clear()
    variants = auto_variants()
    for rel in FILES:
        if text(rel) is None:
            bad(f"files.toml {rel}", "no such file")
        elif not OPS.get(rel) and rel not in NO_ATOMICS:
            bad(f"stale files.toml {rel}", "the scan finds no atomic operation in it (moved?)")
        elif OPS.get(rel) and rel in NO_ATOMICS:
            bad(f"files.toml no_atomics {rel}", f"the scan finds {OPS[rel]} operation(s) in it")
        if not suites_for(rel) and rel not in NO_LOOM:
            bad(f"files.toml {rel}", "no suite in suites.toml runs it, and it is not no_loom")
    for rel in sorted(NO_ATOMICS - set(FILES)):
        bad(f"files.toml no_atomics {rel}", "not in files")
    for rel in sorted(NO_LOOM - set(FILES)):
        bad(f"files.toml no_loom {rel}", "not in files")
    for key in NOT_SHIPPING:
        rel, _, fn = key.rpartition(":")
        src = text(rel)
        if src is None or not has_fn(src, fn):
            bad(f"files.toml not_shipping {key}", "no such file or function")

    # The argued rows: every one finds its argument; every rule's anchors are still there.
    for v in variants:
        if v["file"] in NO_LOOM and v["apply"] is None and argued(v) is None:
            bad(f"argued row {v['id']} ({v['file']})", "no rule of argued.toml gives it a text")
    texts = _ARGUED.get("text", {})
    used = set()
    for k, rule in enumerate(_ARGUED.get("rule", [])):
        where = f"argued.toml rule {k + 1} ({rule.get('file', '?')})"
        if rule.keys() - RULE_KEYS or not {"file", "text"} <= rule.keys():
            bad(where, f"keys must be file, text and any of fns, what_contains, src_contains")
            continue
        if rule["file"] not in NO_LOOM:
            bad(where, "the file is not in files.toml's no_loom")
        if rule["text"] not in texts:
            bad(where, f"no [text] {rule['text']}")
        used.add(rule["text"])
        src = text(rule["file"])
        if src is None:
            bad(where, "no such file")
            continue
        for fn in rule.get("fns", []):
            if not has_fn(src, fn):
                bad(where, f"no function `{fn}`")
        if "src_contains" in rule and rule["src_contains"] not in src:
            bad(where, f"stale anchor: {rule['src_contains']!r} not found")
    for k in sorted(texts.keys() - used):
        bad(f"argued.toml [text] {k}", "no rule uses it")
    for r in _ARGUED.get("resolved", []):
        if text(r["file"]) is None:
            bad(f"argued.toml resolved {r['file']}:{r['fn']}", "no such file")

    for p in problems:
        print(p)
    manual = len(MANUAL)
    print(f"sweep --check: {len(problems)} problem(s); {manual} hand-written variants, "
          f"{len(variants)} automatic from {sum(OPS.values())} operations in {len(FILES)} "
          f"files, {len(SUITES)} suite rows", file=sys.stderr)
    return len(problems)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scratch", default="/tmp/loom-sweep")
    ap.add_argument("--out")
    ap.add_argument("--only", action="append", default=[],
                    help="run variants whose id contains this (repeatable)")
    ap.add_argument("--skip", action="append", default=[],
                    help="skip variants whose id contains this (repeatable)")
    ap.add_argument("--tests", action="append", default=[],
                    help="run only tests whose name contains this (repeatable)")
    ap.add_argument("--suites", action="append", default=[],
                    help="build and run only these suites of a variant's list (repeatable; "
                         "e.g. the one suite whose models the --tests filters name)")
    ap.add_argument("--timeout", type=int, default=180, help="seconds per test")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check", action="store_true",
                    help="verify that the data (anchors, files, suites, arguments) still "
                         "match the tree, build nothing; exit 1 on any problem")
    ap.add_argument("--table", metavar="JSONL", action="append",
                    help="print the Markdown table of these results (latest per variant, "
                         "in sweep order, 'not run' for the rest) and exit")
    a = ap.parse_args()

    if a.check:
        sys.exit(1 if check() else 0)
    variants = manual_variants() + auto_variants()
    if a.table:
        print_table(variants, a.table)
        return
    if a.only:
        variants = [v for v in variants if any(s in v["id"] for s in a.only)]
    variants = [v for v in variants if not any(s in v["id"] for s in a.skip)]
    if a.list:
        for v in variants:
            print(f"{v['id']}\t{v['fn']}\t{v['what']}\t{','.join(suites_for(v['file']))}")
        print(f"{len(variants)} variants", file=sys.stderr)
        return
    os.makedirs(a.scratch, exist_ok=True)
    out = a.out or os.path.join(a.scratch, "results.jsonl")
    tree = sync_scratch(a.scratch)
    for v in variants:
        if v["apply"] is None:
            # A NO_LOOM row: argued, nothing to run.
            print(f"| `{v['file']}:{v['line']}` {v['fn']} | {v['what']} | argued | |",
                  flush=True)
            continue
        t0 = time.time()
        status, suite, test, msg = run_variant(tree, v, a.timeout, a.tests, a.suites)
        rec = {"id": v["id"], "file": v["file"], "line": v["line"], "fn": v["fn"],
               "what": v["what"], "status": status, "suite": suite, "test": test,
               "message": msg, "secs": round(time.time() - t0),
               "bound": env()["LOOM_MAX_PREEMPTIONS"]}
        with open(out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(f"| `{v['file']}:{v['line']}` {v['fn']} | {v['what']} | {status} | "
              f"{suite} {test} | {msg} |", flush=True)


if __name__ == "__main__":
    main()
