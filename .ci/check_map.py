#!/usr/bin/env python3
"""ARCHITECTURE.md names only what exists.

Fails (exit 1, listing each) when the map names a repository path that is not there, a
loom suite that is not in loom-tests/tests/, or a loom model no test function is called
by, or when it leaves out a path it must mention (REQUIRED). No dependencies: python3 only.

What counts as a path: a backticked word without spaces that contains a `/` or ends in
one of EXTENSIONS, and, inside fenced code blocks, any word with a `/` between two
name characters (commands' arguments: `loom-tests/run.py`). A path is looked up from the
repository root, then under each of BASES: the directories the map's tables are written
relative to (the `runtime/src` rooms, the multi-thread scheduler's files). A path under
compat/ that does not exist yet passes only while it, or a folder above it, is listed in
PENDING.

What counts as a loom name: a backticked `loom_*` word is a suite (a file
loom-tests/tests/<suite>.rs); in the model column of the invariant table (the last cell
of each row under the "Invariants" heading) every other backticked lower-case word is a
model, found by `fn <name>` in loom-tests/ (a trailing `*` matches a prefix).
"""

import os
import re
import sys

# Paths under compat/ being built elsewhere; remove an entry once its directory exists.
PENDING = []

# Paths the map must mention.
REQUIRED = ["compat/tokio", "compat/tests"]

# Where a path that is not found from the repository root is looked up next.
BASES = ["runtime/src", "runtime/src/scheduler/multi_thread"]

EXTENSIONS = (".rs", ".md", ".toml", ".py", ".sh")

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MAP = os.path.join(ROOT, "ARCHITECTURE.md")
LOOM_DIR = os.path.join(ROOT, "loom-tests")
LOOM_TESTS = os.path.join(LOOM_DIR, "tests")

BACKTICKED = re.compile(r"`([^`\n]+)`")
FENCE_WORD_PATH = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*/?$")
MODEL = re.compile(r"^[a-z][a-z0-9_]*\*?$")
SUITE = re.compile(r"^loom_[a-z0-9_]+$")


def looks_like_path(word):
    if " " in word or not FENCE_WORD_PATH.match(word):
        return False
    return "/" in word or word.endswith(EXTENSIONS)


def path_exists(path):
    rel = path.rstrip("/")
    for base in [""] + BASES:
        if os.path.exists(os.path.join(ROOT, base, rel)):
            return True
    return False


def pending(path):
    rel = path.rstrip("/")
    return any(rel == p or rel.startswith(p + "/") for p in PENDING)


def loom_sources():
    texts = []
    for dirpath, _, files in os.walk(LOOM_DIR):
        for name in files:
            if name.endswith(".rs"):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    texts.append(f.read())
    return "\n".join(texts)


def model_exists(name, sources):
    if name.endswith("*"):
        pattern = r"\bfn\s+" + re.escape(name[:-1]) + r"\w*\s*\("
    else:
        pattern = r"\bfn\s+" + re.escape(name) + r"\s*\("
    return re.search(pattern, sources) is not None


def main():
    with open(MAP, encoding="utf-8") as f:
        lines = f.read().splitlines()

    paths = []  # (line number, path)
    suites = []
    models = []
    in_fence = False
    in_invariants = False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            for word in line.split():
                word = word.strip("()[],;:'\"")
                if "/" in word and "=" not in word and looks_like_path(word):
                    paths.append((number, word))
            continue
        if line.startswith("#"):
            in_invariants = line.lower().lstrip("# ").startswith("invariants")
        for word in BACKTICKED.findall(line):
            if looks_like_path(word):
                paths.append((number, word))
            elif SUITE.match(word):
                suites.append((number, word))
        if in_invariants and line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells and cells[-1] != "model":
                for word in BACKTICKED.findall(cells[-1]):
                    if MODEL.match(word) and not SUITE.match(word):
                        models.append((number, word))

    problems = []
    for number, path in paths:
        if path_exists(path):
            continue
        if pending(path):
            continue
        problems.append(f"ARCHITECTURE.md:{number}: path `{path}` does not exist")
    for number, suite in suites:
        if not os.path.exists(os.path.join(LOOM_TESTS, suite + ".rs")):
            problems.append(
                f"ARCHITECTURE.md:{number}: loom suite `{suite}` is not in loom-tests/tests/"
            )
    if models:
        sources = loom_sources()
        for number, model in models:
            if not model_exists(model, sources):
                problems.append(
                    f"ARCHITECTURE.md:{number}: loom model `{model}` is no test in loom-tests/"
                )
    named = {p.rstrip("/") for _, p in paths}
    for required in REQUIRED:
        if required not in named:
            problems.append(f"ARCHITECTURE.md: does not mention `{required}`")

    if problems:
        print("ARCHITECTURE.md names what does not exist:")
        for problem in problems:
            print("  " + problem)
        return 1
    print(
        f"ARCHITECTURE.md: {len(paths)} paths, {len(suites)} loom suite mentions, "
        f"{len(models)} loom models: all exist"
        + (f" (pending: {', '.join(PENDING)})" if PENDING else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
