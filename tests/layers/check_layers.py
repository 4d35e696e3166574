#!/usr/bin/env python3
"""The layering of src/, checked (docs/architecture.md, "Layers").

includes SRC_DIR
    Every #include "..." of a file under src/ names a public header
    (quadrender/...) or a file of its own layer or a lower one; a front end
    (cli) includes only public headers and its own.
loops NM OBJECT|FOLDER...
    No object files call each other in a loop: from each object's defined
    and undefined symbols (nm), the files that take names from one another
    must form no cycle. Objects are named by their source path.
Exit status 1 with one line per offence.
"""
import os
import re
import subprocess
import sys

# lowest first; a file may include its own layer and those before it
LAYERS = ["common", "gpu", "scene", "quadtree", "query", "image", "render", "job", "cli"]
FRONT_ENDS = {"cli"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    top = rel.split("/", 1)[0]
    return top if top in LAYERS else None


def check_includes(src):
    bad = []
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith((".c", ".h", ".cu", ".cuh")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            mine = layer_of(rel)
            if mine is None:
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                if inc.startswith("quadrender/"):
                    continue
                theirs = layer_of(inc)
                if theirs is None:
                    # relative to the file's folder
                    theirs = layer_of(os.path.normpath(os.path.join(os.path.dirname(rel), inc)))
                if theirs is None:
                    continue
                if mine in FRONT_ENDS and theirs != mine:
                    bad.append(f"{rel}: a front end includes the internal header {inc}")
                elif LAYERS.index(theirs) > LAYERS.index(mine):
                    bad.append(f"{rel}: includes {inc}, of the higher layer {theirs}")
    return bad


def symbols(nm, obj):
    out = subprocess.run([nm, "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind == "U":
            used.add(sym)
        elif kind in "TDBRVWGS" and kind.isupper():
            defined.add(sym)
    return defined, used


def source_name(obj):
    m = re.search(r"\.dir/(.*)\.o$", obj)
    return m.group(1) if m else obj


def object_files(args):
    # CMake passes a target's objects as one ';'-separated argument
    for a in (p for arg in args for p in arg.split(";") if p):
        if os.path.isdir(a):
            for root, _, files in os.walk(a):
                yield from (os.path.join(root, f) for f in sorted(files) if f.endswith(".o"))
        else:
            yield a


def check_loops(nm, objs):
    objs = list(object_files(objs))
    table = {source_name(o): symbols(nm, o) for o in objs}
    names = sorted(table)
    calls = {a: {b for b in names if b != a and table[a][1] & table[b][0]} for a in names}
    # strongly connected components (Tarjan): a component of two or more
    # files is a loop of files calling each other
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(calls[v]):
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
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in names:
        if v not in index:
            visit(v)
    bad = []
    for comp in comps:
        ties = []
        for a in comp:
            for b in comp:
                if b in calls[a]:
                    ties.append(f"{a} -> {b} ({sorted(table[a][1] & table[b][0])[0]})")
        bad.append("files calling each other in a loop: " + "; ".join(ties))
    return bad


def main(argv):
    if len(argv) >= 2 and argv[0] == "includes":
        bad = check_includes(argv[1])
    elif len(argv) >= 3 and argv[0] == "loops":
        bad = check_loops(argv[1], argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
