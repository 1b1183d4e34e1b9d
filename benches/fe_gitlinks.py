#!/usr/bin/env python3
"""Renames the gitlinks of a `git fast-export` stream through a map, so
that `git fast-import` into a SHA-256 repository takes a history that
pins submodules (it refuses a 40-hex gitlink: "Invalid dataref").

    git fast-export --all | benches/fe_gitlinks.py MAP | git fast-import

MAP is a git-rehash map (rehash/map.sqlite) or a file of
"<sha1> <sha256>" lines. Only `M 160000 <id> <path>` commands are
rewritten; `data` blocks are copied through unread, so a blob that holds
such a line is left alone. A gitlink the map does not know stops the
stream with an error naming it.
"""
import sqlite3
import sys


def load(path):
    with open(path, "rb") as f:
        text = f.read()
    if text.startswith(b"SQLite format 3\0"):
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = db.execute("select lower(hex(sha1)), lower(hex(sha256)) from objects")
        return {a.encode(): b.encode() for a, b in rows}
    names = {}
    for line in text.splitlines():
        if line.strip():
            sha1, sha256 = line.split()
            names[sha1.lower()] = sha256.lower()
    return names


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fe_gitlinks.py MAP < fast-export stream")
    names = load(sys.argv[1])
    src, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        line = src.readline()
        if not line:
            break
        if line.startswith(b"data "):
            out.write(line)
            length = line[5:].strip()
            if length.startswith(b"<<"):
                # Delimited data: copied up to its delimiter line.
                end = length[2:] + b"\n"
                while True:
                    chunk = src.readline()
                    if not chunk:
                        sys.exit("fe_gitlinks.py: the stream ends inside a data block")
                    out.write(chunk)
                    if chunk == end:
                        break
                continue
            left = int(length)
            while left:
                chunk = src.read(min(left, 1 << 20))
                if not chunk:
                    sys.exit("fe_gitlinks.py: the stream ends inside a data block")
                out.write(chunk)
                left -= len(chunk)
            continue
        if line.startswith(b"M 160000 "):
            sha1, rest = line[9:].split(b" ", 1)
            if sha1.lower() not in names:
                sys.exit(f"fe_gitlinks.py: no SHA-256 name for gitlink {sha1.decode()}")
            line = b"M 160000 " + names[sha1.lower()] + b" " + rest
        out.write(line)


if __name__ == "__main__":
    main()
