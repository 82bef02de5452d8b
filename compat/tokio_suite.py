#!/usr/bin/env python3
"""Helper for tokio-suite.sh: tokio's own `tests/` built against the patch crate.

Subcommands:
  gen TOKIO_SRC PATCH_DIR CRATE_DIR
      Writes CRATE_DIR/Cargo.toml: a scratch package that is its own workspace, patches
      crates-io `tokio` to PATCH_DIR, depends on `tokio` with every feature tokio's CI
      enables without `--cfg tokio_unstable`, on tokio's dependencies and dev-dependencies
      whose target cfg holds on this host (linux, unix, 64-bit, no `tokio_unstable`, no
      `loom`), and lists each TOKIO_SRC/tests/*.rs as a `[[test]]` whose `path` is that
      original file (so `mod support { ... }` resolves to TOKIO_SRC/tests/support/).
      The package declares tokio's feature names and enables them by default, since the
      test files test `cfg(feature = "...")` against the package they are compiled in.
  build-json BUILD_JSON OUT_JSON
      Reads cargo's `--message-format=json` output; writes per-target
      {"exe": path} or {"errors": [first lines]}.
  report STATE_DIR TOKIO_SRC COMMIT OUT_MD
      Joins the build state with the run logs (STATE_DIR/run/NAME.log and NAME.rc) into a
      markdown table with totals.
"""

import json
import os
import re
import sys
import tomllib

# The host the suite runs on, as tokio's target cfgs see it.
HOST_CFG = {
    "unix": True,
    "windows": False,
    "loom": False,
    "tokio_unstable": False,
    "doc": False,
    "test": True,
    "debug_assertions": True,
}
HOST_KV = {
    "target_os": {"linux"},
    "target_family": {"unix"},
    "target_env": {"gnu"},
    "target_arch": {"x86_64"},
    "target_pointer_width": {"64"},
    "target_has_atomic": {"8", "16", "32", "64", "ptr"},
    "target_vendor": {"unknown"},
    "target_endian": {"little"},
    "panic": {"unwind"},
}

# Features of tokio 1.54.1 that tokio's CI (`--all-features`, no tokio_unstable) turns on.
# Those that only mean something under tokio_unstable are declared but left off, so that
# a test file's `cfg(feature = ...)` reads them as tokio's stable CI does.
OFF_FEATURES = {"io-uring", "taskdump", "tracing"}


def tokenize(s):
    return re.findall(r'"[^"]*"|[A-Za-z_][A-Za-z0-9_]*|[(),=]', s)


def eval_cfg(expr):
    """Evaluates `cfg(...)` (the whole string) against HOST_CFG / HOST_KV."""
    expr = expr.strip()
    if not expr.startswith("cfg("):
        # A plain target triple.
        return expr == "x86_64-unknown-linux-gnu"
    toks = tokenize(expr[len("cfg"):])
    pos = 0

    def parse():
        nonlocal pos
        tok = toks[pos]
        pos += 1
        if tok == "(":
            v = parse()
            assert toks[pos] == ")", expr
            pos += 1
            return v
        if tok in ("all", "any", "not"):
            assert toks[pos] == "(", expr
            pos += 1
            vals = []
            while toks[pos] != ")":
                vals.append(parse())
                if toks[pos] == ",":
                    pos += 1
            pos += 1
            if tok == "all":
                return all(vals)
            if tok == "any":
                return any(vals)
            assert len(vals) == 1, expr
            return not vals[0]
        if pos < len(toks) and toks[pos] == "=":
            pos += 1
            val = toks[pos].strip('"')
            pos += 1
            return val in HOST_KV.get(tok, set())
        return HOST_CFG.get(tok, False)

    return parse()


def dep_line(name, spec, force_nonoptional=True):
    if isinstance(spec, str):
        spec = {"version": spec}
    spec = dict(spec)
    if force_nonoptional:
        spec.pop("optional", None)
    parts = []
    for k, v in spec.items():
        parts.append(f"{toml_key(k)} = {toml_val(v)}")
    return f"{toml_key(name)} = {{ {', '.join(parts)} }}"


