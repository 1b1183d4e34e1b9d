#!/usr/bin/env bash
# The cost and the result of the finish step (one pack, its bitmap, the
# commit-graph) on one repository, against git's own tools on the same input.
#
#   benches/finish.sh SOURCE [convert options...]
#
# SOURCE is a bare SHA-1 repository (a fetched pack: `git init --bare` and
# `git fetch` of its branches and tags from a full copy). It runs
# `git-rehash convert --timings` REPEAT times into a fresh DEST and prints,
# per run, the whole wall time, the fold into one pack (checking the
# segments, then everything from listing their entries to the renames), the bitmap and
# commit-graph (their own elapsed time: they run beside the refs and the
# map's index, so the share counts them as if they did not), and the
# finish step's share; then the median share, DEST's pack size against
# SOURCE's, and `git count-objects -v` of DEST. With DEEP=1 it also times
# `git repack -adf --window=250 --depth=50` of a copy of DEST (the size a
# deep repack reaches, and what it costs).
#
# Environment: BENCH_DIR (scratch, default /tmp/rehash-finish), REPEAT (3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source=$(cd "$1" && pwd); shift
BENCH_DIR=${BENCH_DIR:-/tmp/rehash-finish}
REPEAT=${REPEAT:-3}
mkdir -p "$BENCH_DIR"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
(cd "$root" && cargo build --release --quiet)
rehash="$root/target/release/git-rehash"
dest="$BENCH_DIR/dest.git"

phase() { # phase name, timings file -> wall seconds (0 when absent)
    awk -v p="$1" 'index($0, p) == 1 { n = split($0, f, " "); print f[n - 2]; found = 1 }
                   END { if (!found) print 0 }' "$2"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-4s %8s %7s %9s %7s %7s\n' run whole fold reach finish share
for r in $(seq "$REPEAT"); do
    rm -rf "$dest"
    "$rehash" convert --timings "$@" "$source" "$dest" 2> "$BENCH_DIR/timings.$r"
    whole=$(phase "whole run" "$BENCH_DIR/timings.$r")
    # The fold: checking the segments' indexes, then the one pack written
    # (listing, copying, hashing, syncing, its .idx and .rev).
    fold=$(echo "$(phase "checking segments" "$BENCH_DIR/timings.$r") + $(phase "writing one pack" "$BENCH_DIR/timings.$r")" | bc -l)
    reach=$(sed -n 's/^reachability bitmap: .* in \([0-9.]*\)s$/\1/p' "$BENCH_DIR/timings.$r")
    finish=$(echo "$fold + ${reach:-0}" | bc -l)
    share=$(echo "100 * $finish / $whole" | bc -l)
    printf '%-4s %8.2f %7.2f %9.2f %7.2f %6.1f%%\n' "$r" "$whole" "$fold" "${reach:-0}" "$finish" "$share" \
        | tee -a "$BENCH_DIR/rows"
done
echo "median share of the finish step: $(tail -n "$REPEAT" "$BENCH_DIR/rows" | awk '{ print $6 }' | tr -d % | median)%" \
    "(range $(tail -n "$REPEAT" "$BENCH_DIR/rows" | awk '{ print $6 }' | tr -d % | sort -n | sed -n '1p;$p' | paste -sd-)%)"
src_size=$(du -cb "$source"/objects/pack/*.pack | tail -1 | cut -f1)
dest_size=$(du -cb "$dest"/objects/pack/*.pack | tail -1 | cut -f1)
echo "SOURCE packs: $src_size bytes; DEST pack: $dest_size bytes ($(echo "scale=3; $dest_size / $src_size" | bc)x)"
git -C "$dest" count-objects -v | grep -E '^(in-pack|packs|size-pack):' | paste -sd' '
if [[ ${DEEP:-0} = 1 ]]; then
    rm -rf "$BENCH_DIR/deep.git" && cp -r "$dest" "$BENCH_DIR/deep.git"
    /usr/bin/time -f 'git repack -adf --window=250 --depth=50 of DEST: %e s wall, %U s user' \
        git -C "$BENCH_DIR/deep.git" repack -adf --window=250 --depth=50 -q
    deep=$(du -cb "$BENCH_DIR/deep.git"/objects/pack/*.pack | tail -1 | cut -f1)
    echo "deep repack of DEST: $deep bytes; DEST / deep = $(echo "scale=3; $dest_size / $deep" | bc)x"
fi
