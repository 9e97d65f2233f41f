#!/usr/bin/env python3
"""Every C file of the project formatted as .clang-format says.

Usage: check_format.py SOURCE_DIR [--fix] [--clang-format PROGRAM]

Without --fix: `clang-format --dry-run --Werror` on each .c and .h under
compositor/, renderer/ and tests/; prints the files that differ and exits 1
if any does. With --fix: formats them in place (`clang-format -i`), the
one command that formats the tree.
"""

import argparse
import os
import subprocess
import sys

TREES = ("compositor", "renderer", "tests")


def sources(root):
    for tree in TREES:
        for dirpath, dirnames, files in os.walk(os.path.join(root, tree)):
            dirnames.sort()
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    yield os.path.join(dirpath, name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source_dir")
    parser.add_argument("--fix", action="store_true")
    parser.add_argument("--clang-format", default="clang-format")
    args = parser.parse_args()
    root = os.path.realpath(args.source_dir)
    files = list(sources(root))
    if args.fix:
        subprocess.run([args.clang_format, "-i", *files], check=True)
        print(f"formatted {len(files)} files")
        return 0
    bad = []
    for path in files:
        result = subprocess.run([args.clang_format, "--dry-run", "--Werror",
                                 path], capture_output=True, text=True)
        if result.returncode != 0:
            bad.append(os.path.relpath(path, root))
            sys.stderr.write(result.stderr[:2000])
    for path in bad:
        print(f"not formatted: {path}")
    print(f"{len(files) - len(bad)} of {len(files)} files formatted "
          f"(fix: tests/tools/check_format.py . --fix)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