def toml_key(k):
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def toml_val(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_val(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_val(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def merge(deps, name, spec):
    """Merges one dependency table entry into `deps` (features unioned)."""
    if isinstance(spec, str):
        spec = {"version": spec}
    spec = dict(spec)
    spec.pop("optional", None)
    pkg = spec.get("package", name)
    if pkg == "tokio":
        return
    if name in deps:
        old = deps[name]
        feats = sorted(set(old.get("features", [])) | set(spec.get("features", [])))
        if feats:
            old["features"] = feats
        if spec.get("default-features", True) is True:
            old.pop("default-features", None)
        return
    deps[name] = spec


def gen(tokio_src, patch_dir, crate_dir):
    with open(os.path.join(tokio_src, "Cargo.toml"), "rb") as f:
        manifest = tomllib.load(f)
    version = manifest["package"]["version"]
    features = manifest.get("features", {})

    # The tests of a package see both its dependencies and its dev-dependencies.
    deps = {}
    for table in ("dependencies", "dev-dependencies"):
        for name, spec in manifest.get(table, {}).items():
            merge(deps, name, spec)
    for cfg, tables in manifest.get("target", {}).items():
        if not eval_cfg(cfg):
            continue
        for table in ("dependencies", "dev-dependencies"):
            for name, spec in tables.get(table, {}).items():
                merge(deps, name, spec)
    # tokio-macros is reached through tokio::main / tokio::test, never by name.
    deps.pop("tokio-macros", None)

    # Dependency features of tokio's own feature list ("mio/os-poll", "dep:x") are the
    # patch crate's business; only tokio's own feature names are forwarded.
    on = [f for f in features if f != "default" and f not in OFF_FEATURES]
    # The dependency features tokio's enabled features turn on ("mio/os-poll"), so that
    # the tests see the dependencies as they do in tokio's own build.
    todo, seen = list(on), set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for item in features.get(f, []):
            if item.startswith("dep:"):
                continue
            if "/" in item:
                dep, sub = item.split("/", 1)
                dep = dep.rstrip("?")
                if dep in deps:
                    deps[dep]["features"] = sorted(set(deps[dep].get("features", [])) | {sub})
            elif item in features:
                todo.append(item)
    feat_lines = []
    for f in features:
        if f == "default":
            continue
        feat_lines.append(f"{toml_key(f)} = [{toml_val('tokio/' + f)}]")
    feat_lines.insert(0, f"default = {toml_val(sorted(on))}")

    tests_dir = os.path.join(tokio_src, "tests")
    names = sorted(
        fn[:-3] for fn in os.listdir(tests_dir) if fn.endswith(".rs")
    )
    lines = [
        "# Generated by compat/tokio_suite.py: tokio "
        + version
        + "'s own tests/ (unmodified, by path) built against the patch crate.",
        "[workspace]",
        "",
        "[package]",
        'name = "tokio-suite"',
        'version = "0.0.0"',
        'edition = "2021"',
        "publish = false",
        "autotests = false",
        "autobenches = false",
        "autoexamples = false",
        "autobins = false",
        "",
        "[lib]",
        'path = "src/lib.rs"',
        "",
        "[features]",
        *feat_lines,
        "",
        "[dependencies]",
        'tokio = { version = "1", default-features = false }',
    ]
    for name in sorted(deps):
        lines.append(dep_line(name, deps[name]))
    lines += [
        "",
        "[patch.crates-io]",
        f"tokio = {{ path = {json.dumps(os.path.abspath(patch_dir))} }}",
        "",
        "[profile.dev]",
        "debug = 0",
        "",
    ]
    lint = manifest.get("lints", {}).get("rust", {}).get("unexpected_cfgs")
    if lint:
        lines += ["[lints.rust]", f"unexpected_cfgs = {toml_val(lint)}", ""]
    for n in names:
        lines += [
            "[[test]]",
            f"name = {json.dumps(n)}",
            f"path = {json.dumps(os.path.join(tests_dir, n + '.rs'))}",
            "",
        ]
    os.makedirs(os.path.join(crate_dir, "src"), exist_ok=True)
    write_if_changed(os.path.join(crate_dir, "Cargo.toml"), "\n".join(lines))
    write_if_changed(os.path.join(crate_dir, "src", "lib.rs"),
                     "//! Empty: the package exists for its `[[test]]` targets.\n")
    write_if_changed(os.path.join(crate_dir, "tests.txt"), "\n".join(names) + "\n")


def write_if_changed(path, text):
    """Leaves an unchanged file untouched, so that cargo's mtime fingerprints hold."""
    try:
        if open(path).read() == text:
            return
    except FileNotFoundError:
        pass
    with open(path, "w") as f:
        f.write(text)


def build_json(build_json_path, out_path):
    state = {}
    with open(build_json_path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            target = msg.get("target") or {}
            if "test" not in target.get("kind", []):
                continue
            pkg = msg.get("package_id", "")
            if "tokio-suite" not in pkg:
                continue
            name = target["name"]
            entry = state.setdefault(name, {})
            if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
                entry["exe"] = msg["executable"]
            elif msg.get("reason") == "compiler-message":
                m = msg.get("message", {})
                if m.get("level") == "error":
                    text = m.get("message", "")
                    code = (m.get("code") or {}).get("code")
                    first = f"error[{code}]: {text}" if code else f"error: {text}"
                    spans = m.get("spans") or []
                    prim = [s for s in spans if s.get("is_primary")] or spans
                    site = ""
                    if prim:
                        # The outermost macro call site: the test file's own line.
                        sp = prim[0]
                        macro = ""
                        while sp.get("expansion") and sp["expansion"].get("span"):
                            macro = macro or sp["expansion"].get("macro_decl_name", "")
                            sp = sp["expansion"]["span"]
                        entry.setdefault("macros", []).append(macro)
                        text = (sp.get("text") or [{}])[0].get("text", "").strip()
                        site = f"{os.path.basename(sp['file_name'])}:{sp['line_start']}: {text[:160]}"
                    else:
                        entry.setdefault("macros", []).append("")
                    entry.setdefault("errors", []).append(first)
                    entry.setdefault("sites", []).append(site)
    with open(out_path, "w") as f:
        json.dump(state, f, indent=1, sort_keys=True)


RESULT_RE = re.compile(
    r"test result: (\w+)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; (\d+) filtered out"
)
LINE_RE = re.compile(r"^test (\S+) \.\.\. (ok|FAILED|ignored)", re.M)
PANIC_RE = re.compile(r"^---- (\S+) stdout ----\n(?:.*\n)*?thread '[^']*' (?:\(\d+\) )?panicked at ([^\n]*):\n([^\n]*)", re.M)


def parse_run(log, rc):
    """One test binary's log: passed, failed, ignored, failing names with first panic line."""
    res = {"passed": 0, "failed": 0, "ignored": 0, "rc": rc, "failures": {}, "note": ""}
    m = RESULT_RE.search(log)
    if m:
        res["passed"], res["failed"], res["ignored"] = int(m[2]), int(m[3]), int(m[4])
    else:
        lines = LINE_RE.findall(log)
        res["passed"] = sum(1 for _, s in lines if s == "ok")
        res["failed"] = sum(1 for _, s in lines if s == "FAILED")
        res["ignored"] = sum(1 for _, s in lines if s == "ignored")
    for name, st in LINE_RE.findall(log):
        if st == "FAILED":
            res["failures"].setdefault(name, "")
    for pm in PANIC_RE.finditer(log):
        res["failures"][pm[1]] = pm[3].strip()
    if not m:
        planned = re.search(r"^running (\d+) tests?", log, re.M)
        done = res["passed"] + res["failed"] + res["ignored"]
        missing = (int(planned[1]) - done) if planned else 0
        if rc == 124 or rc == 137:
            res["note"] = "timed out"
        elif rc is not None and rc >= 128:
            res["note"] = f"killed by signal {rc - 128}"
        else:
            res["note"] = f"no summary (exit {rc})"
        running = re.findall(r"^test (\S+) has been running for over", log, re.M)
        if running:
            res["note"] += "; still running: " + ", ".join(running[:4])
        if missing > 0:
            res["note"] += f"; {missing} tests unfinished"
    return res


def cause(err, macro=""):
    """Reduces an error line to its cause: a missing item is named by its path."""
    # async_send_sync's checks: `require_*` fails where tokio's type has the trait and this
    # one lacks it; `AmbiguousIf*` is ambiguous (E0283) where tokio's lacks it and this has it.
    for trait in ("send", "sync", "unpin"):
        if macro == f"async_assert_fn_{trait}!":
            t = trait.capitalize()
            if "E0283" in err:
                return f"async_send_sync: tokio's type is !{t}, this one is {t}"
            if "E0277" in err:
                return f"async_send_sync: tokio's type is {t}, this one is not"
    m = re.search(r"cannot find (?:\w+ )?`([^`]+)` in (?:module |crate )?`([^`]+)`", err)
    if m:
        return f"missing item `{m[2]}::{m[1]}`"
    m = re.search(r"unresolved import `([^`]+)`", err)
    if m:
        return f"missing item `{m[1]}`"
    m = re.search(r"no (?:method|function or associated item) named `([^`]+)` found for "
                  r"(?:struct|enum|mutable reference|reference|type) `&?(?:mut )?([^`<]+)", err)
    if m:
        return f"missing item `{m[2]}::{m[1]}`"
    m = re.search(r"the type `([^`]+)` may contain interior mutability and a reference may not be "
                  r"safely transferable across a catch_unwind boundary", err)
    if m:
        return "not RefUnwindSafe (`UnsafeCell` inside the runtime's types)"
    m = re.search(r"`([^`]+)` cannot be shared between threads safely", err)
    if m:
        return "a type tokio makes Sync is not Sync here"
    return err


def report(state_dir, tokio_src, commit, out_md):
    names = open(os.path.join(state_dir, "crate", "tests.txt")).read().split()
    build = json.load(open(os.path.join(state_dir, "build.json")))
    rows = []
    tot = {"passed": 0, "failed": 0, "ignored": 0, "unfinished": 0, "empty": 0}
    nocompile = []
    sites_of = {}
    failures = []
    for n in names:
        b = build.get(n, {})
        if "exe" not in b:
            errs = b.get("errors") or ["(no error captured: see build.log)"]
            sites_of[n] = b.get("sites") or [""] * len(errs)
            nocompile.append((n, errs))
            rows.append(f"| {n} | | | | does not compile: `{errs[0]}`, {sites_of[n][0].split(': ')[0]}"
                        + (f" (+{len(errs) - 1} more)" if len(errs) > 1 else "") + " |")
            continue
        log_path = os.path.join(state_dir, "run", n + ".log")
        rc_path = os.path.join(state_dir, "run", n + ".rc")
        if not os.path.exists(rc_path):
            rows.append(f"| {n} | | | | not run |")
            continue
        log = open(log_path, errors="replace").read()
        rc = int(open(rc_path).read().strip() or "0")
        r = parse_run(log, rc)
        list_path = os.path.join(state_dir, "run", n + ".list")
        listed = []
        if os.path.exists(list_path):
            listed = [l[: -len(": test")] for l in open(list_path).read().splitlines()
                      if l.endswith(": test")]
        if r["note"]:
            finished = {t for t, _ in LINE_RE.findall(log)}
            left = []
            retried = []
            for t in listed:
                if t in finished:
                    continue
                rdir = os.path.join(state_dir, "run", n + ".retry")
                rrc = os.path.join(rdir, t + ".rc")
                if not os.path.exists(rrc):
                    left.append(t)
                    r["failures"].setdefault(t, "unfinished: " + r["note"].split(";")[0])
                    continue
                one = parse_run(open(os.path.join(rdir, t + ".log"), errors="replace").read(),
                                int(open(rrc).read().strip() or "0"))
                if one["passed"]:
                    r["passed"] += 1
                    retried.append(f"{t} passed")
                elif one["failed"]:
                    r["failed"] += 1
                    r["failures"][t] = "(run alone) " + (one["failures"].get(t) or "")
                    retried.append(f"{t} failed")
                else:
                    left.append(t)
                    r["failures"][t] = "(run alone) " + one["note"]
                    retried.append(f"{t} {one['note'].split(';')[0]}")
            if retried:
                r["note"] += "; run alone: " + ", ".join(retried)
            if left:
                r["unfinished"] = len(left)
        for k in ("passed", "failed", "ignored"):
            tot[k] += r[k]
        tot["unfinished"] += r.get("unfinished", 0)
        if r["failed"] or r["note"]:
            status = "FAIL"
        elif r["passed"] == 0 and not listed:
            status = "0 tests: every test cfg'd out (tokio_unstable, other platform, or feature)"
            tot["empty"] += 1
        else:
            status = "ok"
        extra = r["note"]
        fl = ", ".join(sorted(r["failures"]))
        if fl:
            extra = (extra + "; " if extra else "") + "failed: " + fl
        rows.append(f"| {n} | {r['passed']} | {r['failed']} | {r['ignored']} | {status}"
                    + (f": {extra}" if extra else "") + " |")
        for t, msg in sorted(r["failures"].items()):
            failures.append((n, t, msg))
    total = tot["passed"] + tot["failed"] + tot["unfinished"]
    out = [
        "# tokio's own test suite through the patch",
        "",
        f"tokio {os.path.basename(tokio_src.rstrip('/'))} `tests/`, unmodified, built against "
        f"`compat/tokio` at commit `{commit}` by `compat/tokio-suite.sh`; features as tokio's "
        "CI without `--cfg tokio_unstable`; `#[ignore]`d tests skipped (libtest's default).",
        "",
        f"**Totals:** {tot['passed']} passed, {tot['failed']} failed, "
        f"{tot['unfinished']} unfinished (in files killed by the per-file timeout or a crash) "
        f"of {total} tests run; {tot['ignored']} ignored; "
        f"{len(nocompile)} of {len(names)} files do not compile; "
        f"{len(names) - len(nocompile)} files compile, of which {tot['empty']} hold no test "
        "under this cfg set.",
        "",
        "| file | passed | failed | ignored | status |",
        "|---|---|---|---|---|",
        *rows,
        "",
    ]
    if nocompile:
        out += ["## Files that do not compile: every error", ""]
        for n, errs in nocompile:
            out.append(f"- **{n}** ({len(errs)} errors)")
            seen = {}
            for e, site in zip(errs, sites_of[n]):
                seen.setdefault(e, [])
                if site and site not in seen[e]:
                    seen[e].append(site)
            for e, sites in seen.items():
                out.append(f"  - `{e}`")
                for site in sites[:8]:
                    out.append("    - at " + site.replace("|", "\\|"))
                if len(sites) > 8:
                    out.append(f"    - ... {len(sites) - 8} more sites")
        out.append("")
        # Group the causes over all files.
        groups = {}
        for n, errs in nocompile:
            macros = build[n].get("macros") or [""] * len(errs)
            for e in set(cause(e, mc) for e, mc in zip(errs, macros)):
                groups.setdefault(e, set()).add(n)
        out += ["## Compile errors grouped by cause (files: cause: which files)", ""]
        for e, files in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            if e.startswith("error: aborting") or "could not compile" in e:
                continue
            out.append(f"- {len(files)}: `{e}`: {', '.join(sorted(files))}")
        out.append("")
    if failures:
        out += ["## Failing tests: first panic line", ""]
        for n, t, msg in failures:
            out.append(f"- {n}::{t}: `{msg}`" if msg else f"- {n}::{t}")
        out.append("")
    with open(out_md, "w") as f:
        f.write("\n".join(out))
    print("\n".join(out))


def listed_tests(list_path):
    if not os.path.exists(list_path):
        return []
    return [l[: -len(": test")] for l in open(list_path).read().splitlines() if l.endswith(": test")]


def unfinished(list_path, log_path):
    """Prints the listed tests that have no result line in the log."""
    log = open(log_path, errors="replace").read()
    finished = {t for t, _ in LINE_RE.findall(log)}
    for t in listed_tests(list_path):
        if t not in finished:
            print(t)


def main():
    cmd = sys.argv[1]
    if cmd == "unfinished":
        unfinished(*sys.argv[2:4])
        return
    if cmd == "gen":
        gen(*sys.argv[2:5])
    elif cmd == "build-json":
        build_json(*sys.argv[2:4])
    elif cmd == "report":
        report(*sys.argv[2:6])
    else:
        sys.exit(f"unknown subcommand {cmd}")


if __name__ == "__main__":
    main()
