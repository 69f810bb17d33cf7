#!/usr/bin/env bash
# The default plan (no --comm-sizes, docs/tuning.md "Communicator sizes") end to end at np 4,
# on a tiny plan (allreduce and bcast at 8 B and 1 KiB, --budget 15s):
#
#   a. --list names the communicator sizes 2 and 4 with their processes per node, points, share
#      of the budget and estimate, and no other size;
#   b. a run on one node stores measurements and rules for (allreduce, bcast) x (size 2, ppn 2)
#      and (size 4, ppn 4), nothing else, and its summary line "time per communicator size:"
#      names both sizes with as many points as the database holds for each (measured and
#      confirmed);
#   c. with two emulated nodes (COLLSEL_NODE_SIZE=3: ranks 0-2 and 3) the plan adds one node
#      (3): sizes 2, 3, 4 with the processes per node the sub-communicators really have (2, 3
#      and 3), in the measurements, the rules and the summary.
#
# No timing is checked. Usage: test_default_plan.sh COLLSEL_BENCH [MPIEXEC] [SQLITE3]
set -u

BENCH=${1:?usage: test_default_plan.sh COLLSEL_BENCH [MPIEXEC] [SQLITE3]}
MPIEXEC=${2:-mpirun}
SQLITE=${3:-sqlite3}
PLAN=(--colls allreduce,bcast --sizes 8,1K --budget 15s)

export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl=self,vader

WORK=$(mktemp -d "${TMPDIR:-/tmp}/collsel-default-plan-XXXXXX") || {
    echo "FAIL: cannot make a work directory" >&2
    exit 1
}
KEEP=0
cleanup() {
    if [ "$KEEP" = 1 ]; then
        echo "work directory kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    KEEP=1
    exit 1
}

bench() {
    "$MPIEXEC" --allow-run-as-root --oversubscribe -x COLLSEL_NODE_SIZE -np 4 "$BENCH" "$@"
}

sql() {
    "$SQLITE" -batch -readonly "$1" "$2"
}

# check_run DB LOG LAYOUT: the sizes and ppn of LAYOUT ("2:2 4:4") are exactly those measured
# and ruled, for both collectives, and the summary line names each with its points.
check_run() {
    local db=$1 log=$2 layout=$3 got want pair n ppn points line
    want=$(tr ' ' '\n' <<<"$layout" | sed 's/:/|/')
    got=$(sql "$db" "select distinct comm_size, ppn from measurement order by comm_size")
    [ "$got" = "$want" ] || fail "$db: measured (comm_size|ppn) '$got', want '$want'"
    for coll in allreduce bcast; do
        got=$(sql "$db" "select distinct comm_size, ppn from rule where coll = '$coll' and
                         rank = 1 order by comm_size")
        [ "$got" = "$want" ] || fail "$db: $coll rules for (comm_size|ppn) '$got', want '$want'"
    done
    line=$(grep "^collsel-bench: time per communicator size:" "$log") ||
        fail "no 'time per communicator size' line in $log: $(cat "$log")"
    for pair in $layout; do
        n=${pair%:*}
        ppn=${pair#*:}
        points=$(sql "$db" "select (select count(distinct coll || ':' || bytes) from measurement
                                    where comm_size = $n) +
                                   (select count(distinct coll || ':' || bytes || ':' || round)
                                    from confirmation where comm_size = $n)")
        grep -Eq "[ ,]np=$n ppn=$ppn [0-9hms]+ \($points points\)" <<<"$line" ||
            fail "summary '$line' lacks 'np=$n ppn=$ppn ... ($points points)'"
    done
    [ "$(grep -o 'np=' <<<"$line" | wc -l)" = "$(wc -w <<<"$layout")" ] ||
        fail "summary '$line' names other sizes than $layout"
}

echo "--- a. --list"
unset COLLSEL_NODE_SIZE
out=$(bench --list "${PLAN[@]}" 2>&1) || fail "--list failed: $out"
grep -q "^communicator sizes (default plan" <<<"$out" || fail "--list: no default plan: $out"
for pair in 2:2 4:4; do
    grep -Eq "^  np=${pair%:*} +ppn=${pair#*:} +[0-9]+ points .* [0-9.]+ % of the measurement pass +about " \
        <<<"$out" || fail "--list: no line for np=${pair%:*} ppn=${pair#*:}: $out"
done
[ "$(grep -Ec '^  np=[0-9]+ ' <<<"$out")" = 2 ] || fail "--list: other sizes than 2 and 4: $out"

echo "--- b. one node"
bench --db "$WORK/a.db" "${PLAN[@]}" >"$WORK/a.out" 2>"$WORK/a.log" ||
    fail "the run failed: $(cat "$WORK/a.log")"
check_run "$WORK/a.db" "$WORK/a.log" "2:2 4:4"

echo "--- c. two emulated nodes of 3 and 1"
export COLLSEL_NODE_SIZE=3
bench --db "$WORK/b.db" "${PLAN[@]}" >"$WORK/b.out" 2>"$WORK/b.log" ||
    fail "the run failed: $(cat "$WORK/b.log")"
check_run "$WORK/b.db" "$WORK/b.log" "2:2 3:3 4:3"
echo "passed"
