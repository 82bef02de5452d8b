#!/usr/bin/env python3
"""The runtime's import circle: the largest set of `runtime/src` files that all reach one
another through their imports (the largest strongly connected component of the file
graph). Prints its size and its files, then the next circles of more than one file.

The graph: a node per source file reached from `lib.rs` through `mod` declarations
(`#[path]` honoured; inline `mod x { .. }` blocks belong to their file, but resolve
`super::`/`self::` from where they sit). An edge a -> b when a `use` declaration in a
names an item that resolves into b: a path from `crate::`, `super::`, `self::` or a child
module's name walks the module tree as far as it goes, then follows `pub use` /
`pub(crate) use` re-exports (so `crate::Runtime` lands in the file that defines
`Runtime`, and a `#[macro_export]` macro in the file that defines it); a path into
another crate is no edge. A `mod` declaration is no edge. Comments and string literals
are removed first. Every cfg counts (test modules and loom-only files included).

`--all-paths` also counts every path written in code, not only in `use` declarations
(`crate::scheduler::Handle::current()` inside a function): a stricter count.

`--max N` exits 1 when the circle has more than N files: `.ci/run` checks the
`use`-declaration circle with `--max 9`.

Usage: python3 .ci/import_circle.py [--all-paths] [--max N] [SRC]   (SRC: runtime/src)
No dependencies: python3 only.
"""

import os
import re
import sys
from collections import defaultdict

ITEM = re.compile(
    r"\b(?:struct|enum|fn|trait|type|const|static|union)\s+([A-Za-z_]\w*)"
    r"|macro_rules!\s*([A-Za-z_]\w*)"
)
USE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
PATH = re.compile(r"\b((?:crate|super|self|[a-z_][a-z0-9_]*)(?:::(?:[A-Za-z_]\w*|\{))+)")
MOD_DECL = re.compile(
    r'(?:#\[path\s*=\s*"([^"]+)"\]\s*)?(?:#\[[^\]]*\]\s*)*'
    r"(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;"
)


