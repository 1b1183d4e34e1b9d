#!/usr/bin/env python3
"""What an interruption costs: kill a conversion at a share of its run, resume it.

    benches/resume_bound.py SOURCE [--at 20,50,80,95] [--repeat N]
                            [--kill-by wall|cpu] [-- CONVERT OPTIONS...]

SOURCE is a bare SHA-1 repository, or a size such as 500k: the corpus
benches/run.sh generates (benches/gen_linux_like.py, seed 1) into
$BENCH_DIR/linux-like-<size>.git, made here the same way if it is not there.

First it converts SOURCE uninterrupted (--repeat times, 1 by default; the
median wall time is the run's length T). Then, for each share x of --at, it
starts the same conversion into a new DEST, sends it SIGKILL once x * T has
passed (--kill-by cpu: once the process has used x of the uninterrupted
run's CPU time, which a shared machine's load disturbs less), counts what
the kill lost, runs the same command again and reports:

  kill_s      when the kill was sent (wall seconds, or CPU seconds with cpu)
  resume_s    the resumed run's wall time, and /T its share of T
  bound       1 - x + 0.1 (the goal, not counting the run's start-up)
  cpu_s       the resumed run's CPU time (user + sys), and its share of
              the uninterrupted run's
  start_cpu   of that, the CPU time of its phases before it writes objects
              (listing, reading the map, the scan's checkpoint, the checks
              of SOURCE's packs, planning): the start-up the goal leaves out
  extra_cpu   with --kill-by cpu: cpu_s less start_cpu less what the
              uninterrupted run had left at the kill (its CPU time less
              kill_s): the work the kill cost, lost or done again
  converted   the objects the resumed run wrote (its --json
              objects_converted), and earlier: those it took from the
              killed run (objects_already_converted)
  lost        the objects the killed run had written that the resumed run
              writes again: the count its progress bar last showed (the
              killed run's stderr is a terminal; the bar is redrawn every
              200 ms) less those the resumed run took from it; lost_s the
              seconds of writing that is at the uninterrupted run's rate
  same        whether the pack (its name is its checksum), the .bitmap,
              the commit-graph and `map --export` are byte for byte the
              uninterrupted run's, and whether converted + earlier (+ the
              shared pool's, + those a ref selection left out) adds up to
              the objects listed

Each line also shows the load average (1 min) when the resumed run ended:
on a shared machine compare CPU times as well as wall times.

Environment: BENCH_DIR (scratch, default /tmp/rehash-bench), REHASH_BIN
(the git-rehash to run; default: built with cargo build --release, in
$CARGO_TARGET_DIR or target/).
"""

import argparse
import hashlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BENCH_DIR = Path(os.environ.get("BENCH_DIR", "/tmp/rehash-bench"))
TICKS = os.sysconf("SC_CLK_TCK")


def rehash_bin():
    if "REHASH_BIN" in os.environ:
        return os.environ["REHASH_BIN"]
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return str(target / "release" / "git-rehash")


def corpus(spec):
    """A bare repository: SOURCE itself, or the generated corpus of a size."""
    if Path(spec).is_dir():
        return Path(spec).resolve()
    size = spec.lower()
    n = int(size[:-1]) * {"k": 1000, "m": 1000000}[size[-1]] if size[-1] in "km" else int(size)
    repo = BENCH_DIR / f"linux-like-{spec}.git"
    if not (repo / ".complete").exists():
        subprocess.run(["rm", "-rf", str(repo)], check=True)
        subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
        print(f"generating {repo} (~{n} objects)", file=sys.stderr)
        gen = subprocess.Popen(
            [sys.executable, str(HERE / "gen_linux_like.py"), "--objects", str(n), "--seed", "1"],
            stdout=subprocess.PIPE,
        )
        subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], stdin=gen.stdout, check=True)
        if gen.wait() != 0:
            sys.exit("the corpus generator failed")
        (repo / ".complete").touch()
    return repo


