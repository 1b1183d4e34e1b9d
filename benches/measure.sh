#!/usr/bin/env bash
# Sourced by the benchmarks: runs a command under /usr/bin/time while
# sampling the peak anonymous RSS of its process tree, and the median of a
# column. Callers set BENCH_DIR (scratch), results (the file `run` appends
# to) and src (the repository whose packs each run reads first, to start
# on a warm page cache).

# The sampler below forks nothing (bash builtins reading /proc), so it does
# not steal time from what it measures: an earlier one that forked awk every
# 100 ms cost a few percent of a 2-core run.
exec {tick}<> <(:) # a pipe nobody writes: `read -t` on it is a fork-free sleep

descendants() { # PID -> PID and all its descendants, into the array `tree`
    tree+=("$1")
    local kids=() c t
    for t in /proc/"$1"/task/*/children; do
        read -r -a c 2>/dev/null <"$t" || true
        kids+=("${c[@]}")
    done
    for c in "${kids[@]}"; do descendants "$c"; done
}

# run LABEL CMD... : runs CMD under /usr/bin/time, sampling the largest
# anonymous RSS of any process in its tree; appends "label wall cpu
# maxrss_kb maxanon_kb steal_s".
run() {
    local label=$1
    shift
    local tf="$BENCH_DIR/time.$$"
    # Each run starts with no dirty pages of an earlier one: their writeback
    # (a conversion writes as much as it reads) otherwise lands in the next
    # run's time (git.git's index-pack: 15.1-15.4 s after a sync, 19.5-20.0 s
    # right after a conversion).
    sync
    # And each starts with the source's packs in the page cache: this VM
    # pages out file pages nobody touched for a minute (DAMON reclaim), so
    # a run after another corpus's (or a conversion that wrote 5 GB) read
    # its input from disk by page faults (2200k's scan: 113 s at 0.46
    # cores, waiting on reads), and the run measured the disk.
    # (The .idx files too: they are read first, by page faults.)
    cat "$src"/objects/pack/*.pack "$src"/objects/pack/*.idx >/dev/null
    local steal_before
    steal_before=$(steal_ticks)
    /usr/bin/time -f "%e %U %S %M" -o "$tf" "$@" &
    local pid=$! peak=0
    while [[ -e /proc/$pid ]] && [[ ! -s $tf ]]; do
        local tree=() p k v
        descendants "$pid"
        for p in "${tree[@]}"; do
            while read -r k v _; do
                if [[ $k == RssAnon: ]]; then
                    ((v > peak)) && peak=$v
                    break
                fi
            done 2>/dev/null <"/proc/$p/status" || true
        done
        read -r -t 0.1 -u "$tick" || true
    done
    wait "$pid" || {
        echo "$label failed" >&2
        return 1
    }
    # The figures are time's last line (a note such as "Command exited
    # with non-zero status" may come first); a sample that does not parse
    # is reported and left out rather than counted as zero in a median.
    read -r wall user sys maxrss < <(tail -n 1 "$tf")
    local number='^[0-9]+([.][0-9]+)?$'
    if ! [[ $wall =~ $number && $user =~ $number && $sys =~ $number && $maxrss =~ $number ]]; then
        echo "$label: unreadable timing, sample skipped: $(tr '\n' ' ' <"$tf")" >&2
        rm -f "$tf"
        return 0
    fi
    rm -f "$tf"
    local steal
    steal=$(($(steal_ticks) - steal_before))
    echo "$label $wall $(echo "$user + $sys" | bc) $maxrss $peak $(echo "scale=2; $steal / $clock_ticks" | bc)" >>"$results"
}

clock_ticks=$(getconf CLK_TCK)
steal_ticks() { # the machine's CPU steal so far, in clock ticks (/proc/stat)
    local label user nice system idle iowait irq softirq steal
    read -r label user nice system idle iowait irq softirq steal _ </proc/stat
    echo "${steal:-0}"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
