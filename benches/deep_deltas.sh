#!/usr/bin/env bash
# The default conversion's deep delta search against git's deep repack, on
# one real or generated corpus, side by side:
#   (a) git-rehash convert with its default options: wall, CPU, peak
#       anonymous memory (benches/run.sh, REPEAT runs) and pack size, with
#       the candidate log's summary (where the winning bases were found);
#   (b) git fast-export | git fast-import into a SHA-256 repository, then
#       git repack -adf --window=250 --depth=50: size and time of each stage;
#   (c) the same repack of (a)'s DEST: the reference size and time;
#   (d) git index-pack --verify of the source pack (benches/run.sh).
#
# Usage: benches/deep_deltas.sh WORKDIR NAME=REPO [convert options...]
#   REPO is a bare SHA-1 repository (never written to); the options are
#   the ones it needs (e.g. --submodule-map FILE for git.git).
# Env: REPEAT (default 3) for (a) and (d); STAGES (default "bc") for the
#      stages of benches/pack_size.sh; the results of earlier runs in
#      WORKDIR/results.tsv are reused for stages left out (a repack of a
#      large corpus takes many minutes).
# Keep WORKDIR outside the project: it holds the outputs.
set -euo pipefail
work=$(realpath -m "$1")
spec=$2
shift 2
name=${spec%%=*}
src=${spec#*=}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"

# (a) and (d), interleaved, REPEAT times.
JOBS=$(nproc) SKIP_FE=1 REPEAT=${REPEAT:-3} REHASH_ARGS="$*" BENCH_DIR="$work/run" \
    "$here/run.sh" "$src" | tee "$work/$name.run.txt"

# (a)'s pack and candidate log, then (b) and (c).
CANDIDATE_LOG=1 STAGES="a${STAGES-bc}" REHASH_ARGS="$*" \
    "$here/pack_size.sh" "$work" "$name=$src" | tee "$work/$name.size.txt"

# The ratios the goals are stated in, from results.tsv (the newest line
# of each stage).
awk -F'\t' -v n="$name" '
    $1 == n { stage = substr($2, 1, 2); secs[stage] = $3; bytes[stage] = $4 }
    END {
        if (!("a:" in bytes) || !("c:" in bytes)) exit
        printf "\n%s: (a) pack %d bytes = %.4fx (c) %d\n", n, bytes["a:"], bytes["a:"] / bytes["c:"], bytes["c:"]
        printf "%s: (a) wall %.2f s (one run, with the candidate log) = %.3fx (c) repack %.2f s\n", n, secs["a:"], secs["a:"] / secs["c:"], secs["c:"]
        if ("b1" in secs && "b2" in secs)
            printf "%s: (b) %.2f s + %.2f s, pack %d bytes: %.1fx (a) wall\n", n, secs["b1"], secs["b2"], bytes["b2"], (secs["b1"] + secs["b2"]) / secs["a:"]
    }' "$work/results.tsv"
echo "(a)'s medians and ratios to (d) are in $work/$name.run.txt"
