#!/usr/bin/env bash
# Pack size and time, side by side:
#   (a)  git-rehash convert SRC DEST                        size, wall time
#   (b1) git fast-export --all | git fast-import into a --object-format=sha256 repo
#   (b2) git repack -adf --window=250 --depth=50 of (b1)    size and time of each stage
#   (c)  git repack -adf --window=250 --depth=50 of (a)'s output: the reference size
#
# Usage: benches/pack_size.sh WORKDIR NAME=REPO...
#   REPO is a bare SHA-1 repository (never written to).
# Env: REHASH (binary, default target/release/git-rehash), STAGES (default "abc",
#      any subset), WINDOW/DEPTH (default 250/50, for git and git-rehash),
#      REHASH_ARGS (convert flags, default "--window $WINDOW --depth $DEPTH"),
#      LABEL (suffix naming this (a) variant in the table and its output dir),
#      CANDIDATE_LOG=1 (the (a) run also writes WORKDIR/NAME.aLABEL.candidates.tsv,
#      where each delta the window search chose found its base, and
#      benches/candidate_summary.py prints its summary; the pack is the same),
#      LOCK (default /tmp/rehash-bench.lock: every heavy command runs under
#      `flock $LOCK` so it never overlaps another benchmark),
#      GITLINK_MAP (a map for benches/fe_gitlinks.py, which renames the
#      gitlinks of the fast-export stream for (b1): fast-import refuses a
#      SHA-1 gitlink in a SHA-256 repository), FE_ARGS (more fast-export
#      options: git.git needs --tag-of-filtered-object=drop, as it has a tag
#      of a tree, which fast-export cannot export).
# Results: WORKDIR/results.tsv (one line per stage, appended), printed at the end.
# Keep WORKDIR outside the project (e.g. /tmp/...): it holds the outputs.
set -euo pipefail
work=$(realpath -m "$1"); shift
here=$(cd "$(dirname "$0")/.." && pwd)
rehash=${REHASH:-$here/target/release/git-rehash}
window=${WINDOW:-250}; depth=${DEPTH:-50}; stages=${STAGES:-abc}
rehash_args=${REHASH_ARGS---window $window --depth $depth}
label=${LABEL:-}
candidate_log=${CANDIDATE_LOG:-}
lock=${LOCK:-/tmp/rehash-bench.lock}
mkdir -p "$work"
results=$work/results.tsv
[ -f "$results" ] || printf 'corpus\tstage\tseconds\tpack_bytes\tobjects\tmax_rss_kb\n' >"$results"

packsize() { du -cb "$1"/objects/pack/*.pack | tail -1 | cut -f1; }
count() { git -C "$1" count-objects -v | awk '/^(count|in-pack):/ {s+=$2} END {print s}'; }
# timed FILE CMD...: runs CMD under the lock; FILE gets "seconds max_rss_kb".
timed() { local out=$1; shift; flock "$lock" /usr/bin/time -f '%e %M' -o "$out" "$@"; }
record() { # corpus stage timefile repo
    read -r secs rss <"$3"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$secs" "$(packsize "$4")" "$(count "$4")" "$rss" \
        | tee -a "$results"
}

for spec in "$@"; do
    name=${spec%%=*}; src=${spec#*=}
    echo "== $name: $src ($(count "$src") objects, $(packsize "$src") bytes packed)"
    a=$work/$name.a$label
    if [[ $stages == *a* ]]; then
        rm -rf "$a"
        log_args=()
        [ -n "$candidate_log" ] && log_args=(--candidate-log "$a.candidates.tsv")
        # shellcheck disable=SC2086
        timed "$work/time" "$rehash" convert --quiet $rehash_args "${log_args[@]}" "$src" "$a"
        record "$name" "a: git-rehash convert $rehash_args" "$work/time" "$a"
        [ -n "$candidate_log" ] && python3 "$here/benches/candidate_summary.py" "$a.candidates.tsv"
        git -C "$a" verify-pack -v "$a"/objects/pack/*.idx \
            | grep -E '^chain length|^non delta' >"$a.chains" || true
        tail -1 "$a.chains"
    fi
    if [[ $stages == *c* ]]; then
        # A copy, so that (a) stays as git-rehash wrote it.
        rm -rf "$work/$name.c"; cp -a "$a" "$work/$name.c"
        timed "$work/time" git -C "$work/$name.c" repack -q -adf --window="$window" --depth="$depth"
        record "$name" "c: repack -adf of (a)" "$work/time" "$work/$name.c"
    fi
    if [[ $stages == *b* ]]; then
        rm -rf "$work/$name.b"; git init -q --bare --object-format=sha256 "$work/$name.b"
        filter=cat
        [ -n "${GITLINK_MAP:-}" ] && filter="python3 $here/benches/fe_gitlinks.py $GITLINK_MAP"
        timed "$work/time" sh -c 'git -C "$1" fast-export --all --signed-tags=verbatim --reencode=no $4 \
            | $3 | git -C "$2" fast-import --quiet' - "$src" "$work/$name.b" "$filter" "${FE_ARGS:-}"
        record "$name" "b1: fast-export | fast-import" "$work/time" "$work/$name.b"
        timed "$work/time" git -C "$work/$name.b" repack -q -adf --window="$window" --depth="$depth"
        record "$name" "b2: repack -adf of (b1)" "$work/time" "$work/$name.b"
    fi
done
echo; column -t -s $'\t' "$results"
