#!/usr/bin/env python3
"""The file-to-file arrows of compositor/ and renderer/, read from the objects.

An arrow A -> B means that the object compiled from A needs a symbol that
the object compiled from B defines (`nm`): a file and its header count as
one. A circle is a strongly connected set of two or more files inside
one of the two trees (compositor/, renderer/); arrows between the trees
and to the libraries outside do not count.

Usage: layout_deps.py BUILD_DIR [--max-circle-files compositor=N,renderer=M]
       [--verbose] [--symbols] [--layers]

Prints one line per tree:
  <tree>: files=<sources> folders=<n> arrows=<n> circles=<n>
          in_circles=<files> longest=<file>:<lines> [server.h=<lines>]
and, with --verbose, the members of each circle and each file's arrows;
with --symbols, the symbols behind each arrow inside a circle (what to
move or invert to break it); with --layers (when there is no circle),
each file's layer: 0 needs no other file of its tree, n needs files of
layers below n only (the longest chain of arrows under it).
With --max-circle-files it exits 1 when a tree has more files in circles
than allowed: a ratchet that lets the count fall, never grow.
"""

import argparse
import json
import os
import subprocess
import sys

TREES = ("compositor", "renderer")


def objects(build_dir):
    """(source path relative to the project, object path) of every
    compiled file of the trees."""
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        commands = json.load(f)
    root = os.path.realpath(os.path.join(build_dir, ".."))
    seen = {}
    for entry in commands:
        src = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        rel = os.path.relpath(src, root)
        if rel.split(os.sep)[0] not in TREES:
            continue
        obj = os.path.join(entry["directory"], entry["output"])
        # one object per source (a file built twice counts once)
        seen.setdefault(rel, obj)
    return root, seen


def symbols(obj):
    """(defined, undefined) global symbols of one object."""
    out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRVWGSCi":  # lower case: local to the object
            defined.add(name)
    return defined, undefined


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iterative: the components of two or more."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return result


def lines_of(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--max-circle-files", default="")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--symbols", action="store_true")
    parser.add_argument("--layers", action="store_true")
    args = parser.parse_args()
    root, objs = objects(args.build_dir)
    defs, needs = {}, {}
    for rel, obj in objs.items():
        defined, undefined = symbols(obj)
        needs[rel] = undefined
        for name in defined:
            defs.setdefault(name, rel)
    limits = {}
    for item in filter(None, args.max_circle_files.split(",")):
        tree, value = item.split("=")
        limits[tree] = int(value)
    failed = False
    for tree in TREES:
        nodes = {rel for rel in objs if rel.split(os.sep)[0] == tree}
        edges, carried = {}, {}
        for rel in nodes:
            for name in needs[rel]:
                target = defs.get(name)
                if target in nodes and target != rel:
                    edges.setdefault(rel, set()).add(target)
                    carried.setdefault((rel, target), set()).add(name)
        circles = strongly_connected(nodes, edges)
        in_circles = sum(len(c) for c in circles)
        sources = []
        for dirpath, _, files in os.walk(os.path.join(root, tree)):
            for name in files:
                if name.endswith((".c", ".h")):
                    sources.append(os.path.join(dirpath, name))
        folders = {os.path.dirname(p) for p in sources}
        longest = max(sources, key=lines_of)
        line = (f"{tree}: files={len(sources)} folders={len(folders)} "
                f"arrows={sum(len(v) for v in edges.values())} "
                f"circles={len(circles)} in_circles={in_circles} "
                f"longest={os.path.relpath(longest, root)}:"
                f"{lines_of(longest)}")
        server_h = os.path.join(root, tree, "server.h")
        if os.path.exists(server_h):
            line += f" server.h={lines_of(server_h)}"
        print(line)
        if args.verbose:
            for circle in circles:
                print(f"  circle of {len(circle)}: {' '.join(circle)}")
            for rel in sorted(edges):
                print(f"  {rel} -> {' '.join(sorted(edges[rel]))}")
        if args.symbols:
            for circle in circles:
                members = set(circle)
                for (src, dst), names in sorted(carried.items()):
                    if src in members and dst in members:
                        print(f"  {src} -> {dst}: {' '.join(sorted(names))}")
        if args.layers and not circles:
            level = {}

            def depth(node):
                if node not in level:
                    level[node] = 1 + max((depth(n) for n in
                                           edges.get(node, ())), default=-1)
                return level[node]

            for rel in nodes:
                depth(rel)
            for n in range(max(level.values(), default=-1) + 1):
                files = sorted(r for r in level if level[r] == n)
                print(f"  layer {n}: {' '.join(files)}")
        if tree in limits and in_circles > limits[tree]:
            print(f"{tree}: {in_circles} files in circles, more than the "
                  f"{limits[tree]} allowed", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