def strip(text):
    """The text without comments and with every string literal emptied."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return re.sub(r"//[^\n]*", "", text)


def expand(prefix, body):
    """The paths of one `use` body (whitespace removed, `as` written `@`), groups expanded."""
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for part in filter(None, parts):
        if "::{" in part and part.endswith("}"):
            head, inner = part.split("::{", 1)
            out += expand(prefix + head.split("::"), inner[:-1])
        elif part.startswith("{") and part.endswith("}"):
            out += expand(prefix, part[1:-1])
        else:
            out.append(prefix + part.split("::"))
    return out


class Tree:
    def __init__(self, src):
        self.src = src
        self.files = {}  # module path (tuple) -> file
        self.text = {}  # file -> stripped text
        self.inline = defaultdict(list)  # file -> [(start, end, module path)]
        self.walk(os.path.join(src, "lib.rs"), ())
        self.module_of = {}
        for mod, f in self.files.items():
            if f not in self.module_of or len(mod) < len(self.module_of[f]):
                self.module_of[f] = mod
        self.children = defaultdict(set)
        for mod in self.files:
            if mod:
                self.children[mod[:-1]].add(mod[-1])
        self.macros = {}
        self.reexports = defaultdict(dict)  # module -> name -> path
        for f, t in self.text.items():
            for m in re.finditer(r"macro_rules!\s*(\w+)", t):
                self.macros[m.group(1)] = f
            for public, segs, pos in self.uses(t):
                if public and segs[-1] not in ("*", "self"):
                    last = segs[-1].split("@")
                    self.reexports[self.module_at(f, pos)][last[-1]] = segs[:-1] + [last[0]]

    def walk(self, path, mod):
        self.files[mod] = path
        t = self.text[path] = strip(open(path, encoding="utf-8").read())
        for m in re.finditer(r"\bmod\s+(\w+)\s*\{", t):
            start, depth, i = m.end(), 1, m.end()
            while depth and i < len(t):
                depth += t[i] == "{"
                depth -= t[i] == "}"
                i += 1
            outer = [x for x in self.inline[path] if x[0] <= m.start() < x[1]]
            base = max(outer, key=lambda x: len(x[2]))[2] if outer else mod
            name = base + (m.group(1),)
            self.files.setdefault(name, path)
            self.inline[path].append((start, i, name))
        stem = os.path.basename(path)
        here = os.path.dirname(path)
        base = here if stem in ("mod.rs", "lib.rs") else os.path.join(here, stem[:-3])
        for m in MOD_DECL.finditer(t):
            if m.group(1):
                candidates = [os.path.join(here, m.group(1))]
            else:
                name = m.group(2)
                candidates = [os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")]
            for c in candidates:
                if os.path.exists(c):
                    self.walk(c, mod + (m.group(2),))
                    break

    def module_at(self, f, pos):
        best = self.module_of.get(f, ())
        for start, end, name in self.inline[f]:
            if start <= pos < end and len(name) > len(best):
                best = name
        return best

    @staticmethod
    def uses(t):
        out = []
        for m in USE.finditer(t):
            body = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", m.group(2)))
            for segs in expand([], body):
                segs = [s for s in segs if s and s != "*"]
                if segs:
                    out.append((bool(m.group(1)), segs, m.start()))
        return out

    def resolve(self, mod, segs, depth=0):
        """The file the item `segs` (written in module `mod`) is defined in, or None."""
        segs = [s.split("@")[0] for s in segs]
        if segs[0] == "crate":
            cur, rest = (), segs[1:]
        elif segs[0] in ("super", "self"):
            cur, rest = mod, segs
            while rest and rest[0] in ("super", "self"):
                cur = cur[:-1] if rest[0] == "super" else cur
                rest = rest[1:]
        elif segs[0] in self.children[mod]:
            cur, rest = mod, segs
        else:
            return None
        i = 0
        while i < len(rest) and cur + (rest[i],) in self.files:
            cur += (rest[i],)
            i += 1
        if cur not in self.files:
            return None
        if i < len(rest) and depth < 8:
            name = rest[i]
            if cur == () and name in self.macros:
                return self.macros[name]
            if name in self.reexports[cur]:
                target = self.resolve(cur, self.reexports[cur][name], depth + 1)
                if target:
                    return target
        return self.files[cur]

    def edges(self, all_paths):
        edges = defaultdict(set)
        for f, t in self.text.items():
            found = [(segs, pos) for _, segs, pos in self.uses(t)]
            if all_paths:
                found += [
                    ([s for s in m.group(1).split("::") if s != "{"], m.start())
                    for m in PATH.finditer(t)
                ]
            for segs, pos in found:
                target = self.resolve(self.module_at(f, pos), segs)
                if target and target != f:
                    edges[f].add(target)
        return edges


def circles(nodes, edges):
    """Strongly connected components, largest first (Tarjan's algorithm, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return sorted(out, key=len, reverse=True)


def main():
    argv = sys.argv[1:]
    limit = None
    if "--max" in argv:
        at = argv.index("--max")
        limit = int(argv[at + 1])
        del argv[at:at + 2]
    args = [a for a in argv if a != "--all-paths"]
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    src = args[0] if args else os.path.join(root, "runtime", "src")
    tree = Tree(src)
    comps = circles(sorted(tree.text), tree.edges("--all-paths" in sys.argv))
    mode = "every path" if "--all-paths" in sys.argv else "use declarations"
    print(f"{len(tree.text)} files; the import circle ({mode}): {len(comps[0])} files")
    for comp in comps:
        if len(comp) > 1:
            names = ", ".join(sorted(os.path.relpath(f, src) for f in comp))
            print(f"  {len(comp)}: {names}")
    if limit is not None and len(comps[0]) > limit:
        sys.exit(f"the import circle has {len(comps[0])} files, more than {limit}")


if __name__ == "__main__":
    main()
