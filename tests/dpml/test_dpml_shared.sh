#!/usr/bin/env bash
# allreduce/dpml as nonblocking and persistent operations where the selector shares node
# resources between communicators (test_dpml_shared.c, run with COLLSEL_FORCE naming a DPML
# variant and COLLSEL_NODE_SIZE from the ctest's environment): the program checks every result
# against MPI_Allreduce; here the COLLSEL_VERBOSE=3 log must show, on every rank, each of its
# 37 nonblocking allreduces and 3 persistent inits run by DPML, its 2 allreduces of BIG ints
# above the operations' window refused (native), its blocking allreduces run by DPML, and the
# last dup's operations on the node resources of its own that an earlier dup left (reused).
# Usage: test_dpml_shared.sh MPIEXEC NP COMMAND... (COMMAND: the program, or valgrind ... program)
set -u
MPIEXEC=${1:?}
NP=${2:?}
shift 2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
BIG_BYTES=$((600000 * 4)) # test_dpml_shared.c's BIG ints

COLLSEL_VERBOSE=3 "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$NP" "$@" \
    </dev/null >"$WORK/out" 2>"$WORK/err"
rc=$?
cat "$WORK/out"
count() { grep -E -c "$1" "$WORK/err"; }
ops=$(count "^collsel: iallreduce [0-9]+ bytes: allreduce/dpml\(")
inits=$(count "^collsel: allreduce_init [0-9]+ bytes: allreduce/dpml\(")
big=$(count "^collsel: (iallreduce|allreduce_init) $BIG_BYTES bytes: native ")
native=$(grep -E "^collsel: (iallreduce|allreduce_init) [0-9]+ bytes: native " "$WORK/err" |
    grep -v -c -F " $BIG_BYTES bytes: ")
blocking=$(count "^collsel: allreduce [0-9]+ bytes: allreduce/dpml\(")
reused=$(count "^collsel: operations' node resources of $NP ranks reused")
echo "logged: $ops nonblocking and $inits persistent DPML operations, $big refused above the" \
    "window, $native other native, $blocking blocking DPML calls; $reused node resources of" \
    "operations reused"
fail=0
if [ "$rc" != 0 ] || [ "$(tail -n 1 "$WORK/out")" != "0 failed" ]; then
    echo "FAIL: exit status $rc"
    grep -v "^collsel: " "$WORK/err" | head -n 20
    fail=1
fi
if [ "$ops" -ne $((37 * NP)) ] || [ "$inits" -ne $((3 * NP)) ] || [ "$big" -ne $((2 * NP)) ] ||
    [ "$native" -ne 0 ] || [ "$blocking" -eq 0 ] || [ "$reused" -lt "$NP" ]; then
    echo "FAIL: want $((37 * NP)) nonblocking and $((3 * NP)) persistent DPML operations," \
        "$((2 * NP)) refused, no other native, some blocking DPML calls, $NP reused"
    grep -E "^collsel: (iallreduce|allreduce_init) [0-9]+ bytes: native " "$WORK/err" | head -n 5
    fail=1
fi
exit $fail
