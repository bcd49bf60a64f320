#!/usr/bin/env python3
"""Build a benchmark corpus of real text from whatever this machine has.

    gen_corpus.py source SIZE OUT

The Rust and Markdown files of the cargo registry (~/.cargo/registry/src,
or $CARGO_HOME's), in sorted path order, joined, cut before the first NUL
(a few crates hold binary test data) and repeated to SIZE bytes.  The
corpus is never committed: it depends on which crates the machine has.
"""
import os
import sys


def main():
    kind, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind != "source":
        sys.exit("usage: gen_corpus.py source SIZE OUT")
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    root = os.path.join(home, "registry", "src")
    paths = []
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".rs", ".md")):
                paths.append(os.path.join(top, name))
    if not paths:
        sys.exit(f"gen_corpus.py: no .rs or .md files under {root}")
    parts = []
    for p in paths:
        with open(p, "rb") as f:
            parts.append(f.read())
    chunk = b"".join(parts)
    nul = chunk.find(b"\0")
    if nul >= 0:
        chunk = chunk[:nul]
    chunk = chunk[: chunk.rfind(b"\n") + 1]
    with open(out, "wb") as f:
        written = 0
        while written < size:
            part = chunk[: size - written]
            f.write(part)
            written += len(part)


main()
