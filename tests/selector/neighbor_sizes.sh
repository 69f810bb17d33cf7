#!/bin/bash
# neighbor_allgather and neighbor_alltoall with block sizes that differ between ranks
# (docs/neighbor.md, "What MPI allows"; cs_sel_neighbor_sizes says which calls), at NP processes:
#   - every neighbor_allgather/* and neighbor_alltoall/* algorithm of the registry (and balanced
#     at t=0) forced with COLLSEL_FORCE, then the rules of cs_make_rules_db --size-patterns
#     (another algorithm below 8, 16 and 64 bytes and above): the calls MPI allows, compared with
#     MPI_Neighbor_*, must pass;
#   - at 3 or more processes, the same for a call MPI forbids (rank 0's receive blocks smaller
#     than its neighbours' send blocks): the job must stop through the communicator's error
#     handler, called with MPI_ERR_TRUNCATE as for the MPI library's own call.
# Every run is under a timeout: ranks that chose differently hang, which fails the test.
#
# Usage: neighbor_sizes.sh NP MPIEXEC CS_MAKE_RULES_DB CS_SEL_NEIGHBOR_SIZES ALGORITHM_NAMES
set -u

NP=${1:?usage: neighbor_sizes.sh NP MPIEXEC MAKE_DB NEIGHBOR_SIZES ALGORITHM_NAMES}
MPIEXEC=${2:?}
MAKE_DB=${3:?}
SIZES=${4:?}
NAMES=${5:?}
LIMIT=${LIMIT:-60}

unset COLLSEL_DB COLLSEL_DISABLE COLLSEL_FORCE COLLSEL_FALLBACK COLLSEL_VERBOSE COLLSEL_NODE_SIZE \
    COLLSEL_WARMUP
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl=self,vader
export OMPI_MCA_topo=${OMPI_MCA_topo:-basic}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/collsel-nbrsizes-XXXXXX") || exit 1
trap 'status=$?; if [ $status = 0 ]; then rm -rf "$WORK"; else echo "work directory kept: $WORK" >&2; fi' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# run NAME MODE MPIRUN-ARGS...: sets RC (124: timed out).
run() {
    local name=$1 mode=$2
    shift 2
    timeout -k 10 "$LIMIT" "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$NP" "$@" \
        "$SIZES" "$mode" </dev/null >"$WORK/$name.out" 2>"$WORK/$name.err"
    RC=$?
}

"$MAKE_DB" --size-patterns --comm-sizes "$NP" "$WORK/rules.db" || fail "cs_make_rules_db failed"

settings=()
while read -r alg; do
    case $alg in
    neighbor_allgather/* | neighbor_alltoall/*) settings+=("COLLSEL_FORCE=$alg") ;;
    esac
done <"$NAMES"
settings+=("COLLSEL_FORCE=neighbor_allgather/balanced(t=0)"
    "COLLSEL_FORCE=neighbor_alltoall/balanced(t=0)" "COLLSEL_DB=$WORK/rules.db")
[ ${#settings[@]} -gt 3 ] || fail "no neighbourhood algorithm in $NAMES"

n=0
for setting in "${settings[@]}"; do
    n=$((n + 1))
    run "legal$n" legal -x "$setting"
    last=$(tail -n 1 "$WORK/legal$n.out")
    [ "$RC" != 124 ] || fail "$setting: the calls MPI allows hang (${LIMIT} s)"
    if [ "$RC" != 0 ] || ! [[ "$last" =~ ^[1-9][0-9]*\ checks,\ 0\ failed$ ]]; then
        head -n 20 "$WORK/legal$n.err" >&2
        fail "$setting: the calls MPI allows: exit status $RC, last line '$last'"
    fi
    echo "$setting: $last"
    if [ "$NP" -ge 3 ]; then
        run "erroneous$n" erroneous -x "$setting"
        [ "$RC" != 124 ] || fail "$setting: the call MPI forbids hangs (${LIMIT} s)"
        if [ "$RC" = 0 ] || ! grep -q "error handler called with MPI_ERR_TRUNCATE" "$WORK/erroneous$n.err"; then
            head -n 20 "$WORK/erroneous$n.err" >&2
            fail "$setting: the call MPI forbids: exit status $RC, no MPI_ERR_TRUNCATE"
        fi
        echo "$setting: the call MPI forbids calls the error handler with MPI_ERR_TRUNCATE"
    fi
done
echo "passed"
