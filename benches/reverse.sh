#!/usr/bin/env bash
# Both directions side by side, on one real corpus:
#
#   benches/reverse.sh REPO
#
# REPO is a bare SHA-1 repository (never written to). Once, into $BENCH_DIR:
#   sha256.git   `git-rehash convert REPO` (REHASH_ARGS): REPO's SHA-256 form,
#                the SOURCE of the reverse runs
#   deep.git     a bare clone of REPO repacked as `git repack -adf
#                --window=250 --depth=50`: the pack size to compare with
# Then REPEAT times, interleaved (each pair within the same minutes of the
# shared machine's load):
#   forward   git-rehash convert REPO OUT --quiet REHASH_ARGS
#   reverse   git-rehash convert sha256.git OUT --quiet REHASH_ARGS
# and prints the medians and ranges of wall time, CPU time and peak
# anonymous RSS (benches/measure.sh), the reverse/forward wall-time ratio
# pair by pair, the packs' sizes against deep.git's, and whether the
# reverse DEST holds REPO's objects and refs exactly (the round trip).
#
# Environment: BENCH_DIR (default /tmp/rehash-reverse; keep it outside the
# project), REPEAT (default 3), REHASH_ARGS (convert options for both
# directions, e.g. "--submodule-map /path/to/sha1dc.map" for git.git),
# JOBS (--jobs, default all cores).
set -euo pipefail

(($# == 1)) || { echo "usage: $0 REPO" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
repo=$(cd "$1" && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/rehash-reverse}
REPEAT=${REPEAT:-3}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$BENCH_DIR"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

(cd "$root" && cargo build --release --quiet)
rehash="${CARGO_TARGET_DIR:-$root/target}/release/git-rehash"
# shellcheck source=benches/measure.sh
source "$here/measure.sh"

packsize() { du -cb "$1"/objects/pack/*.pack | tail -1 | cut -f1; }
listing() { # what a round trip must give back: objects, then refs
    git -C "$1" cat-file --batch-all-objects --batch-check
    git -C "$1" for-each-ref --format='%(refname) %(objectname) %(*objectname)'
}

sha256=$BENCH_DIR/sha256.git
if [[ ! -f $sha256/.complete ]]; then
    rm -rf "$sha256"
    echo "converting $repo into $sha256" >&2
    # shellcheck disable=SC2086 # REHASH_ARGS is a list of options
    "$rehash" convert "$repo" "$sha256" --quiet ${REHASH_ARGS:-}
    touch "$sha256/.complete"
fi
deep=$BENCH_DIR/deep.git
if [[ ! -f $deep/.complete ]]; then
    rm -rf "$deep"
    echo "repacking a clone of $repo (--window=250 --depth=50)" >&2
    git clone -q --bare --no-local "$repo" "$deep"
    start=$(date +%s.%N)
    git -C "$deep" repack -adfq --window=250 --depth=50
    echo "deep repack: $(echo "$(date +%s.%N) - $start" | bc) s" >&2
    touch "$deep/.complete"
fi

results="$BENCH_DIR/results.$$"
: >"$results"
sizes="$BENCH_DIR/sizes.$$"
: >"$sizes"
out=$BENCH_DIR/out.git
round_trip=untested
for k in $(seq "$REPEAT"); do
    for direction in forward reverse; do
        case $direction in
            forward) src=$repo ;;
            reverse) src=$sha256 ;;
        esac
        rm -rf "$out"
        # shellcheck disable=SC2086 # as above
        run "$direction" "$rehash" convert "$src" "$out" --quiet --jobs "$JOBS" ${REHASH_ARGS:-}
        echo "$direction $(packsize "$out")" >>"$sizes"
        if [[ $direction == reverse && $k == 1 ]]; then
            if cmp -s <(listing "$out") <(listing "$repo"); then
                round_trip="REPO's objects and refs, exactly"
            else
                round_trip="DIFFERENT from REPO"
            fi
        fi
    done
done
rm -rf "$out"

count=$(git -C "$repo" cat-file --batch-all-objects --batch-check='%(objectname)' | wc -l)
echo
echo "== $repo: $count objects; REHASH_ARGS=${REHASH_ARGS:-}; --jobs $JOBS; $REPEAT pairs"
printf '%-8s %20s %20s %24s %8s\n' direction "wall_s med (range)" "cpu_s med (range)" "anon_MB med (range)" "B/obj"
for label in forward reverse; do
    stat() { # column -> "median (min-max)"
        local values
        values=$(awk -v l="$label" -v c="$1" -v d="$2" '$1 == l {print $c / d}' "$results")
        printf '%.2f (%.2f-%.2f)' "$(median <<<"$values")" \
            "$(sort -n <<<"$values" | head -1)" "$(sort -n <<<"$values" | tail -1)"
    }
    anon=$(awk -v l="$label" '$1 == l {print $5}' "$results" | median)
    printf '%-8s %20s %20s %24s %8.0f\n' "$label" "$(stat 2 1)" "$(stat 3 1)" "$(stat 5 1024)" \
        "$(echo "$anon * 1024 / $count" | bc -l)"
done
awk '$1 == "forward" { f[++nf] = $2 } $1 == "reverse" { r[++nr] = $2 }
    END {
        for (k = 1; k <= nf && k <= nr; k++) {
            x = r[k] / f[k]; line = line sprintf(" %.3f", x)
            if (k == 1 || x < lo) lo = x; if (k == 1 || x > hi) hi = x
        }
        printf "reverse / forward wall time, pair by pair:%s (range %.3f-%.3f)\n", line, lo, hi
    }' "$results"
deep_size=$(packsize "$deep")
for label in forward reverse; do
    size=$(awk -v l="$label" '$1 == l {print $2; exit}' "$sizes")
    printf '%-8s pack %12d bytes\n' "$label" "$size"
done
printf 'deep repack of REPO: %d bytes; reverse / deep repack: %.4f\n' "$deep_size" \
    "$(echo "$(awk '$1 == "reverse" {print $2; exit}' "$sizes") / $deep_size" | bc -l)"
echo "round trip (REPO -> SHA-256 -> SHA-1): $round_trip"
rm -f "$results" "$sizes"
