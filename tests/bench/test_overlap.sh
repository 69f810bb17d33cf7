#!/usr/bin/env bash
# bench.overlap_npN: tuning for overlap end to end (tests/bench/test_overlap_run.c).
#   1. cs_overlap_run_test run DB: a short collsel-bench run stores overlap rows and nonblocking
#      rules (checked by the program), then allreduce's rules are replaced by crafted ones that
#      differ: blocking allreduce/linear, nonblocking allreduce/recursive_doubling.
#   2. cs_overlap_run_test select DB with COLLSEL_VERBOSE=3: every rank logs its blocking call
#      running allreduce/linear and its nonblocking and persistent calls running
#      allreduce/recursive_doubling by the nonblocking rule, and rank 0 listing the nonblocking
#      rules of MPI_COMM_WORLD (COLLSEL_VERBOSE=2 and up); then, with the nonblocking rules
#      deleted, the nonblocking call runs allreduce/linear by the blocking rule.
# usage: test_overlap.sh EXE MPIEXEC NP SQLITE3
set -u
exe=$1 mpiexec=$2 np=$3 sqlite3=$4
dir=$(mktemp -d "${TMPDIR:-/tmp}/collsel-overlap-XXXXXX")
db=$dir/overlap.db
mpi=("$mpiexec" --allow-run-as-root --oversubscribe -np "$np")
fail() {
    echo "FAIL: $*"
    echo "kept $dir"
    exit 1
}
expect() { # expect LOG COUNT PATTERN: PATTERN on COUNT lines of LOG
    local n
    n=$(grep -cF -- "$3" "$1")
    [ "$n" = "$2" ] || fail "$(basename "$1"): '$3' on $n lines, want $2: $(cat "$1")"
}

"${mpi[@]}" "$exe" run "$db" || fail "cs_overlap_run_test run"
COLLSEL_DB=$db COLLSEL_VERBOSE=3 "${mpi[@]}" -x COLLSEL_DB -x COLLSEL_VERBOSE \
    "$exe" select "$db" >"$dir/select.out" 2>"$dir/select.log" ||
    fail "cs_overlap_run_test select: $(cat "$dir/select.out" "$dir/select.log")"
expect "$dir/select.log" "$np" "iallreduce 64 bytes: allreduce/recursive_doubling (nonblocking rule)"
expect "$dir/select.log" "$np" "allreduce_init 64 bytes: allreduce/recursive_doubling (nonblocking rule)"
expect "$dir/select.log" "$np" "allreduce 64 bytes: allreduce/linear"
# COLLSEL_VERBOSE=2 and up: rank 0 lists the communicator's nonblocking rules
expect "$dir/select.log" 1 "iallreduce, allreduce_init: nonblocking rules tuned at $np processes, $np per node: [0, inf) allreduce/recursive_doubling"

# Without nonblocking rules the nonblocking calls follow the blocking rules, as before them.
"$sqlite3" "$db" "DELETE FROM nb_rule" || fail "sqlite3 DELETE"
COLLSEL_DB=$db COLLSEL_VERBOSE=3 "${mpi[@]}" -x COLLSEL_DB -x COLLSEL_VERBOSE \
    "$exe" select-blocking "$db" >"$dir/blocking.out" 2>"$dir/blocking.log" ||
    fail "cs_overlap_run_test select-blocking: $(cat "$dir/blocking.out" "$dir/blocking.log")"
expect "$dir/blocking.log" "$np" "iallreduce 64 bytes: allreduce/linear (blocking rule, no nonblocking rules)"
expect "$dir/blocking.log" 0 "recursive_doubling"
expect "$dir/blocking.log" 0 "nonblocking rules tuned"
rm -rf "$dir"
echo "bench.overlap: passed"
