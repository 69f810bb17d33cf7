#!/usr/bin/env bash
# allreduce/dpml as nonblocking and persistent operations where the selector shares node
# resources between communicators (test_dpml_shared.c, run with COLLSEL_FORCE naming a DPML
# variant and COLLSEL_NODE_SIZE from the ctest's environment): the program checks every result
# against MPI_Allreduce; here the COLLSEL_VERBOSE=3 log must show, on every rank, each of its
# 37 nonblocking allreduces and 3 persistent inits run by DPML, its 2 allreduces of BIG ints
# above the operations' window refused (native), its blocking allreduces run by DPML, and the
# last dup's operations on the node resources of its own that an earlier dup left (reused).
# With --rules, the program runs under a rules database instead of COLLSEL_FORCE (unset here):
# cs_make_rules_db's rules with allreduce's replaced by allreduce/dpml(leaders=1) ranked first
# below 65536 bytes and native above; the log must show the operations' window made ahead for
# calls of up to 65535 bytes (COLLSEL_NODE_SIZE regions of 64 KiB on each side), not larger, a
# nonblocking allreduce of 65532 bytes and a persistent one of 148 bytes run by DPML and one of
# 65536 bytes native by the rules.
# Usage: test_dpml_shared.sh MPIEXEC NP COMMAND... (COMMAND: the program, or valgrind ... program)
#        test_dpml_shared.sh --rules SQLITE3 CS_MAKE_RULES_DB MPIEXEC NP PROGRAM
set -u
RULES=0
if [ "${1:-}" = --rules ]; then
    RULES=1
    SQLITE=${2:?}
    MAKE_DB=${3:?}
    shift 3
fi
MPIEXEC=${1:?}
NP=${2:?}
shift 2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
BIG_BYTES=$((600000 * 4)) # test_dpml_shared.c's BIG ints

if [ "$RULES" = 1 ]; then
    unset COLLSEL_FORCE
    "$MAKE_DB" --comm-sizes "$NP" "$WORK/rules.db" >/dev/null || { echo "FAIL: no database"; exit 1; }
    "$SQLITE" "$WORK/rules.db" "
        CREATE TEMP TABLE layout AS SELECT DISTINCT machine_id, comm_size, ppn FROM rule;
        DELETE FROM rule WHERE coll = 'allreduce';
        INSERT INTO rule (machine_id, coll, comm_size, ppn, lo_bytes, hi_bytes, rank, algorithm,
                          params)
            SELECT machine_id, 'allreduce', comm_size, ppn, 0, 65536, 1, 'allreduce/dpml',
                   'inter=native,leaders=1,segments=1' FROM layout
            UNION ALL SELECT machine_id, 'allreduce', comm_size, ppn, 0, 65536, 2,
                             'allreduce/native', '' FROM layout
            UNION ALL SELECT machine_id, 'allreduce', comm_size, ppn, 65536, NULL, 1,
                             'allreduce/native', '' FROM layout;" ||
        { echo "FAIL: cannot write the rules"; exit 1; }
    COLLSEL_DB="$WORK/rules.db" COLLSEL_VERBOSE=3 "$MPIEXEC" --allow-run-as-root --oversubscribe \
        -np "$NP" "$@" --rules </dev/null >"$WORK/out" 2>"$WORK/err"
    rc=$?
    cat "$WORK/out"
    half=$((${COLLSEL_NODE_SIZE:?} * 65536))
    below=$(grep -c -E "^collsel: iallreduce 65532 bytes: allreduce/dpml\(" "$WORK/err")
    init=$(grep -c -E "^collsel: allreduce_init 148 bytes: allreduce/dpml\(" "$WORK/err")
    above=$(grep -c -E "^collsel: iallreduce 65536 bytes: native " "$WORK/err")
    window=$(grep -E "^collsel: allreduce/dpml\(.*\): nonblocking and persistent calls" "$WORK/err")
    echo "logged: $below DPML at 65532 bytes, $init persistent, $above native at 65536; $window"
    if [ "$rc" != 0 ] || [ "$(tail -n 1 "$WORK/out")" != "0 failed" ] || [ "$below" -ne "$NP" ] ||
        [ "$init" -ne "$NP" ] || [ "$above" -ne "$NP" ] ||
        [ "$window" != "collsel: allreduce/dpml(inter=native,leaders=1,segments=1): nonblocking and persistent calls on their own node resources, window of $half bytes on each side made ahead" ]; then
        echo "FAIL: exit status $rc; want $NP of each and a window of $half bytes on each side"
        grep -v "^collsel: " "$WORK/err" | head -n 20
        exit 1
    fi
    exit 0
fi

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
