#!/usr/bin/env python3
"""Build a benchmark corpus of real text from whatever this machine has.

    gen_corpus.py source SIZE OUT
    gen_corpus.py binary SIZE OUT

The Rust and Markdown files of the cargo registry (~/.cargo/registry/src,
or $CARGO_HOME's), in sorted path order, joined, cut before the first NUL
(a few crates hold binary test data) and repeated to SIZE bytes.  The
corpus is never committed: it depends on which crates the machine has.

`binary` is the same text as GNU's rule sees a log or a dump with a
stray NUL: a NUL at 10 MiB (past GNU's first buffer, so the lines before
it are searched as text) and then, every 1 MiB, a byte 0xFF (an encoding
error in UTF-8).  Each replaces a byte of the text, so the line count and
the size stay those of `source`.
"""
import os
import sys


def main():
    kind, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind not in ("source", "binary"):
        sys.exit("usage: gen_corpus.py source|binary SIZE OUT")
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
    data = bytearray()
    while len(data) < size:
        data += chunk[: size - len(data)]
    if kind == "binary":
        spoil(data, 10 << 20, 0)
        for at in range(11 << 20, size, 1 << 20):
            spoil(data, at, 0xFF)
    # One sequential write, as a log or a dump is written: the page cache
    # then holds the file as it would hold any freshly written file (in
    # large folios, which make mapping it cheap; bytes patched in place
    # afterwards split them and add a tenth to every mapped search).
    with open(out, "wb") as f:
        f.write(data)


def spoil(data, at, byte):
    """Replace the first byte at or after `at` that is not a newline."""
    while data[at] == ord("\n"):
        at += 1
    data[at] = byte


main()
