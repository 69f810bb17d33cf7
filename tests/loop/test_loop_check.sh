#!/usr/bin/env bash
# Usage: test_loop_check.sh SOURCE_DIR BUILD_DIR COLLSEL_BENCH MPIEXEC
set -uo pipefail
src=$1 build=$2 bench=$3 mpiexec=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$bench" --db "$work/t.db" \
    --colls bcast,allreduce --sizes 4,64 --budget 5s --quiet >/dev/null || fail "tuning run"

out=$("$src/scripts/loop-check" --db "$work/t.db" --np 2 --pairs 2 --build "$build" \
      --out "$work/r.txt" -- --colls bcast,allreduce --max 64 --iters 5 2>"$work/err") ||
    { cat "$work/err" >&2; fail "loop-check exited $?"; }
echo "$out"
for c in allreduce bcast; do
    # geomean, faster/sizes, slower, plain's spread, sizes beyond it, the worst size
    echo "$out" |
        grep -Eq "^$c +[0-9.]+ +[0-9]+/5 +[0-9]+ +[0-9.]+ +[0-9]+ +[0-9.]+ at [0-9]+ B \(spread [0-9.]+\)$" ||
        fail "no summary line for $c"
done
# 2 collectives x sizes 4..64 (5 powers of two), each with two positive medians, their ratio and
# plain's spread (odd against even plain runs: at least 1). The ratio comes from the unrounded
# medians and the medians are printed to 0.001 us, so it is checked to 1 % of itself (an absolute
# tolerance failed a 14x ratio of sub-microsecond medians on rounding alone).
n=$(awk '!/^#/ && NF == 6 && $3 > 0 && $4 > 0 && ($5 - $4 / $3) ^ 2 < 1e-4 * $5 ^ 2 && $6 >= 1' \
    "$work/r.txt" | wc -l)
[[ $n -eq 10 ]] || { cat "$work/r.txt" >&2; fail "$n per-size lines in --out, want 10"; }
grep -q "warning" "$work/err" && { cat "$work/err" >&2; fail "the preloaded run warned"; }

# refusals: each exits 2 and names the bad value
"$src/scripts/loop-check" --db "$work/none.db" --build "$build" 2>"$work/err" && fail "missing db accepted"
grep -q "none.db" "$work/err" || fail "missing db: message does not name it"
"$src/scripts/loop-check" --db "$work/t.db" --pairs x --build "$build" 2>"$work/err" && fail "--pairs x accepted"
grep -q "'x'" "$work/err" || fail "--pairs x: message does not name the value"
"$src/scripts/loop-check" --bogus 2>"$work/err" && fail "unknown option accepted"
grep -q "bogus" "$work/err" || fail "unknown option: message does not name it"
echo "loop-check: ok"