def cpu_of(pid):
    """CPU seconds (user + sys) process `pid` has used so far, threads included."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def run(cmd, kill_after=None, kill_by="wall"):
    """Runs `cmd`; returns (wall s, cpu s, exit status, stdout, when it was
    killed, objects written by then). With `kill_after`, sends SIGKILL once
    that many wall (or CPU) seconds passed; its stderr is then a terminal,
    so that its progress bar says how many objects it had written."""
    start = time.monotonic()
    master = None
    if kill_after is None:
        stderr = subprocess.DEVNULL
    else:
        master, stderr = os.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=stderr)
    written = [0]
    if master is not None:
        os.close(stderr)
        threading.Thread(target=follow_progress, args=(master, written), daemon=True).start()
    killed_at = None
    ended = None
    if kill_after is not None:
        while ended is None:
            now = time.monotonic() - start if kill_by == "wall" else cpu_of(proc.pid)
            if now >= kill_after:
                proc.send_signal(signal.SIGKILL)
                killed_at = now
                break
            time.sleep(0.02)
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid != 0:
                ended = (status, usage)
    out = proc.stdout.read()
    if ended is None:
        _, status, usage = os.wait4(proc.pid, 0)
        ended = (status, usage)
    proc.returncode = ended[0]
    wall = time.monotonic() - start
    status, usage = ended
    return wall, usage.ru_utime + usage.ru_stime, status, out, killed_at, written[0]


PROGRESS = re.compile(rb"writing objects \[[^]]*\] ([0-9,]+)/")


def follow_progress(master, written):
    """Reads a run's terminal until it closes, keeping in `written[0]` the
    last count of objects written its progress bar showed (redrawn every
    200 ms, after every chunk appended)."""
    tail = b""
    while True:
        try:
            data = os.read(master, 1 << 16)
        except OSError:
            break
        if not data:
            break
        tail = (tail + data)[-4096:]
        for match in PROGRESS.finditer(tail):
            written[0] = int(match.group(1).replace(b",", b""))
    os.close(master)


def digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


def artifacts(rehash, dest):
    """What must be byte-identical: the pack's name, the bitmap, the
    commit-graph and the exported map."""
    pack_dir = dest / "objects" / "pack"
    packs = sorted(p.stem for p in pack_dir.glob("pack-*.pack"))
    bitmaps = sorted(pack_dir.glob("pack-*.bitmap"))
    graph = dest / "objects" / "info" / "commit-graph"
    export = subprocess.run(
        [rehash, "map", "--repo", str(dest), "--export"], capture_output=True, check=True
    ).stdout
    return {
        "pack": ",".join(packs),
        "bitmap": digest(b"".join(p.read_bytes() for p in bitmaps)),
        "graph": digest(graph.read_bytes()) if graph.exists() else "-",
        "map": digest(export),
    }


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source")
    parser.add_argument("--at", default="20,50,80,95")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--kill-by", choices=["wall", "cpu"], default="wall")
    # What follows `--` goes to git-rehash convert as it is (argparse would
    # take it for this script's options when they come after SOURCE).
    argv = sys.argv[1:]
    options = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    args.options = options
    rehash = rehash_bin()
    source = corpus(args.source)
    scratch = BENCH_DIR / "resume-bound"
    scratch.mkdir(parents=True, exist_ok=True)
    convert = lambda dest: [rehash, "convert", str(source), str(dest), "--quiet", "--json", *args.options]

    walls, cpus, reference = [], [], None
    for _ in range(args.repeat):
        dest = scratch / "whole.git"
        subprocess.run(["rm", "-rf", str(dest)], check=True)
        wall, cpu, status, out, _, _ = run(convert(dest))
        if status != 0:
            sys.exit(f"the uninterrupted conversion failed ({status})")
        report = json.loads(out)
        walls.append(wall)
        cpus.append(cpu)
        got = artifacts(rehash, dest)
        if reference is not None and got != reference:
            sys.exit("two uninterrupted conversions differ")
        reference = got
    result = report["result"]
    writing = next(p for p in report["phases"] if p["phase"] == "writing objects")
    rate = result["objects_converted"] / max(writing["wall_seconds"], 1e-3)
    whole, whole_cpu = statistics.median(walls), statistics.median(cpus)
    print(f"== {source}: {result['objects_listed']} objects; options {' '.join(args.options) or '(none)'}")
    phases = ", ".join(f"{p['phase']} {p['cpu_seconds']:.1f}" for p in report["phases"])
    print(
        f"uninterrupted: {whole:.1f} s wall (runs: {', '.join(f'{w:.1f}' for w in walls)}), "
        f"{whole_cpu:.1f} s CPU; writing {writing['wall_seconds']:.1f} s, {rate:.0f} objects/s; "
        f"pack {reference['pack']}\n  CPU s by phase (last run): {phases}"
    )
    unit = "s" if args.kill_by == "wall" else "s CPU"
    print(
        f"{'x':>4} {'kill_' + unit:>10} {'resume_s':>9} {'/T':>5} {'bound':>5} {'cpu_s':>7} {'/cpu':>5} "
        f"{'start_cpu':>9} {'extra_cpu':>9} {'converted':>9} {'earlier':>8} {'lost':>7} {'lost_s':>6} {'load':>5}  same (pack bitmap graph map sum)  pack"
    )
    for x in [int(a) for a in args.at.split(",")]:
        dest = scratch / f"killed-{x}.git"
        subprocess.run(["rm", "-rf", str(dest)], check=True)
        length = whole if args.kill_by == "wall" else whole_cpu
        killed = [a for a in convert(dest) if a != "--quiet"]
        _, _, status, _, killed_at, written = run(killed, kill_after=x / 100 * length, kill_by=args.kill_by)
        if killed_at is None:
            print(f"{x:>4} the run ended before the kill ({status})")
            continue
        wall, cpu, status, out, _, _ = run(convert(dest))
        if status != 0:
            print(f"{x:>4} the resumed run failed ({status})")
            continue
        report = json.loads(out)
        resumed = report["result"]
        start = 0.0
        for phase in report["phases"]:
            if phase["phase"] == "writing objects":
                break
            start += phase["cpu_seconds"]
        extra = f"{cpu - start - (whole_cpu - killed_at):>9.1f}" if args.kill_by == "cpu" else f"{'-':>9}"
        got = artifacts(rehash, dest)
        lost = max(written - resumed["objects_already_converted"], 0)
        listed = resumed["objects_listed"]
        adds_up = (
            resumed["objects_converted"]
            + resumed["objects_already_converted"]
            + resumed["objects_in_shared_pool"]
            + resumed["objects_left_out"]
            == listed
        )
        same = " ".join(
            "yes" if ok else "NO"
            for ok in [got[k] == reference[k] for k in ("pack", "bitmap", "graph", "map")] + [adds_up]
        )
        print(
            f"{x:>4} {killed_at:>10.1f} {wall:>9.1f} {wall / whole:>5.2f} {1 - x / 100 + 0.1:>5.2f} "
            f"{cpu:>7.1f} {cpu / whole_cpu:>5.2f} {start:>9.1f} {extra} {resumed['objects_converted']:>9} "
            f"{resumed['objects_already_converted']:>8} {lost:>7} {lost / rate:>6.1f} {load():>5}  "
            f"{same:<32} {got['pack']}"
        )


if __name__ == "__main__":
    main()
