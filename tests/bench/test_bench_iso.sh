#!/usr/bin/env bash
# collsel-bench-iso (bench/bench_iso.c) at np 2: its output has every line of the table, and a
# bad option is refused. No timing is checked, only that the lines are there and well formed:
#
#   a. --reps 3 --sizes 1,64 (alltoall, 2D Moore r = 1 on 2x1): exit 0; two 'setup' lines;
#      an 'init' line per size and iso candidate; a 'time' line per size and candidate (five
#      iso ones and MPI_Neighbor, whose ratio is 1), numbers where numbers belong, D and V of
#      the schedules (straightforward D = V = s = 8; torus and direct D = 4, V = 12);
#   b. the same for allgather on a 3D torus 2x1x1 (s = 26: torus and direct D = 6, V = 26);
#   c. bad options (--dims that do not multiply to np, an unknown collective): exit status 2.
#
# Usage: test_bench_iso.sh COLLSEL_BENCH_ISO [MPIEXEC]
set -u

BENCH=${1:?usage: test_bench_iso.sh COLLSEL_BENCH_ISO [MPIEXEC]}
MPIEXEC=${2:-mpirun}
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl=self,vader
failed=0

fail() {
    echo "FAIL: $*" >&2
    failed=1
}

NUM='[0-9]+(\.[0-9]+)?'

# check OUTPUT COLLECTIVE SIZES S D_COMBINED V_COMBINED
check() {
    local out=$1 coll=$2 sizes=$3 s=$4 d=$5 v=$6
    grep -q "^# collsel-bench-iso: neighbor_$coll, np 2, .*(s=$s)" <<<"$out" ||
        fail "$coll: no header line naming neighbor_$coll and s=$s"
    for f in MPI_Dist_graph_create_adjacent collsel_iso_neighborhood_create; do
        [[ $(grep -cE "^setup $f $NUM\$" <<<"$out") == 1 ]] || fail "$coll: no 'setup $f' line"
    done
    for b in ${sizes//,/ }; do
        for c in straightforward torus/packed torus/zerocopy direct/packed direct/zerocopy; do
            [[ $(grep -cE "^init $b $c $NUM $NUM\$" <<<"$out") == 1 ]] ||
                fail "$coll: no 'init $b $c' line"
        done
        [[ $(grep -cE "^time $b straightforward $NUM $NUM $NUM $NUM $s $s\$" <<<"$out") == 1 ]] ||
            fail "$coll: no 'time $b straightforward' line with D = V = $s"
        for c in torus/packed torus/zerocopy direct/packed direct/zerocopy; do
            [[ $(grep -cE "^time $b $c $NUM $NUM $NUM $NUM $d $v\$" <<<"$out") == 1 ]] ||
                fail "$coll: no 'time $b $c' line with D = $d, V = $v"
        done
        [[ $(grep -cE "^time $b MPI_Neighbor $NUM $NUM $NUM 1\.000 - -\$" <<<"$out") == 1 ]] ||
            fail "$coll: no 'time $b MPI_Neighbor' line with ratio 1"
    done
    local lines
    lines=$(grep -cvE '^#' <<<"$out")
    [[ $lines == $((2 + 11 * $(wc -w <<<"${sizes//,/ }"))) ]] ||
        fail "$coll: $lines table lines, expected 2 + 11 per size"
}

echo "== a. alltoall, 2D Moore r = 1"
out=$("$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$BENCH" --reps 3 --sizes 1,64)
rc=$?
echo "$out"
[[ $rc == 0 ]] || fail "alltoall: exit status $rc"
check "$out" alltoall 1,64 8 4 12

echo "== b. allgather, 3D Moore r = 1 on 2x1x1"
out=$("$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$BENCH" --reps 3 --sizes 1,64 \
    --collective allgather --dims 2x1x1)
rc=$?
echo "$out"
[[ $rc == 0 ]] || fail "allgather: exit status $rc"
check "$out" allgather 1,64 26 6 26

echo "== c. bad options"
for bad in "--dims 3x1" "--collective reduce" "--sizes 0"; do
    # shellcheck disable=SC2086 # the option and its value are two words
    "$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$BENCH" $bad >/dev/null 2>&1
    rc=$?
    [[ $rc == 2 ]] || fail "'$bad': exit status $rc, expected 2"
done

[[ $failed == 0 ]] && echo "PASS"
exit $failed
