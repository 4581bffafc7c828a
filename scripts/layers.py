#!/usr/bin/env python3
"""The import graph of a crate's modules, drawn from its `use` lines and inline paths.

    scripts/layers.py crates/search/src [--layers schemes,engine,output,results,islands,driver,session,campaign]

Prints each module's imports of other modules of the crate, the import circles between
top-level folders and between files, the imports that run from a lower layer to a higher
one (layers are top-level modules, lowest first), and the files over 600 lines. Exits 1
when it finds a circle, an upward import or a long file, so that CI can run it.
"""

import os
import re
import sys

MAX_LINES = 600


def module_of(root, path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def expand(tree):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]."""
    tree = tree.strip()
    m = re.match(r"^(.*?)\{(.*)\}$", tree, re.S)
    if not m:
        return [tree]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    return [prefix + p for part in parts if part.strip() for p in expand(part.strip())]


def references(text, here):
    """Absolute module paths (tuples) this file refers to."""
    paths = []
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        paths += expand(m.group(1))
    paths += re.findall(r"\b((?:crate|super|self)(?:::\w+)+)", text)
    base = here
    out = []
    for p in paths:
        p = re.sub(r"\s+as\s+\w+$", "", p.strip())
        segs = [s for s in p.split("::") if s]
        if not segs:
            continue
        if segs[0] == "crate":
            out.append(tuple(segs[1:]))
        elif segs[0] == "super":
            cur = list(base)
            while segs and segs[0] == "super":
                cur = cur[:-1]
                segs = segs[1:]
            out.append(tuple(cur + segs))
        elif segs[0] == "self":
            out.append(tuple(list(base) + segs[1:]))
        else:
            out.append(tuple(list(base) + segs))  # a child module, if it is one
    return out


def resolve(path, modules):
    for n in range(len(path), 0, -1):
        if path[:n] in modules:
            return path[:n]
    return None


def circles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main():
    root = sys.argv[1]
    layers = []
    if "--layers" in sys.argv:
        layers = sys.argv[sys.argv.index("--layers") + 1].split(",")
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".rs"):
                path = os.path.join(d, n)
                files[module_of(root, path)] = path
    modules = set(files)
    graph, long_files = {}, []
    for mod, path in sorted(files.items()):
        raw = open(path).read()
        lines = raw.count("\n")
        if lines > MAX_LINES:
            long_files.append((path, lines))
        text = strip_comments(raw)
        deps = set()
        for ref in references(text, mod):
            target = resolve(ref, modules)
            # A file's own ancestors are its declarations, not imports (`pub use` re-exports
            # in a mod.rs are imports of its children and are counted as such).
            if target and target != mod and target != () and mod[: len(target)] != target:
                deps.add(target)
        graph[mod] = deps
    name = lambda m: "::".join(m) or "crate"
    arrows = sum(len(d) for d in graph.values())
    print(f"{len(files)} files, {arrows} arrows between files")
    for mod in sorted(graph):
        if graph[mod]:
            print(f"  {name(mod)} -> {', '.join(sorted(name(d) for d in graph[mod]))}")
    failures = 0
    file_circles = circles(graph)
    top = {}
    for mod, deps in graph.items():
        for d in deps:
            if mod and d and mod[0] != d[0]:
                top.setdefault(mod[0], set()).add(d[0])
    folder_circles = circles(top)
    print(f"import circles between files: {len(file_circles)}")
    for c in file_circles:
        print("  " + " <-> ".join(name(m) for m in c))
    print(f"import circles between top-level modules: {len(folder_circles)}")
    for c in folder_circles:
        print("  " + " <-> ".join(c))
    failures += len(file_circles) + len(folder_circles)
    if layers:
        rank = {l: i for i, l in enumerate(layers)}
        up = []
        for mod, deps in graph.items():
            for d in deps:
                if mod and d and mod[0] in rank and d[0] in rank and rank[d[0]] > rank[mod[0]]:
                    up.append((name(mod), name(d)))
        unplaced = sorted({m[0] for m in graph if m and len(files) and m[0] not in rank
                           and os.path.isdir(os.path.join(root, m[0]))})
        print(f"layers, lowest first: {' < '.join(layers)}")
        print(f"imports from a lower layer to a higher one: {len(up)}")
        for a, b in sorted(up):
            print(f"  {a} -> {b}")
        if unplaced:
            print(f"folders in no layer: {', '.join(unplaced)}")
        failures += len(up) + len(unplaced)
    print(f"files over {MAX_LINES} lines: {len(long_files)}")
    for path, n in sorted(long_files):
        print(f"  {path}: {n}")
    failures += len(long_files)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
