#!/usr/bin/env bash
# bench.overlap_neighbor_np4: tuning the neighbourhood collectives for overlap end to end
# (docs/nonblocking.md "Tuning for overlap"), at np 4:
#   1. collsel-bench --colls neighbor_alltoall,neighbor_allgather --patterns cart2d
#      --overlap only: overlap rows of both collectives on pattern cart2d (native, the MPI
#      library's MPI_Ineighbor_*, and linear), none without a pattern; nonblocking rules of both
#      with pattern cart2d at 4 processes; the pattern's signature stored (table pattern), which
#      the selector matches communicators against;
#   2. cs_overlap_neighbor_test (test_overlap_neighbor.c) with COLLSEL_VERBOSE=3 on a periodic
#      2D Cartesian communicator: every rank logs its ineighbor_alltoall and ineighbor_allgather
#      running by the nonblocking rule, rank 0 lists the communicator's nonblocking rules of
#      pattern cart2d (COLLSEL_VERBOSE=2 and up), collsel_explain names them, results correct;
#   3. collsel-report: the overlap section has a table and a plot per collective named by the
#      pattern.
# Nothing is timed against anything: the run is oversubscribed and short; whichever candidate
# wins, the calls go by the nonblocking rule.
# usage: test_overlap_neighbor.sh COLLSEL_BENCH COLLSEL_REPORT TEST_EXE MPIEXEC SQLITE3
set -u
bench=$1 report=$2 exe=$3 mpiexec=$4 sqlite3=$5
np=4
dir=$(mktemp -d "${TMPDIR:-/tmp}/collsel-overlap-neighbor-XXXXXX")
db=$dir/t.db
mpi=("$mpiexec" --allow-run-as-root --oversubscribe -np "$np")
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl=self,vader
export OMPI_MCA_topo=basic # see tests/bench/CMakeLists.txt, bench.patterns
unset COLLSEL_DB COLLSEL_DISABLE COLLSEL_FORCE COLLSEL_FALLBACK COLLSEL_VERBOSE LD_PRELOAD
fail() {
    echo "FAIL: $*"
    echo "kept $dir"
    exit 1
}
sql() { "$sqlite3" -batch "$db" "$1"; }
expect() { # expect LOG COUNT TEXT: TEXT on COUNT lines of LOG
    local n
    n=$(grep -cF -- "$3" "$1")
    [ "$n" = "$2" ] || fail "$(basename "$1"): '$3' on $n lines, want $2: $(cat "$1")"
}

"${mpi[@]}" "$bench" --db "$db" --colls neighbor_alltoall,neighbor_allgather --patterns cart2d \
    --algorithms neighbor_alltoall/linear,neighbor_allgather/linear --block-sizes 16 --sizes 4 \
    --comm-sizes "$np" --overlap only --budget 30s --quiet >"$dir/bench.log" 2>&1 ||
    fail "collsel-bench: $(tail -n 20 "$dir/bench.log")"
for c in neighbor_alltoall neighbor_allgather; do
    for a in native linear; do
        [ "$(sql "select count(*) from overlap where coll = '$c' and pattern = 'cart2d' and
            algorithm = '$c/$a' and comm_size = $np and bytes = 16")" = 1 ] ||
            fail "no overlap row of $c/$a on pattern cart2d: $(sql "select * from overlap")"
    done
    [ "$(sql "select count(*) from nb_rule where coll = '$c' and pattern = 'cart2d' and
        comm_size = $np and rank = 1")" -gt 0 ] ||
        fail "no nonblocking rule of $c on pattern cart2d: $(sql "select * from nb_rule")"
done
[ "$(sql "select count(*) from overlap where pattern = ''")" = 0 ] ||
    fail "overlap rows without a pattern"
[ "$(sql "select count(*) from nb_rule where pattern = ''")" = 0 ] ||
    fail "nonblocking rules without a pattern"
[ "$(sql "select count(*) from pattern where name = 'cart2d' and p = $np")" = 1 ] ||
    fail "the overlap pass stored no signature of cart2d at $np processes"
[ "$(sql "select count(*) from rule")" = 0 ] || fail "--overlap only stored blocking rules"

COLLSEL_DB=$db COLLSEL_VERBOSE=3 "${mpi[@]}" -x COLLSEL_DB -x COLLSEL_VERBOSE "$exe" \
    >"$dir/select.out" 2>"$dir/select.log" ||
    fail "cs_overlap_neighbor_test: $(cat "$dir/select.out" "$dir/select.log")"
expect "$dir/select.out" 1 "0 failed"
for c in neighbor_alltoall neighbor_allgather; do
    n=$(grep -F "i$c 16 bytes: " "$dir/select.log" | grep -cF "(nonblocking rule)")
    [ "$n" = "$np" ] || fail "i$c by the nonblocking rule on $n ranks, want $np: $(cat "$dir/select.log")"
    expect "$dir/select.log" 1 "i$c, ${c}_init: nonblocking rules tuned on pattern cart2d (signature distance 0.000) at $np processes"
done

"$report" "$db" --format png >"$dir/report.log" 2>&1 || fail "collsel-report: $(cat "$dir/report.log")"
html=$dir/t-report/index.html
for c in neighbor_alltoall neighbor_allgather; do
    grep -q "<h4>i$c on pattern cart2d on $np processes" "$html" ||
        fail "index.html has no overlap table for i$c on pattern cart2d"
    p=${c}_overlap_cart2d_np${np}_ppn${np}
    [ -s "$dir/t-report/$p.png" ] || fail "collsel-report drew no $p.png"
    grep -q "src=\"$p.png\"" "$html" || fail "index.html does not show $p.png"
done
rm -rf "$dir"
echo "bench.overlap_neighbor: passed"
