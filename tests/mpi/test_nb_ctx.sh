#!/usr/bin/env bash
# Which communicators collsel's nonblocking and persistent collectives serve
# (docs/nonblocking.md, "Which communicators are served"): cs_mpi_nb_ctx (test_nb_ctx.c) with
# libcollsel_pmpi preloaded, COLLSEL_VERBOSE=3, the log of every rank read here.
#
#   test_nb_ctx.sh MODE NP MPIEXEC PROGRAM LIBCOLLSEL_PMPI [CS_MAKE_RULES_DB]
#
# MODE served: COLLSEL_FORCE names allreduce/recursive_doubling, alltoall/pairwise and
#   allgather/ring; the program's only collectives through MPI_* are nonblocking and persistent,
#   on MPI_COMM_WORLD, a split half and a Cart_sub row. Every one of them must be logged as the
#   forced algorithm (none native), on every rank: MPI_Init made MPI_COMM_WORLD's context, the
#   constructors the others'.
# MODE loop: no database, default settings: a split-and-free loop of 40 short-lived halves (3
#   blocking allreduces and one nonblocking each) makes no context ("set up" lines: 0); with
#   COLLSEL_WARMUP=1 every half gets one (the count the first check relies on). With the
#   selector tests' rules (cs_make_rules_db: allreduce/recursive_doubling ranked first at the
#   loop's 148-byte iallreduce), only the first COLLSEL_WARMUP (8) halves get their context at
#   MPI_Comm_split, and their iallreduce, and only theirs, runs that rule's algorithm.
# MODE valgrind: MODE served's program under valgrind's memcheck (the path given as the last
#   argument instead of CS_MAKE_RULES_DB): every rank reports no error and no leak (the datatypes
#   an operation keeps are freed with it).
# MODE warm: no database: nonblocking calls count towards warm-up: on a duplicate with 6
#   nonblocking calls a blocking one makes no context, with 7 it is the 8th call and makes one.
set -u
mode=$1 np=$2 mpiexec=$3 prog=$4 pmpi=$5 make_db=${6:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

fail() {
    echo "test_nb_ctx $mode: $*" >&2
    failed=1
}

# run NAME [-x VAR=VALUE ...] -- ARGS...: the program preloaded at np $np; stdout and stderr
# (every rank's) in $work/NAME.out and .err; fails unless it passed.
run() {
    local name=$1
    shift
    local opts=()
    while [ "$1" != -- ]; do
        opts+=("$1")
        shift
    done
    shift
    "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$pmpi" \
        -x COLLSEL_VERBOSE=3 -x OMPI_MCA_mpi_yield_when_idle=1 -x OMPI_MCA_btl=self,vader \
        "${opts[@]}" "$prog" "$@" >"$work/$name.out" 2>"$work/$name.err"
    local rc=$?
    if [ $rc != 0 ] || ! grep -qx passed "$work/$name.out"; then
        fail "$name: exit $rc: $(cat "$work/$name.out") $(grep -v '^collsel: ' "$work/$name.err" | head -n 10)"
        return 1
    fi
}

# count NAME ERE: lines of $work/NAME.err matching ERE
count() {
    grep -c -E -- "$2" "$work/$1.err"
}

# the program's per-rank call count of $2 in run $1
calls() {
    sed -n -E "s/^calls .*$2=([0-9]+).*/\\1/p" "$work/$1.out"
}

# expect NAME WHAT GOT WANT
expect() {
    [ "$3" = "$4" ] || fail "$1: $2: $3 lines, want $4"
}

case $mode in
served)
    force='allreduce/recursive_doubling;alltoall/pairwise;allgather/ring'
    if run served -x COLLSEL_FORCE="$force" -- ; then
        for what in iallreduce:allreduce/recursive_doubling ialltoall:alltoall/pairwise \
            allreduce_init:allreduce/recursive_doubling allgather_init:allgather/ring; do
            call=${what%%:*} alg=${what#*:}
            n=$(calls served "$call")
            [ -n "$n" ] && [ "$n" -gt 0 ] || fail "served: no count of $call printed"
            expect served "$call by $alg (forced)" \
                "$(count served "^collsel: $call [0-9]+ bytes: $alg(\\(.*\\))? \\(forced\\)$")" \
                $((n * np))
            expect served "$call native" "$(count served "^collsel: $call [0-9]+ bytes: native")" 0
        done
    fi
    ;;
loop)
    if run loop -- --loop 40; then
        expect loop "contexts made by default" "$(count loop ' set up \(context')" 0
        expect loop "nonblocking calls collsel ran" "$(count loop '^collsel: iallreduce')" 0
    fi
    if run loop1 -x COLLSEL_WARMUP=1 -- --loop 40; then
        expect loop1 "contexts made with COLLSEL_WARMUP=1" \
            "$(count loop1 'of [0-9]+ processes set up \(context')" $((40 * np))
    fi
    if [ -n "$make_db" ]; then
        "$make_db" "$work/rules.db" >"$work/make_db.log" 2>&1 || fail "cs_make_rules_db failed"
        if run loopdb -x COLLSEL_DB="$work/rules.db" -- --loop 40; then
            half=$((np / 2))
            expect loopdb "halves set up" \
                "$(count loopdb "of $half processes set up \\(context")" $((8 * np))
            expect loopdb "iallreduces by the rule" \
                "$(count loopdb '^collsel: iallreduce 148 bytes: allreduce/recursive_doubling')" \
                $((8 * np))
        fi
    fi
    ;;
valgrind)
    vg=$make_db
    "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" -x OMPI_MCA_mpi_yield_when_idle=1 \
        -x OMPI_MCA_btl=self,vader \
        -x COLLSEL_FORCE='allreduce/recursive_doubling;alltoall/pairwise;allgather/ring' \
        "$vg" --trace-children=yes --leak-check=full --errors-for-leak-kinds=definite \
        --num-callers=30 --suppressions="$(dirname "$0")/valgrind.supp" -- \
        env LD_PRELOAD="$pmpi" "$prog" >"$work/vg.out" 2>"$work/vg.err"
    rc=$?
    [ $rc = 0 ] && grep -qx passed "$work/vg.out" || fail "exit $rc: $(tail -n 20 "$work/vg.err")"
    expect valgrind "clean memcheck summaries" \
        "$(count vg 'ERROR SUMMARY: 0 errors')" "$np"
    expect valgrind "leaks" "$(count vg 'definitely lost: [1-9]')" 0
    ;;
warm)
    if run warm -- --warm; then
        expect warm "contexts made" "$(count warm "a communicator of $np processes set up")" "$np"
    fi
    ;;
*)
    fail "unknown mode"
    ;;
esac
[ $failed = 0 ] && echo "test_nb_ctx $mode: passed"
exit $failed
