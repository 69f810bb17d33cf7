#!/usr/bin/env bash
# DPML variants forced through COLLSEL_FORCE into an unmodified program: cs_mpi_test preloaded
# with libcollsel_pmpi, so its reference MPI_Allreduce calls are dispatched to the forced DPML
# variant, and compared with allreduce/native (PMPI_Allreduce) on every case of the MPI test.
# COLLSEL_FALLBACK=error turns a variant that refuses to run into a failure, and the
# COLLSEL_VERBOSE=3 log must show the forced variant and no other allreduce algorithm.
# Usage: test_dpml_force.sh MPIEXEC CS_MPI_TEST LIBCOLLSEL_PMPI
set -u
MPIEXEC=${1:?}
MPI_TEST=${2:?}
PMPI=${3:?}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0

# np, COLLSEL_NODE_SIZE ("-" for the real node), forced variant (its full key, as logged)
cases=(
    "4 2 allreduce/dpml(inter=native,leaders=2,segments=4)"
    "6 3 allreduce/dpml(inter=native,leaders=3,segments=2)"
    "7 3 allreduce/dpml(inter=native,leaders=1,segments=8)"
    "8 4 allreduce/dpml(inter=native,leaders=4,segments=8)"
    "8 4 allreduce/dpml(inter=native,leaders=2,segments=1)"
    "7 3 allreduce/dpml(inter=recursive_doubling,leaders=1,segments=4)"
    "8 2 allreduce/dpml(inter=recursive_doubling,leaders=2,segments=4)"
    "6 2 allreduce/dpml(inter=reduce_bcast,leaders=1,segments=2)"
    "5 - allreduce/dpml(inter=native,leaders=5,segments=1)"
    "8 - allreduce/dpml(inter=native,leaders=2,segments=1)"
)
for c in "${cases[@]}"; do
    read -r np k alg <<<"$c"
    env=(-x LD_PRELOAD="$PMPI" -x COLLSEL_FORCE="$alg" -x COLLSEL_FALLBACK=error
        -x COLLSEL_VERBOSE=3)
    if [ "$k" != - ]; then
        env+=(-x COLLSEL_NODE_SIZE="$k")
    fi
    echo "== np $np node size $k: COLLSEL_FORCE=$alg"
    "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$np" "${env[@]}" "$MPI_TEST" \
        --only allreduce/native </dev/null >"$WORK/out" 2>"$WORK/err"
    rc=$?
    last=$(tail -n 1 "$WORK/out")
    forced=$(grep -c -F " bytes: $alg (forced)" "$WORK/err")
    other=$(grep -F " bytes: allreduce/" "$WORK/err" | grep -v -c -F " bytes: $alg (forced)")
    if [ "$rc" != 0 ] || ! [[ "$last" =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
        echo "FAIL: exit status $rc, last line '$last'"
        grep -v -F " bytes: " "$WORK/err" | head -n 10
        failures=$((failures + 1))
    elif [ "$forced" -eq 0 ] || [ "$other" -ne 0 ]; then
        echo "FAIL: $forced forced calls logged, $other other allreduce calls"
        failures=$((failures + 1))
    else
        echo "ok: $last ($forced forced calls logged)"
    fi
done
[ "$failures" -eq 0 ] || { echo "$failures of ${#cases[@]} forced runs failed"; exit 1; }
echo "${#cases[@]} forced runs passed"
