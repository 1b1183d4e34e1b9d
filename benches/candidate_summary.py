#!/usr/bin/env python3
"""Sums up a `git-rehash convert --candidate-log FILE` log: where the bases
the window search chose came from.

    benches/candidate_summary.py FILE

The log has one line per delta the window search chose (see
src/convert/write/candidate_log.rs for the columns). Printed, each with the
number of deltas, the bytes they save (object size minus delta size, before
compression) and their compressed size:
  - by type and source: the base is SOURCE's delta base of the object
    (source), another object while SOURCE has a base (other; split by
    whether SOURCE's base was in the window when the object was searched),
    or SOURCE stores the object whole (none);
  - by type and name: the base has the object's name hash (same-name: the
    same path, with the default version 2 hash) or not;
  - by type and window position of the base (0 = the newest slot) in the
    buckets 0, 1, 2-3, 4-9, 10-49, 50-249, 250+, and "outside the chunk"
    (SOURCE's base, offered to the search from an earlier chunk).
"""
import csv
import sys
from collections import defaultdict

BUCKETS = [(0, 0), (1, 1), (2, 3), (4, 9), (10, 49), (50, 249), (250, None)]


def bucket(distance):
    if distance == "outside":
        return "outside the chunk"
    distance = int(distance)
    for low, high in BUCKETS:
        if high is None:
            return f"{low}+"
        if distance <= high:
            return f"{low}" if low == high else f"{low}-{high}"
    raise ValueError(distance)


def main(path):
    # (table, type, row) -> [deltas, bytes saved, compressed bytes]
    sums = defaultdict(lambda: [0, 0, 0])
    types = set()
    with open(path, newline="") as f:
        for line in csv.DictReader(f, delimiter="\t"):
            kind = line["type"]
            types.add(kind)
            saved = int(line["size"]) - int(line["delta"])
            zlib = int(line["delta_zlib"])
            source = line["base"]
            if source == "other":
                held = line["source_distance"] != "-"
                source += ", source base in window" if held else ", source base not in window"
            rows = [
                ("source", source),
                ("name", line["name"]),
                ("window position", bucket(line["distance"])),
            ]
            for table, row in rows:
                for k in (kind, "all"):
                    s = sums[(table, k, row)]
                    s[0] += 1
                    s[1] += saved
                    s[2] += zlib
    order = sorted(types) + ["all"]
    for table in ("source", "name", "window position"):
        print(f"## by {table}")
        print(f"{'type':<8} {table:<40} {'deltas':>9} {'share':>7} {'saved bytes':>14} {'zlib bytes':>12}")
        for kind in order:
            rows = sorted(r for (t, k, r) in sums if t == table and k == kind)
            if table == "window position":
                # Window positions in order, then the bases from outside.
                rows.sort(key=lambda r: int(r.split("-")[0].rstrip("+")) if r[0].isdigit() else 1 << 30)
            count = sum(sums[(table, kind, r)][0] for r in rows)
            for row in rows:
                n, saved, zlib = sums[(table, kind, row)]
                share = 100.0 * n / count if count else 0.0
                print(f"{kind:<8} {row:<40} {n:>9} {share:>6.1f}% {saved:>14} {zlib:>12}")
        print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
